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
 * exec'd image starts afresh.  The arguments and PATH are the image's
 * initial ones, the bytes /proc/self/cmdline and /proc/self/environ show:
 * the constructor notes where they lie (ftio_identity_note: the argument
 * strings, and the initial PATH string, which setenv never changes in place:
 * it puts a new string in `environ`), and they are read there, not through
 * /proc (7 system calls and a copy out of our own memory by the kernel, on
 * every short process's exit path: bench/README.md "exit latency"), never
 * through `argv` or `environ`, which the application (getopt permutes argv;
 * setenv, MPI_Init) may be changing at that moment.
 *
 * The executable is argv[0] as the shell or launcher found it -- absolute,
 * relative to the working directory, or the first match on PATH -- without
 * following symbolic links, so that it names the program the way a user and
 * a Darshan log do (`python3`, not `python3.11`).  For a bare name the
 * kernel's AT_EXECFN (the path the launcher passed to execve after its own
 * PATH search) is that match when its last component is argv[0] and it leads
 * to the running file: one stat instead of one per PATH entry; else PATH is
 * searched.  When argv[0] does not lead to the file the kernel runs (a
 * rewritten argv[0], a changed directory), /proc/self/exe's path is used
 * instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app_key.h"
#include "identity.h"
#include "internal.h"

/* Where the image's initial arguments and PATH lie (ftio_identity_note). */
static struct {
    const char *args, *args_end;    /* argv[0]'s first byte .. past the last argument's NUL */
    const char *path;               /* the initial PATH's value, NULL: none */
} initial FTIO_WARM;

static struct {
    int  state;                     /* 0 not computed, 1 done */
    bool has_args;
    long uid;
    char exe_id[64];
    char args[FTIO_ARGS_HASH_HEX], args_norm[FTIO_ARGS_HASH_HEX];
    char exe[PATH_MAX];             /* last: a short path touches its first page only */
} ident FTIO_FLUSHER_STATE;

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

/* dir/name, normalised, when it is the running file: then it is the exe. */
static bool try_exe(const char *dir, const char *name, const struct stat *self)
{
    char cand[PATH_MAX];
    if (ftio_concat(cand, sizeof cand, dir, *dir ? "/" : "", name) >= sizeof cand)
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
    /* The launcher's own PATH search, when it found this name. */
    const char *execfn = (const char *)getauxval(AT_EXECFN), *base = execfn ? strrchr(execfn, '/') : NULL;
    if (base && strcmp(base + 1, argv0) == 0) {
        char cwd[PATH_MAX];
        if (execfn[0] == '/' ? try_exe("", execfn, self) : getcwd(cwd, sizeof cwd) && try_exe(cwd, execfn, self))
            return true;
    }
    char path[8192];
    if (!initial.path)
        return false;
    ftio_strlcpy(path, sizeof path, initial.path);
    for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        if (dir[0] != '/')
            continue;              /* a relative PATH entry: the directory of that moment */
        if (try_exe(dir, argv0, self))
            return true;
    }
    return false;
}

/* argv[0] and the hashes of argv[1..], from the initial argument strings
 * (the bytes of /proc/self/cmdline). */
static void read_args(char *argv0, size_t cap)
{
    argv0[0] = '\0';
    struct ftio_args_hash h;
    ftio_args_hash_init(&h);
    if (initial.args) {
        size_t len = (size_t)(initial.args_end - initial.args), a0 = strnlen(initial.args, len);
        size_t n = a0 < cap ? a0 : cap - 1;
        memcpy(argv0, initial.args, n);
        argv0[n] = '\0';
        const char *rest = initial.args + a0 + (a0 < len);
        /* the arguments' trailing NUL is a separator: dropped by the hash */
        ftio_args_hash_add(&h, rest, (size_t)(initial.args_end - rest));
    }
    ftio_args_hash_hex(&h, ident.args, ident.args_norm);
    ident.has_args = true;
}

void ftio_identity_note(int argc, char **argv, char **envp)
{
    /* The kernel puts the strings one after the other (cmdline is that
     * block); argv pointing elsewhere (rewritten before us) gives none. */
    if (argc > 0 && argv && argv[0]) {
        initial.args = argv[0];
        initial.args_end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
        for (int i = 1; i < argc; i++)
            if (argv[i] != argv[i - 1] + strlen(argv[i - 1]) + 1)
                initial.args = NULL;
    }
    for (char **e = envp; e && *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0) {
            initial.path = *e + 5;
            break;
        }
}

static void compute(void)
{
    char argv0[PATH_MAX];
    read_args(argv0, sizeof argv0);
    struct stat self;
    if (stat("/proc/self/exe", &self) == 0) {
        char *e = ident.exe_id, *end = e + sizeof ident.exe_id - 1;   /* "%llx:%llx:%llx" */
        e = ftio_put_hex(e, end, (unsigned long long)self.st_dev, 0);
        *e++ = ':';
        e = ftio_put_hex(e, end, (unsigned long long)self.st_ino, 0);
        *e++ = ':';
        *ftio_put_hex(e, end, (unsigned long long)self.st_mtim.tv_sec, 0) = '\0';
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
