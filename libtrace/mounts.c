/* SPDX-License-Identifier: BSD-3-Clause */
/* mounts.c -- which file system a traced file lives on, as "TYPE:MOUNTPOINT"
 * ("ext4:/", "tmpfs:/dev/shm", "lustre:/lus/grand"): the third element of a
 * batch's `files` entry (PROTOCOL.md §1), for ftiod's per-file-system view.
 *
 * Flusher thread only, once per file (files.c asks when it sends a file's
 * entry), never on the application's path.  /proc/self/mountinfo is read
 * once and its text kept; a file is matched by its device (stat's st_dev
 * against the mounts' major:minor; of bind mounts of one device, the longest
 * mount point that prefixes the path), else by the longest mount point that
 * prefixes its path (a file already deleted).  A device no mount has (mounted
 * since) makes the table be read again, at most once a second.
 *
 * The text is scanned at each lookup (a few dozen lines; a process looks up
 * a few files) and only the name chosen is kept: a short process's first
 * batch does not allocate (no malloc arena for the flusher thread: bench/
 * README.md "exit latency"), the text and the names live in static buffers
 * (the text in a heap buffer only past TEXT_STATIC, a name past NAMES_STATIC).
 *
 * Where the kernel has statmount(2) (Linux 6.8), a file's mount is asked of
 * it instead: statx's unique mount id, then that one mount's type and point
 * (two system calls, the second once per mount: the last few are
 * remembered).  Generating all of /proc/self/mountinfo cost a short process
 * ~80 us and four system calls on its exit path (bench/README.md "exit
 * latency"); the table is read only for what statmount does not answer: a
 * deleted file, a FUSE mount (its "fuse.SUBTYPE" is mountinfo's), an older
 * kernel.  The mount is the one the path resolves through, so a path whose
 * symbolic link leads to another file system gets that file system's name
 * (the table's prefix match gave the link's).
 *
 * The names handed out are kept for good (files.c holds them in its file
 * entries, and sends them again: the next batch when one could not be sent,
 * every entry in a fork child): a name read again is the one already handed
 * out (one copy per distinct "TYPE:MOUNTPOINT" the process ever saw).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "internal.h"
#include "timeutil.h"

#define TEXT_STATIC  16384   /* mountinfo text kept without malloc (~80 bytes a mount) */
#define NAMES_STATIC 2048    /* "TYPE:POINT" names kept without malloc */
#define FIELD_MAX    4096    /* a mount point or type, unescaped */

/* A name beyond the static pool: a list of heap copies, never freed. */
struct heap_name {
    struct heap_name *next;
    char name[];
};

static struct {
    char   *text;            /* the table as read: text_static or a heap buffer */
    size_t  len;
    int64_t read_ns;
    char    text_static[TEXT_STATIC];
    size_t  pool_used;
    struct heap_name *heap;
    char    pool[NAMES_STATIC];   /* names handed out, one after the other */
} mt FTIO_FLUSHER_STATE;

/* mountinfo escapes space, tab, newline and backslash as \ooo: field [s, e)
 * unescaped into out (NUL-terminated); its length, or -1 when too long. */
static long unescape(const char *s, const char *e, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = s; p < e; p++) {
        if (o + 1 >= cap)
            return -1;
        if (e - p >= 4 && p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            out[o++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
    return (long)o;
}

/* "TYPE:POINT", the copy kept (made on first sight), or NULL. */
static const char *intern(const char *type, const char *point)
{
    size_t tl = strlen(type), pl = strlen(point), need = tl + 1 + pl + 1;
    for (size_t at = 0; at < mt.pool_used; at += strlen(mt.pool + at) + 1) {
        const char *n = mt.pool + at;
        if (strncmp(n, type, tl) == 0 && n[tl] == ':' && strcmp(n + tl + 1, point) == 0)
            return n;
    }
    for (struct heap_name *h = mt.heap; h; h = h->next)
        if (strncmp(h->name, type, tl) == 0 && h->name[tl] == ':' && strcmp(h->name + tl + 1, point) == 0)
            return h->name;
    char *name;
    if (need <= sizeof mt.pool - mt.pool_used) {
        name = mt.pool + mt.pool_used;
        mt.pool_used += need;
    } else {
        struct heap_name *h = malloc(sizeof *h + need);
        if (!h)
            return NULL;
        h->next = mt.heap;
        mt.heap = h;
        name = h->name;
    }
    memcpy(name, type, tl);
    name[tl] = ':';
    memcpy(name + tl + 1, point, pl + 1);
    return name;
}

static void read_mounts(void)
{
    mt.read_ns = ftio_mono_ns();
    if (mt.text != mt.text_static)
        free(mt.text);
    mt.text = mt.text_static;
    mt.len = 0;
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t cap = sizeof mt.text_static;
    for (ssize_t r;; mt.len += (size_t)r) {
        if (mt.len + 1 >= cap) {          /* a big table: on the heap */
            char *b = malloc(cap * 2);
            if (!b)
                break;
            memcpy(b, mt.text, mt.len);
            if (mt.text != mt.text_static)
                free(mt.text);
            mt.text = b;
            cap *= 2;
        }
        r = read(fd, mt.text + mt.len, cap - mt.len - 1);
        if (r <= 0)
            break;
    }
    close(fd);
    mt.text[mt.len] = '\0';
}

/* "MAJ:MIN" at s, by hand (sscanf's code is pages of libc a short
 * process's flusher would fault in for it).  1 with *dev, else 0. */
static int parse_dev(const char *s, dev_t *dev)
{
    unsigned long v[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            v[k] = v[k] * 10 + (unsigned long)(*s++ - '0');
        if (k == 0 && *s++ != ':')
            return 0;
    }
    *dev = makedev(v[0], v[1]);
    return *s == ' ';
}

/* Does mount point p (length n) hold path? */
static int holds(const char *p, size_t n, const char *path)
{
    return strncmp(path, p, n) == 0 && (path[n] == '/' || path[n] == '\0' || (n == 1 && p[0] == '/'));
}

/* The mount that holds path (on device *dev, unless dev is NULL): of
 * several, the longest point, and the later line at equal length (it mounts
 * over the earlier).  Each line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS
 * [OPTIONAL...] - TYPE SOURCE ...". */
static const char *best(const char *path, const dev_t *dev)
{
    char point[FIELD_MAX], type[256], best_point[FIELD_MAX], best_type[256];
    long best_len = -1;
    for (const char *line = mt.text, *next; line && *line; line = next) {
        const char *end = strchr(line, '\n');
        next = end ? end + 1 : NULL;
        if (!end)
            end = line + strlen(line);
        const char *f[6];
        const char *p = line;
        int nf = 0;
        while (nf < 6 && p < end) {            /* the fields' starts (single spaces) */
            f[nf++] = p;
            const char *sp = memchr(p, ' ', (size_t)(end - p));
            p = sp ? sp + 1 : end;
        }
        if (nf < 6)
            continue;
        dev_t d;
        if (!parse_dev(f[2], &d) || (dev && d != *dev))
            continue;
        const char *dash = p;                  /* " - " after the optional fields */
        while (dash < end && !(dash[0] == '-' && dash[1] == ' ' && dash[-1] == ' '))
            dash++;
        if (dash >= end)
            continue;
        const char *t = dash + 2, *te = memchr(t, ' ', (size_t)(end - t));
        long pl = unescape(f[4], f[5] - 1, point, sizeof point);
        if (pl < 0 || unescape(t, te ? te : end, type, sizeof type) < 0 || !holds(point, (size_t)pl, path) ||
            pl < best_len)
            continue;
        best_len = pl;
        memcpy(best_point, point, (size_t)pl + 1);
        ftio_strlcpy(best_type, sizeof best_type, type);
    }
    return best_len < 0 ? NULL : intern(best_type, best_point);
}

/* ---- statmount(2) ---------------------------------------------------------
 * What this system's headers may lack (Debian 12's are Linux 6.1's): the
 * call's number (457 on every architecture), the request, and struct
 * statmount's fixed part as far as the fields read here (its strings start
 * at byte 512, each field of them an offset there). */
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif
#define NR_STATMOUNT     457
#define SM_MNT_POINT     0x10u
#define SM_FS_TYPE       0x20u
#define SM_STRINGS       512
#define SM_BUF           4096    /* a mount point longer than ~3.5 KB: the table */
#define SM_KNOWN         4       /* mounts remembered */
struct sm_request { uint32_t size, spare; uint64_t mnt_id, param; };
struct sm_head {
    uint32_t size, spare1;
    uint64_t mask;
    uint32_t sb_dev_major, sb_dev_minor;
    uint64_t sb_magic;
    uint32_t sb_flags, fs_type;
    uint64_t mnt_id, mnt_parent_id;
    uint32_t mnt_id_old, mnt_parent_id_old;
    uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
    uint32_t mnt_root, mnt_point;
};

static struct {
    int         off;                 /* not on this kernel: the table only */
    unsigned    next;
    uint64_t    id[SM_KNOWN];
    const char *name[SM_KNOWN];
} sm FTIO_FLUSHER_STATE;

/* The string at offset `at` of a statmount answer of `len` bytes, or NULL. */
static const char *sm_string(const char *buf, size_t len, uint32_t at)
{
    if (len <= SM_STRINGS || at >= len - SM_STRINGS)
        return NULL;
    const char *s = buf + SM_STRINGS + at;
    return memchr(s, '\0', len - SM_STRINGS - at) ? s : NULL;
}

/* "TYPE:POINT" of path's mount by statx and statmount, or NULL (*exists:
 * whether statx found the file). */
static const char *by_statmount(const char *path, int *exists)
{
    struct statx sx;
    *exists = statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &sx) == 0;
    if (!*exists)
        return NULL;
    if (!(sx.stx_mask & STATX_MNT_ID_UNIQUE)) {
        sm.off = 1;                          /* before Linux 6.8 */
        return NULL;
    }
    for (unsigned i = 0; i < SM_KNOWN; i++)
        if (sm.name[i] && sm.id[i] == sx.stx_mnt_id)
            return sm.name[i];
    char buf[SM_BUF] __attribute__((aligned(8)));
    struct sm_request req = { sizeof req, 0, sx.stx_mnt_id, SM_MNT_POINT | SM_FS_TYPE };
    if (syscall(NR_STATMOUNT, &req, buf, sizeof buf, 0) != 0) {
        if (errno == ENOSYS || errno == EPERM)
            sm.off = 1;                      /* (a seccomp filter that refuses it) */
        return NULL;
    }
    const struct sm_head *h = (const struct sm_head *)buf;
    size_t len = h->size < sizeof buf ? h->size : sizeof buf;
    const char *type = sm_string(buf, len, h->fs_type), *point = sm_string(buf, len, h->mnt_point);
    if ((h->mask & (SM_MNT_POINT | SM_FS_TYPE)) != (SM_MNT_POINT | SM_FS_TYPE) || !type || !point ||
        strncmp(type, "fuse", 4) == 0)
        return NULL;
    const char *name = intern(type, point);
    if (name) {
        sm.id[sm.next] = sx.stx_mnt_id;
        sm.name[sm.next] = name;
        sm.next = (sm.next + 1) % SM_KNOWN;
    }
    return name;
}

const char *ftio_mount_of(const char *path)
{
    if (!path || path[0] != '/')
        return NULL;
    if (!sm.off) {
        int exists;
        const char *name = by_statmount(path, &exists);
        if (name)
            return name;
    }
    if (!mt.read_ns)
        read_mounts();
    struct stat st;
    if (stat(path, &st) != 0)
        return best(path, NULL);
    const char *name = best(path, &st.st_dev);
    if (!name && ftio_mono_ns() - mt.read_ns > 1000000000ll) {
        read_mounts();                     /* mounted since we looked */
        name = best(path, &st.st_dev);
    }
    return name ? name : best(path, NULL);
}
