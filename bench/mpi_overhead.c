/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_overhead.c -- cost of the shim per MPI-IO call.
 *
 *   mpi_overhead [-n CALLS] [-o DIR]
 *
 * One rank writes 1 byte CALLS times (default 10^6) with MPI_File_write_at
 * to DIR/mpi_overhead.<pid> (offsets cycle through 4 KiB so the file stays
 * small) and prints "write_at_ns_per_call <ns>" (the whole loop) and
 * "write_at_best_block_ns <ns>" (the fastest of 10 equal blocks of the loop:
 * less sensitive to other load on the machine) and "write_at_thread_cpu_ns
 * <ns>" (CPU time of the calling thread per call: what the application
 * thread pays, whatever else runs on the machine).  bench/overhead-mpiio.sh runs
 * it with and without LD_PRELOAD=libftio.so; the difference is the shim's
 * cost per call, including the nested pwrite() OMPIO makes underneath.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

int main(int argc, char **argv)
{
    long calls = 1000000;
    const char *dir = ".";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            calls = strtol(argv[++i], &end, 10);
            if (*end || calls < 1) {
                fprintf(stderr, "mpi_overhead: bad -n '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            fprintf(stderr, "usage: mpi_overhead [-n CALLS] [-o DIR]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    char path[4096];
    snprintf(path, sizeof path, "%s/mpi_overhead.%ld", dir, (long)getpid());
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "mpi_overhead: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char byte = 'x';
    long block = calls / 10 > 0 ? calls / 10 : 1, done = 0;
    double best = 1e30, t0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    while (done < calls) {
        long n = calls - done < block ? calls - done : block;
        double b0 = now();
        for (long i = done; i < done + n; i++)
            if (MPI_File_write_at(fh, i & 4095, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                fprintf(stderr, "mpi_overhead: write_at failed\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        double per = (now() - b0) * 1e9 / (double)n;
        if (n == block && per < best)
            best = per;
        done += n;
    }
    double t1 = now(), c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    MPI_File_close(&fh);
    printf("write_at_ns_per_call %.1f\n", (t1 - t0) * 1e9 / (double)calls);
    printf("write_at_best_block_ns %.1f\n", best);
    printf("write_at_thread_cpu_ns %.1f\n", (c1 - c0) * 1e9 / (double)calls);
    MPI_Finalize();
    return 0;
}
