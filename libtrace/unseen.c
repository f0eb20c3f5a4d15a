/* SPDX-License-Identifier: BSD-3-Clause */
/* unseen.c -- the kernel cross-check: what this image moved through read(2)
 * and write(2)-like calls that no record holds (PROTOCOL.md §1 `unseen`).
 *
 * The kernel counts every byte a task passes to read/write/readv/writev/
 * pread/pwrite/sendfile/copy_file_range (`rchar`/`wchar` of
 * /proc/PID/task/TID/io, whatever the descriptor).  Per thread, because the
 * process's own /proc/self/io also holds its exited threads' and its reaped
 * children's I/O (a shell would report its commands' bytes as its own).  The
 * shim's final batch says how many the application's threads moved unseen:
 *
 *     unseen = (its live threads' counts + those of its threads that exited,
 *               taken as each exited + ...; less the main thread's at start)
 *              - bytes of the image's data records (POSIX and stdio)
 *              - bytes our wrappers passed through without a record (sockets,
 *                pipes, terminals, excluded files, untraced streams, what
 *                glibc wrote inside a watched call, the shim's own stderr
 *                lines: ftio_passed(), counted in application threads)
 *
 * per direction, never below 0; the shim's own threads (the flusher, ZeroMQ's
 * ZMQbg/ threads) are not the application's and are left out.  What remains
 * is I/O through an interface no wrapper sees, less what glibc read (or
 * wrote) on the program's behalf as its own numbers tell it (libc_reads.c:
 * its own files (locales, time zone, CPU lists, sem_open's semaphore, whose
 * write is counted as passed), the loader's reads of objects loaded after
 * start, stdio's read-ahead that the program never consumed): raw
 * syscall(), static code, the rest of glibc's internal reads
 * (libtrace/README.md, known limits).  Every read of /proc is a raw system
 * call (no wrapper, no allocation).
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "libc_reads.h"

_Atomic uint64_t ftio_passed_bytes[2] FTIO_HOT;

static struct {
    uint64_t base[2];        /* the main thread's counts when this image started */
    int      have_base;
    uint64_t recorded[2];    /* bytes of data records drained (flusher) */
    _Atomic uint64_t exited[2];  /* counts of application threads that exited */
    pthread_key_t key;       /* a thread's exit adds its counts to `exited` */
    int      have_key;
} us FTIO_WARM;

/* The counts of the thread that delivers the image's end itself
 * (ftio_unseen_here): with the flusher's state, made present with it. */
static struct {
    uint64_t io[2];
    int      have;
} here FTIO_FLUSHER_STATE;

__thread int ftio_unseen_thread_known __attribute__((tls_model("initial-exec")));

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
    /* "rchar: N\nwchar: N\n...", parsed by hand (strstr's and strtoull's
     * code are pages of libc more for the constructor: bench/README.md
     * "exit latency"). */
    int got = 0;
    for (const char *p = buf; *p; p++) {
        if ((p == buf || p[-1] == '\n') && (p[0] == 'r' || p[0] == 'w') && strncmp(p + 1, "char: ", 6) == 0) {
            uint64_t v = 0;
            for (const char *d = p + 7; *d >= '0' && *d <= '9'; d++)
                v = v * 10 + (uint64_t)(*d - '0');
            io[p[0] == 'w'] = v;
            got |= p[0] == 'w' ? 2 : 1;
        }
    }
    return got == 3 ? 0 : -1;
}

int ftio_unseen_started(void)
{
    return us.have_base;
}

int ftio_unseen_thread_io(uint64_t io[2], uint64_t *len)
{
    return read_io("/proc/thread-self/io", io, len);
}

/* An application thread ends: what it moved stays in the process's count
 * only (with its children's), so it is taken now. */
static void thread_exit(void *unused)
{
    (void)unused;
    uint64_t t[2], len;
    if (read_io("/proc/thread-self/io", t, &len) == 0) {
        atomic_fetch_add(&us.exited[0], t[0]);
        atomic_fetch_add(&us.exited[1], t[1]);
    }
}

void ftio_unseen_thread_slow(void)
{
    ftio_unseen_thread_known = 1;
    if (us.have_key && !ftio_private_table_thread())
        pthread_setspecific(us.key, (void *)1);
}

void ftio_unseen_init(void)
{
    uint64_t len = 0;
    us.have_base = read_io("/proc/thread-self/io", us.base, &len) == 0;
    us.base[0] += len;                     /* this read, counted after it */
    us.have_key = pthread_key_create(&us.key, thread_exit) == 0;
    ftio_unseen_thread_known = 1;                      /* the main thread: alive at the end, or exit()s */
    if (us.have_base)
        ftio_libc_reads_init();
}

void ftio_unseen_after_fork_child(void)
{
    /* A new task: the kernel's counts start at 0, so do ours. */
    us.base[0] = us.base[1] = 0;
    us.have_base = 1;
    us.recorded[0] = us.recorded[1] = 0;
    atomic_store(&us.exited[0], 0);
    atomic_store(&us.exited[1], 0);
    here.have = 0;
    atomic_store(&ftio_passed_bytes[0], 0);
    atomic_store(&ftio_passed_bytes[1], 0);
    ftio_unseen_thread_known = 1;                      /* the forking thread is the child's only one */
    ftio_libc_reads_after_fork_child();
}

/* A line of the shim's own on stderr (FTIO_DEBUG, a warning), written in
 * the caller's thread through the write wrapper as a reentrant call (no
 * record, nothing passed): counted as passed, so that FTIO_DEBUG's
 * cross-check line says what the program left unseen.  (Lines written
 * before the start's counts are in them already.) */
void ftio_unseen_own_write(ssize_t n)
{
    if (n > 0 && us.have_base && !ftio_private_table_thread()) {
        ftio_unseen_thread();
        atomic_fetch_add_explicit(&ftio_passed_bytes[FTIO_OP_WRITE], (uint64_t)n, memory_order_relaxed);
    }
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

/* A task directory's name as a number, by hand (atol's code is a page of
 * libc more on a short process's exit path). */
static long tid_of(const char *s)
{
    long v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    return v;
}

/* Adds thread tid's counts to io, unless it is one of ZeroMQ's (the main
 * thread, tid = pid, is the application's: no need to look). */
static void task_io(const char *tid, uint64_t io[2])
{
    char path[300], comm[32] = "";
    if (tid_of(tid) != atomic_load(&ftio_id.pid)) {
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", tid);
        long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        long n = syscall(SYS_read, (int)fd, comm, sizeof comm - 1);
        syscall(SYS_close, (int)fd);
        if (n >= 5 && strncmp(comm, "ZMQbg", 5) == 0)
            return;
    }
    uint64_t t[2], len;
    ftio_concat(path, sizeof path, "/proc/self/task/", tid, "/io");
    if (read_io(path, t, &len) == 0) {
        io[0] += t[0];
        io[1] += t[1];
    }
}

/* (/proc/self/task's link count is 2 + its tasks.) */
long ftio_task_count(void)
{
    struct stat st;
    if (syscall(SYS_newfstatat, AT_FDCWD, "/proc/self/task", &st, 0) != 0 || st.st_nlink < 2)
        return -1;
    return (long)st.st_nlink - 2;
}

/* The application's live threads: every task but ours (the flusher, the
 * caller) and ZeroMQ's (ZMQbg/...).  Adds their counts to io.  (The
 * directory is read with getdents64 into the stack: opendir's 32 KB buffer
 * was pages touched in every short process's exit.)  Two tasks only, the
 * caller and the main thread (ftio_task_count): the main thread's file at
 * once, 4 system calls instead of 7 on a short process's exit path. */
static void app_threads_io(uint64_t io[2])
{
    long self = syscall(SYS_gettid), pid = atomic_load(&ftio_id.pid);
    if (self != pid && ftio_task_count() == 2) {
        char tid[24];
        snprintf(tid, sizeof tid, "%ld", pid);
        task_io(tid, io);
        return;
    }
    long dfd = syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    char buf[2048] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, (int)dfd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(buf + off);
            off += e->d_reclen;
            if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && tid_of(e->d_name) != self)
                task_io(e->d_name, io);
        }
    }
    syscall(SYS_close, (int)dfd);
}

/* (The counts read before the shim's own reads and writes in the thread: a
 * read's own bytes are added after it, so they are not in them.) */
void ftio_unseen_here(void)
{
    uint64_t len;
    here.have = us.have_base && read_io("/proc/thread-self/io", here.io, &len) == 0;
}

int ftio_unseen_final(uint64_t *unseen_read, uint64_t *unseen_write)
{
    if (!us.have_base)
        return 0;
    struct ftio_libc_reads lib;
    ftio_libc_reads_final(&lib);
    uint64_t total[2] = { atomic_load(&us.exited[0]), atomic_load(&us.exited[1]) };
    if (here.have) {
        /* the process's only thread (ftio_flusher_end_here): its counts
         * were taken before the shim's work in it began */
        total[0] += here.io[0];
        total[1] += here.io[1];
    } else {
        app_threads_io(total);
    }
    uint64_t behalf = lib.files + lib.loader + lib.readahead + lib.own;
    uint64_t out[2];
    for (int d = 0; d < 2; d++) {
        uint64_t seen = us.base[d] + us.recorded[d] + (d == 0 ? behalf : 0) +
                        atomic_load_explicit(&ftio_passed_bytes[d], memory_order_relaxed);
        out[d] = total[d] > seen ? total[d] - seen : 0;
    }
    *unseen_read = out[0];
    *unseen_write = out[1];
    ftio_log("kernel cross-check: the application's threads rchar %llu wchar %llu since start "
             "%llu/%llu; recorded %llu/%llu, passed %llu/%llu, read by glibc on the program's behalf "
             "%llu (files %llu, loader %llu%s, stdio read-ahead %llu, this check %llu): unseen %llu/%llu",
             (unsigned long long)total[0], (unsigned long long)total[1],
             (unsigned long long)(total[0] - us.base[0]), (unsigned long long)(total[1] - us.base[1]),
             (unsigned long long)us.recorded[0], (unsigned long long)us.recorded[1],
             (unsigned long long)ftio_passed_bytes[0], (unsigned long long)ftio_passed_bytes[1],
             (unsigned long long)behalf, (unsigned long long)lib.files, (unsigned long long)lib.loader,
             lib.missed_objects ? ", some objects not counted" : "",
             (unsigned long long)lib.readahead, (unsigned long long)lib.own,
             (unsigned long long)out[0], (unsigned long long)out[1]);
    return 1;
}
