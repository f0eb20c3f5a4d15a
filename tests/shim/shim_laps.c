/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_laps.c -- the rings' laps, for tests/shim/ring_laps.sh.
 *
 *   shim-laps GENERATIONS THREADS CALLS DIR
 *
 * GENERATIONS times, THREADS threads each write CALLS single bytes with
 * pwrite(2) into a file of their own (DIR/laps-<generation>-<thread>) at
 * offsets 0, 1, ... CALLS-1, in that order, and end: each thread's records
 * fill several ring segments (run with a small FTIO_BUFFER_MB), the next
 * generation's threads take over the queues and the segments the last one
 * left (libtrace/ring.c: a record is published by the sequence number in
 * its slot, which goes on across a segment's reuse).  While the second
 * generation writes, the main thread forks: the child writes DIR/laps-child
 * the same way and exits (it inherits queues half written by threads it does
 * not have).  Under libftio.so each file's records must be its offsets, each
 * once, in order.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long calls;
static const char *dir;

static void write_file(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    for (long i = 0; i < calls; i++)
        if (pwrite(fd, "x", 1, i) != 1) {
            perror("pwrite");
            exit(1);
        }
    close(fd);
}

static void *run(void *arg)
{
    char name[64];
    snprintf(name, sizeof name, "laps-%ld", (long)arg);
    write_file(name);
    return NULL;
}

int main(int argc, char **argv)
{
    /* nofork: under make asan only (ring_laps.sh): libasan's allocator takes
     * no lock around fork, so a child forked while threads allocate can hang
     * in its first malloc, which is not the rings' to test */
    bool nofork = argc == 6 && strcmp(argv[5], "nofork") == 0;
    if (argc != 5 && !nofork) {
        fprintf(stderr, "usage: shim-laps GENERATIONS THREADS CALLS DIR [nofork]\n");
        return 2;
    }
    long gens = atol(argv[1]), threads = atol(argv[2]);
    calls = atol(argv[3]);
    dir = argv[4];
    if (gens < 2 || threads < 1 || threads > 64 || calls < 1) {
        fprintf(stderr, "shim-laps: GENERATIONS >= 2, THREADS 1..64, CALLS >= 1\n");
        return 2;
    }
    pthread_t th[64];
    for (long g = 0; g < gens; g++) {
        for (long t = 0; t < threads; t++)
            if (pthread_create(&th[t], NULL, run, (void *)(g * 100 + t)) != 0) {
                fprintf(stderr, "shim-laps: pthread_create failed\n");
                return 1;
            }
        if (g == 1 && !nofork) {
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 1;
            }
            if (pid == 0) {
                write_file("laps-child");
                exit(0);
            }
            int status;
            if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "shim-laps: the child failed\n");
                return 1;
            }
        }
        for (long t = 0; t < threads; t++)
            pthread_join(th[t], NULL);
    }
    printf("files=%ld\n", gens * threads + !nofork);
    return 0;
}
