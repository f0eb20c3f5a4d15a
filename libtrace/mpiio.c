/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio.c -- MPI-IO data-access wrappers of libftio.so.
 *
 * Every read/write of TRACING.md "MPI-IO data access": blocking, collective
 * (_all, ordered), explicit offset (_at), shared pointer, nonblocking (i*)
 * and split collective (_begin/_end), each as MPI_X and PMPI_X, plus the
 * MPI-4 large-count _c forms when the MPI library has them (MPI_VERSION >= 4;
 * Open MPI 4.1 has none, so they are not compiled there).
 *
 * One record per outermost call, layer MPI-IO:
 *   bytes   exact, from the completed status (a local status replaces
 *           MPI_STATUS_IGNORE), else count * type size (int64); raw per-rank
 *           bytes for collectives (FTIO_FLAG_COLLECTIVE).
 *   offset  the explicit offset of _at calls, the individual file pointer
 *           read before the call otherwise, both converted from etype units
 *           to bytes (free for the default view); -1 for shared-pointer and
 *           ordered calls (reading the shared pointer costs a lock and, with
 *           some sharedfp components, file I/O).
 *   nonblocking: the post is handed to the request table (mpiio_async.c) and
 *           recorded at completion, ts = post start, FTIO_FLAG_ASYNC.
 *   split collectives: _begin remembers {start, bytes, offset} in the file's
 *           entry (MPI allows one active split collective per handle); _end
 *           records ts = begin start, te = end return, COLLECTIVE|ASYNC.
 * Failed calls produce no record.  Files whose path is excluded (file id 0)
 * are not traced.
 */
#include "mpiio.h"

/* Offset (bytes) of the access, evaluated before the call; f is traced. */
#define OFFSET_IND    ftio_mpi_position(fh, f)
#define OFFSET_SHARED (-1)
#define OFFSET_AT     ftio_mpi_explicit(fh, f, offset)

/* Parameter and argument lists of the call shapes. */
#define P_IND(CV, CT)  (MPI_File fh, CV void *buf, CT count, MPI_Datatype dt, MPI_Status *st)
#define A_IND          (fh, buf, count, dt, st)
#define P_AT(CV, CT)   (MPI_File fh, MPI_Offset offset, CV void *buf, CT count, MPI_Datatype dt, MPI_Status *st)
#define A_AT           (fh, offset, buf, count, dt, st)
#define P_IIND(CV, CT) (MPI_File fh, CV void *buf, CT count, MPI_Datatype dt, MPI_Request *request)
#define A_IIND         (fh, buf, count, dt, request)
#define P_IAT(CV, CT)  (MPI_File fh, MPI_Offset offset, CV void *buf, CT count, MPI_Datatype dt, MPI_Request *request)
#define A_IAT          (fh, offset, buf, count, dt, request)
#define P_BEG(CV, CT)  (MPI_File fh, CV void *buf, CT count, MPI_Datatype dt)
#define A_BEG          (fh, buf, count, dt)
#define P_BEGAT(CV, CT) (MPI_File fh, MPI_Offset offset, CV void *buf, CT count, MPI_Datatype dt)
#define A_BEGAT        (fh, offset, buf, count, dt)
#define P_END(CV)      (MPI_File fh, CV void *buf, MPI_Status *st)
#define A_END          (fh, buf, st)

/* The pieces of the shapes below.  TRACED: the traced_NAME that
 * FTIO_MPI_PAIR calls (mpiio.h).  FILE_ACCESS: the file's entry f, whether
 * it is traced, the access's byte offset, read before the call.  OWN_STATUS:
 * a status to take the bytes from, also when the caller ignores it.
 * TIMED_CALL: the call between t0 and t1, errno kept in saved, given back
 * by RETURN_RC with the call's return code. */
#define TRACED(NAME, PARAMS)                                                   \
    static inline int traced_##NAME(int (*real) PARAMS, FTIO_UNPAREN PARAMS)
#define FILE_ACCESS_OF(OFFSET)                                                 \
    uint32_t fid = f ? f->fid : 0;  /* read now: after the call, a TLB miss */ \
    int traced = fid != 0;                                                     \
    int64_t off = traced ? (OFFSET) : -1
/* Blocking and nonblocking accesses read (a copy of) the thread's copy of
 * the entry; a split collective's _begin writes the entry itself. */
#define FILE_ACCESS(OFFSET)                                                    \
    struct ftio_mpi_file view_;                                                \
    const struct ftio_mpi_file *f = ftio_mpi_file_view(fh, &view_) ? &view_ : NULL; \
    FILE_ACCESS_OF(OFFSET)
#define OWN_STATUS(st)                                                         \
    MPI_Status local_;                                                         \
    if (st == MPI_STATUS_IGNORE) {                                             \
        ftio_mpi_status_unset(&local_);                                        \
        st = &local_;                                                          \
    }
#define TIMED_CALL(ARGS)                                                       \
    uint64_t t0 = ftio_stamp();                                               \
    int rc = real ARGS;                                                        \
    uint64_t t1 = ftio_stamp();                                               \
    int saved = errno
#define RETURN_RC()                                                            \
    errno = saved;                                                             \
    return rc

/* Blocking access: time the call, record it with its completed status.
 * errno is left as the call left it without a save and restore: nothing on
 * the way changes it (ftio_mpi_status_bytes, ftio_emit's slow path
 * keep it), and __errno_location's page is one more TLB miss after the I/O
 * (shim.h FTIO_HOT). */
#define BLOCKING(NAME, PARAMS, ARGS, OP, FLAGS, OFFSET)                        \
    TRACED(NAME, PARAMS)                                                       \
    {                                                                          \
        FILE_ACCESS(OFFSET);                                                   \
        OWN_STATUS(st);                                                        \
        uint64_t t0 = ftio_stamp();                                           \
        int rc = real ARGS;                                                    \
        uint64_t t1 = ftio_stamp();                                           \
        if (rc == MPI_SUCCESS && traced)                                       \
            ftio_mpi_emit(t0, t1, OP, FLAGS, fid, off,                         \
                          ftio_mpi_status_bytes(st, (int64_t)count, dt)); \
        return rc;                                                             \
    }                                                                          \
    FTIO_MPI_PAIR(NAME, PARAMS, ARGS)

/* Nonblocking post: the record is made when the request completes. */
#define POST(NAME, PARAMS, ARGS, OP, FLAGS, OFFSET)                            \
    TRACED(NAME, PARAMS)                                                       \
    {                                                                          \
        FILE_ACCESS(OFFSET);                                                   \
        TIMED_CALL(ARGS);                                                      \
        if (rc == MPI_SUCCESS && traced)                                       \
            ftio_mpi_req_post(*request, t0, t1, OP, (FLAGS) | FTIO_FLAG_ASYNC, \
                              fid, off, ftio_mpi_req_bytes((int64_t)count, dt)); \
        RETURN_RC();                                                           \
    }                                                                          \
    FTIO_MPI_PAIR(NAME, PARAMS, ARGS)

/* Split collective _begin: remember it on the file handle (no end time). */
#define BEGIN(NAME, PARAMS, ARGS, OP, OFFSET)                                  \
    TRACED(NAME, PARAMS)                                                       \
    {                                                                          \
        struct ftio_mpi_file *f = ftio_mpi_file_find(fh);                      \
        FILE_ACCESS_OF(OFFSET);                                                \
        uint64_t t0 = ftio_stamp();                                           \
        int rc = real ARGS;                                                    \
        int saved = errno;                                                     \
        if (rc == MPI_SUCCESS && traced) {                                     \
            f->split.op = OP;                                                  \
            f->split.flags = FTIO_FLAG_COLLECTIVE | FTIO_FLAG_ASYNC;           \
            f->split.t_start = t0;                                             \
            f->split.offset = off;                                             \
            f->split.bytes = ftio_mpi_req_bytes((int64_t)count, dt);           \
            f->split.active = 1;                                               \
        }                                                                      \
        RETURN_RC();                                                           \
    }                                                                          \
    FTIO_MPI_PAIR(NAME, PARAMS, ARGS)

/* Split collective _end: one record from the matching _begin to now.  An
 * _end without a traced _begin (begun while paused) records nothing. */
#define END(NAME, PARAMS, ARGS)                                                \
    TRACED(NAME, PARAMS)                                                       \
    {                                                                          \
        struct ftio_mpi_file *f = ftio_mpi_file_find(fh);                      \
        OWN_STATUS(st);                                                        \
        int rc = real ARGS;                                                    \
        uint64_t t1 = ftio_stamp();                                           \
        int saved = errno;                                                     \
        if (f && f->fid && f->split.active) {                                  \
            int64_t bytes;                                                     \
            f->split.active = 0;                                               \
            if (!ftio_mpi_status_get(st, &bytes))                              \
                bytes = f->split.bytes;                                        \
            if (rc == MPI_SUCCESS)                                             \
                ftio_mpi_emit(f->split.t_start, t1, f->split.op,               \
                              f->split.flags, f->fid, f->split.offset, bytes); \
        }                                                                      \
        RETURN_RC();                                                           \
    }                                                                          \
    FTIO_MPI_PAIR(NAME, PARAMS, ARGS)

#define COLL FTIO_FLAG_COLLECTIVE
#define RD   FTIO_OP_READ
#define WR   FTIO_OP_WRITE

/* The ten calls of one positioning, individual file pointer (AT empty) or
 * explicit offset (AT = _at): read, write, their collective _all forms,
 * the nonblocking i* of the four, the split collective _all_begin pair.
 * P/A: parameters and arguments of the blocking, nonblocking (I) and
 * _begin (B) forms; SFX, CT as in DATA_FAMILY. */
#define POSITIONED(AT, SFX, CT, P, PI, PB, A, AI, AB, OFFSET)                                   \
    BLOCKING(File_read##AT##SFX,          P(, CT),       A,  RD, 0, OFFSET)                     \
    BLOCKING(File_write##AT##SFX,         P(const, CT),  A,  WR, 0, OFFSET)                     \
    BLOCKING(File_read##AT##_all##SFX,    P(, CT),       A,  RD, COLL, OFFSET)                  \
    BLOCKING(File_write##AT##_all##SFX,   P(const, CT),  A,  WR, COLL, OFFSET)                  \
    POST(File_iread##AT##SFX,             PI(, CT),      AI, RD, 0, OFFSET)                     \
    POST(File_iwrite##AT##SFX,            PI(const, CT), AI, WR, 0, OFFSET)                     \
    POST(File_iread##AT##_all##SFX,       PI(, CT),      AI, RD, COLL, OFFSET)                  \
    POST(File_iwrite##AT##_all##SFX,      PI(const, CT), AI, WR, COLL, OFFSET)                  \
    BEGIN(File_read##AT##_all_begin##SFX,  PB(, CT),      AB, RD, OFFSET)                       \
    BEGIN(File_write##AT##_all_begin##SFX, PB(const, CT), AB, WR, OFFSET)

/* The whole family for one count type (int, or MPI_Count for the _c forms);
 * SFX is the name suffix ("" or "_c"). */
#define DATA_FAMILY(SFX, CT)                                                                    \
    POSITIONED(,    SFX, CT, P_IND, P_IIND, P_BEG,   A_IND, A_IIND, A_BEG,   OFFSET_IND)         \
    POSITIONED(_at, SFX, CT, P_AT,  P_IAT,  P_BEGAT, A_AT,  A_IAT,  A_BEGAT, OFFSET_AT)          \
    /* shared file pointer */                                                                   \
    BLOCKING(File_read_shared##SFX,   P_IND(, CT),      A_IND, RD, 0, OFFSET_SHARED)            \
    BLOCKING(File_write_shared##SFX,  P_IND(const, CT), A_IND, WR, 0, OFFSET_SHARED)            \
    POST(File_iread_shared##SFX,      P_IIND(, CT),      A_IIND, RD, 0, OFFSET_SHARED)          \
    POST(File_iwrite_shared##SFX,     P_IIND(const, CT), A_IIND, WR, 0, OFFSET_SHARED)          \
    BLOCKING(File_read_ordered##SFX,  P_IND(, CT),      A_IND, RD, COLL, OFFSET_SHARED)         \
    BLOCKING(File_write_ordered##SFX, P_IND(const, CT), A_IND, WR, COLL, OFFSET_SHARED)         \
    BEGIN(File_read_ordered_begin##SFX,  P_BEG(, CT),      A_BEG, RD, OFFSET_SHARED)            \
    BEGIN(File_write_ordered_begin##SFX, P_BEG(const, CT), A_BEG, WR, OFFSET_SHARED)

DATA_FAMILY(, int)

#if MPI_VERSION >= 4
DATA_FAMILY(_c, MPI_Count)
#endif

/* The _end calls have no count, hence no _c form. */
END(File_read_all_end,          P_END(),      A_END)
END(File_write_all_end,         P_END(const), A_END)
END(File_read_at_all_end,       P_END(),      A_END)
END(File_write_at_all_end,      P_END(const), A_END)
END(File_read_ordered_end,      P_END(),      A_END)
END(File_write_ordered_end,     P_END(const), A_END)
