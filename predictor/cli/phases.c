/* SPDX-License-Identifier: BSD-3-Clause */
/* phases.c -- `ftio`'s description of each I/O phase of a trace
 * (PROTOCOL.md §2 Version 4: `phases`, and the typical phase's fields in
 * `phase`): the records of the analysed mode and the metadata calls, in
 * time order, through the phase tracker ftiod uses on the same records
 * (forecast/phase_track.h), with the same gap between phases (from the
 * answer's period and phase duration) and the same settling (every second
 * of the trace), so a spool file gives offline the phases ftiod described
 * live.  What a format holds decides what is known: spool files have
 * everything (processes, files, their file systems, metadata calls); DXT
 * and Darshan DXT logs have ranks and files but no metadata calls; CSV has
 * ranks; TMIO and custom JSON no processes (the fields are then null).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "bigarray.h"
#include "bucket.h"
#include "grow.h"
#include "units.h"
#include "forecast/phase_track.h"
#include "publish/phase_json.h"

#define MAX_FS 64

/* Record k of the walk: a data request (k < the requests) or a metadata
 * call, read where it is (no copy of the trace).  Inline (forced: gcc made
 * it a call per record, its 40 B returned through memory). */
struct event {
    double ts, te, bytes;
    uint32_t proc, fid;
    int8_t op;           /* -1: data */
};

static inline __attribute__((always_inline)) struct event
event_at(const struct ftio_trace_dir *dir, const struct ftio_trace *t, size_t k)
{
    if (k < dir->req.n) {
        const struct ftio_request *q = &dir->req.rec[k];    /* one cache line */
        return (struct event){ q->t_start, q->t_end, q->rate * (q->t_end - q->t_start), q->proc,
                               q->fid, -1 };
    }
    k -= dir->req.n;
    return (struct event){ t->meta[k].ts, t->meta[k].te, 0, t->meta[k].proc, 0, (int8_t)t->meta[k].op };
}

/* The walk reads its records where they are, in time order: the record
 * PREFETCH steps ahead is asked for early. */
#define PREFETCH 64
static inline void prefetch_event(const struct ftio_trace_dir *dir, size_t k)
{
    if (k < dir->req.n)
        __builtin_prefetch(&dir->req.rec[k]);
}

/* process key -> tracker index (open addressing, keys + 1), grown with
 * the processes (a trace has thousands, not one per record: the table
 * stays in cache).  Keys below PROC_SMALL (ranks: the walk meets a
 * different one nearly every record) index small[] directly instead
 * (index + 1, 0: none yet; calloc'd, only the pages of the keys seen are
 * touched). */
#define PROC_SMALL 65536
struct procmap { uint64_t *key; long *val; size_t cap, n; uint32_t *small; };

static size_t proc_slot(const struct procmap *m, uint32_t key)
{
    size_t i = (key * 2654435761u) & (m->cap - 1);
    while (m->key[i] && m->key[i] != (uint64_t)key + 1)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static long proc_index_hashed(struct procmap *m, struct ftio_pt *pt, uint32_t key)
{
    size_t i = proc_slot(m, key);
    if (m->key[i])
        return m->val[i];
    if (2 * (m->n + 1) > m->cap) {
        struct procmap g = { calloc(2 * m->cap, sizeof *g.key), calloc(2 * m->cap, sizeof *g.val),
                             2 * m->cap, m->n, m->small };
        if (!g.key || !g.val) {
            free(g.key);
            free(g.val);
            return -1;
        }
        for (size_t j = 0; j < m->cap; j++)
            if (m->key[j]) {
                size_t k = proc_slot(&g, (uint32_t)(m->key[j] - 1));
                g.key[k] = m->key[j];
                g.val[k] = m->val[j];
            }
        free(m->key);
        free(m->val);
        *m = g;
        i = proc_slot(m, key);
    }
    m->key[i] = (uint64_t)key + 1;
    m->val[i] = ftio_pt_proc_add(pt);
    m->n++;
    return m->val[i];
}

static inline long proc_index(struct procmap *m, struct ftio_pt *pt, uint32_t key)
{
    if (key >= PROC_SMALL)
        return proc_index_hashed(m, pt, key);
    if (!m->small[key])
        m->small[key] = (uint32_t)ftio_pt_proc_add(pt) + 1;
    return (long)m->small[key] - 1;
}

struct described {
    struct ftio_pt_phase *ph;
    size_t n, cap;
    uint64_t seen;       /* last seq copied */
};

/* Copy the phases the tracker described since the last call. */
static int collect(const struct ftio_pt *pt, int mode, struct described *d)
{
    for (size_t k = 0; k < ftio_pt_count(pt, mode); k++) {
        const struct ftio_pt_phase *p = ftio_pt_phase_at(pt, mode, k);
        if (p->seq <= d->seen)
            continue;
        if (FTIO_GROW(d->ph, d->cap, d->n + 1) < 0)
            return -1;
        d->ph[d->n++] = *p;
        d->seen = p->seq;
    }
    return 0;
}

/* The walk's order (records k < dir->req.n, then the metadata calls): by
 * start to the microsecond from the earliest, equal ones in index order:
 * the order ftio_time_order() gives, without its copy of the times and its
 * 16 B of keys per record.  The ticks are bucketed (a bucket holds whole
 * ticks, so the buckets' order is the ticks' order) and the indices placed
 * by bucket in index order (4 B per record); the walk then takes a bucket
 * at a time: its records gathered (the one read of each out of order) and
 * sorted by tick in cache (struct order below).  Beyond its bounds (2^24
 * records, 2^40 ticks), or with a time not finite, ftio_time_order() on a
 * copy (its exact comparison sort). */
#define ORDER_TICKS 1e6
#define ORDER_INDEX_BITS 24
#define ORDER_FILL 8

static inline double start_at(const struct ftio_trace_dir *dir, const struct ftio_trace *t, size_t k)
{
    return k < dir->req.n ? dir->req.rec[k].t_start : t->meta[k - dir->req.n].ts;
}

/* The records' span of starts: the earliest (lo) and the latest (hi); fit
 * when ticks serve (some records, every start finite, within
 * ORDER_INDEX_BITS and the ticks' bits).  Taken once, for the merge and the
 * bucket order alike. */
struct span {
    double lo, hi;
    bool fit;
};

/* Every record's start in index order, to visit(ctx, i, x): the requests,
 * then the metadata calls -- two loops, not start_at()'s test per record.
 * The one place the passes over the starts (the span, the order's count and
 * placement) take them; forced inline with a constant visit, so each pass is
 * its own loop with visit inlined. */
static inline __attribute__((always_inline)) void
starts_each(const struct ftio_trace_dir *dir, const struct ftio_trace *t, size_t ne,
            void (*visit)(void *ctx, size_t i, double x), void *ctx)
{
    size_t nreq = ne < dir->req.n ? ne : dir->req.n;
    for (size_t i = 0; i < nreq; i++)
        visit(ctx, i, dir->req.rec[i].t_start);
    for (size_t i = nreq; i < ne; i++)
        visit(ctx, i, t->meta[i - dir->req.n].ts);
}

/* The span's pass: lo, hi, and whether every start is finite (nan == 0:
 * ftio_finite_acc). */
struct span_acc {
    double lo, hi, nan;
};

static inline void span_visit(void *ctx, size_t i, double x)
{
    (void)i;
    struct span_acc *a = ctx;
    a->nan = ftio_finite_acc(a->nan, x);
    a->lo = x < a->lo ? x : a->lo;           /* no fmin() call: not finite fails below */
    a->hi = x > a->hi ? x : a->hi;
}

/* The starts' span, and whether ticks serve (struct span). */
static struct span ticks_fit(const struct ftio_trace_dir *dir, const struct ftio_trace *t, size_t ne)
{
    struct span_acc a = { INFINITY, -INFINITY, 0 };
    starts_each(dir, t, ne, span_visit, &a);
    struct span s = { a.lo, a.hi, false };
    s.fit = ne > 0 && a.nan == 0 && ne < (1u << ORDER_INDEX_BITS) &&
            (s.hi - s.lo) * ORDER_TICKS < (double)(1ull << (64 - ORDER_INDEX_BITS));
    return s;
}

/* A start's tick: microseconds from the earliest, which fit leaves in
 * [0, 2^40), so through a signed integer (one instruction on x86-64; to
 * unsigned a compare, a branch and a second conversion, at three passes
 * over every record). */
static inline uint64_t tick_of(double x, double lo)
{
    return (uint64_t)(int64_t)((x - lo) * ORDER_TICKS);
}

struct order {
    const struct ftio_trace_dir *dir;
    const struct ftio_trace *t;
    size_t ne;
    uint32_t *ord;          /* the records, grouped by bucket (or sorted, without at) */
    uint32_t *at;           /* one past each bucket's last, nb + 1; NULL: ord is the order */
    size_t nb, b, from;     /* the buckets, the next one, where it starts in ord */
    unsigned bits;          /* a bucket is 2^bits ticks */
    double lo;
    uint64_t *key;          /* a bucket's keys, and their radix sort's scratch */
    struct event *ev;       /* a bucket's records, in index order */
    size_t largest;         /* the largest bucket */
};

static void order_free(struct order *o)
{
    ftio_big_free(o->ord, o->ne, sizeof *o->ord);
    ftio_big_free(o->at, o->nb + 1, sizeof *o->at);
    free(o->key);
    free(o->ev);
}

/* The bucket of a record starting at x. */
static inline size_t order_bucket_of(const struct order *o, double x)
{
    return (size_t)(tick_of(x, o->lo) >> o->bits);
}

/* The order's two passes over the starts (starts_each): record i, starting
 * at x, counted in its bucket (at[b + 1]), then placed (at[b]: where its
 * bucket's next goes). */
static inline void order_count(void *ctx, size_t i, double x)
{
    (void)i;
    struct order *o = ctx;
    o->at[order_bucket_of(o, x) + 1]++;
}

static inline void order_place(void *ctx, size_t i, double x)
{
    struct order *o = ctx;
    o->ord[o->at[order_bucket_of(o, x)]++] = (uint32_t)i;
}

/* The order of the ne records into o (the buckets placed, none sorted
 * yet); 0, or -1 out of memory. */
static int order_init(struct order *o, const struct ftio_trace_dir *dir, const struct ftio_trace *t,
                      size_t ne, struct span sp)
{
    *o = (struct order){ .dir = dir, .t = t, .ne = ne, .lo = sp.lo };
    if (!(o->ord = ftio_big_alloc(ne, sizeof *o->ord)))      /* written whole */
        return -1;
    if (!sp.fit) {
        double *ts = malloc((ne ? ne : 1) * sizeof *ts);
        int rc = -1;
        if (ts) {
            for (size_t i = 0; i < ne; i++)
                ts[i] = start_at(dir, t, i);
            rc = ftio_time_order(ts, ne, o->ord);
        }
        free(ts);
        return rc;
    }
    uint64_t last = tick_of(sp.hi, sp.lo);
    size_t nb = ne / ORDER_FILL + 1;
    unsigned bits = 0;                       /* ticks per bucket: 2^bits (a shift, not a
                                                division per record); whole ticks */
    while (bits < 63 && (uint64_t)1 << bits < last / nb + 1)
        bits++;
    o->bits = bits;
    o->nb = nb = (size_t)(last >> bits) + 1;
    uint32_t *at = o->at = ftio_big_calloc(nb + 1, sizeof *at);
    if (!at)
        return -1;
    starts_each(dir, t, ne, order_count, o);
    size_t largest = 1;
    for (size_t b = 0; b < nb; b++) {
        if (at[b + 1] > largest)
            largest = at[b + 1];
        at[b + 1] += at[b];
    }
    starts_each(dir, t, ne, order_place, o); /* at[b] ends one past bucket b */
    o->largest = largest;
    o->key = malloc(2 * largest * sizeof *o->key);
    o->ev = malloc(largest * sizeof *o->ev);
    return o->key && o->ev ? 0 : -1;
}

/* The records of the next bucket that has any, in order, into chunk (room
 * for o->largest); how many (0: the walk is over).  Each record's one read
 * out of order is here: its tick for the sort and everything the walk
 * needs come from it. */
static size_t order_bucket(struct order *o, struct event *chunk)
{
    const uint32_t *ord = o->ord;
    size_t from = o->from, m = 0;
    while (m == 0 && o->b < o->nb)
        m = o->at[o->b++] - from;
    if (m == 0)
        return 0;
    o->from += m;
    uint64_t base = (uint64_t)(o->b - 1) << o->bits;
    uint64_t *key = o->key;
    for (size_t i = 0; i < m; i++) {
        if (from + i + PREFETCH < o->ne)     /* the records are anywhere in the trace */
            prefetch_event(o->dir, ord[from + i + PREFETCH]);
        o->ev[i] = event_at(o->dir, o->t, ord[from + i]);
        uint64_t tick = tick_of(o->ev[i].ts, o->lo);
        key[i] = (tick - base) << ORDER_INDEX_BITS | i;   /* i: index order within the bucket */
    }
    /* in order already (one tick, or a run of one process), else an
     * insertion sort (a bucket holds ~ORDER_FILL), else a radix sort of the
     * offsets (stable: equal ticks stay in index order) */
    size_t up = 1;
    while (up < m && key[up - 1] < key[up])
        up++;
    if (up == m) {
    } else if (m <= 64) {
        for (size_t i = 1; i < m; i++) {
            uint64_t k = key[i];
            size_t j = i;
            for (; j > 0 && key[j - 1] > k; j--)
                key[j] = key[j - 1];
            key[j] = k;
        }
    } else {
        uint64_t *src = key, *dst = key + o->largest;
        for (unsigned sh = ORDER_INDEX_BITS; sh < ORDER_INDEX_BITS + o->bits; sh += 8) {
            size_t cnt[257] = { 0 };
            for (size_t i = 0; i < m; i++)
                cnt[((src[i] >> sh) & 255) + 1]++;
            for (int d = 0; d < 256; d++)
                cnt[d + 1] += cnt[d];
            for (size_t i = 0; i < m; i++)
                dst[cnt[(src[i] >> sh) & 255]++] = src[i];
            uint64_t *x = src;
            src = dst;
            dst = x;
        }
        key = src;
    }
    for (size_t i = 0; i < m; i++)
        chunk[i] = o->ev[key[i] & ((1u << ORDER_INDEX_BITS) - 1)];
    return m;
}

/* The same order by merging, where the records come in few runs (a
 * process's batches hold its records in time order, and a spool file holds
 * a process's batches one after the other): the runs, index ranges where
 * the ticks do not go down, are each read front to back (a cache line
 * serves 2 records; a bucket's gather through ord[] misses once per
 * record) and merged by a loser tree keyed by tick
 * and run (the runs are in index order, so the run breaks a tie as the
 * index does).  Only where the bucket order takes ticks, with at most
 * MERGE_RUNS_MAX runs. */
#define MERGE_RUN_BITS 12
#define MERGE_RUNS_MAX (1u << MERGE_RUN_BITS)

struct merge {
    const struct ftio_trace_dir *dir;
    const struct ftio_trace *t;
    double lo;
    size_t ne;              /* the records */
    size_t leaves;          /* the runs, padded to a power of two */
    uint64_t *key;          /* per leaf: its run's head, tick << MERGE_RUN_BITS | run;
                               UINT64_MAX once the run is done */
    uint32_t *loser;        /* internal nodes 1 .. leaves-1 */
    size_t *pos, *end;      /* per run: its next record, one past its last */
    uint32_t win;           /* the run whose head comes next */
};

static inline uint64_t merge_tick(const struct merge *m, size_t k)
{
    return tick_of(start_at(m->dir, m->t, k), m->lo);
}

static void merge_free(struct merge *m)
{
    free(m->key);
    free(m->loser);
    free(m->pos);
    free(m->end);
}

/* 1: merging (m ready), 0: the bucket order is the way, -1: out of memory. */
static int merge_init(struct merge *m, const struct ftio_trace_dir *dir, const struct ftio_trace *t,
                      size_t ne, struct span sp)
{
    if (!sp.fit)
        return 0;
    *m = (struct merge){ .dir = dir, .t = t, .lo = sp.lo, .ne = ne };
    m->pos = malloc(MERGE_RUNS_MAX * sizeof *m->pos);
    m->end = malloc(MERGE_RUNS_MAX * sizeof *m->end);
    if (!m->pos || !m->end)
        return -1;
    size_t runs = 1;
    m->pos[0] = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < ne; i++) {
        uint64_t x = merge_tick(m, i);
        if (i > 0 && x < prev) {
            if (runs == MERGE_RUNS_MAX)
                return 0;         /* too many: the bucket order */
            m->end[runs - 1] = i;
            m->pos[runs++] = i;
        }
        prev = x;
    }
    m->end[runs - 1] = ne;
    m->leaves = 1;
    while (m->leaves < runs)
        m->leaves *= 2;
    m->key = malloc(m->leaves * sizeof *m->key);
    m->loser = malloc(m->leaves * sizeof *m->loser);
    uint32_t *win = malloc(2 * m->leaves * sizeof *win);
    if (!m->key || !m->loser || !win) {
        free(win);
        return -1;
    }
    for (size_t r = 0; r < m->leaves; r++) {
        m->key[r] = r < runs ? merge_tick(m, m->pos[r]) << MERGE_RUN_BITS | r : UINT64_MAX;
        win[m->leaves + r] = (uint32_t)r;
    }
    for (size_t n = m->leaves - 1; n >= 1; n--) {
        uint32_t a = win[2 * n], b = win[2 * n + 1];
        bool a_first = m->key[a] < m->key[b];
        win[n] = a_first ? a : b;
        m->loser[n] = a_first ? b : a;
    }
    m->win = win[1];
    free(win);
    return 1;
}

/* The next record of the walk (ne calls in all). */
static inline size_t merge_next(struct merge *m)
{
    uint32_t w = m->win;
    size_t k = m->pos[w]++;
    m->key[w] = m->pos[w] < m->end[w] ? merge_tick(m, m->pos[w]) << MERGE_RUN_BITS | w : UINT64_MAX;
    prefetch_event(m->dir, m->pos[w] + 8);     /* the run's next cache line */
    uint32_t cur = w;
    for (size_t n = (w + m->leaves) >> 1; n; n >>= 1) {
        uint32_t o = m->loser[n];
        if (m->key[o] < m->key[cur]) {
            m->loser[n] = cur;
            cur = o;
        }
    }
    m->win = cur;
    return k;
}

/* The next records of the walk into chunk, in order: WALK_CHUNK by the
 * merge or through a sorted ord, else the next bucket of o; how many (0:
 * none left).  Gathering apart from the walk keeps each record's loads
 * independent of the tracker's work, so the misses of many records (they
 * are anywhere in the trace) are in flight at once. */
#define WALK_CHUNK 4096
#define PT_AHEAD 16                  /* records: the tracker's prefetch distance */
static size_t gather(struct merge *mg, struct order *o, size_t from, struct event *chunk)
{
    if (o && o->at) {                /* whole buckets, up to WALK_CHUNK records and one */
        size_t m = 0, got = 1;
        while (m < WALK_CHUNK && got)
            m += got = order_bucket(o, chunk + m);
        return m;
    }
    const struct ftio_trace_dir *dir = mg ? mg->dir : o->dir;
    const struct ftio_trace *t = mg ? mg->t : o->t;
    size_t ne = mg ? mg->ne : o->ne;
    size_t m = ne - from < WALK_CHUNK ? ne - from : WALK_CHUNK;
    if (mg) {
        for (size_t j = 0; j < m; j++)
            chunk[j] = event_at(dir, t, merge_next(mg));
        return m;
    }
    for (size_t j = 0; j < m; j++) {
        if (from + j + PREFETCH < ne)
            prefetch_event(dir, o->ord[from + j + PREFETCH]);
        chunk[j] = event_at(dir, t, o->ord[from + j]);
    }
    return m;
}

int ftio_cli_phases(const struct ftio_trace *t, enum ftio_io_mode mode, const struct ftio_result *r,
                    double fs_rate, json_t *obj, FILE *text)
{
    const struct ftio_trace_dir *dir = mode == FTIO_MODE_READ ? &t->read : &t->write;
    int ptmode = mode == FTIO_MODE_READ ? FTIO_PT_READ : FTIO_PT_WRITE;
    json_t *phase = obj ? json_object_get(obj, "phase") : NULL;
    if (mode == FTIO_MODE_ALL || dir->nproc == 0) {
        /* No process per request: nothing to describe. */
        if (json_is_object(phase))
            ftio_report_json_described(phase, NULL, NULL, false, 0);
        if (obj)
            json_object_set_new(obj, "phases", json_null());
        return 0;
    }
    size_t ne = dir->req.n + t->nmeta;
    struct merge mg = { 0 };
    struct span sp = ticks_fit(dir, t, ne);
    int merging = merge_init(&mg, dir, t, ne, sp);
    struct order ord = { 0 };
    int ordered = merging ? 0 : order_init(&ord, dir, t, ne, sp);
    size_t room = WALK_CHUNK + ord.largest;
    struct event *chunk = malloc(room * sizeof *chunk);
    /* each record's process, its index; PT_AHEAD more, copies of the
     * chunk's last, so the prefetches ahead need no test of the chunk's end */
    long *pidx = malloc((room + PT_AHEAD) * sizeof *pidx);
    struct procmap pm = { 0 };
    pm.cap = 64;
    pm.key = calloc(pm.cap, sizeof *pm.key);
    pm.val = calloc(pm.cap, sizeof *pm.val);
    pm.small = calloc(PROC_SMALL, sizeof *pm.small);
    const char *fsname[MAX_FS];
    size_t nfs = 0;
    struct ftio_pt pt;
    ftio_pt_init(&pt, 2.0 / (fs_rate > 0 ? fs_rate : 10));
    struct described d = { 0 };
    int rc = -1;
    if (merging < 0 || ordered != 0 || !chunk || !pidx || !pm.key || !pm.val || !pm.small)
        goto out;
    double gap = ftio_pt_gap(&pt, r->has_period ? r->dominant.period : NAN,
                             r->metrics.valid ? r->metrics.phase_duration : NAN);
    double next_settle = 0;
    uint64_t last_fid = UINT64_MAX;         /* none yet: no file id equals it */
    uint16_t last_fs = FTIO_PT_FS_UNKNOWN;
    long last_p = -1;               /* the latest record's process, its index */
    uint64_t last_proc = UINT64_MAX;        /* none yet: no process key equals it */
    for (size_t i = 0, j = 0, m = 0; i < ne; i++, j++) {
        if (j == m) {              /* the next chunk of records, gathered */
            j = 0;
            m = gather(merging ? &mg : NULL, merging ? NULL : &ord, i, chunk);
            if (i == 0)
                next_settle = chunk[0].ts + 1;
            /* their processes' indices, given in the walk's order as before */
            for (size_t k = 0; k < m; k++) {
                long p = chunk[k].proc == last_proc ? last_p : proc_index(&pm, &pt, chunk[k].proc);
                if (p < 0)
                    goto out;
                pidx[k] = last_p = p;
                last_proc = chunk[k].proc;
            }
            for (size_t k = m; k < m + PT_AHEAD; k++)
                pidx[k] = last_p;
        }
        /* the tracker's state of the records ahead: anywhere in memory */
        ftio_pt_prefetch_proc(&pt, (size_t)pidx[j + PT_AHEAD]);
        ftio_pt_prefetch_seg(&pt, (size_t)pidx[j + PT_AHEAD / 2], ptmode);
        const struct event *e = &chunk[j];
        if (e->ts >= next_settle) {   /* ftiod settles every second of data */
            if (ftio_pt_settle(&pt, ptmode, e->ts, gap) < 0 || collect(&pt, ptmode, &d) != 0)
                goto out;
            next_settle = e->ts + 1;
        }
        long p = pidx[j];
        if (e->op >= 0) {
            ftio_pt_meta(&pt, (size_t)p, e->op, e->ts, e->te);
            continue;
        }
        /* runs of one file: its file system looked up once */
        bool known = e->fid == last_fid;
        const char *name = known ? NULL : ftio_trace_file_fs(t, e->fid);
        uint16_t fs = known ? last_fs : FTIO_PT_FS_UNKNOWN;
        if (name) {
            size_t k = 0;
            while (k < nfs && strcmp(fsname[k], name) != 0)
                k++;
            if (k == nfs && nfs < MAX_FS)
                fsname[nfs++] = name;
            if (k < nfs)
                fs = (uint16_t)k;
        }
        last_fid = e->fid;
        last_fs = fs;
        ftio_pt_data(&pt, (size_t)p, ptmode, e->ts, e->te, e->bytes, e->fid, fs);
    }
    for (size_t p = 0; p < pt.nproc; p++)
        ftio_pt_final(&pt, p);              /* the trace is over: every phase confirmed */
    if (ftio_pt_settle(&pt, ptmode, INFINITY, gap) < 0 || collect(&pt, ptmode, &d) != 0)
        goto out;
    struct ftio_pt_phase typ;
    double like = r->next.valid ? r->next.bytes : r->metrics.valid ? r->metrics.phase_bytes : NAN;
    bool has = ftio_pt_typical(&pt, ptmode, FTIO_PT_HISTORY, like, &typ);
    const char *tfs = has && typ.fs < nfs ? fsname[typ.fs] : NULL;
    if (json_is_object(phase))
        ftio_report_json_described(phase, has ? &typ : NULL, tfs, false, 0);
    if (obj) {
        json_t *arr = json_array();
        for (size_t k = 0; arr && k < d.n; k++) {
            json_t *o = json_object();
            ftio_report_json_described(o, &d.ph[k], d.ph[k].fs < nfs ? fsname[d.ph[k].fs] : NULL,
                                       true, 0);
            json_array_append_new(arr, o);
        }
        json_object_set_new(obj, "phases", arr);
    }
    if (text && has) {
        char b1[FTIO_UNITS_LEN], b2[FTIO_UNITS_LEN], b3[FTIO_UNITS_LEN];
        fprintf(text, "phases        %zu described; typical: %u ranks (busiest %s), files %u, "
                      "%u opens, %u syncs, %s elapsed, %s%s%s\n", d.n, typ.ranks,
                ftio_fmt_bytes(typ.skew_bytes, b1, sizeof b1), typ.files, typ.opens, typ.syncs,
                ftio_fmt_duration(typ.end, b2, sizeof b2),
                ftio_fmt_rate(typ.end > 0 ? typ.bytes / typ.end : NAN, b3, sizeof b3),
                tfs ? " on " : "", tfs ? tfs : "");
    }
    rc = 0;
out:
    order_free(&ord);
    free(chunk);
    free(pidx);
    merge_free(&mg);
    free(pm.key);
    free(pm.val);
    free(pm.small);
    free(d.ph);
    ftio_pt_free(&pt);
    return rc;
}
