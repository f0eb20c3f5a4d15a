/* SPDX-License-Identifier: BSD-3-Clause */
/* files.c -- file ids: absolute path, exclusions, and the id -> path list.
 *
 * Only open-family (and path-taking metadata) wrappers come here, never data
 * calls.  A path is made absolute against a cached cwd (refreshed by the
 * chdir/fchdir wrappers, never by getcwd per call), normalised lexically
 * ("." / ".." / "//"), checked against the FTIO_EXCLUDE prefixes, and hashed
 * (common/hash.h).  The first time an id is seen it is pushed on a lock-free
 * list; the flusher sends every entry once per process ({id, path} in the
 * batch's "files", with the file system it lives on, mounts.c), and a forked
 * child re-sends the whole list since the daemon sees it as a new process.  Entries are never freed (one per distinct
 * file, bounded by what the program opens).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hash.h"
#include "internal.h"
#include "wire.h"

struct file_node {
    struct file_node *next;
    uint32_t          id;
    int               fs_known;  /* fs looked up (flusher) */
    const char       *fs;        /* its file system (mounts.c), NULL: unknown */
    char              path[];
};

struct cwd_node {            /* old values stay reachable: readers may hold them */
    struct cwd_node *prev;
    size_t           len;
    char             path[];
};

#define KNOWN_BITS 16
#define KNOWN_SIZE (1u << KNOWN_BITS)
#define KNOWN_PROBES 64

static struct {
    _Atomic(struct cwd_node *)  cwd;
    _Atomic(struct file_node *) head;        /* newest first */
    struct file_node           *sent;        /* flusher: newest delivered entry */
} files FTIO_WARM;
static _Atomic uint32_t known[KNOWN_SIZE];   /* ids seen (a table of 256 KB: not with the above) */
/* The first ids seen, before `known`: a process that opens a few files
 * touches no page of that table (each id hashes to a page of its own: a
 * page fault each, bench/README.md "exit latency"). */
#define FIRST_IDS 8
static _Atomic uint32_t first_ids[FIRST_IDS] FTIO_WARM;

/* The first working directory (the constructor's) without malloc: a
 * process that records nothing then allocates nothing (the first malloc
 * makes the heap: system calls and a page). */
static union {
    struct cwd_node node;
    char room[sizeof(struct cwd_node) + 128];   /* (a longer one: malloc) */
} first_cwd FTIO_WARM;

void ftio_files_refresh_cwd(void)
{
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf))
        return;
    size_t len = strlen(buf);
    struct cwd_node *n = !atomic_load(&files.cwd) && sizeof *n + len + 1 <= sizeof first_cwd
                             ? &first_cwd.node : malloc(sizeof *n + len + 1);
    if (!n)
        return;
    memcpy(n->path, buf, len + 1);
    n->len = len;
    n->prev = atomic_load(&files.cwd);
    atomic_store_explicit(&files.cwd, n, memory_order_release);
}

void ftio_files_init(void)
{
    ftio_files_refresh_cwd();
}

/* Lexical normalisation of an absolute path, in place: drop "." and empty
 * components, resolve ".." against the previous component.  The output is
 * never longer than the input, so writing behind the reader is safe as long
 * as each component's end is read before anything is written over it. */
static void normalise(char *p)
{
    char *out = p + 1;
    const char *in = p + 1;
    while (*in) {
        const char *end = strchr(in, '/');
        size_t len = end ? (size_t)(end - in) : strlen(in);
        const char *next = end ? end + 1 : in + len;
        if (len == 0 || (len == 1 && in[0] == '.')) {
            /* skip */
        } else if (len == 2 && in[0] == '.' && in[1] == '.') {
            if (out > p + 1) {
                out--;                          /* the '/' after the last kept component */
                while (out > p + 1 && out[-1] != '/')
                    out--;
            }
        } else {
            memmove(out, in, len);
            out += len;
            if (end)                            /* in + len is '/', already consumed */
                *out++ = '/';
        }
        in = next;
    }
    if (out > p + 1 && out[-1] == '/')
        out--;
    *out = '\0';
}

static int excluded(const char *abs)
{
    for (size_t i = 0; i < ftio_cfg.nexclude; i++) {
        size_t len = ftio_cfg.exclude_len[i];
        if (strncmp(abs, ftio_cfg.exclude[i], len) == 0 && (abs[len] == '/' || abs[len] == '\0'))
            return 1;
        if (len == 1)                           /* "/" excludes everything */
            return 1;
    }
    return 0;
}

/* Is *slot id, or made id now (0: it was empty)?  1 yes, 0 it holds another. */
static int claim(_Atomic uint32_t *slot, uint32_t id, int *seen)
{
    uint32_t cur = atomic_load_explicit(slot, memory_order_relaxed);
    if (cur == 0) {
        uint32_t expect = 0;
        if (atomic_compare_exchange_strong(slot, &expect, id)) {
            *seen = 0;
            return 1;
        }
        cur = expect;
    }
    *seen = 1;
    return cur == id;
}

/* Has this id been seen before?  Marks it seen.  Every id's probe sequence
 * is first_ids[] in order, then `known` from its hash: two threads marking
 * one id meet at the same first empty slot. */
static int seen_before(uint32_t id)
{
    int seen;
    for (int k = 0; k < FIRST_IDS; k++)
        if (claim(&first_ids[k], id, &seen))
            return seen;
    uint32_t i = (id * 2654435761u) >> (32 - KNOWN_BITS);
    for (int probe = 0; probe < KNOWN_PROBES; probe++, i = (i + 1) & (KNOWN_SIZE - 1)) {
        uint32_t cur = atomic_load_explicit(&known[i], memory_order_relaxed);
        if (cur == id)
            return 1;
        if (cur == 0) {
            uint32_t expect = 0;
            if (atomic_compare_exchange_strong(&known[i], &expect, id))
                return 0;
            if (expect == id)
                return 1;
        }
    }
    return 0;   /* table crowded: sending the entry again is harmless */
}

static uint32_t register_abs(char *abs)
{
    normalise(abs);
    if (excluded(abs))
        return 0;
    uint32_t id = ftio_path_hash(abs);
    if (id < FTIO_FID_MIN)
        id += FTIO_FID_MIN;          /* 0 and 1 say "unknown", "not a file" (internal.h) */
    if (seen_before(id))
        return id;
    size_t len = strlen(abs);
    struct file_node *n = malloc(sizeof *n + len + 1);
    if (!n)
        return id;   /* traced, but its name can't be sent */
    n->id = id;
    n->fs_known = 0;
    n->fs = NULL;
    memcpy(n->path, abs, len + 1);
    n->next = atomic_load_explicit(&files.head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&files.head, &n->next, n, memory_order_release,
                                                  memory_order_relaxed))
        ;
    return id;
}

static uint32_t register_joined(const char *dir, size_t dlen, const char *path)
{
    char abs[2 * PATH_MAX + 2];
    size_t plen = strlen(path);
    if (dlen + plen + 2 > sizeof abs)
        return 0;
    memcpy(abs, dir, dlen);
    abs[dlen] = '/';
    memcpy(abs + dlen + 1, path, plen + 1);
    return register_abs(abs);
}

uint32_t ftio_file_register(const char *path)
{
    if (!path || !*path)
        return 0;
    int saved = errno;
    uint32_t id;
    if (path[0] == '/') {
        id = register_joined("", 0, path);
    } else {
        struct cwd_node *c = atomic_load_explicit(&files.cwd, memory_order_acquire);
        id = c ? register_joined(c->path, c->len, path) : 0;
    }
    errno = saved;
    return id;
}

uint32_t ftio_file_register_at(int dirfd, const char *path)
{
    if (!path || !*path)
        return 0;
    if (path[0] == '/' || dirfd == AT_FDCWD)
        return ftio_file_register(path);
    int saved = errno;
    char link[64], dir[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, dir, sizeof dir - 1);
    uint32_t id = n > 0 && dir[0] == '/' ? register_joined(dir, (size_t)n, path) : 0;
    errno = saved;
    return id;
}

size_t ftio_files_pending(struct ftio_file_entry *out, size_t max, void **token)
{
    struct file_node *head = atomic_load_explicit(&files.head, memory_order_acquire);
    size_t n = 0;
    for (struct file_node *f = head; f && f != files.sent && n < max; f = f->next) {
        /* Its file system, looked up here, off the application's path; once
         * (a forked child sends the list again with what is known). */
        if (!f->fs_known) {
            f->fs = ftio_mount_of(f->path);
            f->fs_known = 1;
        }
        out[n].id = f->id;
        out[n].path = f->path;
        out[n].fs = f->fs;
        n++;
    }
    if (n == max)
        ftio_log("more than %zu new files in one batch; some names are not sent", max);
    *token = head;
    return n;
}

void ftio_files_commit(void *token)
{
    files.sent = token;
}

void ftio_files_after_fork_child(void)
{
    files.sent = NULL;
}
