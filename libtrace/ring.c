/* SPDX-License-Identifier: BSD-3-Clause */
/* ring.c -- per-thread single-producer/single-consumer record queues that
 * never drop a record under a burst.
 *
 * Each application thread that records gets its own queue (struct ring) on
 * its first record (an allocation outside any hot loop), pushed on a
 * lock-free registry list that only ever grows.  A queue is a chain of
 * segments, each a ring of FTIO_BUFFER_MB of records: the thread writes into
 * the newest segment, the flusher reads from the oldest (tail), so
 * ftio_emit() (shim.h) is a copy and one release store: no lock, no
 * allocation, no syscall.  The producer's head is its own (thread-local):
 * a record is published by the sequence number in its own slot (the
 * record's number in the segment + 1, in the record's `reserved` field,
 * stored last), and the consumer takes the slot at its tail when that
 * number is there.  So a record touches the page of its slot only: on a
 * kernel that empties the TLB at every system call, a head shared with the
 * consumer was one more page walk per traced call.  Numbers go on across a
 * segment's reuse (a spare starts where it was drained), so a slot never
 * holds the number the consumer expects before the producer wrote it: it
 * holds the number of its previous lap, or 0 when never written.
 * The producer also keeps a limit up to which it may write without reading
 * the consumer's tail (a cache line the flusher writes: reading it on every
 * record cost a cross-core miss); only at the limit (ftio_emit_slow) does it
 * look at the tail, kick the flusher when the segment is half full, and link
 * a new segment when it is full.
 *
 * When the segment is full -- the application records faster than the
 * flusher drains, a burst -- the producer does not drop the record: it links
 * a fresh segment after the full one and goes on there.  Fresh segments come
 * from a few spare slots the flusher keeps filled (an atomic exchange takes
 * one: no lock, no ABA); only when they are all taken does the producer
 * allocate one itself.  The flusher drains the full segment, follows the
 * link, and keeps the emptied segment as a spare or frees it, so memory
 * returns to one segment per thread once the burst is over.  All segments
 * of the process together are capped by FTIO_BUFFER_MAX_MB: only past that
 * hard limit is a record dropped, and then it is counted (sent as "lost" in
 * the next batch header) -- the application never blocks.
 *
 * At thread exit a pthread_key destructor retires the queue; the flusher
 * drains it and marks it free, and the next new thread reuses it, so memory
 * is bounded by the peak number of recording threads.  In a forked child
 * only the forking thread survives: every queue is emptied (the parent sends
 * those records) and the others are freed for reuse.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { RING_FREE = 0, RING_IN_USE = 1, RING_RETIRED = 2 };

struct seg {
    _Atomic uint64_t tail;          /* written by the consumer */
    char             pad[56];
    _Atomic(struct seg *) next;     /* set once, by the producer, when this one is full */
    struct ftio_record rec[];
};

struct ring {
    _Atomic(struct seg *) oldest;   /* the consumer's segment */
    _Atomic uint64_t lost;          /* producer adds, consumer takes */
    atomic_int       state;
    uint32_t         tid;
    struct ring     *next;          /* registry list, never unlinked */
};

#define SPARES 4
static struct {
    _Atomic(struct ring *) list;
    size_t                 cap;     /* records per segment, power of two */
    size_t                 max_segs;/* hard limit on live segments */
    size_t                 kick_at; /* records waiting that wake the flusher */
    atomic_size_t          segs;    /* live segments (queues + spares) */
    _Atomic(struct seg *)  spare[SPARES];
    atomic_uint            next_tid;
    _Atomic uint64_t       lost;    /* records from threads that could not get a queue */
    _Atomic uint64_t       overflows;   /* segments linked by producers (diagnostics) */
    pthread_key_t          key;
} rings FTIO_WARM;

static __thread struct ring *my_ring __attribute__((tls_model("initial-exec")));
static __thread struct seg *my_seg __attribute__((tls_model("initial-exec")));
static __thread int my_ring_gone __attribute__((tls_model("initial-exec")));
static __thread int my_kicked __attribute__((tls_model("initial-exec")));
static __thread uint64_t my_kicked_tail __attribute__((tls_model("initial-exec")));   /* the tail then */
__thread struct ftio_producer ftio_prod __attribute__((tls_model("initial-exec")));

/* The sequence number slot rec of a segment holds: the record's number in
 * the segment + 1 once it is written (ftio_slot_publish, shim.h). */
static inline uint32_t slot_seq(const struct ftio_record *rec)
{
    return __atomic_load_n(&rec->reserved, __ATOMIC_ACQUIRE);
}

/* Is record number `at` of segment s written? */
static inline bool slot_written(const struct seg *s, uint64_t at)
{
    return slot_seq(&s->rec[at & (rings.cap - 1)]) == (uint32_t)(at + 1);
}

/* Where the records written into s end (from its tail: for a segment
 * whose producer is gone or is the caller). */
static uint64_t seg_end(const struct seg *s)
{
    uint64_t at = atomic_load_explicit(&s->tail, memory_order_acquire);
    while (at - atomic_load_explicit(&s->tail, memory_order_relaxed) < rings.cap && slot_written(s, at))
        at++;
    return at;
}

/* The producer's view of segment s, whose next record is number `head`:
 * the next look at the tail is due at once (limit = head). */
static void produce_into(struct seg *s, uint64_t head)
{
    my_seg = s;
    ftio_prod.rec = s ? s->rec : NULL;
    ftio_prod.mask = rings.cap - 1;
    ftio_prod.head = head;
    ftio_prod.limit = head;
}

static void retire(void *arg)
{
    struct ring *r = arg;
    my_ring = NULL;
    produce_into(NULL, 0);
    my_ring_gone = 1;          /* later records of this exiting thread: counted lost */
    atomic_store_explicit(&r->state, RING_RETIRED, memory_order_release);
    ftio_flusher_kick();       /* drain it soon: thread-churning programs reuse rings */
}

void ftio_rings_init(size_t records_per_ring, size_t max_records)
{
    rings.cap = records_per_ring;
    rings.kick_at = rings.cap / 2;
    rings.max_segs = max_records / records_per_ring;
    if (rings.max_segs < 2)
        rings.max_segs = 2;
    atomic_store(&rings.next_tid, 1);
    if (pthread_key_create(&rings.key, retire) != 0)
        ftio_warn("pthread_key_create failed; thread exits are not tracked");
}

/* A new segment, counted against the hard limit (unless `always`: a
 * thread's first one).  NULL when over the limit or out of memory. */
static struct seg *seg_alloc(bool always)
{
    size_t n = atomic_fetch_add(&rings.segs, 1);
    if (!always && n >= rings.max_segs) {
        atomic_fetch_sub(&rings.segs, 1);
        return NULL;
    }
    struct seg *s = calloc(1, sizeof *s + rings.cap * sizeof(struct ftio_record));
    if (!s)
        atomic_fetch_sub(&rings.segs, 1);
    return s;
}

static void seg_free(struct seg *s)
{
    free(s);
    atomic_fetch_sub(&rings.segs, 1);
}

/* Reset a drained segment for reuse: its numbers go on from its tail
 * (see the top of the file: never from 0 again). */
static struct seg *seg_reset(struct seg *s)
{
    atomic_store_explicit(&s->next, NULL, memory_order_relaxed);
    return s;
}

/* Producer side of an overflow: a spare (atomic exchange: safe against any
 * number of producers), else a fresh allocation under the hard limit. */
static struct seg *seg_take(void)
{
    for (int i = 0; i < SPARES; i++) {
        struct seg *s = atomic_exchange_explicit(&rings.spare[i], NULL, memory_order_acquire);
        if (s)
            return s;
    }
    int busy = ftio_busy;
    ftio_busy = 1;             /* calloc must not be traced */
    struct seg *s = seg_alloc(false);
    ftio_busy = busy;
    return s;
}

/* Consumer side: keep an emptied segment as a spare, or free it. */
static void seg_give_back(struct seg *s)
{
    seg_reset(s);
    for (int i = 0; i < SPARES; i++) {
        struct seg *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&rings.spare[i], &expect, s,
                                                    memory_order_release, memory_order_relaxed))
            return;
    }
    seg_free(s);
}

void ftio_rings_refill(void)
{
    /* Two spares ready before a burst: a producer that overflows takes one
     * without allocating. */
    for (int i = 0; i < 2; i++) {
        if (atomic_load_explicit(&rings.spare[i], memory_order_relaxed))
            continue;
        struct seg *s = seg_alloc(false);
        if (!s)
            return;
        struct seg *expect = NULL;
        if (!atomic_compare_exchange_strong(&rings.spare[i], &expect, s))
            seg_free(s);
    }
}

static bool queue_empty(struct ring *r)
{
    struct seg *s = atomic_load_explicit(&r->oldest, memory_order_acquire);
    return !atomic_load_explicit(&s->next, memory_order_acquire) &&
           !slot_written(s, atomic_load_explicit(&s->tail, memory_order_acquire));
}

static struct ring *acquire_ring(void)
{
    uint32_t tid = atomic_fetch_add(&rings.next_tid, 1);
    for (struct ring *r = atomic_load(&rings.list); r; r = r->next) {
        /* A free queue, or a retired one already drained: its records are
         * gone, so the consumer has nothing left to read from it. */
        int state = atomic_load_explicit(&r->state, memory_order_acquire);
        if (state == RING_RETIRED && !queue_empty(r))
            continue;
        if ((state == RING_FREE || state == RING_RETIRED) &&
            atomic_compare_exchange_strong(&r->state, &state, RING_IN_USE)) {
            r->tid = tid;
            return r;
        }
    }
    struct ring *r = calloc(1, sizeof *r);
    struct seg *s = r ? seg_alloc(true) : NULL;
    if (!s) {
        free(r);
        return NULL;
    }
    atomic_store(&r->oldest, s);
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
    ftio_unseen_thread();   /* its kernel counts at its exit (unseen.c) */
    struct ring *r = acquire_ring();
    if (r) {
        my_ring = r;
        /* The newest segment: a reused queue's only one (drained). */
        struct seg *s = atomic_load(&r->oldest);
        while (atomic_load(&s->next))
            s = atomic_load(&s->next);
        produce_into(s, atomic_load_explicit(&s->tail, memory_order_acquire));
        ftio_prod.tid = r->tid;
        pthread_setspecific(rings.key, r);
    }
    ftio_flusher_start_if_needed();
    ftio_busy = busy;
    return r;
}

/* The producer's segment is full: link a fresh one after it and go on
 * there.  NULL past the hard limit (the record is then lost, counted). */
static __attribute__((noinline)) struct seg *overflow(struct ring *r, struct seg *full)
{
    struct seg *s = seg_take();
    if (!s) {
        /* Kick once per overflow episode (the flusher resets lost), not
         * once per dropped record: a syscall each would slow the app. */
        if (atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed) == 0)
            ftio_flusher_kick();
        return NULL;
    }
    atomic_store_explicit(&full->next, s, memory_order_release);
    produce_into(s, atomic_load_explicit(&s->tail, memory_order_relaxed));
    atomic_fetch_add_explicit(&rings.overflows, 1, memory_order_relaxed);
    ftio_flusher_kick();       /* drain the full one, refill the spares */
    return s;
}

/* The producer reached its limit (or has no queue yet): look at the
 * consumer's tail, kick the flusher once the segment is half full, link a
 * new segment when it is full; then write the record and set the next
 * limit: where the segment becomes half full, else where it is full. */
static void emit_slow(const struct ftio_record *rec);
void ftio_emit_slow(const struct ftio_record *rec)
{
    int saved = errno;          /* the data wrappers do not restore it (FTIO_TIMED_DATA) */
    emit_slow(rec);
    errno = saved;
}

static void emit_slow(const struct ftio_record *rec)
{
    struct seg *s = my_seg;
    if (!s) {
        if (!first_record()) {
            atomic_fetch_add_explicit(&rings.lost, 1, memory_order_relaxed);
            return;
        }
        s = my_seg;
    }
    if (!atomic_load_explicit(&ftio_flusher_started, memory_order_relaxed))
        ftio_flusher_start_if_needed();          /* fork child, failed exec: first record */
    uint64_t head = ftio_prod.head;
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
    uint64_t used = head - tail;
    if (used >= rings.cap) {
        s = overflow(my_ring, s);
        if (!s) {
            ftio_prod.limit = head;     /* full still: look again next time */
            return;
        }
        head = tail = ftio_prod.head;
        used = 0;
    }
    struct ftio_record *slot = &s->rec[head & (rings.cap - 1)];
    memcpy(slot, rec, offsetof(struct ftio_record, tid));
    ftio_prod.head = head + 1;
    ftio_slot_publish(slot, head, ftio_prod.tid);
    used++;
    /* The thread not started yet (flusher.c: a short process's records
     * wait for its end): the next record looks again, until the ring is
     * half full or the process old enough. */
    if (ftio_flusher_defer(used, rings.kick_at)) {
        ftio_prod.limit = head + 1;
        return;
    }
    if (used < rings.kick_at) {
        ftio_prod.limit = tail + rings.kick_at;
    } else {
        /* Once per drain: not again before the flusher has moved the tail. */
        if (tail != my_kicked_tail || !my_kicked) {
            my_kicked = 1;
            my_kicked_tail = tail;
            ftio_flusher_kick();        /* keeps errno */
        }
        ftio_prod.limit = used < rings.cap ? tail + rings.cap : head + 1;
    }
}

/* The run ftio_rings_peek() handed out, released by ftio_rings_consumed()
 * (the flusher's alone: one peek at a time). */
static struct {
    struct seg *s;
    uint64_t    tail;           /* where the segment's tail goes then */
} peeked FTIO_FLUSHER_STATE;

const struct ftio_record *ftio_rings_peek(size_t max, size_t *n, uint64_t *lost)
{
    *lost += atomic_exchange_explicit(&rings.lost, 0, memory_order_relaxed);
    for (struct ring *r = atomic_load_explicit(&rings.list, memory_order_acquire); r; r = r->next) {
        int state = atomic_load_explicit(&r->state, memory_order_acquire);
        if (state == RING_FREE)
            continue;
        *lost += atomic_exchange_explicit(&r->lost, 0, memory_order_relaxed);
        struct seg *s = atomic_load_explicit(&r->oldest, memory_order_relaxed);
        for (;;) {
            /* `next` before the slots: once the producer linked a newer
             * segment it never writes this one again, so a slot not
             * written then is the end of this one. */
            struct seg *next = atomic_load_explicit(&s->next, memory_order_acquire);
            uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
            size_t at = tail & (rings.cap - 1), k = 0;
            /* Up to the end of the segment's array (a run is contiguous):
             * the next peek goes on from its start. */
            size_t want = rings.cap - at < max ? rings.cap - at : max;
            const struct ftio_record *run = &s->rec[at];
            while (k < want && slot_seq(&run[k]) == (uint32_t)(tail + k + 1))
                k++;
            if (k) {
                peeked.s = s;
                peeked.tail = tail + k;
                *n = k;
                return run;
            }
            if (!next)
                break;
            atomic_store_explicit(&r->oldest, next, memory_order_release);
            seg_give_back(s);
            s = next;
        }
        /* A retired queue has no producer left: once empty it can be reused. */
        if (state == RING_RETIRED && queue_empty(r)) {
            int expect = RING_RETIRED;
            atomic_compare_exchange_strong(&r->state, &expect, RING_FREE);
        }
    }
    *n = 0;
    return NULL;
}

void ftio_rings_consumed(void)
{
    /* (Release: the records were read before their slots are the
     * producer's again.) */
    if (peeked.s)
        atomic_store_explicit(&peeked.s->tail, peeked.tail, memory_order_release);
    peeked.s = NULL;
}

uint64_t ftio_rings_overflows(void)
{
    return atomic_load_explicit(&rings.overflows, memory_order_relaxed);
}

void ftio_rings_after_fork_child(void)
{
    peeked.s = NULL;           /* (a run the parent's flusher was reading) */
    atomic_store(&rings.lost, 0);
    for (struct ring *r = atomic_load(&rings.list); r; r = r->next) {
        /* The parent sends these records: keep only the newest segment,
         * emptied. */
        struct seg *s = atomic_load(&r->oldest);
        while (atomic_load(&s->next)) {
            struct seg *next = atomic_load(&s->next);
            seg_free(s);
            s = next;
        }
        /* Past every record written (a thread that did not survive the
         * fork may have left one half written: it is overwritten). */
        atomic_store(&s->tail, r == my_ring ? ftio_prod.head : seg_end(s));
        atomic_store(&r->oldest, s);
        atomic_store(&r->lost, 0);
        if (r != my_ring)
            atomic_store(&r->state, RING_FREE);
        else
            produce_into(s, ftio_prod.head);
    }
}
