/* SPDX-License-Identifier: BSD-3-Clause */
/* unseen.c -- the kernel cross-check: what this image moved through read(2)
 * and write(2)-like calls that no record holds (PROTOCOL.md §1 `unseen`).
 *
 * The kernel counts every byte a task passes to read/write/readv/writev/
 * pread/pwrite/sendfile/copy_file_range (`rchar`/`wchar` of /proc/PID/io,
 * whatever the descriptor).  The shim's final batch says how many of them
 * it did not see:
 *
 *     unseen = (kernel now - kernel at the image's start)
 *              - bytes of the image's data records (POSIX and stdio)
 *              - bytes our wrappers passed through without a record (sockets,
 *                pipes, terminals, excluded files, untraced streams:
 *                ftio_passed(), counted in application threads)
 *              - the shim's own I/O (the flusher threads: spool file, /proc,
 *                munged; ZeroMQ's threads: eventfds), per thread from
 *                /proc/thread-self/io and /proc/self/task/TID/io
 *
 * per direction, never below 0.  What remains is I/O through an interface no
 * wrapper sees: raw syscall(), static code, glibc-internal reads (the loader's,
 * stdio's read-ahead past what a program consumed), io_uring where the
 * kernel counts it (libtrace/README.md, known limits).  Only the flusher
 * calls the functions below except ftio_unseen_init() (the constructor) and
 * ftio_unseen_after_fork_child(); every read of /proc is a raw system call
 * (no wrapper, no allocation) whose own bytes are taken into account.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

_Atomic uint64_t ftio_passed_bytes[2];

static struct {
    uint64_t base[2];        /* the kernel's counts when this image started */
    int      have_base;
    uint64_t recorded[2];    /* bytes of data records drained (flusher) */
    uint64_t own[2];         /* I/O of flusher threads that ended */
} us;

/* rchar/wchar of a /proc io file; *len: the bytes this read itself moved
 * (the kernel adds them to the reader's rchar afterwards).  0 or -1. */
static int read_io(const char *path, uint64_t io[2], uint64_t *len)
{
    char buf[512];
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long n = syscall(SYS_read, (int)fd, buf, sizeof buf - 1);
    syscall(SYS_close, (int)fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    *len = (uint64_t)n;
    const char *r = strstr(buf, "rchar: "), *w = strstr(buf, "wchar: ");
    if (!r || !w)
        return -1;
    io[0] = strtoull(r + 7, NULL, 10);
    io[1] = strtoull(w + 7, NULL, 10);
    return 0;
}

void ftio_unseen_init(void)
{
    uint64_t len = 0;
    us.have_base = read_io("/proc/self/io", us.base, &len) == 0;
    us.base[0] += len;                     /* this read, counted after it */
}

void ftio_unseen_after_fork_child(void)
{
    /* A new task: the kernel's counts start at 0, so do ours. */
    us.base[0] = us.base[1] = 0;
    us.have_base = 1;
    us.recorded[0] = us.recorded[1] = 0;
    us.own[0] = us.own[1] = 0;
    atomic_store(&ftio_passed_bytes[0], 0);
    atomic_store(&ftio_passed_bytes[1], 0);
}

void ftio_unseen_count(const struct ftio_record *rec, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct ftio_record *r = &rec[i];
        if (r->op <= FTIO_OP_WRITE && r->bytes > 0 &&
            (r->layer == FTIO_LAYER_POSIX || r->layer == FTIO_LAYER_STDIO))
            us.recorded[r->op] += (uint64_t)r->bytes;
    }
}

/* ZeroMQ's threads (named ZMQbg/...) run in the flusher's descriptor table:
 * their eventfd reads and writes are the shim's.  Adds their counts to io. */
static void zmq_threads_io(uint64_t io[2])
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        long n = syscall(SYS_read, (int)fd, comm, sizeof comm - 1);
        syscall(SYS_close, (int)fd);
        if (n < 5 || strncmp(comm, "ZMQbg", 5) != 0)
            continue;
        uint64_t t[2], len;
        snprintf(path, sizeof path, "/proc/self/task/%s/io", e->d_name);
        if (read_io(path, t, &len) == 0) {
            io[0] += t[0];
            io[1] += t[1];
        }
    }
    closedir(d);
}

void ftio_unseen_flusher_exit(void)
{
    uint64_t t[2], len;
    if (read_io("/proc/thread-self/io", t, &len) == 0) {
        us.own[0] += t[0] + len;
        us.own[1] += t[1];
    }
}

int ftio_unseen_final(uint64_t *unseen_read, uint64_t *unseen_write)
{
    if (!us.have_base)
        return 0;
    uint64_t zmq[2] = { 0, 0 }, total[2], self[2], tlen, slen;
    zmq_threads_io(zmq);
    /* The total first, then our own thread's, which holds the total's read
     * (the total does not). */
    if (read_io("/proc/self/io", total, &tlen) != 0 ||
        read_io("/proc/thread-self/io", self, &slen) != 0)
        return 0;
    self[0] -= tlen < self[0] ? tlen : self[0];
    uint64_t out[2];
    for (int d = 0; d < 2; d++) {
        uint64_t seen = us.base[d] + us.recorded[d] + us.own[d] + self[d] + zmq[d] +
                        atomic_load_explicit(&ftio_passed_bytes[d], memory_order_relaxed);
        out[d] = total[d] > seen ? total[d] - seen : 0;
    }
    *unseen_read = out[0];
    *unseen_write = out[1];
    ftio_log("kernel cross-check: rchar %llu wchar %llu since start %llu/%llu; recorded %llu/%llu, "
             "passed %llu/%llu, shim %llu/%llu: unseen %llu/%llu",
             (unsigned long long)total[0], (unsigned long long)total[1],
             (unsigned long long)(total[0] - us.base[0]), (unsigned long long)(total[1] - us.base[1]),
             (unsigned long long)us.recorded[0], (unsigned long long)us.recorded[1],
             (unsigned long long)ftio_passed_bytes[0], (unsigned long long)ftio_passed_bytes[1],
             (unsigned long long)(us.own[0] + self[0] + zmq[0]),
             (unsigned long long)(us.own[1] + self[1] + zmq[1]),
             (unsigned long long)out[0], (unsigned long long)out[1]);
    return 1;
}
