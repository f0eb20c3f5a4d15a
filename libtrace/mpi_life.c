/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_life.c -- MPI lifecycle wrappers of libftio.so, and the run-time
 * resolution of the MPI helpers and predefined handles the MPI-IO layer uses.
 *
 *   MPI_Init / MPI_Init_thread: after the real call, tell the core our rank
 *       and world size (PMPI_Comm_rank/size on MPI_COMM_WORLD: no message is
 *       sent on it, so no duplicate communicator is needed), and ftiod that
 *       this rank exists (a header-only batch, `mpi: 1`, sent by the flusher:
 *       a rank that never does I/O must still count towards its job's end).
 *   MPI_Finalize: record still-pending nonblocking I/O as "completion
 *       unknown", then flush and wait (local, no collective: Darshan#559)
 *       with `mpi: 2` (this rank finalised), then the real finalize.
 *   MPI_Abort: the pending I/O as for finalize, then the durable end-of-image
 *       hand-off of the exit paths (ftio_shutdown(): final batch, delivery
 *       confirmed by ZeroMQ or spooled), since an abort may kill the process
 *       without exit, _exit or a signal we see, and ZeroMQ's queue dies with
 *       it.  Recording stops there: MPI_Abort does not return.
 * Each exists as MPI_X and PMPI_X (see mpiio.h for why).
 */
#include <dlfcn.h>
#include <string.h>
#include "mpiio.h"
#include "wire.h"

/* Read by every MPI-IO record, written once at setup: on the hot page
 * (libtrace/README.md "The hot path, page by page"); in .bss they were one
 * more page walk per call after the call's system calls. */
struct ftio_mpi_consts  ftio_mpi_c FTIO_HOT;
struct ftio_mpi_helpers ftio_mpi_h FTIO_HOT;
atomic_int ftio_mpi_ready FTIO_HOT;
__thread int ftio_mpi_in __attribute__((tls_model("initial-exec")));
FTIO_FAST_DEF(ftio_mpi_in);
FTIO_FAST_DEF(ftio_mpi_last);

/* (core.c, at init: shim.h FTIO_FAST) */
void ftio_mpi_tls_fast_init(void)
{
    FTIO_FAST_SET(ftio_mpi_in);
    FTIO_FAST_SET(ftio_mpi_last);
}

#define HELPER(field, sym)                                                     \
    do {                                                                       \
        void *p_ = dlsym(RTLD_DEFAULT, sym);                                   \
        if (!p_) return 0;                                                     \
        memcpy(&ftio_mpi_h.field, &p_, sizeof p_);                             \
    } while (0)

/* Idempotent; racing first callers store identical values. */
int ftio_mpi_setup_slow(void)
{
#ifdef OPEN_MPI
    void *world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    void *byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
    void *dtnull = dlsym(RTLD_DEFAULT, "ompi_mpi_datatype_null");
    void *reqnull = dlsym(RTLD_DEFAULT, "ompi_request_null");
    if (!world || !byte || !dtnull || !reqnull)
        return 0;
    ftio_mpi_c.world = (MPI_Comm)world;
    ftio_mpi_c.byte = (MPI_Datatype)byte;
    ftio_mpi_c.dt_null = (MPI_Datatype)dtnull;
    ftio_mpi_c.req_null = (MPI_Request)reqnull;
#else
    ftio_mpi_c.world = MPI_COMM_WORLD;
    ftio_mpi_c.byte = MPI_BYTE;
    ftio_mpi_c.dt_null = MPI_DATATYPE_NULL;
    ftio_mpi_c.req_null = MPI_REQUEST_NULL;
#endif
    HELPER(type_size_x, "PMPI_Type_size_x");
    HELPER(type_get_extent_x, "PMPI_Type_get_extent_x");
    HELPER(get_elements_x, "PMPI_Get_elements_x");
    HELPER(test_cancelled, "PMPI_Test_cancelled");
    HELPER(file_get_position, "PMPI_File_get_position");
    HELPER(file_get_byte_offset, "PMPI_File_get_byte_offset");
    HELPER(comm_rank, "PMPI_Comm_rank");
    HELPER(comm_size, "PMPI_Comm_size");
    atomic_store_explicit(&ftio_mpi_ready, 1, memory_order_release);
    return 1;
}

static void tell_rank(void)
{
    int rank = -1, size = 0;
    if (!ftio_mpi_setup())
        return;
    if (ftio_mpi_h.comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS &&
        ftio_mpi_h.comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS)
        ftio_set_rank(rank, size);
}

/* After the real init: only the outermost of MPI_Init -> PMPI_Init (another
 * tool chaining them) tells the core the rank. */
static int life_init(int rc_of_real, int outer)
{
    if (outer) {
        int saved = errno;
        if (rc_of_real == MPI_SUCCESS) {
            tell_rank();
            ftio_flusher_mpi_state(FTIO_MPI_INIT);
        }
        ftio_mpi_in = 0;
        errno = saved;
    }
    return rc_of_real;
}

/* Marks this thread as inside an MPI lifecycle call; 0 for an inner one. */
static int life_outer(void)
{
    if (ftio_busy || ftio_mpi_in)
        return 0;
    ftio_mpi_in = 1;
    return 1;
}

static int (*real_MPI_Init)(int *, char ***);
static int (*real_PMPI_Init)(int *, char ***);
static int (*real_MPI_Init_thread)(int *, char ***, int, int *);
static int (*real_PMPI_Init_thread)(int *, char ***, int, int *);
static int (*real_MPI_Finalize)(void);
static int (*real_PMPI_Finalize)(void);
static int (*real_MPI_Abort)(MPI_Comm, int);
static int (*real_PMPI_Abort)(MPI_Comm, int);

FTIO_MPI_EXPORT int MPI_Init(int *argc, char ***argv)
{
    FTIO_MPI_REAL(real_MPI_Init, "MPI_Init");
    int outer = life_outer();
    return life_init(real_MPI_Init(argc, argv), outer);
}

FTIO_MPI_EXPORT int PMPI_Init(int *argc, char ***argv)
{
    FTIO_MPI_REAL(real_PMPI_Init, "PMPI_Init");
    int outer = life_outer();
    return life_init(real_PMPI_Init(argc, argv), outer);
}

FTIO_MPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    FTIO_MPI_REAL(real_MPI_Init_thread, "MPI_Init_thread");
    int outer = life_outer();
    return life_init(real_MPI_Init_thread(argc, argv, required, provided), outer);
}

FTIO_MPI_EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    FTIO_MPI_REAL(real_PMPI_Init_thread, "PMPI_Init_thread");
    int outer = life_outer();
    return life_init(real_PMPI_Init_thread(argc, argv, required, provided), outer);
}

/* Everything this process recorded goes out before MPI (and, with some
 * launchers, the process) goes away.  Local only: no collective.  Abort:
 * the process ends without a word to us, so hand the stream off durably
 * and stop recording (MPI_Abort does not return). */
static void flush_before_exit(int aborting)
{
    int saved = errno;
    if (atomic_load_explicit(&ftio_mpi_ready, memory_order_acquire))
        ftio_mpi_req_drain();
    if (aborting) {
        ftio_shutdown();
    } else {
        ftio_flusher_mpi_state(FTIO_MPI_FINALIZED);
        ftio_flush_now(NULL, 1);
    }
    errno = saved;
}

static int finalize(int (*real)(void))
{
    int outer = life_outer();
    if (outer)
        flush_before_exit(0);
    int rc = real();
    if (outer)
        ftio_mpi_in = 0;
    return rc;
}

FTIO_MPI_EXPORT int MPI_Finalize(void)
{
    FTIO_MPI_REAL(real_MPI_Finalize, "MPI_Finalize");
    return finalize(real_MPI_Finalize);
}

FTIO_MPI_EXPORT int PMPI_Finalize(void)
{
    FTIO_MPI_REAL(real_PMPI_Finalize, "PMPI_Finalize");
    return finalize(real_PMPI_Finalize);
}

FTIO_MPI_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    FTIO_MPI_REAL(real_MPI_Abort, "MPI_Abort");
    if (life_outer())
        flush_before_exit(1);     /* ftio_mpi_in stays set: we do not return */
    return real_MPI_Abort(comm, errorcode);
}

FTIO_MPI_EXPORT int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    FTIO_MPI_REAL(real_PMPI_Abort, "PMPI_Abort");
    if (life_outer())
        flush_before_exit(1);
    return real_PMPI_Abort(comm, errorcode);
}
