/* SPDX-License-Identifier: BSD-3-Clause */
/* stdio.c -- the STDIO layer: streams opened through our wrappers.
 *
 * Stdio is its own layer (TRACING.md pitfall 10): fwrite() is timed as the
 * copy into the libc buffer, and the real write(2) happens inside glibc at
 * fflush/fclose/buffer-full without going through any PLT entry, so it is
 * never seen (nor double counted) by the POSIX layer.  We therefore record
 * the stream calls, and the durations of fflush and fclose.
 *
 * Only streams opened by fopen/fopen64/fdopen/freopen here, on a path that is
 * not excluded, are traced: the descriptor table slot of the stream's fd
 * holds the FILE* (fdtable.c), so stdin/stdout/stderr, memory streams and
 * streams opened before we were loaded cost one pointer comparison.  A call
 * that returns its failure/EOF value is not recorded.  Offsets are the
 * stream position before the call (-1 for append streams), tracked from the
 * bytes transferred and re-read with ftello() after seeks.
 *
 * What a stream read and the program never consumed (read-ahead dropped by
 * fclose, fflush, a seek, or left at the end) is counted for the kernel
 * cross-check, on every read-only stream (libc_reads.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include "internal.h"
#include "libc_reads.h"

static inline struct ftio_fd_slot *stdio_slot(FILE *fp)
{
    if (!fp || !ftio_layer_recording(FTIO_LAYER_STDIO))
        return NULL;
    struct ftio_fd_slot *s = ftio_fd_slot_recording(fp->_fileno);
    if (!s || atomic_load_explicit(&s->fp, memory_order_relaxed) != fp ||
        !atomic_load_explicit(&s->stdio_fid, memory_order_acquire))
        return NULL;
    return s;
}

/* This layer's view of the core: on?, a record, a stream's position. */
#define stdio_on() ftio_layer_recording(FTIO_LAYER_STDIO)
#define emit_stdio(op, fid, t0, t1, off, bytes) \
    ftio_emit_simple(FTIO_LAYER_STDIO, op, fid, t0, t1, off, bytes)
#define spos_get(s) ftio_pos_get(&(s)->soffset, &(s)->sappend)
#define spos_advance(s, off, n) ftio_pos_advance(&(s)->soffset, off, n)

#define STREAM_OR_PASS(fp, call) FTIO_SLOT_OR_PASS(stdio_slot(fp), stdio_fid, call)

/* Data call: ok and bytes are expressions of r_ (the call's result).  On a
 * stream we do not trace (stdout, a pipe's, an excluded file's) the bytes
 * are counted for the kernel cross-check (unseen.c). */
#define STDIO_DATA(type, op, fp, ok, bytes, call)                             \
    do {                                                                      \
        struct ftio_fd_slot *s_ = stdio_slot(fp);                             \
        if (!s_) {                                                            \
            type r_ = call;                                                   \
            if (ok)                                                           \
                ftio_passed(op, (int64_t)(bytes));                            \
            return r_;                                                        \
        }                                                                     \
        uint32_t fid_ = atomic_load_explicit(&s_->stdio_fid, memory_order_relaxed); \
        int64_t off_ = spos_get(s_);                                          \
        if (ftio_nested_skip()) {                                             \
            type r_ = call;                                                   \
            if (ok) {                                                         \
                spos_advance(s_, off_, (int64_t)(bytes));                     \
                ftio_passed_nested(op, (int64_t)(bytes));                     \
            }                                                                 \
            return r_;                                                        \
        }                                                                     \
        FTIO_TIMED_DATA(type, call);                                          \
        if (ok) {                                                             \
            int64_t b_ = (int64_t)(bytes);                                    \
            spos_advance(s_, off_, b_);                                       \
            emit_stdio(op, fid_, t0_, t1_, off_, b_);                         \
        }                                                                     \
        FTIO_TIMED_DATA_RETURN();                                             \
    } while (0)

FTIO_NEXT(int, vfprintf, (FILE *, const char *, va_list));
FTIO_NEXT(int, __vfprintf_chk, (FILE *, int, const char *, va_list));
FTIO_NEXT(off64_t, ftello64, (FILE *));

/* Position of a traced stream via the real ftello (after seeks only). */
static int64_t stream_pos(FILE *fp)
{
    if (!ftio_real((void **)&real_ftello64, "ftello64"))
        return -1;
    int saved = errno;
    int64_t p = real_ftello64(fp);
    errno = saved;
    return p < 0 ? -1 : p;
}

/* ---- open / close ----------------------------------------------------- */

/* A stream opened inside libc: its descriptor is the file's too (C++'s
 * filebuf and `write(fileno(fp))` move data on it with POSIX calls, which
 * the POSIX layer records; stdio's own write(2) inside glibc never reaches a
 * wrapper, so no byte counts twice). */
static void stream_opened(FILE *fp, uint32_t fid, const char *mode, uint64_t t0, uint64_t t1)
{
    int fd = fp->_fileno;
    if (!fid || fd < 0) {
        ftio_fd_stdio_forget(fd);
        ftio_fd_not_file(fd);
        return;
    }
    int append = mode && strchr(mode, 'a');
    ftio_fd_open(fd, fid, append);
    ftio_fd_stdio_open(fd, fp, fid, append, 0);
    emit_stdio(FTIO_OP_OPEN, fid, t0, t1, -1, 0);
}

#define FOPEN_BODY(path, mode, call)                                          \
    do {                                                                      \
        if (!stdio_on()) {                                                    \
            FILE *f_ = call;                                                  \
            if (f_ && f_->_fileno >= 0) {                                     \
                ftio_fd_stdio_forget(f_->_fileno);                            \
                ftio_fd_forget(f_->_fileno);                                  \
            }                                                                 \
            return f_;                                                        \
        }                                                                     \
        FTIO_TIMED(FILE *, call);                                             \
        if (r_)                                                               \
            stream_opened(r_, ftio_file_register(path), mode, t0_, t1_);      \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

#define FOPEN(name)                                                           \
    FTIO_FORWARD(FILE *, name, (const char *path, const char *mode), (path, mode), NULL, \
                 FOPEN_BODY, path, mode)
FOPEN(fopen)
FOPEN(fopen64)

/* fdopen: traced when the descriptor is (we know its file). */
FTIO_WRAPPER(FILE *, fdopen, (int fd, const char *mode))
{
    FTIO_REAL_OR(fdopen, NULL);
    struct ftio_fd_slot *s = ftio_fd_slot(fd);
    uint32_t fid = s && stdio_on() ? ftio_slot_file(fd, s) : 0;
    if (!fid)
        return real_fdopen(fd, mode);
    FTIO_TIMED(FILE *, real_fdopen(fd, mode));
    if (r_) {
        int append = (mode && strchr(mode, 'a')) || atomic_load(&s->append);
        ftio_fd_stdio_open(fd, r_, fid, append, atomic_load(&s->offset));
        emit_stdio(FTIO_OP_OPEN, fid, t0_, t1_, -1, 0);
    }
    FTIO_TIMED_RETURN();
}

/* freopen closes the old file (a close record if it was traced) and opens
 * the new one on the same FILE*; a NULL path only changes the mode. */
static FILE *reopen(FILE *(*fn)(const char *, const char *, FILE *), const char *path,
                    const char *mode, FILE *fp)
{
    struct ftio_fd_slot *old = stdio_slot(fp);
    uint32_t old_fid = old ? atomic_load(&old->stdio_fid) : 0;
    int old_fd = fp ? fp->_fileno : -1;
    if (path)
        ftio_readahead_dropped(fp);     /* the old file's unread bytes */
    if (!stdio_on() || (!path && !old_fid)) {
        if (path && old_fd >= 0)
            ftio_fd_stdio_forget(old_fd);
        FILE *f = fn(path, mode, fp);
        if (f && path && f->_fileno >= 0) {
            ftio_fd_stdio_forget(f->_fileno);
            ftio_fd_forget(f->_fileno);
        }
        return f;
    }
    if (old_fd >= 0)
        ftio_fd_stdio_forget(old_fd);
    FTIO_TIMED(FILE *, fn(path, mode, fp));
    if (old_fid && path)
        emit_stdio(FTIO_OP_CLOSE, old_fid, t0_, t1_, -1, 0);
    if (r_) {
        ftio_fd_forget(r_->_fileno);
        stream_opened(r_, path ? ftio_file_register(path) : old_fid, mode, t0_, t1_);
    }
    ftio_busy = 0;
    errno = err_;
    return r_;
}

/* tmpfile: an unlinked file; its name is what /proc/self/fd says
 * ("/tmp/#1234" once " (deleted)" is cut). */
#define TMPFILE_BODY(unused, call)                                                  \
    do {                                                                      \
        if (!stdio_on())                                                      \
            return call;                                                      \
        FTIO_TIMED(FILE *, call);                                             \
        if (r_) {                                                             \
            char p_[4096];                                                    \
            uint32_t fid_ = ftio_fd_path(r_->_fileno, p_, sizeof p_) == 0     \
                                ? ftio_file_register(p_) : 0;                 \
            stream_opened(r_, fid_, "w+", t0_, t1_);                          \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)
FTIO_FORWARD(FILE *, tmpfile, (void), (), NULL, TMPFILE_BODY, 0)
FTIO_FORWARD(FILE *, tmpfile64, (void), (), NULL, TMPFILE_BODY, 0)

#define FREOPEN(name)                                                         \
    FTIO_FORWARD_TO(FILE *, name, (const char *path, const char *mode, FILE *fp), NULL, \
                    reopen, path, mode, fp)
FREOPEN(freopen)
FREOPEN(freopen64)

/* fclose closes the descriptor inside libc (no PLT): forget both views of
 * it here, before the number can be reused by another thread. */
FTIO_WRAPPER(int, fclose, (FILE *fp))
{
    FTIO_REAL_OR(fclose, EOF);
    ftio_readahead_dropped(fp);
    struct ftio_fd_slot *s = stdio_slot(fp);
    int fd = fp ? fp->_fileno : -1;
    if (fd == 2)
        ftio_flusher_stderr_closing();      /* coreutils' close_stdout */
    if (!s) {
        struct ftio_fd_slot *q = ftio_fd_slot(fd);
        if (q && atomic_load_explicit(&q->fp, memory_order_relaxed) == fp)
            ftio_fd_stdio_forget(fd);
        if (q)
            ftio_fd_forget(fd);
        return real_fclose(fp);
    }
    uint32_t fid = atomic_load(&s->stdio_fid);
    ftio_fd_stdio_forget(fd);
    ftio_fd_forget(fd);
    FTIO_TIMED(int, real_fclose(fp));
    emit_stdio(FTIO_OP_CLOSE, fid, t0_, t1_, -1, 0);   /* the stream is gone either way */
    FTIO_TIMED_RETURN();
}

/* (fflush of an input stream drops its unread bytes: read-ahead.) */
FTIO_NEXT(int, fflush, (FILE *));
static int flush(FILE *fp)
{
    struct ftio_fd_slot *s = stdio_slot(fp);
    if (!s)
        return real_fflush(fp);
    uint32_t fid = atomic_load(&s->stdio_fid);
    FTIO_TIMED(int, real_fflush(fp));
    if (r_ == 0)
        emit_stdio(FTIO_OP_SYNC, fid, t0_, t1_, -1, 0);
    FTIO_TIMED_RETURN();
}

FTIO_WRAP(int, fflush, (FILE *fp))
{
    FTIO_REAL_OR(fflush, EOF);
    struct ftio_getarea g;
    ftio_readahead_note(fp, &g);
    int r = flush(fp);
    ftio_readahead_done(fp, &g, FTIO_READAHEAD_FLUSH);
    return r;
}

/* ---- data ------------------------------------------------------------- */

/* The data calls, one line a symbol: NAME, (PARAMS) naming the stream fp,
 * (ARGS) of the call, the record's op; STREAM_DATA spells out the return
 * type, the failure return, the stream, success and the bytes (of r_).
 *   ITEMS  fread/fwrite: items of `size` bytes, 0 on failure
 *   CHAR   one character, EOF on failure
 *   LINE   the string read, NULL on failure
 *   COUNT  the bytes read, -1 on failure */
#define STREAM_DATA(ret, name, params, args, failret, op, fp, ok, bytes)      \
    FTIO_FORWARD(ret, name, params, args, failret, STDIO_DATA, ret, op, fp, ok, bytes)
#define ITEMS(name, params, args, op) STREAM_DATA(size_t, name, params, args, 0, op, fp, r_ > 0, r_ * size)
#define CHAR(name, params, args, op) STREAM_DATA(int, name, params, args, EOF, op, fp, r_ != EOF, 1)
#define LINE(name, params, args) STREAM_DATA(char *, name, params, args, NULL, RD, fp, r_ != NULL, strlen(r_))
#define COUNT(name, params, args) STREAM_DATA(ssize_t, name, params, args, -1, RD, fp, r_ >= 0, r_)

#define RD FTIO_OP_READ
#define WR FTIO_OP_WRITE
ITEMS(fread,           (void *p, size_t size, size_t n, FILE *fp),               (p, size, n, fp),       RD)
ITEMS(fread_unlocked,  (void *p, size_t size, size_t n, FILE *fp),               (p, size, n, fp),       RD)
ITEMS(__fread_chk,     (void *p, size_t plen, size_t size, size_t n, FILE *fp),  (p, plen, size, n, fp), RD)
ITEMS(fwrite,          (const void *p, size_t size, size_t n, FILE *fp),         (p, size, n, fp),       WR)
ITEMS(fwrite_unlocked, (const void *p, size_t size, size_t n, FILE *fp),         (p, size, n, fp),       WR)
CHAR(fgetc,            (FILE *fp),                                               (fp),                   RD)
CHAR(getc,             (FILE *fp),                                               (fp),                   RD)
CHAR(_IO_getc,         (FILE *fp),                                               (fp),                   RD)
CHAR(fputc,            (int c, FILE *fp),                                        (c, fp),                WR)
CHAR(putc,             (int c, FILE *fp),                                        (c, fp),                WR)
CHAR(_IO_putc,         (int c, FILE *fp),                                        (c, fp),                WR)
LINE(fgets,            (char *buf, int n, FILE *fp),                             (buf, n, fp))
LINE(__fgets_chk,      (char *buf, size_t size, int n, FILE *fp),                (buf, size, n, fp))
COUNT(getline,         (char **line, size_t *n, FILE *fp),                       (line, n, fp))
COUNT(getdelim,        (char **line, size_t *n, int delim, FILE *fp),            (line, n, delim, fp))
/* glibc's optimised <stdio.h> inlines getline() as a call to __getdelim. */
COUNT(__getdelim,      (char **line, size_t *n, int delim, FILE *fp),            (line, n, delim, fp))
STREAM_DATA(int, fputs, (const char *str, FILE *fp), (str, fp), EOF, WR, fp, r_ >= 0, strlen(str))
/* puts and putchar write to stdout: traced only when stdout was reopened
 * through us (else counted for the cross-check, as printf's below). */
STREAM_DATA(int, puts, (const char *str), (str), EOF, WR, stdout, r_ >= 0, strlen(str) + 1)
STREAM_DATA(int, putchar, (int c), (c), EOF, WR, stdout, r_ != EOF, 1)

/* ---- formatted -------------------------------------------------------- */

static int traced_vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    FTIO_REAL_OR(vfprintf, -1);
    STDIO_DATA(int, FTIO_OP_WRITE, fp, r_ >= 0, r_, real_vfprintf(fp, fmt, ap));
}

static int traced_vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
    FTIO_REAL_OR(__vfprintf_chk, -1);
    STDIO_DATA(int, FTIO_OP_WRITE, fp, r_ >= 0, r_, real___vfprintf_chk(fp, flag, fmt, ap));
}

FTIO_WRAP(int, vfprintf, (FILE *fp, const char *fmt, va_list ap))
{
    return traced_vfprintf(fp, fmt, ap);
}

FTIO_WRAP(int, __vfprintf_chk, (FILE *fp, int flag, const char *fmt, va_list ap))
{
    return traced_vfprintf_chk(fp, flag, fmt, ap);
}

/* fscanf: the bytes consumed are the change of the stream position. */
static int traced_vfscanf(int (*fn)(FILE *, const char *, va_list), FILE *fp, const char *fmt,
                          va_list ap)
{
    struct ftio_fd_slot *s = stdio_slot(fp);
    if (!s) {                     /* (its bytes passed, as the other calls') */
        struct ftio_consume c;
        ftio_consume_note(fp, &c);
        int r = fn(fp, fmt, ap);
        ftio_consume_done(fp, &c);
        return r;
    }
    uint32_t fid = atomic_load(&s->stdio_fid);
    ftio_busy = 1;
    int64_t before = stream_pos(fp);
    uint64_t t0 = ftio_stamp();
    int r = fn(fp, fmt, ap);
    uint64_t t1 = ftio_stamp();
    int e = errno;
    if (r != EOF) {
        int64_t after = stream_pos(fp);
        int64_t bytes = before >= 0 && after >= before ? after - before : 0;
        if (after >= 0 && !atomic_load(&s->sappend))
            atomic_store(&s->soffset, after);
        emit_stdio(FTIO_OP_READ, fid, t0, t1, atomic_load(&s->sappend) ? -1 : before, bytes);
    }
    ftio_busy = 0;
    errno = e;
    return r;
}

#define VFSCANF(name)                                                         \
    FTIO_FORWARD_TO(int, name, (FILE *fp, const char *fmt, va_list ap), EOF, traced_vfscanf, fp, fmt, ap)
VFSCANF(vfscanf)
VFSCANF(__isoc99_vfscanf)

/* The variadic forms, through their va_list twin's body: NAME, (PARAMS),
 * the last named parameter, what must come first (the twin's next
 * definition resolved), the call with ap. */
#define VARIADIC(name, params, last, first, call)                             \
    FTIO_WRAP(int, name, params)                                              \
    {                                                                         \
        first;                                                                \
        va_list ap;                                                           \
        va_start(ap, last);                                                   \
        int r = call;                                                         \
        va_end(ap);                                                           \
        return r;                                                             \
    }
VARIADIC(fprintf,         (FILE *fp, const char *fmt, ...), fmt, (void)0, traced_vfprintf(fp, fmt, ap))
VARIADIC(__fprintf_chk,   (FILE *fp, int flag, const char *fmt, ...), fmt, (void)0,
         traced_vfprintf_chk(fp, flag, fmt, ap))
VARIADIC(printf,          (const char *fmt, ...), fmt, (void)0, traced_vfprintf(stdout, fmt, ap))
VARIADIC(__printf_chk,    (int flag, const char *fmt, ...), fmt, (void)0,
         traced_vfprintf_chk(stdout, flag, fmt, ap))
FTIO_WRAP(int, vprintf, (const char *fmt, va_list ap))
{
    return traced_vfprintf(stdout, fmt, ap);
}
FTIO_WRAP(int, __vprintf_chk, (int flag, const char *fmt, va_list ap))
{
    return traced_vfprintf_chk(stdout, flag, fmt, ap);
}
VARIADIC(fscanf,          (FILE *fp, const char *fmt, ...), fmt, FTIO_REAL_OR(vfscanf, EOF),
         traced_vfscanf(real_vfscanf, fp, fmt, ap))
VARIADIC(__isoc99_fscanf, (FILE *fp, const char *fmt, ...), fmt, FTIO_REAL_OR(__isoc99_vfscanf, EOF),
         traced_vfscanf(real___isoc99_vfscanf, fp, fmt, ap))
/* scanf reads stdin: traced when stdin was reopened through us, else its
 * bytes passed (the kernel cross-check). */
VARIADIC(scanf,           (const char *fmt, ...), fmt, FTIO_REAL_OR(vfscanf, EOF),
         traced_vfscanf(real_vfscanf, stdin, fmt, ap))
VARIADIC(__isoc99_scanf,  (const char *fmt, ...), fmt, FTIO_REAL_OR(__isoc99_vfscanf, EOF),
         traced_vfscanf(real___isoc99_vfscanf, stdin, fmt, ap))

/* ---- positioning ------------------------------------------------------ */

/* A seek: record the resulting position, which later offsets start from. */
#define STDIO_SEEK(type, fp, call)                                            \
    do {                                                                      \
        STREAM_OR_PASS(fp, call);                                             \
        FTIO_TIMED(type, call);                                               \
        if (r_ == 0) {                                                             \
            int64_t pos_ = stream_pos(fp);                                    \
            if (!atomic_load(&s_->sappend))                                   \
                atomic_store(&s_->soffset, pos_);                             \
            emit_stdio(FTIO_OP_SEEK, fid_, t0_, t1_, pos_, 0);                \
        }                                                                     \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

/* The same around the read-ahead a seek drops or reads (a seek that
 * fails moved nothing). */
#define SEEK_BODY(name, params, args)                                         \
    static int seek_##name params                                             \
    {                                                                         \
        STDIO_SEEK(int, fp, real_##name args);                                \
    }                                                                         \
    FTIO_WRAP(int, name, params)                                              \
    {                                                                         \
        FTIO_REAL_OR(name, -1);                                               \
        struct ftio_getarea g;                                                \
        ftio_readahead_note(fp, &g);                                          \
        int r = seek_##name args;                                             \
        if (r == 0)                                                           \
            ftio_readahead_done(fp, &g, FTIO_READAHEAD_SEEK);                 \
        return r;                                                             \
    }
#define SEEK(name, params, args)                                              \
    FTIO_NEXT(int, name, params);                                             \
    SEEK_BODY(name, params, args)
SEEK(fseek,     (FILE *fp, long off, int whence),    (fp, off, whence))
SEEK(fseeko,    (FILE *fp, off_t off, int whence),   (fp, off, whence))
SEEK(fseeko64,  (FILE *fp, off64_t off, int whence), (fp, off, whence))
SEEK(fsetpos,   (FILE *fp, const fpos_t *pos),       (fp, pos))
SEEK(fsetpos64, (FILE *fp, const fpos64_t *pos),     (fp, pos))

FTIO_WRAPPER(void, rewind, (FILE *fp))
{
    if (ftio_unlikely(!ftio_real((void **)&real_rewind, "rewind")))
        return;
    struct ftio_getarea g;
    ftio_readahead_note(fp, &g);
    struct ftio_fd_slot *s = stdio_slot(fp);
    if (!s) {
        real_rewind(fp);
        ftio_readahead_done(fp, &g, FTIO_READAHEAD_SEEK);
        return;
    }
    uint32_t fid = atomic_load(&s->stdio_fid);
    ftio_busy = 1;
    uint64_t t0 = ftio_stamp();
    real_rewind(fp);
    uint64_t t1 = ftio_stamp();
    int e = errno;
    if (!atomic_load(&s->sappend))
        atomic_store(&s->soffset, 0);
    emit_stdio(FTIO_OP_SEEK, fid, t0, t1, 0, 0);
    ftio_readahead_done(fp, &g, FTIO_READAHEAD_SEEK);
    ftio_busy = 0;
    errno = e;
}

/* ftell and friends: a position query, recorded as a seek to where we are. */
#define STDIO_TELL(type, fp, call)                                            \
    do {                                                                      \
        STREAM_OR_PASS(fp, call);                                             \
        FTIO_TIMED(type, call);                                               \
        if (r_ >= 0)                                                          \
            emit_stdio(FTIO_OP_SEEK, fid_, t0_, t1_, (int64_t)r_, 0);         \
        FTIO_TIMED_RETURN();                                                  \
    } while (0)

#define TELL(ret, name) FTIO_FORWARD(ret, name, (FILE *fp), (fp), -1, STDIO_TELL, ret, fp)
TELL(long, ftell)
TELL(off_t, ftello)

FTIO_WRAP(off64_t, ftello64, (FILE *fp))
{
    FTIO_REAL_OR(ftello64, -1);
    STDIO_TELL(off64_t, fp, real_ftello64(fp));
}

