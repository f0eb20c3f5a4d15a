/* SPDX-License-Identifier: BSD-3-Clause */
/* othertool.c -- a classic PMPI tool (like Darshan or TMIO): its MPI_X call
 * PMPI_X.  Preloaded next to the shim, in either order, every call must
 * still be recorded exactly once (TRACING.md pitfall 2: Darshan#415,
 * Recorder#16).  It counts what it saw and prints the count at finalize,
 * so the test also knows the tool really was in the call path.
 */
#include <mpi.h>
#include <stdio.h>

static long seen;

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    seen++;
    return PMPI_File_open(comm, filename, amode, info, fh);
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status)
{
    seen++;
    return PMPI_File_write_at(fh, offset, buf, count, datatype, status);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    seen++;
    return PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request)
{
    seen++;
    return PMPI_File_iwrite_at(fh, offset, buf, count, datatype, request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    seen++;
    return PMPI_Wait(request, status);
}

int MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "othertool: rank %d saw %ld calls\n", rank, seen);
    return PMPI_Finalize();
}
