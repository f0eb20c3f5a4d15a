/* SPDX-License-Identifier: BSD-3-Clause */
/* fdtable.c -- which descriptors we trace.
 *
 * A flat array indexed by fd (internal.h: struct ftio_fd_slot), allocated once
 * at init and sized from the hard RLIMIT_NOFILE (capped), so the hot path is
 * one bounds check and one load.  Only our open wrappers fill a slot; close,
 * close_range, closefrom, dup2/dup3 over a traced target and fclose clear it.
 * Descriptors created any other way (sockets, pipes, eventfds, ZeroMQ's own)
 * are never in the table, so their I/O passes straight through.  The table is
 * inherited as is by a forked child, like the descriptors themselves.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include "internal.h"

struct ftio_fd_slot *ftio_fdt;
unsigned ftio_fdt_size;

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
    /* calloc of this size is an anonymous mmap: pages are only touched for
     * descriptor numbers actually used. */
    ftio_fdt = calloc(n, sizeof *ftio_fdt);
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
        atomic_store_explicit(&s->fid, 0, memory_order_release);
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
    uint32_t fid = a ? atomic_load_explicit(&a->fid, memory_order_relaxed) : 0;
    if (!fid) {
        atomic_store_explicit(&b->fid, 0, memory_order_release);
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
