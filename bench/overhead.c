/* overhead.c -- cost of libftio.so per intercepted call.
 *
 *   overhead MODE CALLS DIR [mt]     MODE = pwrite | read | fwrite
 *
 * Times CALLS back-to-back 1-byte calls on a file in DIR (pwrite at a
 * rolling offset inside one page, sequential read() of a CALLS-byte file,
 * fwrite into a buffered stream) and prints "ns_per_call=X".  Run once plain
 * and once under LD_PRELOAD (bench/overhead.sh): the difference is what the
 * shim adds to each call (two clock reads, the fd-table check, the ring
 * append, and its share of the flusher's work on a 2-core machine).
 *
 * "mt" starts an idle thread first.  This matters for syscalls: Linux takes
 * cheaper paths (no atomic file refcount, no f_pos lock) in single-threaded
 * processes, and the shim's flusher thread makes every process
 * multi-threaded.  Most HPC programs already are (MPI progress/PMIx threads,
 * OpenMP), so "mt" isolates what the wrappers themselves cost.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "overhead: %s: %s\n", what, strerror(errno));
    exit(1);
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
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "mt") == 0)) {
        fprintf(stderr, "usage: overhead pwrite|read|fwrite CALLS DIR [mt]\n");
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
    double t0, t1;
    if (strcmp(mode, "pwrite") == 0) {
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0)
            die(path);
        t0 = now();
        for (long i = 0; i < n; i++)
            if (pwrite(fd, &c, 1, i & 4095) != 1)
                die("pwrite");
        t1 = now();
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
        t0 = now();
        for (long i = 0; i < n; i++)
            if (read(fd, &c, 1) != 1)
                die("read");
        t1 = now();
        close(fd);
    } else if (strcmp(mode, "fwrite") == 0) {
        FILE *f = fopen(path, "w");
        if (!f)
            die(path);
        t0 = now();
        for (long i = 0; i < n; i++)
            if (fwrite(&c, 1, 1, f) != 1)
                die("fwrite");
        t1 = now();
        fclose(f);
    } else {
        fprintf(stderr, "overhead: unknown mode '%s'\n", mode);
        return 2;
    }
    unlink(path);
    printf("ns_per_call=%.1f\n", (t1 - t0) / (double)n);
    return 0;
}
