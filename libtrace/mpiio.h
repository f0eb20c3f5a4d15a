/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio.h -- private contract of the MPI layer of libftio.so (mpiio*.c,
 * mpi_life.c).  Not installed, not used outside libtrace/.
 *
 * libftio.so must load into programs that have no MPI at all, so it never
 * links libmpi and never references an MPI symbol at link time:
 *   - every real function (MPI_X, PMPI_X, and the helpers we call such as
 *     PMPI_Type_size_x) is resolved at run time through ftio_resolve();
 *   - Open MPI's predefined handles (MPI_COMM_WORLD, MPI_BYTE, ...) are
 *     addresses of libmpi globals; referencing them would leave undefined
 *     data relocations that make the dynamic loader refuse the shim in a
 *     non-MPI program.  Below they are redefined to values looked up with
 *     dlsym(RTLD_DEFAULT) the first time an MPI wrapper runs (which also
 *     works when libmpi is dlopen()ed later, e.g. by mpi4py).
 *
 * Layering (TRACING.md "MPI forwarding"): each wrapped call exists as MPI_X,
 * forwarding to the next MPI_X (so later preloads still see it), and PMPI_X,
 * forwarding to the next PMPI_X (Fortran bindings call PMPI_X directly).  A
 * thread-local flag records only the outermost call, and ftio_mpiio_depth is
 * raised around it so the POSIX records made by OMPIO/ROMIO underneath carry
 * FTIO_FLAG_NESTED.
 */
#ifndef FTIO_MPIIO_H
#define FTIO_MPIIO_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <mpi.h>
#include "shim.h"

/* ---- predefined handles, resolved at run time (see above) ------------- */
struct ftio_mpi_consts {
    MPI_Comm     world;
    MPI_Datatype byte;
    MPI_Datatype dt_null;
    MPI_Request  req_null;
};
extern struct ftio_mpi_consts ftio_mpi_c FTIO_HIDDEN;

#ifdef OPEN_MPI
#undef MPI_COMM_WORLD
#undef MPI_BYTE
#undef MPI_DATATYPE_NULL
#undef MPI_REQUEST_NULL
#define MPI_COMM_WORLD    (ftio_mpi_c.world)
#define MPI_BYTE          (ftio_mpi_c.byte)
#define MPI_DATATYPE_NULL (ftio_mpi_c.dt_null)
#define MPI_REQUEST_NULL  (ftio_mpi_c.req_null)
#endif

/* ---- helper MPI functions we call (always through PMPI pointers) ------- */
struct ftio_mpi_helpers {
    int (*type_size_x)(MPI_Datatype, MPI_Count *);
    int (*type_get_extent_x)(MPI_Datatype, MPI_Count *, MPI_Count *);
    int (*get_elements_x)(const MPI_Status *, MPI_Datatype, MPI_Count *);
    int (*test_cancelled)(const MPI_Status *, int *);
    int (*file_get_position)(MPI_File, MPI_Offset *);
    int (*file_get_byte_offset)(MPI_File, MPI_Offset, MPI_Offset *);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
};
extern struct ftio_mpi_helpers ftio_mpi_h FTIO_HIDDEN;
extern atomic_int ftio_mpi_ready FTIO_HIDDEN;

/* Resolve the helpers and constants once; cheap (one load) afterwards.
 * Returns 0 if libmpi is not there (then nothing is traced). */
FTIO_HIDDEN int ftio_mpi_setup_slow(void);
static inline int ftio_mpi_setup(void)
{
    if (__builtin_expect(atomic_load_explicit(&ftio_mpi_ready, memory_order_acquire), 1))
        return 1;
    return ftio_mpi_setup_slow();
}

/* Lazily resolved pointer to the next definition of a symbol.  The race on
 * first use is benign: every thread stores the same value. */
#define FTIO_MPI_REAL(ptr, sym)                                                \
    do {                                                                       \
        if (__builtin_expect(!(ptr), 0))                                       \
            __atomic_store_n(&(ptr), (__typeof__(ptr))ftio_resolve(sym),       \
                             __ATOMIC_RELAXED);                                \
        if (!(ptr)) return MPI_ERR_INTERN;                                     \
    } while (0)

/* ---- the outermost-call guard ----------------------------------------- */
/* Set while a traced MPI call of this thread is in progress: inner MPI/PMPI
 * calls (another tool chaining MPI_X -> PMPI_X, ROMIO calling PMPI_*) pass
 * straight through, so every call is recorded exactly once. */
extern __thread int ftio_mpi_in FTIO_HIDDEN __attribute__((tls_model("initial-exec")));
FTIO_FAST_DECL(ftio_mpi_in);

/* Returns 1 when this call is to be traced (and marks the thread as inside
 * an MPI-IO call), 0 to pass straight through.  The thread's flags are
 * read once the shim is known active (shim.h FTIO_FAST). */
static inline int ftio_mpi_enter(void)
{
    if (!ftio_active || !(ftio_layer_mask & (1u << FTIO_LAYER_MPIIO)))
        return 0;
    if (FTIO_FAST(ftio_busy) || FTIO_FAST(ftio_mpi_in) || !ftio_mpi_setup())
        return 0;
    FTIO_FAST(ftio_mpi_in) = 1;
    FTIO_FAST(ftio_mpiio_depth)++;
    return 1;
}

static inline void ftio_mpi_leave(void)
{
    FTIO_FAST(ftio_mpiio_depth)--;
    FTIO_FAST(ftio_mpi_in) = 0;
}

/* ---- generating MPI_X + PMPI_X pairs ----------------------------------- */
/* FTIO_MPI_PAIR(NAME, (params), (args)) defines MPI_NAME and PMPI_NAME, each
 * forwarding to its own next definition; the caller defines
 *   static inline int traced_NAME(int (*real)(params), params)
 * which runs only for the outermost traced call, between ftio_mpi_enter()
 * and ftio_mpi_leave() (both done here; it must leave errno as the real
 * call did).  An untraced call costs a few TLS tests and a jump. */
#define FTIO_UNPAREN(...) __VA_ARGS__

/* Wrappers are exported even when built with -fvisibility=hidden. */
#define FTIO_MPI_EXPORT __attribute__((visibility("default")))

#define FTIO_MPI_ENTRY(PFX, NAME, PARAMS, ARGS)                                \
    FTIO_MPI_EXPORT int PFX##NAME PARAMS                                       \
    {                                                                          \
        FTIO_MPI_REAL(real_##PFX##NAME, #PFX #NAME);                           \
        if (!ftio_mpi_enter())                                                 \
            return real_##PFX##NAME ARGS;                                      \
        int rc_ = traced_##NAME(real_##PFX##NAME, FTIO_UNPAREN ARGS);          \
        ftio_mpi_leave();                                                      \
        return rc_;                                                            \
    }

#define FTIO_MPI_PAIR(NAME, PARAMS, ARGS)                                      \
    static int (*real_MPI_##NAME) PARAMS FTIO_HOT;                             \
    static int (*real_PMPI_##NAME) PARAMS FTIO_HOT;                            \
    FTIO_MPI_ENTRY(MPI_, NAME, PARAMS, ARGS)                                   \
    FTIO_MPI_ENTRY(PMPI_, NAME, PARAMS, ARGS)

/* ---- bytes and offsets -------------------------------------------------- */
/* count * size(type) as int64; 0 for MPI_DATATYPE_NULL, count <= 0 or an
 * error (TRACING.md pitfall 5: never int, never size a null type). */
static inline int64_t ftio_mpi_req_bytes(int64_t count, MPI_Datatype dt)
{
    MPI_Count size = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL)
        return 0;
    if (ftio_mpi_h.type_size_x(dt, &size) != MPI_SUCCESS || size <= 0 || size == MPI_UNDEFINED)
        return 0;
    return count * (int64_t)size;
}

/* Bytes actually moved, from a completed status (elements of MPI_BYTE are
 * bytes); 0 when the status says nothing.  Open MPI keeps the byte count in
 * the status itself (_ucount): reading it saves a call into libmpi on every
 * data access; a status we substituted is marked unset first (see
 * ftio_mpi_status_unset) so one the library did not fill is never trusted. */
static inline void ftio_mpi_status_unset(MPI_Status *st)
{
#ifdef OPEN_MPI
    st->_ucount = (size_t)-1;
#else
    (void)st;
#endif
}

static inline int ftio_mpi_status_get(const MPI_Status *st, int64_t *bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return 0;
#ifdef OPEN_MPI
    if (st->_ucount == (size_t)-1 || st->_ucount > (size_t)INT64_MAX)
        return 0;
    *bytes = (int64_t)st->_ucount;
    return 1;
#else
    MPI_Count n;
    if (ftio_mpi_h.get_elements_x(st, MPI_BYTE, &n) == MPI_SUCCESS &&
        n != MPI_UNDEFINED && n >= 0) {
        *bytes = (int64_t)n;
        return 1;
    }
    return 0;
#endif
}

/* Bytes of a completed access: the status's, else count * size (errno
 * kept across the call into libmpi that fallback makes). */
static inline int64_t ftio_mpi_status_bytes(const MPI_Status *st, int64_t count, MPI_Datatype dt)
{
    int64_t n;
    if (__builtin_expect(ftio_mpi_status_get(st, &n), 1))
        return n;
    int e = errno;
    n = ftio_mpi_req_bytes(count, dt);
    errno = e;
    return n;
}

/* ---- MPI_File -> traced file map (mpiio_files.c) ------------------------ */
/* One entry per open MPI_File of this process.  Readers are lock-free;
 * open/close (rare) serialise on a mutex. */
struct ftio_mpi_split {        /* a split collective between _begin and _end */
    int      active;
    uint8_t  op;
    uint16_t flags;
    uint64_t t_start;
    int64_t  offset;
    int64_t  bytes;            /* requested at _begin */
};

struct ftio_mpi_file {
    _Atomic uint64_t key;      /* MPI_File handle value; 0 empty, 1 deleted */
    uint32_t fid;              /* 0: excluded path, never traced */
    int      amode;
    int      simple_view;      /* 1: etype = filetype = 1-byte contiguous, disp 0
                                  (etype offsets are bytes); 0: ask
                                  MPI_File_get_byte_offset; -1: unknown
                                  (zero-size etype: Open MPI divides by 0) */
    struct ftio_mpi_split split;
};

#define FTIO_MPI_HANDLE(h) ((uint64_t)(uintptr_t)(h))
#define FTIO_MPI_KEY_EMPTY 0u          /* ftio_mpi_file.key of a slot never used */
#define FTIO_MPI_KEY_DEAD  1u          /* ... of a slot whose file was closed */

FTIO_HIDDEN struct ftio_mpi_file *ftio_mpi_file_add(MPI_File fh, uint32_t fid, int amode);
FTIO_HIDDEN struct ftio_mpi_file *ftio_mpi_file_find(MPI_File fh);
FTIO_HIDDEN void ftio_mpi_file_remove(uint64_t handle);
/* An entry's view changed (MPI_File_set_view): the threads' copies are stale. */
FTIO_HIDDEN void ftio_mpi_file_changed(void);
/* A read-only copy of fh's entry (NULL when not open), kept per thread: a
 * data call on the file the thread used last reads a thread-local line, not
 * the table's page (shim.h FTIO_HOT), and inline: no call into another
 * page of code either.  Never for writing (split state).  The copy is good
 * while ftio_mpi_files_gen, bumped by every open, close and set_view, holds
 * the value it was taken at. */
struct ftio_mpi_file_copy {
    uint64_t             key;
    unsigned             gen;
    struct ftio_mpi_file copy;
};
extern _Atomic unsigned ftio_mpi_files_gen FTIO_HIDDEN;
extern __thread struct ftio_mpi_file_copy ftio_mpi_last FTIO_HIDDEN __attribute__((tls_model("initial-exec")));
FTIO_FAST_DECL(ftio_mpi_last);
FTIO_HIDDEN const struct ftio_mpi_file *ftio_mpi_file_view_slow(MPI_File fh, unsigned gen);
/* (In a traced call: the copy is read through FTIO_FAST, and returned by
 * value: no generic pointer to a thread-local.) */
static inline int ftio_mpi_file_view(MPI_File fh, struct ftio_mpi_file *out)
{
    uint64_t key = FTIO_MPI_HANDLE(fh);
    unsigned gen = atomic_load_explicit(&ftio_mpi_files_gen, memory_order_acquire);
    FTIO_FAST_PTR(struct ftio_mpi_file_copy) last = &FTIO_FAST(ftio_mpi_last);
    if (__builtin_expect(last->key == key && last->gen == gen && key > FTIO_MPI_KEY_DEAD, 1)) {
        out->fid = last->copy.fid;
        out->amode = last->copy.amode;
        out->simple_view = last->copy.simple_view;
        return 1;
    }
    const struct ftio_mpi_file *f = ftio_mpi_file_view_slow(fh, gen);
    if (!f)
        return 0;
    *out = *f;
    return 1;
}

/* Byte offset of the individual file pointer (before an access), -1 when
 * unknown (sequential mode, zero-size etype, error). */
FTIO_HIDDEN int64_t ftio_mpi_position(MPI_File fh, const struct ftio_mpi_file *f);
/* Byte offset of an explicit offset given in etype units of the view. */
static inline int64_t ftio_mpi_explicit(MPI_File fh, const struct ftio_mpi_file *f, MPI_Offset off)
{
    MPI_Offset b;
    if (f->simple_view > 0)
        return off;
    if (f->simple_view < 0)
        return -1;
    if (ftio_mpi_h.file_get_byte_offset(fh, off, &b) != MPI_SUCCESS)
        return -1;
    return b;
}

/* ---- record emission ----------------------------------------------------- */
static inline void ftio_mpi_emit(uint64_t t0, uint64_t t1, int op, uint16_t flags,
                                 uint32_t fid, int64_t offset, int64_t bytes)
{
    struct ftio_record r = {
        .t_start = t0, .t_end = t1, .offset = offset, .bytes = bytes,
        .file_id = fid, .op = (uint8_t)op, .layer = FTIO_LAYER_MPIIO, .flags = flags,
    };
    ftio_emit(&r);
}

/* ---- nonblocking requests (mpiio_async.c) ------------------------------ */
/* Remember a freshly posted I/O request (handle value read after the PMPI
 * post).  When the table is full, the request is recorded at once as a
 * blocking-style record (post time only) rather than lost. */
FTIO_HIDDEN void ftio_mpi_req_post(MPI_Request req, uint64_t t_start, uint64_t t_post_end,
                                   int op, uint16_t flags, uint32_t fid,
                                   int64_t offset, int64_t bytes);
/* MPI_Finalize: every request still pending is recorded as "completion
 * unknown" (te = now). */
FTIO_HIDDEN void ftio_mpi_req_drain(void);

#endif
