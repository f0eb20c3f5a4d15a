/* SPDX-License-Identifier: BSD-3-Clause */
/* overhead.c -- cost of libftio.so per intercepted call.
 *
 *   overhead MODE CALLS DIR [mt]     MODE = pwrite | read | fwrite | untraced | clockpair
 *   overhead paired CALL CALLS DIR   CALL = pwrite | read | fwrite
 *
 * Times CALLS back-to-back 1-byte calls on a file in DIR (pwrite at a
 * rolling offset inside one page, sequential read() of a CALLS-byte file,
 * fwrite into a buffered stream) and prints "ns_per_call=X" (wall time),
 * "thread_ns_per_call=X" (CPU time of the calling thread: what the
 * application itself pays) and "process_ns_per_call=X" (CPU time of the
 * whole process: with the shim's flusher thread).  "clockpair" times two
 * clock_gettime(CLOCK_MONOTONIC) reads per iteration: the floor a tracer that
 * times each call with that clock cannot go below.  "untraced"
 * first writes one traced byte in DIR (so the shim's thread runs), then
 * times read() of 1 byte from /dev/zero, which the shim does not trace
 * (excluded path): what the shim's mere presence costs other syscalls.  Run once plain
 * and once under LD_PRELOAD (bench/overhead.sh): the difference is what the
 * shim adds to each call (two clock reads, the fd-table check, the ring
 * append, and its share of the flusher's work on a 2-core machine).
 *
 * "mt" starts an idle thread first.  This matters for syscalls: Linux takes
 * cheaper paths (no atomic file refcount, no f_pos lock) in single-threaded
 * processes.  The shim's flusher thread runs in its own descriptor table
 * (libtrace/README.md) so that it does not cost the application these fast
 * paths; "mt" shows the cost of the wrappers in a program that is already
 * multi-threaded (MPI progress/PMIx threads, OpenMP).
 *
 * "paired" measures the added cost inside one process, so that the load of
 * a shared machine (which moves a plain 1-byte pwrite by +-200 ns between
 * runs) falls on both sides alike: rounds of three blocks of 1000 calls
 * each -- libc's own function (looked up in libc itself, so no preloaded
 * wrapper is in the way), the symbol as the program binds it (the shim's
 * wrapper when preloaded), and two clock_gettime() -- timed by the CPU
 * clock of the thread.  Prints the medians over the rounds: plain_ns,
 * traced_ns, floor_ns, added_ns (median of the rounds' traced - plain:
 * neighbours in time) and flusher_ns (CPU of the process's other threads per
 * traced call, over the whole run).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "paired.h"

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The timed loop: wall, the calling thread's CPU, the process's CPU. */
static double t_wall, t_thread, t_proc;
static void timing_begin(void)
{
    t_proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    t_thread = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    t_wall = clock_ns(CLOCK_MONOTONIC);
}
static void timing_end(void)
{
    t_wall = clock_ns(CLOCK_MONOTONIC) - t_wall;
    t_thread = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t_thread;
    t_proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t_proc;
}

static void die(const char *what)
{
    fprintf(stderr, "overhead: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* n one-byte reads from fd (closed after), timed. */
static void timed_reads(int fd, long n, const char *what)
{
    char c;
    timing_begin();
    for (long i = 0; i < n; i++)
        if (read(fd, &c, 1) != 1)
            die(what);
    timing_end();
    close(fd);
}

/* One block of the paired mode: BLOCK calls of `call` (0 plain, 1 traced,
 * 2 clock pair); returns the thread's CPU ns per call. */
#define BLOCK 1000
static ssize_t (*libc_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*libc_read)(int, void *, size_t);
static size_t (*libc_fwrite)(const void *, size_t, size_t, FILE *);
static double paired_block(const char *what, int call, int fd, FILE *f, long *pos)
{
    char c = 'x';
    struct timespec a, b;
    long sink = 0;
    double t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (call == 2) {
        for (int i = 0; i < BLOCK; i++) {
            clock_gettime(CLOCK_MONOTONIC, &a);
            clock_gettime(CLOCK_MONOTONIC, &b);
            sink += b.tv_nsec - a.tv_nsec;
        }
    } else if (strcmp(what, "pwrite") == 0) {
        for (int i = 0; i < BLOCK; i++, (*pos)++)
            if ((call ? pwrite(fd, &c, 1, *pos & 4095) : libc_pwrite(fd, &c, 1, *pos & 4095)) != 1)
                die("pwrite");
    } else if (strcmp(what, "read") == 0) {
        for (int i = 0; i < BLOCK; i++)
            if ((call ? read(fd, &c, 1) : libc_read(fd, &c, 1)) != 1)
                die("read");
    } else {
        for (int i = 0; i < BLOCK; i++)
            if ((call ? fwrite(&c, 1, 1, f) : libc_fwrite(&c, 1, 1, f)) != 1)
                die("fwrite");
    }
    if (sink == 42)
        printf("sink=%ld\n", sink);
    return (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t) / BLOCK;
}

static int paired(const char *what, long n, const char *dir)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (!libc || !(libc_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(libc, "pwrite")) ||
        !(libc_read = (ssize_t (*)(int, void *, size_t))dlsym(libc, "read")) ||
        !(libc_fwrite = (size_t (*)(const void *, size_t, size_t, FILE *))dlsym(libc, "fwrite"))) {
        fprintf(stderr, "overhead: cannot find libc's own functions\n");
        return 1;
    }
    if (strcmp(what, "pwrite") && strcmp(what, "read") && strcmp(what, "fwrite")) {
        fprintf(stderr, "overhead: paired: unknown call '%s'\n", what);
        return 2;
    }
    long rounds = n / BLOCK < 1 ? 1 : n / BLOCK;
    char path[4096];
    snprintf(path, sizeof path, "%s/overhead-paired-%s.dat", dir, what);
    int fd = -1;
    FILE *f = NULL;
    if (strcmp(what, "read") == 0) {
        FILE *w = fopen(path, "w");          /* setup: 2 x rounds x BLOCK bytes to read */
        static char block[1 << 16];
        if (!w)
            die(path);
        for (long left = 2 * rounds * BLOCK; left > 0; left -= (long)sizeof block)
            fwrite(block, 1, left < (long)sizeof block ? (size_t)left : sizeof block, w);
        fclose(w);
        fd = open(path, O_RDONLY);
    } else if (strcmp(what, "pwrite") == 0) {
        fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    } else if (!(f = fopen(path, "w"))) {
        die(path);
    }
    if (!f && fd < 0)
        die(path);
    double *p = malloc(sizeof(double) * (size_t)rounds * 4);
    if (!p)
        die("malloc");
    double *t = p + rounds, *fl = t + rounds, *d = fl + rounds;
    long pos = 0;
    double proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID), thread = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long r = 0; r < rounds; r++) {
        p[r] = paired_block(what, 0, fd, f, &pos);
        t[r] = paired_block(what, 1, fd, f, &pos);
        fl[r] = paired_block(what, 2, fd, f, &pos);
        d[r] = t[r] - p[r];
    }
    thread = clock_ns(CLOCK_THREAD_CPUTIME_ID) - thread;
    proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - proc;
    if (f)
        fclose(f);
    else
        close(fd);
    unlink(path);
    printf("plain_ns=%.1f\ntraced_ns=%.1f\nfloor_ns=%.1f\nadded_ns=%.1f\nflusher_ns=%.1f\n",
           paired_median(p, rounds), paired_median(t, rounds), paired_median(fl, rounds), paired_median(d, rounds),
           (proc - thread) / (double)(rounds * BLOCK));
    free(p);
    return 0;
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "paired") == 0) {
        char *e;
        long n = strtol(argv[3], &e, 10);
        if (*e || n <= 0) {
            fprintf(stderr, "overhead: bad call count '%s'\n", argv[3]);
            return 2;
        }
        return paired(argv[2], n, argv[4]);
    }
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "mt") == 0)) {
        fprintf(stderr, "usage: overhead pwrite|read|fwrite|untraced|clockpair CALLS DIR [mt]\n"
                        "       overhead paired pwrite|read|fwrite CALLS DIR\n");
        return 2;
    }
    pthread_t th;
    if (argc == 5 && pthread_create(&th, NULL, idle, NULL) != 0) {
        fprintf(stderr, "overhead: cannot start the idle thread\n");
        return 1;
    }
    const char *mode = argv[1];
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (*end || n <= 0) {
        fprintf(stderr, "overhead: bad call count '%s'\n", argv[2]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/overhead-%s.dat", argv[3], mode);
    char c = 'x';
    if (strcmp(mode, "clockpair") == 0) {
        struct timespec a, b;
        long sink = 0;
        timing_begin();
        for (long i = 0; i < n; i++) {
            clock_gettime(CLOCK_MONOTONIC, &a);
            clock_gettime(CLOCK_MONOTONIC, &b);
            sink += b.tv_nsec - a.tv_nsec;
        }
        timing_end();
        if (sink == 42)
            printf("sink=%ld\n", sink);
    } else if (strcmp(mode, "pwrite") == 0) {
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0)
            die(path);
        timing_begin();
        for (long i = 0; i < n; i++)
            if (pwrite(fd, &c, 1, i & 4095) != 1)
                die("pwrite");
        timing_end();
        close(fd);
    } else if (strcmp(mode, "read") == 0) {
        FILE *f = fopen(path, "w");          /* setup, not timed */
        if (!f)
            die(path);
        static char block[1 << 16];
        for (long left = n; left > 0; left -= (long)sizeof block)
            fwrite(block, 1, left < (long)sizeof block ? (size_t)left : sizeof block, f);
        fclose(f);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            die(path);
        timed_reads(fd, n, "read");
    } else if (strcmp(mode, "fwrite") == 0) {
        FILE *f = fopen(path, "w");
        if (!f)
            die(path);
        timing_begin();
        for (long i = 0; i < n; i++)
            if (fwrite(&c, 1, 1, f) != 1)
                die("fwrite");
        timing_end();
        fclose(f);
    } else if (strcmp(mode, "untraced") == 0) {
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || write(fd, &c, 1) != 1)
            die(path);
        close(fd);
        struct timespec settle = { 0, 100000000 };   /* the shim's thread is up */
        nanosleep(&settle, NULL);
        int z = open("/dev/zero", O_RDONLY);
        if (z < 0)
            die("/dev/zero");
        timed_reads(z, n, "read /dev/zero");
    } else {
        fprintf(stderr, "overhead: unknown mode '%s'\n", mode);
        return 2;
    }
    unlink(path);
    printf("ns_per_call=%.1f\nthread_ns_per_call=%.1f\nprocess_ns_per_call=%.1f\n", t_wall / (double)n,
           t_thread / (double)n, t_proc / (double)n);
    return 0;
}
