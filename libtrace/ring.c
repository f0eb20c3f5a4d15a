/* ring.c -- per-thread single-producer/single-consumer record rings.
 *
 * Each application thread that records gets its own ring on its first record
 * (the only allocation, outside any hot loop), pushed on a lock-free registry
 * list that only ever grows.  The thread is the only producer (head), the
 * flusher the only consumer (tail), so ftio_emit() is a copy and two atomic
 * stores: no lock, no syscall.  When the ring is half full the producer kicks
 * the flusher once; when it is full the record is dropped and counted (sent
 * as "lost" in the next batch header) -- the application never blocks.
 *
 * At thread exit a pthread_key destructor retires the ring; the flusher
 * drains it and marks it free, and the next new thread reuses it, so memory
 * is bounded by the peak number of recording threads.  In a forked child
 * only the forking thread survives: every ring is emptied (the parent sends
 * those records) and the others are freed for reuse.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { RING_FREE = 0, RING_IN_USE = 1, RING_RETIRED = 2 };

struct ring {
    _Atomic uint64_t head;          /* written by the producer */
    char             pad0[56];
    _Atomic uint64_t tail;          /* written by the consumer */
    char             pad1[56];
    _Atomic uint64_t lost;          /* producer adds, consumer takes */
    atomic_int       state;
    uint32_t         tid;
    struct ring     *next;          /* registry list, never unlinked */
    struct ftio_record rec[];
};

static struct {
    _Atomic(struct ring *) list;
    size_t                 cap;     /* power of two */
    atomic_uint            next_tid;
    _Atomic uint64_t       lost;    /* records from threads that could not get a ring */
    pthread_key_t          key;
} rings;

static __thread struct ring *my_ring __attribute__((tls_model("initial-exec")));
static __thread int my_ring_gone __attribute__((tls_model("initial-exec")));

static void retire(void *arg)
{
    struct ring *r = arg;
    my_ring = NULL;
    my_ring_gone = 1;          /* later records of this exiting thread: counted lost */
    atomic_store_explicit(&r->state, RING_RETIRED, memory_order_release);
    ftio_flusher_kick();       /* drain it soon: thread-churning programs reuse rings */
}

void ftio_rings_init(size_t records_per_ring)
{
    rings.cap = records_per_ring;
    atomic_store(&rings.next_tid, 1);
    if (pthread_key_create(&rings.key, retire) != 0)
        ftio_warn("pthread_key_create failed; thread exits are not tracked");
}

static struct ring *acquire_ring(void)
{
    uint32_t tid = atomic_fetch_add(&rings.next_tid, 1);
    for (struct ring *r = atomic_load(&rings.list); r; r = r->next) {
        /* A free ring, or a retired one already drained: its records are
         * gone, so the consumer has nothing left to read from it. */
        int state = atomic_load_explicit(&r->state, memory_order_acquire);
        if (state == RING_RETIRED && atomic_load_explicit(&r->tail, memory_order_acquire) !=
                                         atomic_load_explicit(&r->head, memory_order_relaxed))
            continue;
        if ((state == RING_FREE || state == RING_RETIRED) &&
            atomic_compare_exchange_strong(&r->state, &state, RING_IN_USE)) {
            r->tid = tid;
            return r;
        }
    }
    struct ring *r = calloc(1, sizeof *r + rings.cap * sizeof(struct ftio_record));
    if (!r)
        return NULL;
    r->tid = tid;
    atomic_store(&r->state, RING_IN_USE);
    r->next = atomic_load(&rings.list);
    while (!atomic_compare_exchange_weak(&rings.list, &r->next, r))
        ;
    return r;
}

static __attribute__((noinline)) struct ring *first_record(void)
{
    if (my_ring_gone)
        return NULL;
    int busy = ftio_busy;
    ftio_busy = 1;       /* calloc/pthread_create must not be traced */
    struct ring *r = acquire_ring();
    if (r) {
        my_ring = r;
        pthread_setspecific(rings.key, r);
    }
    ftio_flusher_start_if_needed();
    ftio_busy = busy;
    return r;
}

void ftio_emit(const struct ftio_record *rec)
{
    struct ring *r = my_ring;
    if (ftio_unlikely(!r)) {
        r = first_record();
        if (!r) {
            atomic_fetch_add_explicit(&rings.lost, 1, memory_order_relaxed);
            return;
        }
    }
    if (ftio_unlikely(!atomic_load_explicit(&ftio_flusher_started, memory_order_relaxed)))
        ftio_flusher_start_if_needed();          /* fork child: first record */
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t used = head - tail;
    if (ftio_unlikely(used >= rings.cap)) {
        /* Kick once per overflow episode (the flusher resets lost), not
         * once per dropped record: a syscall each would slow the app. */
        if (atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed) == 0)
            ftio_flusher_kick();
        return;
    }
    struct ftio_record *slot = &r->rec[head & (rings.cap - 1)];
    *slot = *rec;
    slot->tid = r->tid;
    slot->reserved = 0;
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    if (ftio_unlikely(used + 1 == rings.cap / 2))
        ftio_flusher_kick();
}

size_t ftio_rings_drain(struct ftio_record *out, size_t max, uint64_t *lost)
{
    size_t n = 0;
    *lost += atomic_exchange_explicit(&rings.lost, 0, memory_order_relaxed);
    for (struct ring *r = atomic_load_explicit(&rings.list, memory_order_acquire); r; r = r->next) {
        int state = atomic_load_explicit(&r->state, memory_order_acquire);
        if (state == RING_FREE)
            continue;
        *lost += atomic_exchange_explicit(&r->lost, 0, memory_order_relaxed);
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        while (tail != head && n < max) {
            out[n++] = r->rec[tail & (rings.cap - 1)];
            tail++;
        }
        atomic_store_explicit(&r->tail, tail, memory_order_release);
        /* A retired ring has no producer left: once empty it can be reused. */
        if (state == RING_RETIRED && tail == head) {
            int expect = RING_RETIRED;
            atomic_compare_exchange_strong(&r->state, &expect, RING_FREE);
        }
        if (n == max)
            break;
    }
    return n;
}

void ftio_rings_after_fork_child(void)
{
    atomic_store(&rings.lost, 0);
    for (struct ring *r = atomic_load(&rings.list); r; r = r->next) {
        atomic_store(&r->tail, atomic_load(&r->head));   /* the parent sends these */
        atomic_store(&r->lost, 0);
        if (r != my_ring)
            atomic_store(&r->state, RING_FREE);
    }
}
