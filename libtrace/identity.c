/* SPDX-License-Identifier: BSD-3-Clause */
/* identity.c -- what makes this process a run of "the same application" for
 * ftiod's memory of runs (PROTOCOL.md §1 `app`, docs/ALGORITHM.md §11): the
 * executable, a stamp of its file (a rebuild is another program), the hashes
 * of the arguments (common/app_key.h: never the arguments themselves, which
 * may hold secrets), FTIO_APP and the real uid.
 *
 * Computed once per process image, on the flusher thread when it builds the
 * image's first batch (flusher.c), and cached: the application's calls never
 * pay for it.  A fork child is the same image (the cache is inherited); an
 * exec'd image starts afresh.  Everything comes from /proc/self (cmdline,
 * environ, exe), read with the flusher's ftio_busy set (not traced), never
 * from the live environment, which the application (or MPI_Init) may be
 * changing at that moment.
 *
 * The executable is argv[0] as the shell or launcher found it -- absolute,
 * relative to the working directory, or the first match on PATH -- without
 * following symbolic links, so that it names the program the way a user and
 * a Darshan log do (`python3`, not `python3.11`); when argv[0] does not lead
 * to the file the kernel runs (a rewritten argv[0], a changed directory),
 * /proc/self/exe's path is used instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app_key.h"
#include "identity.h"
#include "internal.h"

#define ENVIRON_MAX (256 * 1024)   /* /proc/self/environ read at most (PATH is early) */

static struct {
    int  state;                     /* 0 not computed, 1 done */
    bool has_args;
    long uid;
    char exe_id[64];
    char args[FTIO_ARGS_HASH_HEX], args_norm[FTIO_ARGS_HASH_HEX];
    char exe[PATH_MAX];             /* last: a short path touches its first page only */
} ident;

/* "a//b/./c/../d" -> "a/b/d" (lexically: the link is not followed). */
static void normalise_path(char *p)
{
    char *out = p, *in = p;
    while (*in) {
        if (in[0] == '/' && (in[1] == '/' || (in[1] == '.' && (in[2] == '/' || !in[2])))) {
            in += in[1] == '/' ? 1 : 2;
            continue;
        }
        if (in[0] == '/' && in[1] == '.' && in[2] == '.' && (in[3] == '/' || !in[3])) {
            while (out > p && *--out != '/')
                ;
            in += 3;
            continue;
        }
        *out++ = *in++;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

static bool same_file(const char *path, const struct stat *want)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

/* The value of PATH in the image's initial environment, into buf: read a
 * page at a time on the stack (a 256 KB buffer was a mapping of its own and
 * pages touched in every short process's exit). */
static bool initial_path(char *buf, size_t cap)
{
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    static const char want[] = "PATH=";
    char chunk[4096];
    size_t at = 0, out = 0, total = 0;   /* at: bytes of the current variable seen */
    bool candidate = true, in_value = false, done = false;
    ssize_t r;
    while (!done && total < ENVIRON_MAX && (r = read(fd, chunk, sizeof chunk)) > 0) {
        total += (size_t)r;
        for (ssize_t i = 0; i < r && !done; i++) {
            char c = chunk[i];
            if (in_value) {
                if (c == '\0')
                    done = true;
                else if (out + 1 < cap)
                    buf[out++] = c;
            } else if (c == '\0') {
                at = 0;
                candidate = true;
            } else if (candidate) {         /* still "PATH=" so far */
                candidate = c == want[at++];
                in_value = candidate && at == sizeof want - 1;
            }
        }
    }
    close(fd);
    if (cap)
        buf[out < cap ? out : cap - 1] = '\0';
    return in_value;
}

/* dir/name, normalised, when it is the running file: then it is the exe. */
static bool try_exe(const char *dir, const char *name, const struct stat *self)
{
    char cand[PATH_MAX];
    int n = snprintf(cand, sizeof cand, "%s%s%s", dir, *dir ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof cand)
        return false;
    normalise_path(cand);
    if (!same_file(cand, self))
        return false;
    memcpy(ident.exe, cand, sizeof cand);
    return true;
}

/* argv[0] as the shell found it, when it leads to the running file. */
static bool exe_from_argv0(const char *argv0, const struct stat *self)
{
    if (!*argv0)
        return false;
    if (strchr(argv0, '/')) {
        char cwd[PATH_MAX];
        if (argv0[0] == '/')
            return try_exe("", argv0, self);
        return getcwd(cwd, sizeof cwd) && try_exe(cwd, argv0, self);
    }
    char path[8192];
    if (!initial_path(path, sizeof path))
        return false;
    for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        if (dir[0] != '/')
            continue;              /* a relative PATH entry: the directory of that moment */
        if (try_exe(dir, argv0, self))
            return true;
    }
    return false;
}

/* argv[0] and the hashes of argv[1..], from /proc/self/cmdline. */
static void read_cmdline(char *argv0, size_t cap)
{
    argv0[0] = '\0';
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct ftio_args_hash h;
    ftio_args_hash_init(&h);
    char buf[4096];
    size_t a0 = 0;
    bool in_argv0 = true;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        size_t i = 0;
        for (; in_argv0 && i < (size_t)n; i++) {
            if (buf[i] == '\0') {
                in_argv0 = false;
            } else if (a0 + 1 < cap) {
                argv0[a0++] = buf[i];
                argv0[a0] = '\0';
            }
        }
        /* the arguments' trailing NUL is a separator: dropped by the hash */
        ftio_args_hash_add(&h, buf + i, (size_t)n - i);
    }
    close(fd);
    ftio_args_hash_hex(&h, ident.args, ident.args_norm);
    ident.has_args = true;
}

static void compute(void)
{
    char argv0[PATH_MAX];
    read_cmdline(argv0, sizeof argv0);
    struct stat self;
    if (stat("/proc/self/exe", &self) == 0) {
        snprintf(ident.exe_id, sizeof ident.exe_id, "%llx:%llx:%llx",
                 (unsigned long long)self.st_dev, (unsigned long long)self.st_ino,
                 (unsigned long long)self.st_mtim.tv_sec);
        if (!exe_from_argv0(argv0, &self)) {
            ssize_t n = readlink("/proc/self/exe", ident.exe, sizeof ident.exe - 1);
            ident.exe[n > 0 ? n : 0] = '\0';
        }
    }
    ident.uid = (long)getuid();
    ident.state = 1;
}

bool ftio_identity_get(struct ftio_app_identity *out)
{
    if (!ident.state) {
        int saved = errno;
        compute();
        errno = saved;
    }
    out->exe = ident.exe[0] ? ident.exe : NULL;
    out->exe_id = ident.exe_id[0] ? ident.exe_id : NULL;
    out->args = ident.has_args ? ident.args : NULL;
    out->args_norm = ident.has_args ? ident.args_norm : NULL;
    out->name = ftio_cfg.app_name[0] ? ftio_cfg.app_name : NULL;
    out->uid = ident.uid;
    return true;
}
