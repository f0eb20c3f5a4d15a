/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_burst.c -- as many small I/O calls as the machine allows, for the
 * burst test (tests/shim/burst.sh) and benchmark (bench/burst.sh).
 *
 *   shim-burst THREADS CALLS DIR
 *
 * Each of THREADS threads opens its own file in DIR twice (POSIX and stdio)
 * (and the directory once with O_PATH, which is no I/O and must not be
 * recorded), and alternates 1-byte write(2) and fwrite(3) calls, CALLS in all per
 * thread, as fast as it can; then prints "calls=<total data calls>" and
 * "seconds=<wall time of the loop>" on stdout.  Under libftio.so every call
 * is a record: the test compares what arrived with what was made.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long calls;
static const char *dir;

static void *run(void *arg)
{
    long id = (long)arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/burst-%ld.posix", dir, id);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s/burst-%ld.stdio", dir, id);
    FILE *f = fopen(path, "w");
    if (fd < 0 || !f) {
        perror(path);
        exit(1);
    }
    /* A path handle: not I/O, must not be recorded (tests/shim/burst.sh). */
    int ph = open(dir, O_PATH | O_DIRECTORY);
    if (ph >= 0)
        close(ph);
    for (long i = 0; i < calls; i++) {
        if (i & 1) {
            if (fwrite("x", 1, 1, f) != 1)
                exit(1);
        } else if (write(fd, "x", 1) != 1) {
            exit(1);
        }
    }
    fclose(f);
    close(fd);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[1]) < 1 || atol(argv[2]) < 1) {
        fprintf(stderr, "usage: shim-burst THREADS CALLS DIR\n");
        return 2;
    }
    int nthreads = atoi(argv[1]);
    calls = atol(argv[2]);
    dir = argv[3];
    pthread_t th[256];
    if (nthreads > 256)
        nthreads = 256;
    double t0 = now();
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, run, (void *)i) != 0)
            return 1;
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("calls=%ld\nseconds=%.6f\n", calls * nthreads, now() - t0);
    return 0;
}
