/* SPDX-License-Identifier: BSD-3-Clause */
/* posix.c -- the POSIX layer: open/dup/close, data, sync, metadata, stat,
 * mmap wrappers (TRACING.md "Functions to intercept").
 *
 * Every wrapper forwards to the next definition (resolved at init, lazily if
 * called earlier; ENOSYS if absent).  Data and descriptor calls are traced
 * only when the descriptor is in the fd table (fdtable.c), i.e. was opened
 * through one of the open wrappers here with a path that is not excluded;
 * everything else (sockets, pipes, ZeroMQ's descriptors, stdio's internal
 * descriptors) costs one array check.  Path calls (stat, unlink, rename,
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

static inline int posix_on(void)
{
    return ftio_layer_recording(FTIO_LAYER_POSIX);
}

static inline void emit_posix(int op, uint32_t fid, uint64_t t0, uint64_t t1, int64_t off, int64_t bytes)
{
    ftio_emit_simple(FTIO_LAYER_POSIX, op, fid, t0, t1, off, bytes);
}

static inline int64_t pos_get(struct ftio_fd_slot *s)
{
    return atomic_load_explicit(&s->append, memory_order_relaxed)
               ? -1 : atomic_load_explicit(&s->offset, memory_order_relaxed);
}

static inline void pos_advance(struct ftio_fd_slot *s, int64_t off, int64_t n)
{
    if (off >= 0)
        atomic_store_explicit(&s->offset, off + n, memory_order_relaxed);
}

/* Read/write at the descriptor's position (which the call advances). */
#define DATA_IMPLICIT(type, op, fd, call)                                     \
    do {                                                                      \
        struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                          \
        if (!s_)                                                              \
            return call;                                                      \
        uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed); \
        int64_t off_ = pos_get(s_);                                           \
        FTIO_TIMED(type, call);                                                    \
        if (r_ >= 0) {                                                        \
            pos_advance(s_, off_, (int64_t)r_);                               \
            emit_posix(op, fid_, t0_, t1_, off_, (int64_t)r_);                \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

/* Read/write at an explicit offset (the position does not move). */
#define DATA_AT(type, op, fd, offset, call)                                   \
    do {                                                                      \
        struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                          \
        if (!s_)                                                              \
            return call;                                                      \
        uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed); \
        FTIO_TIMED(type, call);                                                    \
        if (r_ >= 0)                                                          \
            emit_posix(op, fid_, t0_, t1_, (int64_t)(offset), (int64_t)r_);   \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

/* Metadata/sync call on a descriptor; success is a 0 return. */
#define FD_META(type, op, fd, call)                                           \
    do {                                                                      \
        struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                          \
        if (!s_)                                                              \
            return call;                                                      \
        uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed); \
        FTIO_TIMED(type, call);                                                    \
        if (r_ == 0)                                                          \
            emit_posix(op, fid_, t0_, t1_, -1, 0);                            \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

/* Metadata call on a path (relative to dirfd); traced unless excluded. */
#define PATH_META(type, op, dirfd, path, call)                                \
    do {                                                                      \
        if (!posix_on())                                                      \
            return call;                                                      \
        FTIO_TIMED(type, call);                                                    \
        if (r_ == 0) {                                                        \
            uint32_t fid_ = ftio_file_register_at(dirfd, path);               \
            if (fid_)                                                         \
                emit_posix(op, fid_, t0_, t1_, -1, 0);                        \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                       \
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
        ftio_fd_forget(fd);
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
        FTIO_TIMED(int, call);                                                     \
        if (r_ >= 0)                                                          \
            opened(r_, dirfd, path, flags, t0_, t1_);                         \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

#define OPEN_MODE(flags)                                                      \
    mode_t mode = 0;                                                          \
    if (__OPEN_NEEDS_MODE(flags)) {                                           \
        va_list ap;                                                           \
        va_start(ap, flags);                                                  \
        mode = va_arg(ap, mode_t);                                            \
        va_end(ap);                                                           \
    }

FTIO_WRAPPER(int, open, (const char *path, int flags, ...))
{
    OPEN_MODE(flags);
    FTIO_REAL_OR(open, -1);
    OPEN_CALL(AT_FDCWD, path, flags, real_open(path, flags, mode));
}

FTIO_WRAPPER(int, open64, (const char *path, int flags, ...))
{
    OPEN_MODE(flags);
    FTIO_REAL_OR(open64, -1);
    OPEN_CALL(AT_FDCWD, path, flags, real_open64(path, flags, mode));
}

FTIO_WRAPPER(int, __open_2, (const char *path, int flags))
{
    FTIO_REAL_OR(__open_2, -1);
    OPEN_CALL(AT_FDCWD, path, flags, real___open_2(path, flags));
}

FTIO_WRAPPER(int, __open64_2, (const char *path, int flags))
{
    FTIO_REAL_OR(__open64_2, -1);
    OPEN_CALL(AT_FDCWD, path, flags, real___open64_2(path, flags));
}

FTIO_WRAPPER(int, openat, (int dirfd, const char *path, int flags, ...))
{
    OPEN_MODE(flags);
    FTIO_REAL_OR(openat, -1);
    OPEN_CALL(dirfd, path, flags, real_openat(dirfd, path, flags, mode));
}

FTIO_WRAPPER(int, openat64, (int dirfd, const char *path, int flags, ...))
{
    OPEN_MODE(flags);
    FTIO_REAL_OR(openat64, -1);
    OPEN_CALL(dirfd, path, flags, real_openat64(dirfd, path, flags, mode));
}

FTIO_WRAPPER(int, __openat_2, (int dirfd, const char *path, int flags))
{
    FTIO_REAL_OR(__openat_2, -1);
    OPEN_CALL(dirfd, path, flags, real___openat_2(dirfd, path, flags));
}

FTIO_WRAPPER(int, __openat64_2, (int dirfd, const char *path, int flags))
{
    FTIO_REAL_OR(__openat64_2, -1);
    OPEN_CALL(dirfd, path, flags, real___openat64_2(dirfd, path, flags));
}

FTIO_WRAPPER(int, creat, (const char *path, mode_t mode))
{
    FTIO_REAL_OR(creat, -1);
    OPEN_CALL(AT_FDCWD, path, O_WRONLY, real_creat(path, mode));
}

FTIO_WRAPPER(int, creat64, (const char *path, mode_t mode))
{
    FTIO_REAL_OR(creat64, -1);
    OPEN_CALL(AT_FDCWD, path, O_WRONLY, real_creat64(path, mode));
}

/* mkstemp family: the template holds the real name once the call returns. */
FTIO_WRAPPER(int, mkstemp, (char *tmpl))
{
    FTIO_REAL_OR(mkstemp, -1);
    OPEN_CALL(AT_FDCWD, tmpl, 0, real_mkstemp(tmpl));
}

FTIO_WRAPPER(int, mkstemp64, (char *tmpl))
{
    FTIO_REAL_OR(mkstemp64, -1);
    OPEN_CALL(AT_FDCWD, tmpl, 0, real_mkstemp64(tmpl));
}

FTIO_WRAPPER(int, mkostemp, (char *tmpl, int flags))
{
    FTIO_REAL_OR(mkostemp, -1);
    OPEN_CALL(AT_FDCWD, tmpl, flags, real_mkostemp(tmpl, flags));
}

FTIO_WRAPPER(int, mkostemp64, (char *tmpl, int flags))
{
    FTIO_REAL_OR(mkostemp64, -1);
    OPEN_CALL(AT_FDCWD, tmpl, flags, real_mkostemp64(tmpl, flags));
}

FTIO_WRAPPER(int, mkstemps, (char *tmpl, int suffixlen))
{
    FTIO_REAL_OR(mkstemps, -1);
    OPEN_CALL(AT_FDCWD, tmpl, 0, real_mkstemps(tmpl, suffixlen));
}

FTIO_WRAPPER(int, mkstemps64, (char *tmpl, int suffixlen))
{
    FTIO_REAL_OR(mkstemps64, -1);
    OPEN_CALL(AT_FDCWD, tmpl, 0, real_mkstemps64(tmpl, suffixlen));
}

FTIO_WRAPPER(int, mkostemps, (char *tmpl, int suffixlen, int flags))
{
    FTIO_REAL_OR(mkostemps, -1);
    OPEN_CALL(AT_FDCWD, tmpl, flags, real_mkostemps(tmpl, suffixlen, flags));
}

FTIO_WRAPPER(int, mkostemps64, (char *tmpl, int suffixlen, int flags))
{
    FTIO_REAL_OR(mkostemps64, -1);
    OPEN_CALL(AT_FDCWD, tmpl, flags, real_mkostemps64(tmpl, suffixlen, flags));
}

/* ---- duplicates ------------------------------------------------------- */

/* The table follows duplicates even when not recording (paused, busy):
 * a stale slot would trace a socket that later gets the number. */
FTIO_WRAPPER(int, dup, (int fd))
{
    FTIO_REAL_OR(dup, -1);
    int r = real_dup(fd);
    if (r >= 0)
        ftio_fd_copy(fd, r);
    return r;
}

FTIO_WRAPPER(int, dup2, (int fd, int fd2))
{
    FTIO_REAL_OR(dup2, -1);
    int r = real_dup2(fd, fd2);
    if (r >= 0 && fd != fd2)
        ftio_fd_copy(fd, r);
    return r;
}

FTIO_WRAPPER(int, dup3, (int fd, int fd2, int flags))
{
    FTIO_REAL_OR(dup3, -1);
    int r = real_dup3(fd, fd2, flags);
    if (r >= 0)
        ftio_fd_copy(fd, r);
    return r;
}

static void after_fcntl(int fd, int cmd, void *arg, int r)
{
    if (r < 0)
        return;
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
        ftio_fd_copy(fd, r);
    } else if (cmd == F_SETFL) {
        struct ftio_fd_slot *s = ftio_fd_slot(fd);
        if (s && atomic_load_explicit(&s->fid, memory_order_relaxed))
            atomic_store_explicit(&s->append, ((long)arg & O_APPEND) ? 1 : 0, memory_order_relaxed);
    }
}

/* fcntl's third argument is an int or a pointer depending on cmd; glibc
 * itself reads it as a pointer-sized value, as we do. */
FTIO_WRAPPER(int, fcntl, (int fd, int cmd, ...))
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    FTIO_REAL_OR(fcntl, -1);
    int r = real_fcntl(fd, cmd, arg);
    int e = errno;
    after_fcntl(fd, cmd, arg, r);
    errno = e;
    return r;
}

FTIO_WRAPPER(int, fcntl64, (int fd, int cmd, ...))
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    FTIO_REAL_OR(fcntl64, -1);
    int r = real_fcntl64(fd, cmd, arg);
    int e = errno;
    after_fcntl(fd, cmd, arg, r);
    errno = e;
    return r;
}

/* ---- close ------------------------------------------------------------ */

#define FTIO_CLOSE_RANGE_CLOEXEC (1u << 2)   /* <linux/close_range.h> */

FTIO_WRAPPER(int, close, (int fd))
{
    FTIO_REAL_OR(close, -1);
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
        uint32_t fid = atomic_exchange_explicit(&s->fid, 0, memory_order_relaxed);
        if (fid && record)
            emit_posix(FTIO_OP_CLOSE, fid, t0, t1, -1, 0);
        atomic_store_explicit(&s->stdio_fid, 0, memory_order_relaxed);
        atomic_store_explicit(&s->fp, NULL, memory_order_relaxed);
    }
}

FTIO_WRAPPER(int, close_range, (unsigned first, unsigned last, int flags))
{
    FTIO_REAL_OR(close_range, -1);
    int on = posix_on();
    ftio_busy++;
    uint64_t t0 = ftio_now_ns();
    int r = real_close_range(first, last, flags);
    uint64_t t1 = ftio_now_ns();
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
    int on = posix_on();
    ftio_busy++;
    uint64_t t0 = ftio_now_ns();
    real_closefrom(lowfd);
    uint64_t t1 = ftio_now_ns();
    int e = errno;
    closed_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, t0, t1, on);
    ftio_busy--;
    errno = e;
}

/* ---- data ------------------------------------------------------------- */

FTIO_WRAPPER(ssize_t, read, (int fd, void *buf, size_t n))
{
    FTIO_REAL_OR(read, -1);
    DATA_IMPLICIT(ssize_t, FTIO_OP_READ, fd, real_read(fd, buf, n));
}

FTIO_WRAPPER(ssize_t, write, (int fd, const void *buf, size_t n))
{
    FTIO_REAL_OR(write, -1);
    DATA_IMPLICIT(ssize_t, FTIO_OP_WRITE, fd, real_write(fd, buf, n));
}

FTIO_WRAPPER(ssize_t, __read_chk, (int fd, void *buf, size_t n, size_t buflen))
{
    FTIO_REAL_OR(__read_chk, -1);
    DATA_IMPLICIT(ssize_t, FTIO_OP_READ, fd, real___read_chk(fd, buf, n, buflen));
}

FTIO_WRAPPER(ssize_t, pread, (int fd, void *buf, size_t n, off_t off))
{
    FTIO_REAL_OR(pread, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_pread(fd, buf, n, off));
}

FTIO_WRAPPER(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off))
{
    FTIO_REAL_OR(pwrite, -1);
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwrite(fd, buf, n, off));
}

FTIO_WRAPPER(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off))
{
    FTIO_REAL_OR(pread64, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_pread64(fd, buf, n, off));
}

FTIO_WRAPPER(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off64_t off))
{
    FTIO_REAL_OR(pwrite64, -1);
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwrite64(fd, buf, n, off));
}

FTIO_WRAPPER(ssize_t, __pread_chk, (int fd, void *buf, size_t n, off_t off, size_t buflen))
{
    FTIO_REAL_OR(__pread_chk, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real___pread_chk(fd, buf, n, off, buflen));
}

FTIO_WRAPPER(ssize_t, __pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen))
{
    FTIO_REAL_OR(__pread64_chk, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real___pread64_chk(fd, buf, n, off, buflen));
}

FTIO_WRAPPER(ssize_t, readv, (int fd, const struct iovec *iov, int cnt))
{
    FTIO_REAL_OR(readv, -1);
    DATA_IMPLICIT(ssize_t, FTIO_OP_READ, fd, real_readv(fd, iov, cnt));
}

FTIO_WRAPPER(ssize_t, writev, (int fd, const struct iovec *iov, int cnt))
{
    FTIO_REAL_OR(writev, -1);
    DATA_IMPLICIT(ssize_t, FTIO_OP_WRITE, fd, real_writev(fd, iov, cnt));
}

FTIO_WRAPPER(ssize_t, preadv, (int fd, const struct iovec *iov, int cnt, off_t off))
{
    FTIO_REAL_OR(preadv, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_preadv(fd, iov, cnt, off));
}

FTIO_WRAPPER(ssize_t, pwritev, (int fd, const struct iovec *iov, int cnt, off_t off))
{
    FTIO_REAL_OR(pwritev, -1);
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwritev(fd, iov, cnt, off));
}

FTIO_WRAPPER(ssize_t, preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off))
{
    FTIO_REAL_OR(preadv64, -1);
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_preadv64(fd, iov, cnt, off));
}

FTIO_WRAPPER(ssize_t, pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off))
{
    FTIO_REAL_OR(pwritev64, -1);
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwritev64(fd, iov, cnt, off));
}

/* *v2: offset -1 means "at the current position, and advance it". */
FTIO_WRAPPER(ssize_t, preadv2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl))
{
    FTIO_REAL_OR(preadv2, -1);
    if (off == -1)
        DATA_IMPLICIT(ssize_t, FTIO_OP_READ, fd, real_preadv2(fd, iov, cnt, off, fl));
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_preadv2(fd, iov, cnt, off, fl));
}

FTIO_WRAPPER(ssize_t, pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl))
{
    FTIO_REAL_OR(pwritev2, -1);
    if (off == -1)
        DATA_IMPLICIT(ssize_t, FTIO_OP_WRITE, fd, real_pwritev2(fd, iov, cnt, off, fl));
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwritev2(fd, iov, cnt, off, fl));
}

FTIO_WRAPPER(ssize_t, preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl))
{
    FTIO_REAL_OR(preadv64v2, -1);
    if (off == -1)
        DATA_IMPLICIT(ssize_t, FTIO_OP_READ, fd, real_preadv64v2(fd, iov, cnt, off, fl));
    DATA_AT(ssize_t, FTIO_OP_READ, fd, off, real_preadv64v2(fd, iov, cnt, off, fl));
}

FTIO_WRAPPER(ssize_t, pwritev64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl))
{
    FTIO_REAL_OR(pwritev64v2, -1);
    if (off == -1)
        DATA_IMPLICIT(ssize_t, FTIO_OP_WRITE, fd, real_pwritev64v2(fd, iov, cnt, off, fl));
    DATA_AT(ssize_t, FTIO_OP_WRITE, fd, off, real_pwritev64v2(fd, iov, cnt, off, fl));
}

/* In-kernel copies: a read record on the source and a write record on the
 * destination, for whichever of the two is traced. */
static ssize_t copy_call(int in, int64_t in_off, int out, int64_t out_off, ssize_t r,
                         uint64_t t0, uint64_t t1)
{
    struct ftio_fd_slot *si = ftio_fd_slot(in), *so = ftio_fd_slot(out);
    uint32_t fi = si ? atomic_load_explicit(&si->fid, memory_order_relaxed) : 0;
    uint32_t fo = so ? atomic_load_explicit(&so->fid, memory_order_relaxed) : 0;
    if (r < 0)
        return r;
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

static int either_traced(int a, int b)
{
    return ftio_posix_fd(a) || ftio_posix_fd(b);
}

FTIO_WRAPPER(ssize_t, copy_file_range, (int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
                                     unsigned flags))
{
    FTIO_REAL_OR(copy_file_range, -1);
    if (!either_traced(in, out))
        return real_copy_file_range(in, in_off, out, out_off, len, flags);
    int64_t io = in_off ? *in_off : -2, oo = out_off ? *out_off : -2;
    FTIO_TIMED(ssize_t, real_copy_file_range(in, in_off, out, out_off, len, flags));
    copy_call(in, io, out, oo, r_, t0_, t1_);
    FTIO_TIMED_RETURN();
}

FTIO_WRAPPER(ssize_t, sendfile, (int out, int in, off_t *off, size_t count))
{
    FTIO_REAL_OR(sendfile, -1);
    if (!either_traced(in, out))
        return real_sendfile(out, in, off, count);
    int64_t io = off ? *off : -2;
    FTIO_TIMED(ssize_t, real_sendfile(out, in, off, count));
    copy_call(in, io, out, -2, r_, t0_, t1_);
    FTIO_TIMED_RETURN();
}

FTIO_WRAPPER(ssize_t, sendfile64, (int out, int in, off64_t *off, size_t count))
{
    FTIO_REAL_OR(sendfile64, -1);
    if (!either_traced(in, out))
        return real_sendfile64(out, in, off, count);
    int64_t io = off ? *off : -2;
    FTIO_TIMED(ssize_t, real_sendfile64(out, in, off, count));
    copy_call(in, io, out, -2, r_, t0_, t1_);
    FTIO_TIMED_RETURN();
}

/* ---- seek, sync, size ------------------------------------------------- */

#define SEEK_BODY(type, fd, call)                                             \
    do {                                                                      \
        struct ftio_fd_slot *s_ = ftio_posix_fd(fd);                          \
        if (!s_) {                                                            \
            type rr_ = call;                                                  \
            struct ftio_fd_slot *q_ = ftio_fd_slot(fd);                       \
            if (rr_ >= 0 && q_ && atomic_load_explicit(&q_->fid, memory_order_relaxed)) \
                atomic_store_explicit(&q_->offset, (int64_t)rr_, memory_order_relaxed); \
            return rr_;                                                       \
        }                                                                     \
        uint32_t fid_ = atomic_load_explicit(&s_->fid, memory_order_relaxed); \
        FTIO_TIMED(type, call);                                                    \
        if (r_ >= 0) {                                                        \
            atomic_store_explicit(&s_->offset, (int64_t)r_, memory_order_relaxed); \
            emit_posix(FTIO_OP_SEEK, fid_, t0_, t1_, (int64_t)r_, 0);         \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

FTIO_WRAPPER(off_t, lseek, (int fd, off_t off, int whence))
{
    FTIO_REAL_OR(lseek, -1);
    SEEK_BODY(off_t, fd, real_lseek(fd, off, whence));
}

FTIO_WRAPPER(off64_t, lseek64, (int fd, off64_t off, int whence))
{
    FTIO_REAL_OR(lseek64, -1);
    SEEK_BODY(off64_t, fd, real_lseek64(fd, off, whence));
}

FTIO_WRAPPER(int, fsync, (int fd))
{
    FTIO_REAL_OR(fsync, -1);
    FD_META(int, FTIO_OP_SYNC, fd, real_fsync(fd));
}

FTIO_WRAPPER(int, fdatasync, (int fd))
{
    FTIO_REAL_OR(fdatasync, -1);
    FD_META(int, FTIO_OP_SYNC, fd, real_fdatasync(fd));
}

FTIO_WRAPPER(int, sync_file_range, (int fd, off64_t off, off64_t n, unsigned flags))
{
    FTIO_REAL_OR(sync_file_range, -1);
    FD_META(int, FTIO_OP_SYNC, fd, real_sync_file_range(fd, off, n, flags));
}

FTIO_WRAPPER(int, syncfs, (int fd))
{
    FTIO_REAL_OR(syncfs, -1);
    FD_META(int, FTIO_OP_SYNC, fd, real_syncfs(fd));
}

FTIO_WRAPPER(int, ftruncate, (int fd, off_t len))
{
    FTIO_REAL_OR(ftruncate, -1);
    FD_META(int, FTIO_OP_META, fd, real_ftruncate(fd, len));
}

FTIO_WRAPPER(int, ftruncate64, (int fd, off64_t len))
{
    FTIO_REAL_OR(ftruncate64, -1);
    FD_META(int, FTIO_OP_META, fd, real_ftruncate64(fd, len));
}

FTIO_WRAPPER(int, fallocate, (int fd, int mode, off_t off, off_t len))
{
    FTIO_REAL_OR(fallocate, -1);
    FD_META(int, FTIO_OP_META, fd, real_fallocate(fd, mode, off, len));
}

FTIO_WRAPPER(int, fallocate64, (int fd, int mode, off64_t off, off64_t len))
{
    FTIO_REAL_OR(fallocate64, -1);
    FD_META(int, FTIO_OP_META, fd, real_fallocate64(fd, mode, off, len));
}

/* posix_fallocate returns an error number (errno untouched); 0 = success. */
FTIO_WRAPPER(int, posix_fallocate, (int fd, off_t off, off_t len))
{
    if (ftio_unlikely(!ftio_real((void **)&real_posix_fallocate, "posix_fallocate")))
        return ENOSYS;
    FD_META(int, FTIO_OP_META, fd, real_posix_fallocate(fd, off, len));
}

FTIO_WRAPPER(int, posix_fallocate64, (int fd, off64_t off, off64_t len))
{
    if (ftio_unlikely(!ftio_real((void **)&real_posix_fallocate64, "posix_fallocate64")))
        return ENOSYS;
    FD_META(int, FTIO_OP_META, fd, real_posix_fallocate64(fd, off, len));
}

FTIO_WRAPPER(int, truncate, (const char *path, off_t len))
{
    FTIO_REAL_OR(truncate, -1);
    PATH_META(int, FTIO_OP_META, AT_FDCWD, path, real_truncate(path, len));
}

FTIO_WRAPPER(int, truncate64, (const char *path, off64_t len))
{
    FTIO_REAL_OR(truncate64, -1);
    PATH_META(int, FTIO_OP_META, AT_FDCWD, path, real_truncate64(path, len));
}

/* rename is recorded against the new name (the file's name from now on). */
FTIO_WRAPPER(int, rename, (const char *from, const char *to))
{
    FTIO_REAL_OR(rename, -1);
    PATH_META(int, FTIO_OP_META, AT_FDCWD, to, real_rename(from, to));
}

FTIO_WRAPPER(int, renameat, (int dfrom, const char *from, int dto, const char *to))
{
    FTIO_REAL_OR(renameat, -1);
    PATH_META(int, FTIO_OP_META, dto, to, real_renameat(dfrom, from, dto, to));
}

FTIO_WRAPPER(int, unlink, (const char *path))
{
    FTIO_REAL_OR(unlink, -1);
    PATH_META(int, FTIO_OP_META, AT_FDCWD, path, real_unlink(path));
}

FTIO_WRAPPER(int, unlinkat, (int dirfd, const char *path, int flags))
{
    FTIO_REAL_OR(unlinkat, -1);
    PATH_META(int, FTIO_OP_META, dirfd, path, real_unlinkat(dirfd, path, flags));
}

/* The cwd cache (files.c) follows the process's directory changes. */
FTIO_WRAPPER(int, chdir, (const char *path))
{
    FTIO_REAL_OR(chdir, -1);
    int r = real_chdir(path);
    if (r == 0 && ftio_fdt) {
        int e = errno;
        ftio_files_refresh_cwd();
        errno = e;
    }
    return r;
}

FTIO_WRAPPER(int, fchdir, (int fd))
{
    FTIO_REAL_OR(fchdir, -1);
    int r = real_fchdir(fd);
    if (r == 0 && ftio_fdt) {
        int e = errno;
        ftio_files_refresh_cwd();
        errno = e;
    }
    return r;
}

/* ---- stat family ------------------------------------------------------ */

FTIO_WRAPPER(int, stat, (const char *path, struct stat *st))
{
    FTIO_REAL_OR(stat, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real_stat(path, st));
}

FTIO_WRAPPER(int, stat64, (const char *path, struct stat64 *st))
{
    FTIO_REAL_OR(stat64, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real_stat64(path, st));
}

FTIO_WRAPPER(int, lstat, (const char *path, struct stat *st))
{
    FTIO_REAL_OR(lstat, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real_lstat(path, st));
}

FTIO_WRAPPER(int, lstat64, (const char *path, struct stat64 *st))
{
    FTIO_REAL_OR(lstat64, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real_lstat64(path, st));
}

FTIO_WRAPPER(int, fstat, (int fd, struct stat *st))
{
    FTIO_REAL_OR(fstat, -1);
    FD_META(int, FTIO_OP_STAT, fd, real_fstat(fd, st));
}

FTIO_WRAPPER(int, fstat64, (int fd, struct stat64 *st))
{
    FTIO_REAL_OR(fstat64, -1);
    FD_META(int, FTIO_OP_STAT, fd, real_fstat64(fd, st));
}

/* The *at forms with AT_EMPTY_PATH and "" are descriptor calls. */
#define EMPTY_PATH(path, flags) ((path) && !*(path) && ((flags) & AT_EMPTY_PATH))

FTIO_WRAPPER(int, fstatat, (int dirfd, const char *path, struct stat *st, int flags))
{
    FTIO_REAL_OR(fstatat, -1);
    if (EMPTY_PATH(path, flags))
        FD_META(int, FTIO_OP_STAT, dirfd, real_fstatat(dirfd, path, st, flags));
    PATH_META(int, FTIO_OP_STAT, dirfd, path, real_fstatat(dirfd, path, st, flags));
}

FTIO_WRAPPER(int, fstatat64, (int dirfd, const char *path, struct stat64 *st, int flags))
{
    FTIO_REAL_OR(fstatat64, -1);
    if (EMPTY_PATH(path, flags))
        FD_META(int, FTIO_OP_STAT, dirfd, real_fstatat64(dirfd, path, st, flags));
    PATH_META(int, FTIO_OP_STAT, dirfd, path, real_fstatat64(dirfd, path, st, flags));
}

FTIO_WRAPPER(int, statx, (int dirfd, const char *path, int flags, unsigned mask, struct statx *st))
{
    FTIO_REAL_OR(statx, -1);
    if (EMPTY_PATH(path, flags))
        FD_META(int, FTIO_OP_STAT, dirfd, real_statx(dirfd, path, flags, mask, st));
    PATH_META(int, FTIO_OP_STAT, dirfd, path, real_statx(dirfd, path, flags, mask, st));
}

FTIO_WRAPPER(int, __xstat, (int ver, const char *path, struct stat *st))
{
    FTIO_REAL_OR(__xstat, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real___xstat(ver, path, st));
}

FTIO_WRAPPER(int, __xstat64, (int ver, const char *path, struct stat64 *st))
{
    FTIO_REAL_OR(__xstat64, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real___xstat64(ver, path, st));
}

FTIO_WRAPPER(int, __lxstat, (int ver, const char *path, struct stat *st))
{
    FTIO_REAL_OR(__lxstat, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real___lxstat(ver, path, st));
}

FTIO_WRAPPER(int, __lxstat64, (int ver, const char *path, struct stat64 *st))
{
    FTIO_REAL_OR(__lxstat64, -1);
    PATH_META(int, FTIO_OP_STAT, AT_FDCWD, path, real___lxstat64(ver, path, st));
}

FTIO_WRAPPER(int, __fxstat, (int ver, int fd, struct stat *st))
{
    FTIO_REAL_OR(__fxstat, -1);
    FD_META(int, FTIO_OP_STAT, fd, real___fxstat(ver, fd, st));
}

FTIO_WRAPPER(int, __fxstat64, (int ver, int fd, struct stat64 *st))
{
    FTIO_REAL_OR(__fxstat64, -1);
    FD_META(int, FTIO_OP_STAT, fd, real___fxstat64(ver, fd, st));
}

FTIO_WRAPPER(int, __fxstatat, (int ver, int dirfd, const char *path, struct stat *st, int flags))
{
    FTIO_REAL_OR(__fxstatat, -1);
    if (EMPTY_PATH(path, flags))
        FD_META(int, FTIO_OP_STAT, dirfd, real___fxstatat(ver, dirfd, path, st, flags));
    PATH_META(int, FTIO_OP_STAT, dirfd, path, real___fxstatat(ver, dirfd, path, st, flags));
}

FTIO_WRAPPER(int, __fxstatat64, (int ver, int dirfd, const char *path, struct stat64 *st, int flags))
{
    FTIO_REAL_OR(__fxstatat64, -1);
    if (EMPTY_PATH(path, flags))
        FD_META(int, FTIO_OP_STAT, dirfd, real___fxstatat64(ver, dirfd, path, st, flags));
    PATH_META(int, FTIO_OP_STAT, dirfd, path, real___fxstatat64(ver, dirfd, path, st, flags));
}

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

#define MMAP_BODY(realname, a, len, prot, flags, fd, off)                     \
    do {                                                                      \
        void *(*fn_)(void *, size_t, int, int, int, __typeof__(off)) =         \
            __atomic_load_n(&realname, __ATOMIC_RELAXED);                     \
        if (((flags) & MAP_ANONYMOUS) || (fd) < 0 || !ftio_posix_fd(fd))      \
            return fn_ ? fn_(a, len, prot, flags, fd, off)                    \
                       : raw_mmap(a, len, prot, flags, fd, (off64_t)(off));   \
        if (!fn_) {                                                           \
            errno = ENOSYS;                                                   \
            return MAP_FAILED;                                                \
        }                                                                     \
        uint32_t fid_ = atomic_load_explicit(&ftio_fd_slot(fd)->fid, memory_order_relaxed); \
        FTIO_TIMED(void *, fn_(a, len, prot, flags, fd, off));                     \
        if (r_ != MAP_FAILED) {                                               \
            maps_add(r_, len, fid_);                                          \
            emit_posix(FTIO_OP_META, fid_, t0_, t1_, (int64_t)(off), (int64_t)(len)); \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                       \
    } while (0)

FTIO_WRAPPER(void *, mmap, (void *a, size_t len, int prot, int flags, int fd, off_t off))
{
    MMAP_BODY(real_mmap, a, len, prot, flags, fd, off);
}

FTIO_WRAPPER(void *, mmap64, (void *a, size_t len, int prot, int flags, int fd, off64_t off))
{
    MMAP_BODY(real_mmap64, a, len, prot, flags, fd, off);
}

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
    if (s && (atomic_load_explicit(&s->fid, memory_order_relaxed) ||
              atomic_load_explicit(&s->stdio_fid, memory_order_relaxed))) {
        ftio_fd_forget(fd);
        ftio_fd_stdio_forget(fd);
    }
}

FTIO_WRAPPER(int, socket, (int domain, int type, int proto))
{
    FTIO_REAL_OR(socket, -1);
    int r = real_socket(domain, type, proto);
    fresh_fd(r);
    return r;
}

FTIO_WRAPPER(int, socketpair, (int domain, int type, int proto, int sv[2]))
{
    FTIO_REAL_OR(socketpair, -1);
    int r = real_socketpair(domain, type, proto, sv);
    if (r == 0) {
        fresh_fd(sv[0]);
        fresh_fd(sv[1]);
    }
    return r;
}

FTIO_WRAPPER(int, pipe, (int fds[2]))
{
    FTIO_REAL_OR(pipe, -1);
    int r = real_pipe(fds);
    if (r == 0) {
        fresh_fd(fds[0]);
        fresh_fd(fds[1]);
    }
    return r;
}

FTIO_WRAPPER(int, pipe2, (int fds[2], int flags))
{
    FTIO_REAL_OR(pipe2, -1);
    int r = real_pipe2(fds, flags);
    if (r == 0) {
        fresh_fd(fds[0]);
        fresh_fd(fds[1]);
    }
    return r;
}

FTIO_WRAPPER(int, accept, (int fd, void *addr, void *len))
{
    FTIO_REAL_OR(accept, -1);
    int r = real_accept(fd, addr, len);
    fresh_fd(r);
    return r;
}

FTIO_WRAPPER(int, accept4, (int fd, void *addr, void *len, int flags))
{
    FTIO_REAL_OR(accept4, -1);
    int r = real_accept4(fd, addr, len, flags);
    fresh_fd(r);
    return r;
}

FTIO_WRAPPER(int, eventfd, (unsigned init, int flags))
{
    FTIO_REAL_OR(eventfd, -1);
    int r = real_eventfd(init, flags);
    fresh_fd(r);
    return r;
}

/* closedir closes the descriptor inside libc. */
FTIO_WRAPPER(int, closedir, (DIR *d))
{
    FTIO_REAL_OR(closedir, -1);
    int fd = d ? dirfd(d) : -1;
    if (fd >= 0)
        fresh_fd(fd);
    return real_closedir(d);
}

