/* SPDX-License-Identifier: BSD-3-Clause */
/* activities.c -- MPI mini-app with two periodic activities, the pattern of a
 * simulation that dumps often and checkpoints rarely (LAMMPS' dump and
 * restart, GROMACS' frames and checkpoints).
 *
 *   activities [-n STEPS] [-c SEC] [-d BYTES] [-k EVERY] [-b BYTES] [-o DIR]
 *
 * Every step each rank computes for SEC seconds (sleep), then writes a dump
 * of BYTES (-d, default 256 KiB) to its own new file DIR/dump.<step>.<rank>;
 * every EVERY steps (-k, default 6) it also writes a checkpoint of BYTES (-b,
 * default 16 MiB) to DIR/ckpt_<step>.<rank>.bin, after a barrier.  Plain
 * POSIX writes and fsync-free closes, so the shim sees each file by name.
 *
 * Rank 0 prints its own truth, the wall-clock start (CLOCK_REALTIME, after
 * the barrier that starts each phase) of every phase:
 *   dump <epoch s>
 *   ckpt <epoch s>
 * so a test compares ftio's periods per activity with what the program did.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int write_file(const char *path, const char *buf, long long bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    long long done = 0;
    while (done < bytes) {
        size_t chunk = bytes - done > (1 << 20) ? (1 << 20) : (size_t)(bytes - done);
        ssize_t w = write(fd, buf, chunk);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += w;
    }
    return close(fd);
}

static long long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k')
        v *= 1024;
    else if (*end == 'M' || *end == 'm')
        v *= 1048576;
    return (long long)v;
}

int main(int argc, char **argv)
{
    int steps = 48, every = 6;
    double compute = 0.5;
    long long dump = 256 * 1024, ckpt = 16 * 1048576;
    const char *dir = ".";
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "-n"))
            steps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-c"))
            compute = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-d"))
            dump = parse_size(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-k"))
            every = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-b"))
            ckpt = parse_size(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-o"))
            dir = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: activities [-n STEPS] [-c SEC] [-d BYTES] [-k EVERY] "
                                "[-b BYTES] [-o DIR]\n");
            MPI_Finalize();
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    }
    if (steps < 1 || every < 1 || compute < 0 || dump < 1 || ckpt < 1) {
        if (rank == 0)
            fprintf(stderr, "activities: steps, every, sizes must be positive, compute >= 0\n");
        MPI_Finalize();
        return 2;
    }
    long long big = dump > ckpt ? dump : ckpt;
    char *buf = malloc(big < (1 << 20) ? (size_t)big : (size_t)(1 << 20));
    if (!buf) {
        fprintf(stderr, "activities: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 'a' + rank % 26, big < (1 << 20) ? (size_t)big : (size_t)(1 << 20));
    char path[4096];
    int rc = 0;
    for (int s = 1; s <= steps && rc == 0; s++) {
        sleep_s(compute);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("dump %.6f\n", now_epoch());
        snprintf(path, sizeof path, "%s/dump.%d.%d", dir, s, rank);
        rc = write_file(path, buf, dump);
        if (rc == 0 && s % every == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                printf("ckpt %.6f\n", now_epoch());
            snprintf(path, sizeof path, "%s/ckpt_%d.%d.bin", dir, s, rank);
            rc = write_file(path, buf, ckpt);
        }
    }
    if (rc != 0) {
        fprintf(stderr, "activities: rank %d: %s: %s\n", rank, path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
