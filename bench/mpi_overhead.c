/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_overhead.c -- cost of the shim per MPI-IO call.
 *
 *   mpi_overhead [-n CALLS] [-o DIR] [-p]
 *
 * One rank writes 1 byte CALLS times (default 10^6) with MPI_File_write_at
 * to DIR/mpi_overhead.<pid> (offsets cycle through 4 KiB so the file stays
 * small) and prints "write_at_ns_per_call <ns>" (the whole loop) and
 * "write_at_best_block_ns <ns>" (the fastest of 10 equal blocks of the loop:
 * less sensitive to other load on the machine) and "write_at_thread_cpu_ns
 * <ns>" (CPU time of the calling thread per call: what the application
 * thread pays, whatever else runs on the machine).  bench/overhead-mpiio.sh runs
 * it with and without LD_PRELOAD=libftio.so; the difference is the shim's
 * cost per call, including what the nested pwrite() OMPIO makes underneath
 * costs it (passed through unrecorded unless FTIO_NESTED=1).
 *
 * -p (paired, one process: the machine's load falls on both sides alike):
 * rounds of three blocks of 1000 calls, timed by the thread's CPU clock --
 * the MPI library's own PMPI_File_write_at (found in libmpi itself, past any
 * preloaded wrapper) with the shim paused (ftio_pause: its POSIX wrappers
 * pass the nested pwrite through), MPI_File_write_at as the program binds it,
 * and two clock_gettime() -- and prints the medians over the rounds:
 * write_at_plain_ns, write_at_traced_ns, floor_ns, write_at_added_ns (median
 * of the rounds' traced - plain) and flusher_ns (CPU of the other threads
 * per traced call).  libmpi is found by its soname (Open MPI's or MPICH's).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "paired.h"
#include "ftio.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

typedef int (*write_at_fn)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);

/* One block of the paired mode (0 plain, 1 traced, 2 clock pair): thread
 * CPU ns per call. */
#define BLOCK 1000
static double paired_block(int what, write_at_fn plain, MPI_File fh, long *pos)
{
    char byte = 'x';
    struct timespec a, b;
    long sink = 0;
    if (what == 0)
        ftio_try_pause();
    double t = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < BLOCK; i++, (*pos)++) {
        int rc = MPI_SUCCESS;
        if (what == 0)
            rc = plain(fh, *pos & 4095, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
        else if (what == 1)
            rc = MPI_File_write_at(fh, *pos & 4095, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
        else {
            clock_gettime(CLOCK_MONOTONIC, &a);
            clock_gettime(CLOCK_MONOTONIC, &b);
            sink += b.tv_nsec - a.tv_nsec;
        }
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "mpi_overhead: write_at failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t;
    if (what == 0)
        ftio_try_resume();
    if (sink == 42)
        printf("sink %ld\n", sink);
    return t * 1e9 / BLOCK;
}

static int paired(MPI_File fh, long calls)
{
    /* The MPI library by its soname (Open MPI's, then MPICH's), already loaded. */
    static const char *const sonames[] = { "libmpi.so.40", "libmpi.so.12", "libmpi.so" };
    write_at_fn plain = NULL;
    for (size_t i = 0; !plain && i < sizeof sonames / sizeof *sonames; i++) {
        void *lib = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (lib)
            plain = (write_at_fn)dlsym(lib, "PMPI_File_write_at");
    }
    if (!plain) {
        fprintf(stderr, "mpi_overhead: -p: the MPI library's own PMPI_File_write_at not found\n");
        return 1;
    }
    long rounds = calls / BLOCK > 0 ? calls / BLOCK : 1, pos = 0;
    double *p = malloc(sizeof(double) * (size_t)rounds * 4);
    if (!p)
        return 1;
    double *t = p + rounds, *f = t + rounds, *d = f + rounds;
    double proc = clock_s(CLOCK_PROCESS_CPUTIME_ID), thread = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (long r = 0; r < rounds; r++) {
        p[r] = paired_block(0, plain, fh, &pos);
        t[r] = paired_block(1, plain, fh, &pos);
        f[r] = paired_block(2, plain, fh, &pos);
        d[r] = t[r] - p[r];
    }
    thread = clock_s(CLOCK_THREAD_CPUTIME_ID) - thread;
    proc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - proc;
    printf("write_at_plain_ns %.1f\nwrite_at_traced_ns %.1f\nfloor_ns %.1f\nwrite_at_added_ns %.1f\n"
           "flusher_ns %.1f\n", paired_median(p, rounds), paired_median(t, rounds), paired_median(f, rounds),
           paired_median(d, rounds), (proc - thread) * 1e9 / (double)(rounds * BLOCK));
    free(p);
    return 0;
}

int main(int argc, char **argv)
{
    long calls = 1000000;
    const char *dir = ".";
    int pair = 0;
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
        } else if (strcmp(argv[i], "-p") == 0) {
            pair = 1;
        } else {
            fprintf(stderr, "usage: mpi_overhead [-n CALLS] [-o DIR] [-p]\n");
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
    if (pair) {
        int rc = paired(fh, calls);
        MPI_File_close(&fh);
        MPI_Finalize();
        return rc;
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
