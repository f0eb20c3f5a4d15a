/* SPDX-License-Identifier: BSD-3-Clause */
/* fdprivate.c -- the flusher's private descriptor table: the flusher thread
 * moves to a copy of the process's descriptor table (unshare(CLONE_FILES))
 * before it creates ZeroMQ or opens the spool file, and every thread learns
 * once, with kcmp(KCMP_FILES), whether it shares that private table (the
 * flusher's and ZeroMQ's threads: their descriptor numbers mean other files,
 * so the fd table, fdtable.c, is not theirs) or the application's.
 *
 * Why, and what follows from it (EOFs, closefrom, fork, the fallback when
 * unshare or kcmp is refused): libtrace/README.md, "The flusher's private
 * descriptor table" -- the one description.  flusher.c calls
 * ftio_fdprivate_enter() first thing in its thread and ftio_fdprivate_drop()
 * when the thread is gone (or in a fork child); internal.h's
 * ftio_private_table_thread() is the per-call test, classified here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

__thread int ftio_thread_table __attribute__((tls_model("initial-exec")));

/* Thread id of the flusher that runs in a private descriptor table, 0 when
 * none does (then every thread uses the application's table). */
static atomic_long private_tid FTIO_WARM;

/* Does this thread share its descriptor table with the private flusher?
 * Its own threads (ZeroMQ's) do; application threads never do. */
int ftio_thread_table_classify(void)
{
    long flusher = atomic_load_explicit(&private_tid, memory_order_acquire);
    int private = 0;
    if (flusher) {
        int saved = errno;
        private = syscall(SYS_kcmp, (pid_t)syscall(SYS_gettid), (pid_t)flusher, KCMP_FILES, 0, 0) == 0;
        errno = saved;
    }
    ftio_thread_table = private ? FTIO_TABLE_PRIVATE : FTIO_TABLE_APP;
    return private;
}

/* Put /dev/null on 0, 1, 2 where nothing is open, so that ZeroMQ's and the
 * spool's descriptors never get those numbers: our diagnostics write to 2
 * (when stderr is kept, 0 and 1 are its copies instead: close_inherited).
 * Returns 0 when 2 could not be filled (then we must not log). */
static int fill_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (syscall(SYS_fcntl, fd, F_GETFD) >= 0)
            continue;
        int nul = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
        if (nul != fd) {                 /* no /dev/null: leave the gap */
            if (nul >= 0)
                syscall(SYS_close, nul);
            if (fd == 2)
                return 0;
        }
    }
    return 1;
}

/* Close every descriptor of our private copy except stderr (kept for our
 * diagnostics unless the application traces a file there).  Raw syscalls:
 * our close wrapper must not see these (they are not the application's).
 * Returns 1 when 0 and 1 are stderr's copies now and stderr is open (the
 * usual case: then there is nothing for fill_std_fds() to do; two dup2s
 * where closing 0 and 1, looking at 0-2 and opening /dev/null twice made
 * eight system calls on a short process's exit path, bench/README.md "exit
 * latency"), else 0. */
int ftio_fdprivate_stderr_kept(void)
{
    /* (a pipe or terminal seen by a data call is "not a file": kept) */
    return ftio_fdt && ftio_fdt_size > 2 && atomic_load(&ftio_fdt[2].fid) < FTIO_FID_MIN &&
           !atomic_load(&ftio_fdt[2].stdio_fid);
}

static int close_inherited(void)
{
    int keep_stderr = ftio_fdprivate_stderr_kept();
    if (syscall(SYS_close_range, 3u, ~0u, 0) == 0) {
        /* dup2 closes our copy of what 0 and 1 were (the application's
         * stdin and stdout: its close of a pipe must reach the reader) */
        if (keep_stderr && syscall(SYS_dup2, 2, 0) == 0 && syscall(SYS_dup2, 2, 1) == 1)
            return 1;
        syscall(SYS_close_range, 0u, keep_stderr ? 1u : 2u, 0);
        return 0;
    }
    /* Before Linux 5.9: list our own table (/proc/thread-self, not
     * /proc/self, which is the main thread's). */
    int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/fd",
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        long n;
        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(buf + off);
                off += d->d_reclen;
                char *end;
                long fd = strtol(d->d_name, &end, 10);
                if (*end || end == d->d_name || fd == dfd || (fd == 2 && keep_stderr))
                    continue;
                syscall(SYS_close, (int)fd);
            }
        }
        syscall(SYS_close, dfd);
        return 0;
    }
    for (unsigned fd = 0; fd < ftio_fdt_size; fd++)
        if (fd != 2 || !keep_stderr)
            syscall(SYS_close, (int)fd);
    return 0;
}

void ftio_fdprivate_enter(void)
{
    if (!ftio_cfg.private_fds)
        return;
    pid_t self = (pid_t)syscall(SYS_gettid);
    /* kcmp tells our threads from the application's afterwards: without it
     * we could not keep them out of the fd table, so stay shared. */
    if (syscall(SYS_kcmp, self, self, KCMP_FILES, 0, 0) != 0) {
        ftio_log("kcmp unavailable (%s): flusher shares the descriptor table", strerror(errno));
        return;
    }
    if (unshare(CLONE_FILES) != 0) {
        ftio_log("unshare(CLONE_FILES): %s: flusher shares the descriptor table", strerror(errno));
        return;
    }
    ftio_thread_table = FTIO_TABLE_PRIVATE;
    atomic_store_explicit(&private_tid, self, memory_order_release);
    /* The application closed its stderr while no thread was there to copy
     * it (flusher.c): the copy kept meanwhile is ours on 2. */
    int copy = ftio_flusher_stderr_copy();
    if (copy >= 0 && syscall(SYS_fcntl, 2, F_GETFD) < 0)
        syscall(SYS_dup2, copy, 2);
    if (!close_inherited()) {
        /* A short program may have closed its stderr before we copied the
         * table: then ours would be /dev/null, and our warnings (the
         * once-per-job ones included, spool.c) are left to a process that
         * can say them. */
        int had_stderr = syscall(SYS_fcntl, 2, F_GETFD) >= 0;
        if (!fill_std_fds() || !had_stderr)
            ftio_quiet = 1;    /* 2 may become a ZeroMQ descriptor: no logging */
    }
    ftio_log("flusher runs in a private descriptor table");
}

void ftio_fdprivate_drop(void)
{
    atomic_store(&private_tid, 0);
}
