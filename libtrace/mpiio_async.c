/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio_async.c -- nonblocking MPI-IO timed from post to completion.
 *
 * The post wrappers (mpiio.c) read *request after the PMPI post and insert
 * {handle -> post start, bytes, op, file, offset, flags} here.  The
 * completion calls (MPI_Wait/Waitall/Waitany/Waitsome, MPI_Test/Testall/
 * Testany/Testsome, MPI_Request_get_status, MPI_Request_free, MPI_Cancel)
 * copy the handle values *before* the PMPI call (MPI nulls completed
 * handles), and after it emit one record per completed I/O request:
 * ts = post start, te = completion seen, FTIO_FLAG_ASYNC.  Requests are keyed
 * by handle value, not by the address of the variable holding it, so
 * requests copied between variables still match.
 *
 *   - A request counts as completed when the call nulled its handle (I/O
 *     requests are never persistent); bytes come from its status when we
 *     have one (MPI_STATUS(ES)_IGNORE is replaced by a local array for up to
 *     LOCAL_STATUSES requests), else the requested bytes.
 *   - MPI_Request_get_status does not free: completion time (and exact
 *     bytes) are remembered and used by the Wait/Test/free that follows.
 *   - MPI_Request_free of an active I/O request: completion is unknown; the
 *     record has te = the time of the free (or of a completion seen earlier
 *     by MPI_Request_get_status) and the requested bytes.
 *   - MPI_Cancel marks the entry; a request whose status says "cancelled"
 *     (or that was cancelled and has no status to tell) records nothing.
 *   - MPI_Finalize drains what is left like MPI_Request_free does.
 *
 * The table is open-addressed (linear probing, backward-shift deletion)
 * behind a tiny spinlock: it is touched only on the async path (posting an
 * I/O request, completing while I/O requests are pending).  Non-I/O traffic
 * pays one relaxed atomic load while no I/O request is pending, and a table
 * miss otherwise.  When the table is full a post is recorded at once with
 * te = post end (degraded timing, never lost).
 */
#include <stdlib.h>
#include <string.h>
#include "mpiio.h"

#define REQ_SLOTS 4096u                /* power of two */
#define LOCAL_STATUSES 64              /* statuses substituted on the stack */

struct req_entry {
    uint64_t key;                      /* request handle value; 0 = empty */
    uint64_t t_start, t_done;          /* t_done: completion seen by get_status */
    int64_t  offset, bytes;
    uint32_t fid;
    uint8_t  op;
    uint8_t  cancelled, bytes_exact;
    uint16_t flags;
};

static struct req_entry req_slots[REQ_SLOTS];
static atomic_flag req_lock = ATOMIC_FLAG_INIT;
static atomic_int req_pending;         /* entries in the table */

static inline void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&req_lock, memory_order_acquire))
        __builtin_ia32_pause();
}

static inline void unlock(void)
{
    atomic_flag_clear_explicit(&req_lock, memory_order_release);
}

static inline uint32_t home(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (REQ_SLOTS - 1);
}

/* Index of key, or -1.  Caller holds the lock. */
static int find_locked(uint64_t key)
{
    uint32_t i = home(key);
    for (uint32_t n = 0; n < REQ_SLOTS; n++, i = (i + 1) & (REQ_SLOTS - 1)) {
        if (req_slots[i].key == key)
            return (int)i;
        if (req_slots[i].key == 0)
            return -1;
    }
    return -1;
}

/* Remove entry i (and count it out of req_pending).  Backward-shift
 * deletion keeps probe chains without tombstones. */
static void delete_locked(uint32_t i)
{
    uint32_t j = i;
    atomic_fetch_sub_explicit(&req_pending, 1, memory_order_relaxed);
    for (;;) {
        req_slots[i].key = 0;
        for (;;) {
            j = (j + 1) & (REQ_SLOTS - 1);
            if (req_slots[j].key == 0)
                return;
            uint32_t h = home(req_slots[j].key);
            /* can the entry at j move to i? (h not cyclically in (i, j]) */
            if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
                break;
        }
        req_slots[i] = req_slots[j];
        i = j;
    }
}

static inline int nothing_pending(void)
{
    return atomic_load_explicit(&req_pending, memory_order_relaxed) == 0;
}

static void emit_entry(const struct req_entry *e, uint64_t t_complete)
{
    if (!ftio_active)
        return;                                    /* paused: forget it */
    ftio_mpi_emit(e->t_start, e->t_done ? e->t_done : t_complete, e->op, e->flags,
                  e->fid, e->offset, e->bytes);
}

void ftio_mpi_req_post(MPI_Request req, uint64_t t_start, uint64_t t_post_end, int op,
                       uint16_t flags, uint32_t fid, int64_t offset, int64_t bytes)
{
    uint64_t key = FTIO_MPI_HANDLE(req);
    struct req_entry e = {
        .key = key, .t_start = t_start, .offset = offset, .bytes = bytes,
        .fid = fid, .op = (uint8_t)op, .flags = flags,
    };
    if (req == MPI_REQUEST_NULL || key == 0) {     /* completed at once */
        ftio_mpi_emit(t_start, t_post_end, op, flags, fid, offset, bytes);
        return;
    }
    lock();
    int i = find_locked(key);
    if (i < 0 && atomic_load_explicit(&req_pending, memory_order_relaxed) < (int)(REQ_SLOTS * 3 / 4)) {
        uint32_t s = home(key);
        while (req_slots[s].key != 0)
            s = (s + 1) & (REQ_SLOTS - 1);
        i = (int)s;
        atomic_fetch_add_explicit(&req_pending, 1, memory_order_relaxed);
    }
    if (i >= 0)
        req_slots[i] = e;   /* a stale entry with this handle is replaced */
    unlock();
    if (i < 0)
        ftio_mpi_emit(t_start, t_post_end, op, flags, fid, offset, bytes);
}

/* Take the entry of key out of the table; 1 if it was there. */
static int take(uint64_t key, struct req_entry *out)
{
    lock();
    int i = find_locked(key);
    if (i >= 0) {
        *out = req_slots[i];
        delete_locked((uint32_t)i);
    }
    unlock();
    return i >= 0;
}

static int contains(uint64_t key)
{
    lock();
    int i = find_locked(key);
    unlock();
    return i >= 0;
}

/* A request we saw complete (its handle was nulled): record it. */
static void complete(uint64_t key, const MPI_Status *st, uint64_t t1)
{
    struct req_entry e;
    if (!take(key, &e))
        return;
    if (e.cancelled) {
        int flag = 1;
        if (st != MPI_STATUS_IGNORE)
            ftio_mpi_h.test_cancelled(st, &flag);
        if (flag)
            return;
    }
    if (!e.bytes_exact) {
        int64_t n;
        if (ftio_mpi_status_get(st, &n))
            e.bytes = n;
    }
    emit_entry(&e, t1);
}

void ftio_mpi_req_drain(void)
{
    uint64_t now = ftio_stamp();
    for (;;) {
        struct req_entry e = {0};
        lock();
        for (uint32_t i = 0; i < REQ_SLOTS; i++)
            if (req_slots[i].key) {
                e = req_slots[i];
                delete_locked(i);
                break;
            }
        unlock();
        if (!e.key)
            return;
        if (!e.cancelled)
            emit_entry(&e, now);
    }
}

/* ---- completion wrappers ------------------------------------------------ */

/* Runs around every completion call with I/O pending: the outermost-call
 * guard (an inner PMPI_Wait from ROMIO or another tool is not ours to
 * handle) and ftio_mpiio_depth, so POSIX calls made while progressing I/O
 * (OMPIO's aio_error/aio_return) are flagged nested. */
static inline int completion_enter(void)
{
    if (ftio_busy || ftio_mpi_in || nothing_pending())
        return 0;
    ftio_mpi_in = 1;
    ftio_mpiio_depth++;
    return 1;
}

static inline int completion_leave(int rc, int saved_errno)
{
    ftio_mpiio_depth--;
    ftio_mpi_in = 0;
    errno = saved_errno;
    return rc;
}

/* MPI_Wait / MPI_Test on one request. */
static int one(int (*wait)(MPI_Request *, MPI_Status *),
               int (*test)(MPI_Request *, int *, MPI_Status *),
               MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!completion_enter())
        return wait ? wait(request, status) : test(request, flag, status);
    uint64_t key = FTIO_MPI_HANDLE(*request);
    int mine = contains(key);
    MPI_Status local;
    if (mine && status == MPI_STATUS_IGNORE) {
        ftio_mpi_status_unset(&local);
        status = &local;
    }
    int rc = wait ? wait(request, status) : test(request, flag, status);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (mine && *request == MPI_REQUEST_NULL)
        complete(key, status, t1);
    return completion_leave(rc, saved);
}

/* Handles of the I/O requests among reqs[0..n), copied before the call. */
struct hits {
    int      n;
    int      idx[LOCAL_STATUSES];
    uint64_t key[LOCAL_STATUSES];
    int     *big_idx;                  /* when more than LOCAL_STATUSES hits */
    uint64_t *big_key;
};

static void hits_collect(struct hits *h, int n, const MPI_Request reqs[])
{
    int cap = LOCAL_STATUSES;
    int *idx = h->idx;
    uint64_t *key = h->key;
    h->n = 0;
    h->big_idx = NULL;
    h->big_key = NULL;
    lock();
    for (int i = 0; i < n; i++) {
        uint64_t k = FTIO_MPI_HANDLE(reqs[i]);
        if (find_locked(k) < 0)
            continue;
        if (h->n == cap) {
            /* Rare: more I/O requests in one call than fit on the stack.
             * Allocate (async path only).  If that fails, the requests not
             * collected stay in the table and are recorded as "completion
             * unknown" by a later free or by MPI_Finalize's drain. */
            int ncap = n;
            int *ni = malloc(sizeof *ni * (size_t)ncap);
            uint64_t *nk = malloc(sizeof *nk * (size_t)ncap);
            if (!ni || !nk) {
                free(ni);
                free(nk);
                break;
            }
            memcpy(ni, idx, sizeof *ni * (size_t)h->n);
            memcpy(nk, key, sizeof *nk * (size_t)h->n);
            idx = h->big_idx = ni;
            key = h->big_key = nk;
            cap = ncap;
        }
        idx[h->n] = i;
        key[h->n] = k;
        h->n++;
    }
    unlock();
}

static inline int *hits_idx(struct hits *h) { return h->big_idx ? h->big_idx : h->idx; }
static inline uint64_t *hits_key(struct hits *h) { return h->big_key ? h->big_key : h->key; }

static void hits_free(struct hits *h)
{
    free(h->big_idx);
    free(h->big_key);
}

/* Waitall/Testall (statuses[i] belongs to reqs[i]) and Waitany/Testany and
 * Waitsome/Testsome (status per completed index).  kind selects which. */
enum multi_kind { ALL, ANY, SOME };

static void multi_complete(struct hits *h, enum multi_kind kind, MPI_Request reqs[],
                           const MPI_Status *statuses, int any_index,
                           int outcount, const int *indices, uint64_t t1)
{
    int *idx = hits_idx(h);
    uint64_t *key = hits_key(h);
    for (int k = 0; k < h->n; k++) {
        int i = idx[k];
        if (reqs[i] != MPI_REQUEST_NULL)
            continue;                       /* not completed by this call */
        const MPI_Status *st = MPI_STATUS_IGNORE;
        if (statuses != MPI_STATUS_IGNORE) {
            if (kind == ALL)
                st = &statuses[i];
            else if (kind == ANY && i == any_index)
                st = statuses;
            else if (kind == SOME)
                for (int j = 0; j < outcount; j++)
                    if (indices[j] == i) {
                        st = &statuses[j];
                        break;
                    }
        }
        complete(key[k], st, t1);
    }
}

/* The statuses to take the bytes from: the caller's, or when it ignores
 * them (and they fit) local[], marked unset. */
static MPI_Status *own_statuses(const struct hits *h, int n, MPI_Status *statuses, MPI_Status *local)
{
    if (!h->n || statuses != MPI_STATUSES_IGNORE || n > LOCAL_STATUSES)
        return statuses;
    for (int i = 0; i < n; i++)
        ftio_mpi_status_unset(&local[i]);
    return local;
}

/* Waitall / Testall (test == NULL for Waitall). */
static int all(int (*waitall)(int, MPI_Request[], MPI_Status[]),
               int (*testall)(int, MPI_Request[], int *, MPI_Status[]),
               int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!completion_enter())
        return waitall ? waitall(n, reqs, statuses) : testall(n, reqs, flag, statuses);
    struct hits h;
    hits_collect(&h, n, reqs);
    MPI_Status local[LOCAL_STATUSES];
    statuses = own_statuses(&h, n, statuses, local);
    int rc = waitall ? waitall(n, reqs, statuses) : testall(n, reqs, flag, statuses);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (h.n)
        multi_complete(&h, ALL, reqs, statuses, -1, 0, NULL, t1);
    hits_free(&h);
    return completion_leave(rc, saved);
}

/* Waitany / Testany. */
static int any(int (*waitany)(int, MPI_Request[], int *, MPI_Status *),
               int (*testany)(int, MPI_Request[], int *, int *, MPI_Status *),
               int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!completion_enter())
        return waitany ? waitany(n, reqs, index, status) : testany(n, reqs, index, flag, status);
    struct hits h;
    hits_collect(&h, n, reqs);
    MPI_Status local;
    if (h.n && status == MPI_STATUS_IGNORE) {
        ftio_mpi_status_unset(&local);
        status = &local;
    }
    int rc = waitany ? waitany(n, reqs, index, status) : testany(n, reqs, index, flag, status);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (h.n && *index != MPI_UNDEFINED)
        multi_complete(&h, ANY, reqs, status, *index, 0, NULL, t1);
    hits_free(&h);
    return completion_leave(rc, saved);
}

/* Waitsome / Testsome (same signature). */
static int some(int (*call)(int, MPI_Request[], int *, int[], MPI_Status[]),
                int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!completion_enter())
        return call(n, reqs, outcount, indices, statuses);
    struct hits h;
    hits_collect(&h, n, reqs);
    MPI_Status local[LOCAL_STATUSES];
    statuses = own_statuses(&h, n, statuses, local);
    int rc = call(n, reqs, outcount, indices, statuses);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (h.n && *outcount != MPI_UNDEFINED)
        multi_complete(&h, SOME, reqs, statuses, -1, *outcount, indices, t1);
    hits_free(&h);
    return completion_leave(rc, saved);
}

/* MPI_Request_get_status: completion seen but the request lives on. */
static int get_status(int (*call)(MPI_Request, int *, MPI_Status *),
                      MPI_Request request, int *flag, MPI_Status *status)
{
    if (!completion_enter())
        return call(request, flag, status);
    uint64_t key = FTIO_MPI_HANDLE(request);
    int mine = contains(key);
    MPI_Status local;
    if (mine && status == MPI_STATUS_IGNORE) {
        ftio_mpi_status_unset(&local);
        status = &local;
    }
    int rc = call(request, flag, status);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (mine && rc == MPI_SUCCESS && *flag) {
        int64_t n = 0;
        int exact = ftio_mpi_status_get(status, &n);
        lock();
        int i = find_locked(key);
        if (i >= 0 && !req_slots[i].t_done) {
            req_slots[i].t_done = t1;
            if (exact) {
                req_slots[i].bytes = n;
                req_slots[i].bytes_exact = 1;
            }
        }
        unlock();
    }
    return completion_leave(rc, saved);
}

/* MPI_Request_free: completion unknown (see the top comment), recorded
 * now; MPI_Cancel: the entry is marked, its completion tells (complete()). */
static int free_or_cancel(int (*call)(MPI_Request *), MPI_Request *request, int cancel)
{
    if (!completion_enter())
        return call(request);
    uint64_t key = FTIO_MPI_HANDLE(*request);
    int rc = call(request);
    uint64_t t1 = cancel ? 0 : ftio_stamp();
    int saved = errno;
    if (rc == MPI_SUCCESS && cancel) {
        lock();
        int i = find_locked(key);
        if (i >= 0)
            req_slots[i].cancelled = 1;
        unlock();
    } else if (rc == MPI_SUCCESS) {
        struct req_entry e;
        if (take(key, &e) && !e.cancelled)
            emit_entry(&e, t1);
    }
    return completion_leave(rc, saved);
}

/* ---- exported entry points: MPI_X and PMPI_X ---------------------------- */
/* One line a call: NAME, (PARAMS), the helper above and its arguments, in
 * which `real` is the entry's own next definition (MPI_X's or PMPI_X's). */
#define COMPLETION_ENTRY(P, NAME, PARAMS, HELPER, ...)                         \
    static int (*real_##P##NAME) PARAMS;                                       \
    FTIO_MPI_EXPORT int P##NAME PARAMS                                         \
    {                                                                          \
        FTIO_MPI_REAL(real_##P##NAME, #P #NAME);                               \
        int (*real) PARAMS = real_##P##NAME;                                   \
        return HELPER(__VA_ARGS__);                                            \
    }
#define COMPLETION(NAME, PARAMS, HELPER, ...)                                  \
    COMPLETION_ENTRY(MPI_, NAME, PARAMS, HELPER, __VA_ARGS__)                  \
    COMPLETION_ENTRY(PMPI_, NAME, PARAMS, HELPER, __VA_ARGS__)

#define REQS int count, MPI_Request reqs[]     /* the request array parameters */
COMPLETION(Wait,     (MPI_Request *request, MPI_Status *status),              one, real, NULL, request, NULL, status)
COMPLETION(Test,     (MPI_Request *request, int *flag, MPI_Status *status),   one, NULL, real, request, flag, status)
COMPLETION(Waitall,  (REQS, MPI_Status *statuses),                            all, real, NULL, count, reqs, NULL, statuses)
COMPLETION(Testall,  (REQS, int *flag, MPI_Status statuses[]),                all, NULL, real, count, reqs, flag, statuses)
COMPLETION(Waitany,  (REQS, int *index, MPI_Status *status),      any, real, NULL, count, reqs, index, NULL, status)
COMPLETION(Testany,  (REQS, int *index, int *flag, MPI_Status *status), any, NULL, real, count, reqs, index, flag, status)
COMPLETION(Waitsome, (REQS, int *outcount, int indices[], MPI_Status statuses[]),
           some, real, count, reqs, outcount, indices, statuses)
COMPLETION(Testsome, (REQS, int *outcount, int indices[], MPI_Status statuses[]),
           some, real, count, reqs, outcount, indices, statuses)
COMPLETION(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status),
           get_status, real, request, flag, status)
COMPLETION(Request_free, (MPI_Request *request), free_or_cancel, real, request, 0)
COMPLETION(Cancel,       (MPI_Request *request), free_or_cancel, real, request, 1)
