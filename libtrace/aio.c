/* SPDX-License-Identifier: BSD-3-Clause */
/* aio.c -- POSIX asynchronous I/O (aio_read/aio_write/lio_listio and their
 * *64 forms) on traced descriptors, timed from post to completion.
 *
 * A post remembers {aiocb address -> post time, file, op, offset} in a small
 * lock-free table; the record (flag FTIO_FLAG_ASYNC) is emitted when the
 * application collects the result with aio_return(), with t_start = the post
 * and t_end = the first time completion was observed (aio_error() returning
 * something other than EINPROGRESS, aio_suspend() returning), or the
 * aio_return() call itself.  A failed or cancelled request is not a data
 * record.  glibc runs the transfers in helper threads through internal
 * calls, so nothing is counted twice.  If the table is full, the request is
 * simply not traced (counted nowhere: the table holds 1024 in-flight
 * requests per process).
 */
#include <aio.h>
#include <errno.h>
#include "internal.h"

#define AIO_SLOTS 1024

static struct {
    atomic_int inflight;             /* lookups are skipped while 0 */
    struct aio_slot {
        _Atomic uintptr_t cb;        /* 0 = free */
        uint64_t          t_post, t_done;
        int64_t           offset;
        uint32_t          fid;
        uint8_t           op;
        uint16_t          flags;
    } s[AIO_SLOTS];
} aio;

static struct aio_slot *slot_find(const void *cb)
{
    uintptr_t key = (uintptr_t)cb;
    if (!cb || atomic_load_explicit(&aio.inflight, memory_order_acquire) == 0)
        return NULL;
    for (int i = 0; i < AIO_SLOTS; i++)
        if (atomic_load_explicit(&aio.s[i].cb, memory_order_acquire) == key)
            return &aio.s[i];
    return NULL;
}

static void posted(const struct aiocb *cb, int op, uint64_t t0)
{
    struct ftio_fd_slot *fs = ftio_posix_fd(cb->aio_fildes);
    if (!fs)
        return;
    for (int i = 0; i < AIO_SLOTS; i++) {
        uintptr_t expect = 0;
        if (atomic_load_explicit(&aio.s[i].cb, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&aio.s[i].cb, &expect, (uintptr_t)cb)) {
            struct aio_slot *s = &aio.s[i];
            s->t_post = t0;
            s->t_done = 0;
            s->offset = (int64_t)cb->aio_offset;
            s->fid = atomic_load_explicit(&fs->fid, memory_order_relaxed);
            s->op = (uint8_t)op;
            s->flags = FTIO_FLAG_ASYNC | ftio_nested_flag();
            atomic_fetch_add(&aio.inflight, 1);
            return;
        }
    }
}

/* The request of slot s is complete (observed now) unless already noted. */
static void slot_done(struct aio_slot *s, uint64_t now)
{
    if (s && !s->t_done)
        s->t_done = now;
}

static void completed(const void *cb, uint64_t now)
{
    slot_done(slot_find(cb), now);
}

/* A post: NAME, the record's op (the call is NAME(cb)). */
#define POST_CALL(op, call)                                                   \
    if (!cb || !ftio_posix_fd(cb->aio_fildes))                                \
        return call;                                                          \
    uint64_t t0 = ftio_stamp();                                              \
    int r = call;                                                             \
    int e = errno;                                                            \
    if (r == 0)                                                               \
        posted(cb, op, t0);                                                   \
    errno = e;                                                                \
    return r
#define POST(name, op) FTIO_FORWARD(int, name, (struct aiocb *cb), (cb), -1, POST_CALL, op)

POST(aio_read,    FTIO_OP_READ)
POST(aio_write,   FTIO_OP_WRITE)
POST(aio_read64,  FTIO_OP_READ)
POST(aio_write64, FTIO_OP_WRITE)

static int list_post(int (*fn)(int, struct aiocb *const[], int, struct sigevent *), int mode,
                     struct aiocb *const list[], int n, struct sigevent *sev)
{
    uint64_t t0 = ftio_stamp();
    int r = fn(mode, list, n, sev);
    int e = errno;
    /* With LIO_NOWAIT, r == 0 means all were queued; with LIO_WAIT that
     * they all completed (then completion is now). */
    if (r == 0 && list) {
        uint64_t t1 = ftio_stamp();
        for (int i = 0; i < n; i++) {
            struct aiocb *cb = list[i];
            if (!cb || (cb->aio_lio_opcode != LIO_READ && cb->aio_lio_opcode != LIO_WRITE))
                continue;
            posted(cb, cb->aio_lio_opcode == LIO_READ ? FTIO_OP_READ : FTIO_OP_WRITE, t0);
            if (mode == LIO_WAIT)
                completed(cb, t1);
        }
    }
    errno = e;
    return r;
}

#define LIO_LISTIO(name)                                                      \
    FTIO_FORWARD_TO(int, name, (int mode, struct aiocb *const list[], int n, struct sigevent *sev), \
                    -1, list_post, mode, list, n, sev)
LIO_LISTIO(lio_listio)
LIO_LISTIO(lio_listio64)

#define ERROR_CALL(cb, call)                                                  \
    int r = call;                                                             \
    if (r != EINPROGRESS)                                                     \
        completed(cb, ftio_stamp());                                         \
    return r
#define AIO_ERROR(name) FTIO_FORWARD(int, name, (const struct aiocb *cb), (cb), EINVAL, ERROR_CALL, cb)
AIO_ERROR(aio_error)
AIO_ERROR(aio_error64)

/* aio_return collects the result: emit the record and free the slot. */
static ssize_t collect(ssize_t (*fn)(struct aiocb *), struct aiocb *cb)
{
    struct aio_slot *s = slot_find(cb);
    ssize_t r = fn(cb);
    if (!s)
        return r;
    int e = errno;
    uint64_t t1 = s->t_done ? s->t_done : ftio_stamp();
    if (r >= 0 && __atomic_load_n(&ftio_active, __ATOMIC_RELAXED)) {
        struct ftio_record rec = {
            .t_start = s->t_post, .t_end = t1, .offset = s->offset, .bytes = r,
            .file_id = s->fid, .op = s->op, .layer = FTIO_LAYER_POSIX, .flags = s->flags,
        };
        ftio_emit(&rec);
    }
    atomic_store_explicit(&s->cb, 0, memory_order_release);
    atomic_fetch_sub(&aio.inflight, 1);
    errno = e;
    return r;
}

#define AIO_RETURN(name) FTIO_FORWARD_TO(ssize_t, name, (struct aiocb *cb), -1, collect, cb)
AIO_RETURN(aio_return)
AIO_RETURN(aio_return64)

/* aio_suspend: the requests that are done when it returns completed then. */
static int suspend(int (*fn)(const struct aiocb *const[], int, const struct timespec *),
                   int (*err)(const struct aiocb *), const struct aiocb *const list[], int n,
                   const struct timespec *timeout)
{
    int r = fn(list, n, timeout);
    int e = errno;
    if (r == 0 && list && err) {
        uint64_t now = ftio_stamp();
        for (int i = 0; i < n; i++) {
            struct aio_slot *s = slot_find(list[i]);
            if (s && err(list[i]) != EINPROGRESS)
                slot_done(s, now);
        }
    }
    errno = e;
    return r;
}

/* aio_suspend(64) asks aio_error(64) which requests are done. */
#define AIO_SUSPEND(name, error)                                              \
    FTIO_WRAPPER(int, name, (const struct aiocb *const list[], int n, const struct timespec *t)) \
    {                                                                         \
        FTIO_REAL_OR(name, -1);                                               \
        ftio_real((void **)&real_##error, #error);                            \
        return suspend(real_##name, real_##error, list, n, t);                \
    }
AIO_SUSPEND(aio_suspend, aio_error)
AIO_SUSPEND(aio_suspend64, aio_error64)

