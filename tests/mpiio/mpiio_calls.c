/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio_calls.c -- drives every MPI-IO call family the shim wraps, and writes
 * down what it did, so a checker can compare that with what was traced.
 *
 *   mpiio_calls DIR [--no-finalize | --abort]
 *
 * Each rank works on DIR/calls.dat (opened on MPI_COMM_WORLD) and rank 0 also
 * creates and deletes DIR/deleted.dat.  For every MPI-IO call that must give
 * one record, the rank appends a line to DIR/expect.<rank>:
 *     file op flags bytes offset min_duration_ns
 * (file: "calls" or "deleted"; op/flags as in common/record.h; offset -1 =
 * unknown).  Non-I/O requests (Isend/Irecv) are mixed in and must give no
 * record.  Any MPI error aborts with a message.  --no-finalize exits without
 * MPI_Finalize (after a barrier), --abort ends with MPI_Abort(..., 3), to
 * test those exit paths of the shim.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "record.h"

#define B 1000                      /* bytes per access */

static FILE *expect;
static int rank, nranks;
static char buf[8 * B], rbuf[8 * B];

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "mpiio_calls: rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void want(const char *file, int op, int flags, long long bytes, long long off,
                 long long min_ns)
{
    fprintf(expect, "%s %d %d %lld %lld %lld\n", file, op, flags, bytes, off, min_ns);
}

/* Region k of this rank: ranks interleave, B bytes each. */
static MPI_Offset region(int k) { return ((MPI_Offset)k * nranks + rank) * B; }

/* Nonblocking writes of B bytes at regions a and b, requests in r[0], r[1];
 * want_iwrite2() notes the records they give once completed. */
static void iwrite2(MPI_File fh, int a, int b, MPI_Request r[])
{
    check(MPI_File_iwrite_at(fh, region(a), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    check(MPI_File_iwrite_at(fh, region(b), buf, B, MPI_BYTE, &r[1]), "iwrite_at");
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

#define W  FTIO_OP_WRITE
#define R  FTIO_OP_READ
#define C  FTIO_FLAG_COLLECTIVE
#define A  FTIO_FLAG_ASYNC

static void want_iwrite2(int a, int b)
{
    want("calls", W, A, B, region(a), 0);
    want("calls", W, A, B, region(b), 0);
}

/* iwrite2(a, b) completed by MPI_Waitsome or MPI_Testsome (some), called
 * until both are done. */
static void complete_some(MPI_File fh, int a, int b, const char *what, MPI_Status st[],
                          int (*some)(int, MPI_Request[], int *, int[], MPI_Status[]))
{
    MPI_Request r[2];
    int n;
    iwrite2(fh, a, b, r);
    for (int done = 0; done < 2; done += n)
        check(some(2, r, &n, (int[2]){0}, st), what);
    want_iwrite2(a, b);
}

static void blocking(MPI_File fh)
{
    MPI_Status st;
    check(MPI_File_write_at(fh, region(0), buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
    want("calls", W, 0, B, region(0), 0);
    check(MPI_File_write_at(fh, region(1), buf, B / 4, MPI_INT, &st), "write_at int");
    want("calls", W, 0, B, region(1), 0);
    check(MPI_File_read_at(fh, region(0), rbuf, B, MPI_BYTE, &st), "read_at");
    want("calls", R, 0, B, region(0), 0);
    /* Called the way Fortran bindings do: straight to PMPI.  One record. */
    check(PMPI_File_write_at(fh, region(2), buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "PMPI_write_at");
    want("calls", W, 0, B, region(2), 0);
    /* count 0 and a read past the end of the file give 0 bytes */
    check(MPI_File_write_at(fh, region(2), buf, 0, MPI_BYTE, MPI_STATUS_IGNORE), "write_at 0");
    want("calls", W, 0, 0, region(2), 0);

    check(MPI_File_write_at_all(fh, region(3), buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
    want("calls", W, C, B, region(3), 0);
    check(MPI_File_read_at_all(fh, region(3), rbuf, B, MPI_BYTE, MPI_STATUS_IGNORE), "read_at_all");
    want("calls", R, C, B, region(3), 0);

    /* individual file pointer */
    check(MPI_File_seek(fh, region(4), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(4), 0);
    check(MPI_File_write(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write");
    want("calls", W, 0, B, region(4), 0);
    check(MPI_File_seek(fh, region(4), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(4), 0);
    check(MPI_File_read(fh, rbuf, B, MPI_BYTE, &st), "read");
    want("calls", R, 0, B, region(4), 0);
    check(MPI_File_seek(fh, region(5), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(5), 0);
    check(MPI_File_write_all(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
    want("calls", W, C, B, region(5), 0);
    check(MPI_File_seek(fh, region(5), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(5), 0);
    check(MPI_File_read_all(fh, rbuf, B, MPI_BYTE, MPI_STATUS_IGNORE), "read_all");
    want("calls", R, C, B, region(5), 0);

    /* shared file pointer and ordered: offset unknown */
    check(MPI_File_write_shared(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_shared");
    want("calls", W, 0, B, -1, 0);
    check(MPI_File_write_ordered(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_ordered");
    want("calls", W, C, B, -1, 0);
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    want("calls", FTIO_OP_SEEK, 0, 0, 0, 0);
    check(MPI_File_read_shared(fh, rbuf, B, MPI_BYTE, MPI_STATUS_IGNORE), "read_shared");
    want("calls", R, 0, B, -1, 0);
    check(MPI_File_read_ordered(fh, rbuf, B, MPI_BYTE, MPI_STATUS_IGNORE), "read_ordered");
    want("calls", R, C, B, -1, 0);
}

static void split(MPI_File fh)
{
    /* Work between _begin and _end must be inside the record's time span. */
    check(MPI_File_write_at_all_begin(fh, region(6), buf, B, MPI_BYTE), "write_at_all_begin");
    sleep_ms(20);
    check(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE), "write_at_all_end");
    want("calls", W, C | A, B, region(6), 20000000);
    check(MPI_File_read_at_all_begin(fh, region(6), rbuf, B, MPI_BYTE), "read_at_all_begin");
    check(MPI_File_read_at_all_end(fh, rbuf, MPI_STATUS_IGNORE), "read_at_all_end");
    want("calls", R, C | A, B, region(6), 0);

    check(MPI_File_seek(fh, region(7), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(7), 0);
    check(MPI_File_write_all_begin(fh, buf, B, MPI_BYTE), "write_all_begin");
    check(MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE), "write_all_end");
    want("calls", W, C | A, B, region(7), 0);
    check(MPI_File_seek(fh, region(7), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(7), 0);
    check(MPI_File_read_all_begin(fh, rbuf, B, MPI_BYTE), "read_all_begin");
    check(MPI_File_read_all_end(fh, rbuf, MPI_STATUS_IGNORE), "read_all_end");
    want("calls", R, C | A, B, region(7), 0);

    check(MPI_File_write_ordered_begin(fh, buf, B, MPI_BYTE), "write_ordered_begin");
    check(MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE), "write_ordered_end");
    want("calls", W, C | A, B, -1, 0);
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    want("calls", FTIO_OP_SEEK, 0, 0, 0, 0);
    check(MPI_File_read_ordered_begin(fh, rbuf, B, MPI_BYTE), "read_ordered_begin");
    check(MPI_File_read_ordered_end(fh, rbuf, MPI_STATUS_IGNORE), "read_ordered_end");
    want("calls", R, C | A, B, -1, 0);
}

/* A pair of non-I/O requests with the neighbour ranks. */
static void post_p2p(MPI_Request r[2], int *sendv, int *recvv)
{
    int peer = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
    check(MPI_Irecv(recvv, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &r[0]), "Irecv");
    check(MPI_Isend(sendv, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[1]), "Isend");
}

static void nonblocking(MPI_File fh)
{
    MPI_Request r[4], p2p[2];
    MPI_Status st[4];
    int flag, idx, sendv = rank, recvv = -1;

    /* Wait: the record spans post -> completion, even with a delay between */
    check(MPI_File_iwrite_at(fh, region(8), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    sleep_ms(30);
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", W, A, B, region(8), 30000000);
    check(MPI_File_iread_at(fh, region(8), rbuf, B, MPI_BYTE, &r[0]), "iread_at");
    check(MPI_Wait(&r[0], &st[0]), "Wait");
    want("calls", R, A, B, region(8), 0);

    /* request copied to another variable before completion */
    MPI_Request copy;
    check(MPI_File_iwrite_at(fh, region(9), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    copy = r[0];
    r[0] = MPI_REQUEST_NULL;
    check(MPI_Wait(&copy, MPI_STATUS_IGNORE), "Wait copy");
    want("calls", W, A, B, region(9), 0);

    /* Test loop on an individual-pointer iwrite */
    check(MPI_File_seek(fh, region(10), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(10), 0);
    check(MPI_File_iwrite(fh, buf, B, MPI_BYTE, &r[0]), "iwrite");
    do check(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE), "Test"); while (!flag);
    want("calls", W, A, B, region(10), 0);
    check(MPI_File_seek(fh, region(10), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(10), 0);
    check(MPI_File_iread(fh, rbuf, B, MPI_BYTE, &r[0]), "iread");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", R, A, B, region(10), 0);

    /* Waitall over I/O and non-I/O requests together */
    post_p2p(p2p, &sendv, &recvv);
    iwrite2(fh, 11, 12, r);
    r[2] = p2p[0];
    r[3] = p2p[1];
    check(MPI_Waitall(4, r, MPI_STATUSES_IGNORE), "Waitall");
    want_iwrite2(11, 12);

    /* Waitany until all done */
    check(MPI_File_iwrite_at(fh, region(13), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    check(MPI_File_iread_at(fh, region(13), rbuf + B, B, MPI_BYTE, &r[1]), "iread_at");
    for (int k = 0; k < 2; k++)
        check(MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE), "Waitany");
    want("calls", W, A, B, region(13), 0);
    want("calls", R, A, B, region(13), 0);

    /* Waitsome until all done, statuses given */
    complete_some(fh, 14, 15, "Waitsome", st, MPI_Waitsome);

    /* Testall / Testany / Testsome loops, with non-I/O requests mixed in */
    post_p2p(p2p, &sendv, &recvv);
    check(MPI_File_iwrite_at(fh, region(16), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    r[1] = p2p[0];
    r[2] = p2p[1];
    do check(MPI_Testall(3, r, &flag, st), "Testall"); while (!flag);
    want("calls", W, A, B, region(16), 0);

    check(MPI_File_iwrite_at(fh, region(17), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    check(MPI_File_iread_at(fh, region(16), rbuf, B, MPI_BYTE, &r[1]), "iread_at");
    for (int done = 0; done < 2;) {
        check(MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE), "Testany");
        if (flag && idx != MPI_UNDEFINED)
            done++;
    }
    want("calls", W, A, B, region(17), 0);
    want("calls", R, A, B, region(16), 0);

    complete_some(fh, 18, 19, "Testsome", MPI_STATUSES_IGNORE, MPI_Testsome);

    /* Request_get_status until done, then Wait: still one record */
    check(MPI_File_iwrite_at(fh, region(20), buf, B, MPI_BYTE, &r[0]), "iwrite_at");
    do check(MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE), "get_status"); while (!flag);
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", W, A, B, region(20), 0);

    /* Request_free of an active request: recorded, completion unknown */
    check(MPI_File_iwrite_at(fh, region(21), buf + B, B, MPI_BYTE, &r[0]), "iwrite_at");
    check(MPI_Request_free(&r[0]), "Request_free");
    want("calls", W, A, B, region(21), 0);

    /* collective and shared-pointer nonblocking */
    check(MPI_File_iwrite_at_all(fh, region(22), buf, B, MPI_BYTE, &r[0]), "iwrite_at_all");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", W, C | A, B, region(22), 0);
    check(MPI_File_iread_at_all(fh, region(22), rbuf, B, MPI_BYTE, &r[0]), "iread_at_all");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", R, C | A, B, region(22), 0);
    check(MPI_File_seek(fh, region(23), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(23), 0);
    check(MPI_File_iwrite_all(fh, buf, B, MPI_BYTE, &r[0]), "iwrite_all");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", W, C | A, B, region(23), 0);
    check(MPI_File_seek(fh, region(23), MPI_SEEK_SET), "seek");
    want("calls", FTIO_OP_SEEK, 0, 0, region(23), 0);
    check(MPI_File_iread_all(fh, rbuf, B, MPI_BYTE, &r[0]), "iread_all");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", R, C | A, B, region(23), 0);
    check(MPI_File_iwrite_shared(fh, buf, B, MPI_BYTE, &r[0]), "iwrite_shared");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", W, A, B, -1, 0);
    check(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    want("calls", FTIO_OP_SEEK, 0, 0, 0, 0);
    check(MPI_File_iread_shared(fh, rbuf, B, MPI_BYTE, &r[0]), "iread_shared");
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "Wait");
    want("calls", R, A, B, -1, 0);

    /* plain point-to-point only: no record at all */
    post_p2p(p2p, &sendv, &recvv);
    check(MPI_Wait(&p2p[0], MPI_STATUS_IGNORE), "Wait p2p");
    check(MPI_Wait(&p2p[1], MPI_STATUS_IGNORE), "Wait p2p");
}

/* A view with a displacement and 4-byte etype: offsets become bytes. */
static void views(MPI_File fh)
{
    MPI_Offset disp = (MPI_Offset)64 * nranks * B;
    check(MPI_File_set_view(fh, disp, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view");
    want("calls", FTIO_OP_META, 0, 0, -1, 0);
    MPI_Offset at = (MPI_Offset)rank * (B / 4);       /* etype units */
    check(MPI_File_write_at(fh, at, buf, B / 4, MPI_INT, MPI_STATUS_IGNORE), "write_at view");
    want("calls", W, 0, B, disp + at * 4, 0);
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view");
    want("calls", FTIO_OP_META, 0, 0, -1, 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mpiio_calls DIR [--no-finalize | --abort]\n");
        return 2;
    }
    const char *end = argc > 2 ? argv[2] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    char path[4096];
    snprintf(path, sizeof path, "%s/expect.%d", argv[1], rank);
    expect = fopen(path, "w");
    if (!expect) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)('a' + i % 26);

    MPI_File fh;
    snprintf(path, sizeof path, "%s/calls.dat", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          "open");
    want("calls", FTIO_OP_OPEN, C, 0, -1, 0);      /* open and close are collective */
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    /* big enough that every read below is complete */
    check(MPI_File_set_size(fh, (MPI_Offset)65 * nranks * B), "set_size");
    want("calls", FTIO_OP_META, 0, 0, (long long)65 * nranks * B, 0);
    check(MPI_File_preallocate(fh, (MPI_Offset)65 * nranks * B), "preallocate");
    want("calls", FTIO_OP_META, 0, 0, (long long)65 * nranks * B, 0);
    check(MPI_File_set_atomicity(fh, 0), "set_atomicity");
    want("calls", FTIO_OP_META, 0, 0, -1, 0);

    blocking(fh);
    split(fh);
    nonblocking(fh);
    views(fh);

    check(MPI_File_sync(fh), "sync");
    want("calls", FTIO_OP_SYNC, 0, 0, -1, 0);
    check(MPI_File_close(&fh), "close");
    want("calls", FTIO_OP_CLOSE, C, 0, -1, 0);

    if (rank == 0) {
        snprintf(path, sizeof path, "%s/deleted.dat", argv[1]);
        check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
              "open deleted");
        want("deleted", FTIO_OP_OPEN, C, 0, -1, 0);
        check(MPI_File_close(&fh), "close deleted");
        want("deleted", FTIO_OP_CLOSE, C, 0, -1, 0);
        check(MPI_File_delete(path, MPI_INFO_NULL), "delete");
        want("deleted", FTIO_OP_META, 0, 0, -1, 0);
    }
    fclose(expect);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(end, "--abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(end, "--no-finalize") != 0)
        MPI_Finalize();
    return 0;
}
