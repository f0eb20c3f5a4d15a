/* SPDX-License-Identifier: BSD-3-Clause */
/* fdtable.c -- which descriptors we trace.
 *
 * A flat array indexed by fd (internal.h: struct ftio_fd_slot), allocated once
 * at init and sized from the hard RLIMIT_NOFILE (capped), so the hot path is
 * one bounds check and one load.  Our open wrappers fill a slot (the file, or
 * "not a file" for an excluded path); the creators of sockets, pipes and
 * eventfds mark theirs "not a file"; close, close_range, closefrom,
 * dup2/dup3 over a target and fclose make it unknown again.  Every other
 * descriptor (opened inside libc by fopen, by libstdc++'s filebuf, inherited
 * from the parent, made by a raw syscall such as openat2) is looked at once,
 * on its first data call (ftio_fd_first_sight: fstat, and for a regular file
 * readlink of /proc/self/fd/N, lseek and F_GETFL, all raw system calls), and
 * remembered.  The table is inherited as is by a forked child, like the
 * descriptors themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

struct ftio_fd_slot *ftio_fdt FTIO_HOT;
unsigned ftio_fdt_size FTIO_HOT;

#define FDT_MAX (1u << 20)   /* 1 Mi descriptors = 40 MiB of (untouched) virtual memory */

void ftio_fdtable_init(void)
{
    struct rlimit rl;
    rlim_t n = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        /* The application may raise its soft limit up to the hard one later. */
        n = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > FDT_MAX ? FDT_MAX : rl.rlim_max;
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > n)
            n = rl.rlim_cur > FDT_MAX ? FDT_MAX : rl.rlim_cur;
    }
    if (n < 1024)
        n = 1024;
    /* An anonymous mapping of our own (raw: not our mmap wrapper): pages are
     * only touched for descriptor numbers actually used.  (calloc made the
     * same mapping but wrote its chunk header: a page every preloaded
     * process touched, bench/README.md "exit latency".) */
    void *m = (void *)syscall(SYS_mmap, NULL, (size_t)n * sizeof *ftio_fdt, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ftio_fdt = m == MAP_FAILED ? NULL : m;
    if (!ftio_fdt) {
        ftio_warn("cannot allocate the descriptor table (%lu slots); POSIX/stdio not traced",
                  (unsigned long)n);
        return;
    }
    __atomic_store_n(&ftio_fdt_size, (unsigned)n, __ATOMIC_RELEASE);
}

void ftio_fd_open(int fd, uint32_t fid, int append)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (!s)
        return;
    atomic_store_explicit(&s->offset, append ? -1 : 0, memory_order_relaxed);
    atomic_store_explicit(&s->append, append ? 1 : 0, memory_order_relaxed);
    atomic_store_explicit(&s->fid, fid, memory_order_release);
}

void ftio_fd_forget(int fd)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (s)
        atomic_store_explicit(&s->fid, FTIO_FD_UNKNOWN, memory_order_release);
}

void ftio_fd_not_file(int fd)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (s)
        atomic_store_explicit(&s->fid, FTIO_FD_NOT_FILE, memory_order_release);
}

/* The path a descriptor refers to, from /proc/self/fd (raw syscalls: no
 * wrapper, no allocation); an unlinked file's name loses " (deleted)".
 * 0, or -1 when it has none (anonymous inode, no /proc). */
int ftio_fd_path(int fd, char *out, size_t size)
{
    char link[40];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    long n = syscall(SYS_readlink, link, out, size - 1);
    if (n <= 0 || out[0] != '/')
        return -1;
    out[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if ((size_t)n > dl && strcmp(out + n - dl, deleted) == 0)
        out[n - dl] = '\0';
    return 0;
}

int ftio_fd_first_sight(int fd, struct ftio_fd_slot *s)
{
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    uint32_t what = FTIO_FD_NOT_FILE;
    struct stat st;
    char path[4096];
    int64_t pos = 0;
    int append = 0;
    if (syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode) &&
        ftio_fd_path(fd, path, sizeof path) == 0) {
        uint32_t fid = ftio_file_register(path);
        if (fid >= FTIO_FID_MIN) {
            what = fid;
            long fl = syscall(SYS_fcntl, fd, F_GETFL);
            append = fl >= 0 && (fl & O_APPEND);
            long p = append ? -1 : syscall(SYS_lseek, fd, 0L, SEEK_CUR);
            pos = append || p < 0 ? -1 : p;
        }
    }
    /* Only an unknown slot: a thread that opened the number meanwhile wins. */
    uint32_t expect = FTIO_FD_UNKNOWN;
    if (what >= FTIO_FID_MIN) {
        atomic_store_explicit(&s->offset, pos, memory_order_relaxed);
        atomic_store_explicit(&s->append, append ? 1 : 0, memory_order_relaxed);
    }
    atomic_compare_exchange_strong_explicit(&s->fid, &expect, what, memory_order_release,
                                            memory_order_relaxed);
    ftio_busy = busy;
    errno = saved;
    return atomic_load_explicit(&s->fid, memory_order_relaxed) >= FTIO_FID_MIN;
}

void ftio_fd_copy(int from, int to)
{
    struct ftio_fd_slot *a = ftio_fd_slot(from), *b = ftio_fd_slot(to);
    if (!b)
        return;
    /* The new number no longer refers to whatever it referred to before
     * (dup2 over an open stream's descriptor closes it). */
    atomic_store_explicit(&b->stdio_fid, 0, memory_order_relaxed);
    atomic_store_explicit(&b->fp, NULL, memory_order_relaxed);
    /* The duplicate is what the original is (unknown, not a file, a file). */
    uint32_t fid = a ? atomic_load_explicit(&a->fid, memory_order_relaxed) : FTIO_FD_UNKNOWN;
    if (fid < FTIO_FID_MIN) {
        atomic_store_explicit(&b->fid, fid, memory_order_release);
        return;
    }
    /* Duplicates share the file position with the original. */
    atomic_store_explicit(&b->offset, atomic_load_explicit(&a->offset, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&b->append, atomic_load_explicit(&a->append, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&b->fid, fid, memory_order_release);
}

void ftio_fd_stdio_open(int fd, FILE *fp, uint32_t fid, int append, int64_t pos)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (!s)
        return;
    atomic_store_explicit(&s->soffset, append ? -1 : pos, memory_order_relaxed);
    atomic_store_explicit(&s->sappend, append ? 1 : 0, memory_order_relaxed);
    atomic_store_explicit(&s->fp, fp, memory_order_relaxed);
    atomic_store_explicit(&s->stdio_fid, fid, memory_order_release);
}

void ftio_fd_stdio_forget(int fd)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (!s)
        return;
    atomic_store_explicit(&s->stdio_fid, 0, memory_order_release);
    atomic_store_explicit(&s->fp, NULL, memory_order_relaxed);
}
