/* SPDX-License-Identifier: BSD-3-Clause */
/* posix.c -- the POSIX layer: open/dup/close, data, sync, metadata, stat,
 * mmap wrappers (TRACING.md "Functions to intercept").
 *
 * Every wrapper forwards to the next definition (resolved at init, lazily if
 * called earlier; ENOSYS if absent).  Data and descriptor calls are traced
 * when the descriptor is a regular file on a path that is not excluded,
 * whoever opened it: the open wrappers here and in stdio.c fill its slot in
 * the fd table (fdtable.c), any other descriptor is classified on its first
 * data call; sockets, pipes, terminals and ZeroMQ's descriptors cost one
 * array check (and their bytes are counted for the kernel cross-check).  Path calls (stat, unlink, rename,
 * truncate) are traced when the path is not excluded.  Failed calls are not
 * recorded; errno is preserved on every path.  Records carry the per-
 * descriptor position before the call (-1 for O_APPEND or unknown).
 *
 * glibc aliases are wrapped under every name a program can bind to: *64
 * (LFS), __*_2 / __*_chk (_FORTIFY_SOURCE), the >= 2.33 stat symbols and the
 * older __xstat family.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "internal.h"

/* This layer's view of the core: on?, a record, a descriptor's position,
 * its traced slot (FTIO_SLOT_OR_PASS). */
#define posix_on() ftio_layer_recording(FTIO_LAYER_POSIX)
#define emit_posix(op, fid, t0, t1, off, bytes) \
    ftio_emit_simple(FTIO_LAYER_POSIX, op, fid, t0, t1, off, bytes)
#define pos_get(s) ftio_pos_get(&(s)->offset, &(s)->append)
#define pos_advance(s, off, n) ftio_pos_advance(&(s)->offset, off, n)
#define FD_OR_PASS(fd, call) FTIO_SLOT_OR_PASS(ftio_posix_fd(fd), fid, call)
/* A data call on a descriptor that is not a traced file: what it moved is
 * counted for the kernel cross-check (unseen.c), then returned. */
#define DATA_OR_PASS(type, op, fd, call)                                      \
    struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                              \
    if (!s_) {                                                                \
        type rp_ = call;                                                      \
        ftio_passed(op, (int64_t)rp_);                                        \
        return rp_;                                                           \
    }                                                                         \
    uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed)

/* Read/write at the descriptor's position (which the call advances). */
/* Inside MPI-IO (ftio_nested_skip) the position still moves. */
#define DATA_IMPLICIT(type, op, fd, call)                                     \
    do {                                                                      \
        DATA_OR_PASS(type, op, fd, call);                                     \
        int64_t off_ = pos_get(s_);                                           \
        if (ftio_nested_skip()) {                                             \
            type rn_ = call;                                                  \
            if (rn_ >= 0)                                                     \
                pos_advance(s_, off_, (int64_t)rn_);                          \
            ftio_passed_nested(op, (int64_t)rn_);                                    \
            return rn_;                                                       \
        }                                                                     \
        FTIO_TIMED_DATA(type, call);                                          \
        if (r_ >= 0) {                                                        \
            pos_advance(s_, off_, (int64_t)r_);                               \
            emit_posix(op, fid_, t0_, t1_, off_, (int64_t)r_);                \
        }                                                                     \
        FTIO_TIMED_DATA_RETURN();                                             \
    } while (0)

/* Read/write at an explicit offset (the position does not move). */
#define DATA_EXPLICIT(type, op, fd, offset, call)                             \
    do {                                                                      \
        if (ftio_nested_skip()) {                                             \
            type rn_ = call;                                                  \
            ftio_passed_nested(op, (int64_t)rn_);                                    \
            return rn_;                                                       \
        }                                                                     \
        DATA_OR_PASS(type, op, fd, call);                                     \
        FTIO_TIMED_DATA(type, call);                                          \
        if (r_ >= 0)                                                          \
            emit_posix(op, fid_, t0_, t1_, (int64_t)(offset), (int64_t)r_);   \
        FTIO_TIMED_DATA_RETURN();                                             \
    } while (0)

/* Metadata/sync call on a descriptor; success is a 0 return. */
#define FD_META(type, op, fd, call)                                           \
    do {                                                                      \
        FD_OR_PASS(fd, call);                                                 \
        FTIO_TIMED(type, call);                                               \
        if (r_ == 0)                                                          \
            emit_posix(op, fid_, t0_, t1_, -1, 0);                            \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

/* Metadata call on a path (relative to dirfd); traced unless excluded. */
#define PATH_META(type, op, dirfd, path, call)                                \
    do {                                                                      \
        if (!posix_on())                                                      \
            return call;                                                      \
        FTIO_TIMED(type, call);                                               \
        if (r_ == 0) {                                                        \
            uint32_t fid_ = ftio_file_register_at(dirfd, path);               \
            if (fid_)                                                         \
                emit_posix(op, fid_, t0_, t1_, -1, 0);                        \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

/* ---- open family ------------------------------------------------------ */

/* After a successful open: trace the descriptor if the path is ours. */
static void opened(int fd, int dirfd, const char *path, int flags, uint64_t t0, uint64_t t1)
{
#ifdef O_PATH
    if (flags & O_PATH) {
        /* A path handle (hwloc opens "/" like this in MPI_Init): it cannot
         * be read or written, so it is not I/O and is not recorded. */
        ftio_fd_forget(fd);
        return;
    }
#endif
    uint32_t fid = ftio_file_register_at(dirfd, path);
    if (!fid) {
        ftio_fd_not_file(fd);        /* an excluded path: never looked at again */
        return;
    }
    ftio_fd_open(fd, fid, flags & O_APPEND);
    emit_posix(FTIO_OP_OPEN, fid, t0, t1, -1, 0);
}

/* Opened while not recording: with only the POSIX layer off, still note
 * the descriptor (silently) so a stream fdopen()ed on it can be traced;
 * otherwise clear the slot, in case a close of that number went unseen. */
static void opened_untraced(int fd, int dirfd, const char *path, int flags)
{
    int saved = errno;
    uint32_t fid = 0;
    if (__atomic_load_n(&ftio_active, __ATOMIC_RELAXED) && !ftio_busy)
        fid = ftio_file_register_at(dirfd, path);
    if (fid)
        ftio_fd_open(fd, fid, flags & O_APPEND);
    else
        ftio_fd_forget(fd);
    errno = saved;
}

#define OPEN_CALL(dirfd, path, flags, call)                                   \
    do {                                                                      \
        if (!posix_on()) {                                                    \
            int fd_ = call;                                                   \
            if (fd_ >= 0)                                                     \
                opened_untraced(fd_, dirfd, path, flags);                     \
            return fd_;                                                       \
        }                                                                     \
        FTIO_TIMED(int, call);                                                \
        if (r_ >= 0)                                                          \
            opened(r_, dirfd, path, flags, t0_, t1_);                         \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

/* The open family, one line a symbol: NAME, (PARAMS), (ARGS) of the call,
 * and which parameters are the directory, the path and the flags.  The
 * variadic forms (OPEN_VA) read the mode only when the flags need one. */
#define OPEN_VA_CALL(dirfd, path, flags, call)                                \
    mode_t mode = 0;                                                          \
    if (__OPEN_NEEDS_MODE(flags)) {                                           \
        va_list ap;                                                           \
        va_start(ap, flags);                                                  \
        mode = va_arg(ap, mode_t);                                            \
        va_end(ap);                                                           \
    }                                                                         \
    OPEN_CALL(dirfd, path, flags, call)
#define OPEN(name, params, args, dirfd, path, flags)                          \
    FTIO_FORWARD(int, name, params, args, -1, OPEN_CALL, dirfd, path, flags)
#define OPEN_VA(name, params, args, dirfd)                                    \
    FTIO_FORWARD(int, name, params, args, -1, OPEN_VA_CALL, dirfd, path, flags)

OPEN_VA(open,         (const char *path, int flags, ...),            (path, flags, mode),        AT_FDCWD)
OPEN_VA(open64,       (const char *path, int flags, ...),            (path, flags, mode),        AT_FDCWD)
OPEN_VA(openat,       (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)
OPEN_VA(openat64,     (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)
OPEN(__open_2,        (const char *path, int flags),            (path, flags),        AT_FDCWD, path, flags)
OPEN(__open64_2,      (const char *path, int flags),            (path, flags),        AT_FDCWD, path, flags)
OPEN(__openat_2,      (int dirfd, const char *path, int flags), (dirfd, path, flags), dirfd, path, flags)
OPEN(__openat64_2,    (int dirfd, const char *path, int flags), (dirfd, path, flags), dirfd, path, flags)
OPEN(creat,           (const char *path, mode_t mode),          (path, mode),         AT_FDCWD, path, O_WRONLY)
OPEN(creat64,         (const char *path, mode_t mode),          (path, mode),         AT_FDCWD, path, O_WRONLY)
/* mkstemp family: the template holds the real name once the call returns. */
OPEN(mkstemp,         (char *tmpl),                             (tmpl),               AT_FDCWD, tmpl, 0)
OPEN(mkstemp64,       (char *tmpl),                             (tmpl),               AT_FDCWD, tmpl, 0)
OPEN(mkostemp,        (char *tmpl, int flags),                  (tmpl, flags),        AT_FDCWD, tmpl, flags)
OPEN(mkostemp64,      (char *tmpl, int flags),                  (tmpl, flags),        AT_FDCWD, tmpl, flags)
OPEN(mkstemps,        (char *tmpl, int sfx),                    (tmpl, sfx),          AT_FDCWD, tmpl, 0)
OPEN(mkstemps64,      (char *tmpl, int sfx),                    (tmpl, sfx),          AT_FDCWD, tmpl, 0)
OPEN(mkostemps,       (char *tmpl, int sfx, int flags),         (tmpl, sfx, flags),   AT_FDCWD, tmpl, flags)
OPEN(mkostemps64,     (char *tmpl, int sfx, int flags),         (tmpl, sfx, flags),   AT_FDCWD, tmpl, flags)

/* ---- duplicates ------------------------------------------------------- */

/* The table follows duplicates even when not recording (paused, busy):
 * a stale slot would trace a socket that later gets the number. */
#define DUP_CALL(fd, copies, call)                                            \
    int r = call;                                                             \
    if (r >= 0 && (copies))                                                   \
        ftio_fd_copy(fd, r);                                                  \
    return r
#define DUP(name, params, args, copies) FTIO_FORWARD(int, name, params, args, -1, DUP_CALL, fd, copies)

DUP(dup,  (int fd),                     (fd),             1)
DUP(dup2, (int fd, int fd2),            (fd, fd2),        fd != fd2)
DUP(dup3, (int fd, int fd2, int flags), (fd, fd2, flags), 1)

static void after_fcntl(int fd, int cmd, void *arg, int r)
{
    if (r < 0)
        return;
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
        ftio_fd_copy(fd, r);
    } else if (cmd == F_SETFL) {
        struct ftio_fd_slot *s = ftio_fd_slot(fd);
        if (s && atomic_load_explicit(&s->fid, memory_order_relaxed) >= FTIO_FID_MIN)
            atomic_store_explicit(&s->append, ((long)arg & O_APPEND) ? 1 : 0, memory_order_relaxed);
    }
}

/* fcntl's third argument is an int or a pointer depending on cmd; glibc
 * itself reads it as a pointer-sized value, as we do. */
#define FCNTL_CALL(fd, cmd, call)                                             \
    va_list ap;                                                               \
    va_start(ap, cmd);                                                        \
    void *arg = va_arg(ap, void *);                                           \
    va_end(ap);                                                               \
    int r = call;                                                             \
    int e = errno;                                                            \
    after_fcntl(fd, cmd, arg, r);                                             \
    errno = e;                                                                \
    return r
#define FCNTL(name) FTIO_FORWARD(int, name, (int fd, int cmd, ...), (fd, cmd, arg), -1, FCNTL_CALL, fd, cmd)

FCNTL(fcntl)
FCNTL(fcntl64)

/* ---- close ------------------------------------------------------------ */

#define FTIO_CLOSE_RANGE_CLOEXEC (1u << 2)   /* <linux/close_range.h> */

FTIO_WRAPPER(int, close, (int fd))
{
    FTIO_REAL_OR(close, -1);
    if (ftio_unlikely(fd == 2))
        ftio_flusher_stderr_closing();
    struct ftio_fd_slot *s = ftio_posix_fd(fd);
    if (!s) {
        ftio_fd_forget(fd);
        return real_close(fd);
    }
    uint32_t fid = atomic_load_explicit(&s->fid, memory_order_relaxed);
    ftio_fd_forget(fd);      /* before: the number may be reused at once */
    FTIO_TIMED(int, real_close(fd));
    if (r_ == 0 || err_ == EINTR)        /* Linux closes even on EINTR */
        emit_posix(FTIO_OP_CLOSE, fid, t0_, t1_, -1, 0);
    FTIO_TIMED_RETURN();
}

/* Closing a range: one close record per traced descriptor in it. */
static void closed_range(unsigned first, unsigned last, uint64_t t0, uint64_t t1, int record)
{
    if (first >= ftio_fdt_size || !ftio_fdt || ftio_private_table_thread())
        return;
    if (last >= ftio_fdt_size)
        last = ftio_fdt_size - 1;
    for (unsigned fd = first; fd <= last; fd++) {
        struct ftio_fd_slot *s = &ftio_fdt[fd];
        uint32_t fid = atomic_exchange_explicit(&s->fid, FTIO_FD_UNKNOWN, memory_order_relaxed);
        if (fid >= FTIO_FID_MIN && record)
            emit_posix(FTIO_OP_CLOSE, fid, t0, t1, -1, 0);
        atomic_store_explicit(&s->stdio_fid, 0, memory_order_relaxed);
        atomic_store_explicit(&s->fp, NULL, memory_order_relaxed);
    }
}

FTIO_WRAPPER(int, close_range, (unsigned first, unsigned last, int flags))
{
    FTIO_REAL_OR(close_range, -1);
    if (first <= 2 && last >= 2 && !(flags & FTIO_CLOSE_RANGE_CLOEXEC))
        ftio_flusher_stderr_closing();
    int on = posix_on();
    ftio_busy++;
    uint64_t t0 = ftio_stamp();
    int r = real_close_range(first, last, flags);
    uint64_t t1 = ftio_stamp();
    int e = errno;
    /* CLOSE_RANGE_CLOEXEC only marks them close-on-exec: still open. */
    if (r == 0 && !(flags & FTIO_CLOSE_RANGE_CLOEXEC))
        closed_range(first, last, t0, t1, on);
    ftio_busy--;
    errno = e;
    return r;
}

FTIO_WRAPPER(void, closefrom, (int lowfd))
{
    if (ftio_unlikely(!ftio_real((void **)&real_closefrom, "closefrom")))
        return;
    if (lowfd <= 2)
        ftio_flusher_stderr_closing();
    int on = posix_on();
    ftio_busy++;
    uint64_t t0 = ftio_stamp();
    real_closefrom(lowfd);
    uint64_t t1 = ftio_stamp();
    int e = errno;
    closed_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, t0, t1, on);
    ftio_busy--;
    errno = e;
}

/* ---- data ------------------------------------------------------------- */

/* The data calls, one line a symbol: NAME, (PARAMS) naming the descriptor
 * fd (and the offset off), (ARGS) of the call, the record's op.
 *   DATA      at the descriptor's position
 *   DATA_AT   at the explicit offset off
 *   DATA_V2   the *v2 forms: off == -1 means "at the current position, and
 *             advance it", else like DATA_AT */
#define DATA_V2_CALL(op, fd, off, call)                                       \
    if (off == -1)                                                            \
        DATA_IMPLICIT(ssize_t, op, fd, call);                                 \
    DATA_EXPLICIT(ssize_t, op, fd, off, call)
#define DATA(name, params, args, op)                                          \
    FTIO_FORWARD(ssize_t, name, params, args, -1, DATA_IMPLICIT, ssize_t, op, fd)
#define DATA_AT(name, params, args, op)                                       \
    FTIO_FORWARD(ssize_t, name, params, args, -1, DATA_EXPLICIT, ssize_t, op, fd, off)
#define DATA_V2(name, params, args, op)                                       \
    FTIO_FORWARD(ssize_t, name, params, args, -1, DATA_V2_CALL, op, fd, off)

#define RD FTIO_OP_READ
#define WR FTIO_OP_WRITE
#define IOV const struct iovec *iov, int cnt     /* the vector parameters */
DATA(read,             (int fd, void *buf, size_t n),                           (fd, buf, n),              RD)
DATA(write,            (int fd, const void *buf, size_t n),                     (fd, buf, n),              WR)
DATA(__read_chk,       (int fd, void *buf, size_t n, size_t buflen),            (fd, buf, n, buflen),      RD)
DATA(readv,            (int fd, IOV),                                           (fd, iov, cnt),            RD)
DATA(writev,           (int fd, IOV),                                           (fd, iov, cnt),            WR)
DATA_AT(pread,         (int fd, void *buf, size_t n, off_t off),                (fd, buf, n, off),         RD)
DATA_AT(pwrite,        (int fd, const void *buf, size_t n, off_t off),          (fd, buf, n, off),         WR)
DATA_AT(pread64,       (int fd, void *buf, size_t n, off64_t off),              (fd, buf, n, off),         RD)
DATA_AT(pwrite64,      (int fd, const void *buf, size_t n, off64_t off),        (fd, buf, n, off),         WR)
DATA_AT(__pread_chk,   (int fd, void *buf, size_t n, off_t off, size_t buflen), (fd, buf, n, off, buflen), RD)
DATA_AT(__pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen), (fd, buf, n, off, buflen), RD)
DATA_AT(preadv,        (int fd, IOV, off_t off),                                (fd, iov, cnt, off),       RD)
DATA_AT(pwritev,       (int fd, IOV, off_t off),                                (fd, iov, cnt, off),       WR)
DATA_AT(preadv64,      (int fd, IOV, off64_t off),                              (fd, iov, cnt, off),       RD)
DATA_AT(pwritev64,     (int fd, IOV, off64_t off),                              (fd, iov, cnt, off),       WR)
DATA_V2(preadv2,       (int fd, IOV, off_t off, int fl),                        (fd, iov, cnt, off, fl),   RD)
DATA_V2(pwritev2,      (int fd, IOV, off_t off, int fl),                        (fd, iov, cnt, off, fl),   WR)
DATA_V2(preadv64v2,    (int fd, IOV, off64_t off, int fl),                      (fd, iov, cnt, off, fl),   RD)
DATA_V2(pwritev64v2,   (int fd, IOV, off64_t off, int fl),                      (fd, iov, cnt, off, fl),   WR)
#undef IOV

/* In-kernel copies: a read record on the source and a write record on the
 * destination, for whichever of the two is traced. */
static ssize_t copy_call(int in, int64_t in_off, int out, int64_t out_off, ssize_t r,
                         uint64_t t0, uint64_t t1, int kernel_counts)
{
    /* After the call (ftio_busy set): either_traced() classified both. */
    struct ftio_fd_slot *si = ftio_fd_slot(in), *so = ftio_fd_slot(out);
    uint32_t fi = si ? ftio_slot_file(in, si) : 0;
    uint32_t fo = so ? ftio_slot_file(out, so) : 0;
    if (r < 0)
        return r;
    /* sendfile and copy_file_range count in rchar and wchar both: the side
     * without a record is passed through (for the kernel cross-check). */
    if (kernel_counts && ftio_thread_table == FTIO_TABLE_APP)
        for (int op = FTIO_OP_READ; op <= FTIO_OP_WRITE; op++)
            if (!(op == FTIO_OP_READ ? fi : fo))
                atomic_fetch_add_explicit(&ftio_passed_bytes[op], (uint64_t)r, memory_order_relaxed);
    if (fi) {
        if (in_off == -2) {                  /* implicit position */
            in_off = pos_get(si);
            pos_advance(si, in_off, r);
        }
        emit_posix(FTIO_OP_READ, fi, t0, t1, in_off, r);
    }
    if (fo) {
        if (out_off == -2) {
            out_off = pos_get(so);
            pos_advance(so, out_off, r);
        }
        emit_posix(FTIO_OP_WRITE, fo, t0, t1, out_off, r);
    }
    return r;
}

/* Neither side traced: the kernel still counts the bytes both ways. */
static int either_traced(int a, int b)
{
    return ftio_posix_fd(a) || ftio_posix_fd(b);
}
#define COPY_PASS(call)                                                       \
    do {                                                                      \
        ssize_t rp_ = call;                                                   \
        ftio_passed(FTIO_OP_READ, rp_);                                       \
        ftio_passed(FTIO_OP_WRITE, rp_);                                      \
        return rp_;                                                           \
    } while (0)

FTIO_WRAPPER(ssize_t, copy_file_range, (int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
                                     unsigned flags))
{
    FTIO_REAL_OR(copy_file_range, -1);
    if (!either_traced(in, out))
        COPY_PASS(real_copy_file_range(in, in_off, out, out_off, len, flags));
    int64_t io = in_off ? *in_off : -2, oo = out_off ? *out_off : -2;
    FTIO_TIMED(ssize_t, real_copy_file_range(in, in_off, out, out_off, len, flags));
    copy_call(in, io, out, oo, r_, t0_, t1_, 1);
    FTIO_TIMED_RETURN();
}

/* sendfile: the input's offset is *off, or its position when off is NULL;
 * the output is written at its position. */
#define SENDFILE_CALL(out, in, off, call)                                     \
    if (!either_traced(in, out))                                              \
        COPY_PASS(call);                                                      \
    int64_t io = off ? *off : -2;                                             \
    FTIO_TIMED(ssize_t, call);                                                \
    copy_call(in, io, out, -2, r_, t0_, t1_, 1);                              \
    FTIO_TIMED_RETURN()
#define SENDFILE(name, off_type)                                              \
    FTIO_FORWARD(ssize_t, name, (int out, int in, off_type *off, size_t count), \
                 (out, in, off, count), -1, SENDFILE_CALL, out, in, off)

SENDFILE(sendfile, off_t)
SENDFILE(sendfile64, off64_t)

/* splice: one side is a pipe; the file side (if traced) gets its record, at
 * *off or at (and advancing) its position when off is NULL. */
FTIO_WRAPPER(ssize_t, splice, (int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
                               unsigned flags))
{
    FTIO_REAL_OR(splice, -1);
    if (!either_traced(in, out))
        return real_splice(in, in_off, out, out_off, len, flags);
    int64_t io = in_off ? *in_off : -2, oo = out_off ? *out_off : -2;
    FTIO_TIMED(ssize_t, real_splice(in, in_off, out, out_off, len, flags));
    copy_call(in, io, out, oo, r_, t0_, t1_, 0);
    FTIO_TIMED_RETURN();
}

/* ---- seek, sync, size ------------------------------------------------- */

#define SEEK_BODY(type, fd, call)                                             \
    do {                                                                      \
        struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                          \
        if (!s_) {                                                            \
            type rr_ = call;                                                  \
            struct ftio_fd_slot *q_ = ftio_fd_slot(fd);                       \
            if (rr_ >= 0 && q_ && atomic_load_explicit(&q_->fid, memory_order_relaxed) >= FTIO_FID_MIN) \
                atomic_store_explicit(&q_->offset, (int64_t)rr_, memory_order_relaxed); \
            return rr_;                                                       \
        }                                                                     \
        uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed); \
        FTIO_TIMED(type, call);                                               \
        if (r_ >= 0) {                                                        \
            atomic_store_explicit(&s_->offset, (int64_t)r_, memory_order_relaxed); \
            emit_posix(FTIO_OP_SEEK, fid_, t0_, t1_, (int64_t)r_, 0);         \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

#define SEEK(ret, name, params, args) FTIO_FORWARD(ret, name, params, args, -1, SEEK_BODY, ret, fd)

SEEK(off_t,   lseek,   (int fd, off_t off, int whence),   (fd, off, whence))
SEEK(off64_t, lseek64, (int fd, off64_t off, int whence), (fd, off, whence))

/* Calls on a descriptor (fd) or a path (relative to dirfd) whose success is
 * a 0 return, one line a symbol: NAME, (PARAMS), (ARGS), the record's op.
 * FD_CALL_ERRNUM: a function that returns its error number, errno untouched
 * (posix_fallocate).  PATH_CALL names the directory and the path recorded
 * (rename: the new name, the file's name from now on).  STAT_AT: the *at
 * forms, descriptor calls when given AT_EMPTY_PATH and "". */
#define STAT_AT_CALL(dirfd, path, flags, call)                                \
    if (path && !*path && (flags & AT_EMPTY_PATH))                            \
        FD_META(int, FTIO_OP_STAT, dirfd, call);                              \
    PATH_META(int, FTIO_OP_STAT, dirfd, path, call)
#define FD_CALL(name, params, args, op) FTIO_FORWARD(int, name, params, args, -1, FD_META, int, op, fd)
#define FD_CALL_ERRNUM(name, params, args, op)                                \
    FTIO_WRAPPER(int, name, params)                                           \
    {                                                                         \
        FTIO_REAL_OR_RETURN(name, ENOSYS);                                    \
        FD_META(int, op, fd, real_##name args);                               \
    }
#define PATH_CALL(name, params, args, op, dirfd, path)                        \
    FTIO_FORWARD(int, name, params, args, -1, PATH_META, int, op, dirfd, path)
#define STAT_AT(name, params, args)                                           \
    FTIO_FORWARD(int, name, params, args, -1, STAT_AT_CALL, dirfd, path, flags)

#define SYNC FTIO_OP_SYNC
#define META FTIO_OP_META
#define STAT FTIO_OP_STAT
FD_CALL(fsync,             (int fd),                                     (fd),                  SYNC)
FD_CALL(fdatasync,         (int fd),                                     (fd),                  SYNC)
FD_CALL(sync_file_range,   (int fd, off64_t off, off64_t n, unsigned fl), (fd, off, n, fl),     SYNC)
FD_CALL(syncfs,            (int fd),                                     (fd),                  SYNC)
FD_CALL(ftruncate,         (int fd, off_t len),                          (fd, len),             META)
FD_CALL(ftruncate64,       (int fd, off64_t len),                        (fd, len),             META)
FD_CALL(fallocate,         (int fd, int mode, off_t off, off_t len),     (fd, mode, off, len),  META)
FD_CALL(fallocate64,       (int fd, int mode, off64_t off, off64_t len), (fd, mode, off, len),  META)
FD_CALL_ERRNUM(posix_fallocate,   (int fd, off_t off, off_t len),        (fd, off, len),        META)
FD_CALL_ERRNUM(posix_fallocate64, (int fd, off64_t off, off64_t len),    (fd, off, len),        META)
FD_CALL(fstat,             (int fd, struct stat *st),                    (fd, st),              STAT)
FD_CALL(fstat64,           (int fd, struct stat64 *st),                  (fd, st),              STAT)
FD_CALL(__fxstat,          (int ver, int fd, struct stat *st),           (ver, fd, st),         STAT)
FD_CALL(__fxstat64,        (int ver, int fd, struct stat64 *st),         (ver, fd, st),         STAT)
PATH_CALL(truncate,   (const char *path, off_t len),                 (path, len),                META, AT_FDCWD, path)
PATH_CALL(truncate64, (const char *path, off64_t len),               (path, len),                META, AT_FDCWD, path)
PATH_CALL(rename,     (const char *from, const char *to),            (from, to),                 META, AT_FDCWD, to)
PATH_CALL(renameat,   (int dfrom, const char *from, int dto, const char *to), (dfrom, from, dto, to), META, dto, to)
PATH_CALL(unlink,     (const char *path),                            (path),                     META, AT_FDCWD, path)
PATH_CALL(unlinkat,   (int dirfd, const char *path, int flags),      (dirfd, path, flags),       META, dirfd, path)
PATH_CALL(stat,       (const char *path, struct stat *st),           (path, st),                 STAT, AT_FDCWD, path)
PATH_CALL(stat64,     (const char *path, struct stat64 *st),         (path, st),                 STAT, AT_FDCWD, path)
PATH_CALL(lstat,      (const char *path, struct stat *st),           (path, st),                 STAT, AT_FDCWD, path)
PATH_CALL(lstat64,    (const char *path, struct stat64 *st),         (path, st),                 STAT, AT_FDCWD, path)
PATH_CALL(__xstat,    (int ver, const char *path, struct stat *st),  (ver, path, st),            STAT, AT_FDCWD, path)
PATH_CALL(__xstat64,  (int ver, const char *path, struct stat64 *st), (ver, path, st),           STAT, AT_FDCWD, path)
PATH_CALL(__lxstat,   (int ver, const char *path, struct stat *st),  (ver, path, st),            STAT, AT_FDCWD, path)
PATH_CALL(__lxstat64, (int ver, const char *path, struct stat64 *st), (ver, path, st),           STAT, AT_FDCWD, path)
STAT_AT(fstatat,      (int dirfd, const char *path, struct stat *st, int flags),   (dirfd, path, st, flags))
STAT_AT(fstatat64,    (int dirfd, const char *path, struct stat64 *st, int flags), (dirfd, path, st, flags))
STAT_AT(statx,        (int dirfd, const char *path, int flags, unsigned mask, struct statx *st),
                      (dirfd, path, flags, mask, st))
STAT_AT(__fxstatat,   (int ver, int dirfd, const char *path, struct stat *st, int flags),
                      (ver, dirfd, path, st, flags))
STAT_AT(__fxstatat64, (int ver, int dirfd, const char *path, struct stat64 *st, int flags),
                      (ver, dirfd, path, st, flags))

/* The cwd cache (files.c) follows the process's directory changes. */
#define CHDIR_CALL(type, call)                                                \
    type r = call;                                                            \
    if (r == 0 && ftio_fdt) {                                                 \
        int e = errno;                                                        \
        ftio_files_refresh_cwd();                                             \
        errno = e;                                                            \
    }                                                                         \
    return r
#define CHDIR(name, params, args) FTIO_FORWARD(int, name, params, args, -1, CHDIR_CALL, int)

CHDIR(chdir,  (const char *path), (path))
CHDIR(fchdir, (int fd),           (fd))

/* ---- mmap: counts and lengths of file mappings only ------------------- */

/* Mappings of traced files, so that munmap/msync of those (and only those)
 * are recorded.  Small and scanned linearly, only while non-empty. */
#define MAPS_MAX 256
static struct {
    atomic_int n;
    struct {
        _Atomic uintptr_t addr;
        size_t            len;
        uint32_t          fid;
    } m[MAPS_MAX];
} maps;

static void maps_add(void *addr, size_t len, uint32_t fid)
{
    for (int i = 0; i < MAPS_MAX; i++) {
        uintptr_t expect = 0;
        if (atomic_load_explicit(&maps.m[i].addr, memory_order_relaxed) == 0) {
            maps.m[i].len = len;
            maps.m[i].fid = fid;
            if (atomic_compare_exchange_strong(&maps.m[i].addr, &expect, (uintptr_t)addr)) {
                atomic_fetch_add(&maps.n, 1);
                return;
            }
        }
    }
}

/* File id of the traced mapping at addr (removed when `drop`), or 0. */
static uint32_t maps_find(void *addr, int drop)
{
    if (atomic_load_explicit(&maps.n, memory_order_relaxed) == 0)
        return 0;
    for (int i = 0; i < MAPS_MAX; i++) {
        uintptr_t a = atomic_load_explicit(&maps.m[i].addr, memory_order_acquire);
        if (a && a == (uintptr_t)addr) {
            uint32_t fid = maps.m[i].fid;
            if (drop && atomic_compare_exchange_strong(&maps.m[i].addr, &a, 0))
                atomic_fetch_sub(&maps.n, 1);
            return fid;
        }
    }
    return 0;
}

/* Anonymous mappings (allocators!) leave before any lookup or resolution:
 * until resolved, they go to the raw system call (TRACING.md pitfall 1). */
static void *raw_mmap(void *a, size_t len, int prot, int flags, int fd, off64_t off)
{
    return (void *)syscall(SYS_mmap, a, len, prot, flags, fd, off);
}

/* mmap and mmap64: the same body, the offset's type apart.  Resolved here,
 * not by FTIO_REAL_OR: an anonymous mapping must not wait for it. */
#define MMAP(name, off_type)                                                  \
    FTIO_WRAPPER(void *, name, (void *a, size_t len, int prot, int flags, int fd, off_type off)) \
    {                                                                         \
        void *(*fn)(void *, size_t, int, int, int, off_type) =                \
            __atomic_load_n(&real_##name, __ATOMIC_RELAXED);                  \
        if ((flags & MAP_ANONYMOUS) || fd < 0 || !ftio_posix_fd(fd))          \
            return fn ? fn(a, len, prot, flags, fd, off)                      \
                      : raw_mmap(a, len, prot, flags, fd, (off64_t)off);      \
        if (!fn) {                                                            \
            errno = ENOSYS;                                                   \
            return MAP_FAILED;                                                \
        }                                                                     \
        uint32_t fid_ = atomic_load_explicit(&ftio_fd_slot(fd)->fid, memory_order_relaxed); \
        FTIO_TIMED(void *, fn(a, len, prot, flags, fd, off));                 \
        if (r_ != MAP_FAILED) {                                               \
            maps_add(r_, len, fid_);                                          \
            emit_posix(FTIO_OP_META, fid_, t0_, t1_, (int64_t)off, (int64_t)len); \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                  \
    }

MMAP(mmap, off_t)
MMAP(mmap64, off64_t)

FTIO_WRAPPER(int, munmap, (void *a, size_t len))
{
    int (*fn)(void *, size_t) = __atomic_load_n(&real_munmap, __ATOMIC_RELAXED);
    if (ftio_unlikely(!fn))
        return (int)syscall(SYS_munmap, a, len);
    uint32_t fid = maps_find(a, 1);
    if (!fid || !posix_on())
        return fn(a, len);
    FTIO_TIMED(int, fn(a, len));
    if (r_ == 0)
        emit_posix(FTIO_OP_META, fid, t0_, t1_, -1, (int64_t)len);
    FTIO_TIMED_RETURN();
}

FTIO_WRAPPER(int, msync, (void *a, size_t len, int flags))
{
    FTIO_REAL_OR(msync, -1);
    uint32_t fid = maps_find(a, 0);
    if (!fid || !posix_on())
        return real_msync(a, len, flags);
    FTIO_TIMED(int, real_msync(a, len, flags));
    if (r_ == 0)
        emit_posix(FTIO_OP_SYNC, fid, t0_, t1_, -1, (int64_t)len);
    FTIO_TIMED_RETURN();
}

/* ---- descriptors created elsewhere ----------------------------------
 * A close we could not see (closedir of an fdopendir'd descriptor, a raw
 * syscall) would leave a slot behind, and the next socket or pipe given that
 * number would be traced as the file.  Every creator of non-file descriptors
 * therefore clears the slot of what it returns (no record, no lookup). */
#include <dirent.h>
#include <sys/eventfd.h>

static void fresh_fd(int fd)
{
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    if (!s)
        return;
    if (atomic_load_explicit(&s->fid, memory_order_relaxed) != FTIO_FD_NOT_FILE)
        ftio_fd_not_file(fd);        /* known at once: no first-sight look */
    if (atomic_load_explicit(&s->stdio_fid, memory_order_relaxed))
        ftio_fd_stdio_forget(fd);
}

/* NAME, (PARAMS), (ARGS): the descriptor returned / the pair in fds[2]. */
#define FRESH_CALL(type, call)                                                \
    type r = call;                                                            \
    fresh_fd(r);                                                              \
    return r
#define FRESH_PAIR_CALL(fds, call)                                            \
    int r = call;                                                             \
    if (r == 0) {                                                             \
        fresh_fd(fds[0]);                                                     \
        fresh_fd(fds[1]);                                                     \
    }                                                                         \
    return r
#define CREATES_FD(name, params, args) FTIO_FORWARD(int, name, params, args, -1, FRESH_CALL, int)
#define CREATES_PAIR(name, params, args) FTIO_FORWARD(int, name, params, args, -1, FRESH_PAIR_CALL, fds)

CREATES_FD(socket,       (int domain, int type, int proto),                 (domain, type, proto))
CREATES_FD(accept,       (int fd, void *addr, void *len),                   (fd, addr, len))
CREATES_FD(accept4,      (int fd, void *addr, void *len, int flags),        (fd, addr, len, flags))
CREATES_FD(eventfd,      (unsigned init, int flags),                        (init, flags))
CREATES_PAIR(socketpair, (int domain, int type, int proto, int fds[2]),     (domain, type, proto, fds))
CREATES_PAIR(pipe,       (int fds[2]),                                      (fds))
CREATES_PAIR(pipe2,      (int fds[2], int flags),                           (fds, flags))

/* closedir closes the descriptor inside libc. */
FTIO_WRAPPER(int, closedir, (DIR *d))
{
    FTIO_REAL_OR(closedir, -1);
    int fd = d ? dirfd(d) : -1;
    if (fd >= 0)
        fresh_fd(fd);
    return real_closedir(d);
}

