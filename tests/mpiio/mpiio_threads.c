/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio_threads.c -- MPI-IO from several threads at once (MPI_THREAD_MULTIPLE):
 * the shim's file map, request table and per-thread rings under concurrency.
 *
 *   mpiio_threads DIR [THREADS [ITERATIONS]]     (defaults 4, 100)
 *
 * Each thread of each rank opens its own file DIR/t<rank>_<thread>.dat on
 * MPI_COMM_SELF and, ITERATIONS times, posts an MPI_File_iwrite_at, does a
 * blocking MPI_File_write_at, then completes the first with MPI_Wait (even
 * iterations) or an MPI_Test loop (odd ones).  The expected records go to
 * DIR/expect.<rank> in the format of mpiio_calls (see check_records.py).
 *
 * Blocking reads and writes run concurrently.  The nonblocking post and its
 * completion are serialised by a mutex, and so are a file's open and close:
 * OMPIO's request progress in Open MPI 4.1.4 is not thread-safe (concurrent
 * MPI_Wait on file requests crashes in mca_common_ompio_progress, with or
 * without the shim; and once, in a suite beside stress-ng, an MPI_Test loop
 * crashed there, other threads opening or closing their files meanwhile).  Requests are still
 * posted and completed by different threads in turn, with other threads'
 * blocking records in between.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "record.h"

#define B 512

static int rank, iterations;
static const char *dir;
static FILE *expect;
static pthread_mutex_t expect_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t nonblocking_lock = PTHREAD_MUTEX_INITIALIZER;

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpiio_threads: rank %d: %s failed (%d)\n", rank, what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void want(const char *file, int op, int flags, long long bytes, long long off)
{
    pthread_mutex_lock(&expect_lock);
    fprintf(expect, "%s %d %d %lld %lld 0\n", file, op, flags, bytes, off);
    pthread_mutex_unlock(&expect_lock);
}

static void *writer(void *arg)
{
    int t = (int)(long)arg;
    char name[64], path[4096], buf[2 * B];
    snprintf(name, sizeof name, "t%d_%d", rank, t);
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    for (int i = 0; i < 2 * B; i++)
        buf[i] = (char)('a' + (t + i) % 26);
    MPI_File fh;
    pthread_mutex_lock(&nonblocking_lock);
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open");
    pthread_mutex_unlock(&nonblocking_lock);
    want(name, FTIO_OP_OPEN, FTIO_FLAG_COLLECTIVE, 0, -1);
    for (int i = 0; i < iterations; i++) {
        MPI_Request req;
        MPI_Offset off = (MPI_Offset)i * 2 * B;
        check(MPI_File_write_at(fh, off + B, buf + B, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
        pthread_mutex_lock(&nonblocking_lock);
        check(MPI_File_iwrite_at(fh, off, buf, B, MPI_BYTE, &req), "iwrite_at");
        if (i % 2 == 0) {
            check(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait");
        } else {
            int flag = 0;
            while (!flag)
                check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "Test");
        }
        pthread_mutex_unlock(&nonblocking_lock);
        want(name, FTIO_OP_WRITE, FTIO_FLAG_ASYNC, B, off);
        want(name, FTIO_OP_WRITE, 0, B, off + B);
    }
    pthread_mutex_lock(&nonblocking_lock);
    check(MPI_File_close(&fh), "close");
    pthread_mutex_unlock(&nonblocking_lock);
    want(name, FTIO_OP_CLOSE, FTIO_FLAG_COLLECTIVE, 0, -1);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mpiio_threads DIR [THREADS [ITERATIONS]]\n");
        return 2;
    }
    dir = argv[1];
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    iterations = argc > 3 ? atoi(argv[3]) : 100;
    if (threads < 1 || threads > 64 || iterations < 1) {
        fprintf(stderr, "mpiio_threads: bad THREADS or ITERATIONS\n");
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "mpiio_threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/expect.%d", dir, rank);
    expect = fopen(path, "w");
    if (!expect) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t tid[64];
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, writer, (void *)(long)t) != 0) {
            fprintf(stderr, "mpiio_threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    fclose(expect);
    MPI_Finalize();
    return 0;
}
