/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c -- the application bandwidth signal by event sweep (§1).
 *
 * Every request adds +rate at its start and -rate at its end.  Sorting the
 * starts and the ends separately and merging them gives the step function
 * B(t).  The sweep (below) groups the events by time bucket and sorts one
 * bucket at a time; the sorts avoid comparator callbacks: a stable
 * recursive bucket sort by linear interpolation of the time with an LSD
 * radix sort on the IEEE bits as the fallback for pathologically skewed
 * times.  Stability means requests with equal times keep their input order:
 * the running sum is reproducible.  The signal goes to an emitter bucket by
 * bucket: kept whole (ftio_signal_build), or sampled as it comes
 * (sample.c: ftio_sample_requests, without the 32 B per request of the
 * whole signal).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "bigarray.h"
#include "bucket.h"

struct event {
    double t;
    double rate;
};

/* ---- radix sort (fallback for crowded buckets) ---------------------------- */

/* Maps a double to an unsigned integer with the same order. */
static inline uint64_t time_key(double t)
{
    uint64_t u;
    memcpy(&u, &t, sizeof u);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/* Stable LSD radix sort of ev[0..n) with tmp as scratch; result in ev.
 * Passes where every key has the same digit are skipped. */
static int radix_sort(struct event *ev, struct event *tmp, size_t n)
{
    size_t (*count)[RADIX_SIZE] = calloc(RADIX_PASSES, sizeof *count);
    if (!count)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = time_key(ev[i].t);
        for (unsigned p = 0; p < RADIX_PASSES; p++)
            count[p][(k >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
    }
    struct event *src = ev, *dst = tmp;
    for (unsigned p = 0; p < RADIX_PASSES; p++) {
        unsigned shift = p * RADIX_BITS;
        size_t *c = count[p];
        if (c[(time_key(src[0].t) >> shift) & (RADIX_SIZE - 1)] == n)
            continue;
        size_t sum = 0;
        for (unsigned d = 0; d < RADIX_SIZE; d++) {
            size_t v = c[d];
            c[d] = sum;
            sum += v;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(time_key(src[i].t) >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        struct event *t = src;
        src = dst;
        dst = t;
    }
    if (src != ev)
        memcpy(ev, src, n * sizeof *ev);
    free(count);
    return 0;
}

/* ---- bucket sort ------------------------------------------------------------ */

/* Buckets per level (the counts fit on the stack and the scatter targets stay
 * few enough for the cache), buckets per event (two: most buckets hold no
 * event or one, and the insertion pass after the scatter moves few), the
 * size below which insertion sort wins, and the recursion depth after which
 * a still crowded bucket (pathologically skewed times) goes to the radix
 * sort, and the buckets the search for crowded ones passes at once. */
#define BUCKETS_MAX 4096
#define BUCKETS_PER_EVENT 2
#define SMALL_SORT 32
#define BUCKET_DEPTH_MAX 8
#define SCAN_STRIDE 8

/* (An event already after its predecessor, most of them after a scatter,
 * is left where it is: no store.) */
static void insertion_sort(struct event *ev, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (!(ev[i - 1].t > ev[i].t))
            continue;
        struct event e = ev[i];
        size_t j = i;
        while (j > 0 && ev[j - 1].t > e.t) {     /* strict: stable */
            ev[j] = ev[j - 1];
            j--;
        }
        ev[j] = e;
    }
}

/* A run of times' span (the earliest, the latest) and whether they came in
 * order: the one place both event_span and the sweep's gather take them.
 * In order means no time below one before it, i.e. below the latest so far
 * (no previous time to carry). */
struct tspan {
    double lo, hi;
    bool sorted;
};
#define TSPAN_EMPTY ((struct tspan){ INFINITY, -INFINITY, true })

static inline void tspan_add(struct tspan *s, double t)
{
    s->sorted &= !(t < s->hi);
    s->lo = t < s->lo ? t : s->lo;   /* times are finite: no fmin() call */
    s->hi = t > s->hi ? t : s->hi;
}

/* The earliest and the latest time of ev[0..n) into *lo, *hi; whether they
 * are in order already. */
static bool event_span(const struct event *ev, size_t n, double *lo_out, double *hi_out)
{
    struct tspan s = TSPAN_EMPTY;
    for (size_t i = 0; i < n; i++)
        tspan_add(&s, ev[i].t);
    *lo_out = s.lo;
    *hi_out = s.hi;
    return s.sorted;
}

/* Stable sort of ev[0..n) by time, tmp (n events) as scratch, given their
 * span [lo, hi] and whether they are in order (event_span); returns the
 * array that holds the sorted events, ev or tmp (a level's scatter leaves
 * them in tmp: the caller reads them there rather than this copying them
 * back, 16 B an event), or NULL (OOM).  One level spreads the events over up
 * to BUCKETS_MAX buckets by linear interpolation between the smallest and
 * largest time; the bucket index is a monotone function of t (rounding is
 * monotone), so sorting each bucket (recursively, now in cache) sorts the
 * whole.  n <= UINT32_MAX (the sweep's bound): the counts are 4 B. */
static struct event *sort_events(struct event *ev, struct event *tmp, size_t n, int depth,
                                 double lo, double hi, bool sorted)
{
    if (n <= SMALL_SORT) {
        insertion_sort(ev, n);
        return ev;
    }
    if (sorted)
        return ev;
    size_t nb = BUCKETS_PER_EVENT * n + 1;
    if (nb > BUCKETS_MAX)
        nb = BUCKETS_MAX;
    double scale = isfinite(lo) && isfinite(hi) ? (double)nb / (hi - lo) : 0;
    if (depth >= BUCKET_DEPTH_MAX || !(scale > 0) || !isfinite(scale))
        return radix_sort(ev, tmp, n) == 0 ? ev : NULL;

    uint32_t end[BUCKETS_MAX + 1];
    memset(end, 0, (nb + 1) * sizeof end[0]);
    FTIO_BUCKET_SCATTER(ev, tmp, n, t, lo, scale, nb, end);
    /* end[b] is now one past bucket b.  Crowded buckets are sorted by
     * recursion; the few events of the others by one insertion pass over
     * the whole (an event never moves past its bucket's start: the buckets
     * are in order), not a call per bucket.  Buckets average half an event:
     * SCAN_STRIDE of them that hold no more than SMALL_SORT together hold no
     * crowded one and are passed at once. */
    size_t from = 0;
    for (size_t b = 0; b < nb; b++) {
        while (b + SCAN_STRIDE <= nb && end[b + SCAN_STRIDE - 1] - from <= SMALL_SORT) {
            from = end[b + SCAN_STRIDE - 1];
            b += SCAN_STRIDE;
        }
        if (b == nb)
            break;
        size_t len = end[b] - from;
        if (len > SMALL_SORT) {
            double l, h;
            bool in_order = event_span(tmp + from, len, &l, &h);
            struct event *in = sort_events(tmp + from, ev + from, len, depth + 1, l, h, in_order);
            if (!in)
                return NULL;
            if (in != tmp + from)
                memcpy(tmp + from, in, len * sizeof *in);
        }
        from = end[b];
    }
    insertion_sort(tmp, n);
    return tmp;
}

/* One column of events: the starts or the ends (`end`) of the requests
 * idx[0..n) of rec (idx NULL: the first n), then npad zero-rate events at
 * pad[] (an activity's padding to the job's span, activities.c). */
struct column {
    const struct ftio_request *rec;
    bool end;
    const uint32_t *idx;
    size_t n, npad;
    double pad[2];
};

/* A column without an index or pads (every offline sweep of a whole
 * trace): its event i is request i's.  The accessors below take that as a
 * `plain` the caller knows (col_plain), a constant in the loops that pass
 * it, so the compiler makes a copy of each loop without the per-event
 * index and pad tests. */
static inline bool col_plain(const struct column *c)
{
    return !c->idx && c->npad == 0;
}

static inline const struct ftio_request *col_rec(const struct column *c, size_t i, bool plain)
{
    return &c->rec[!plain && c->idx ? c->idx[i] : i];
}

/* Event i's start and end (a pad's time is both): the starts' and the ends'
 * columns share their requests, so a pass over both reads each once. */
static inline __attribute__((always_inline)) void col_span(const struct column *c, size_t i,
                                                          double *ts, double *te, bool plain)
{
    if (!plain && i >= c->n) {
        *ts = *te = c->pad[i - c->n];
        return;
    }
    const struct ftio_request *q = col_rec(c, i, plain);
    *ts = q->t_start;
    *te = q->t_end;
}

/* Event i of column c: its time and its rate (a pad's is 0), one line. */
static inline __attribute__((always_inline)) struct event col_event(const struct column *c,
                                                                   size_t i, bool plain)
{
    if (!plain && i >= c->n)
        return (struct event){ c->pad[i - c->n], 0 };
    const struct ftio_request *q = col_rec(c, i, plain);
    return (struct event){ c->end ? q->t_end : q->t_start, q->rate };
}

/* The positions of a bucket are anywhere in the requests: the load of the
 * one SWEEP_PREFETCH on is started early (a cache miss each otherwise; its
 * time and rate share a line). */
#define SWEEP_PREFETCH 32
static inline __attribute__((always_inline)) void col_prefetch(const struct column *c, size_t i,
                                                              bool plain)
{
    if (plain || (i < c->n && !c->idx))
        __builtin_prefetch(&c->rec[i]);
}

/* ---- the sweep ---------------------------------------------------------------
 *
 * The merged sequence is fixed: starts in time order, ends in time order
 * (both stable: equal times keep the input order), merged with the start
 * first on equal times; the level is the running sum in that order.  The
 * sweep produces it bucket by bucket: one time bucket function (linear in
 * t, hence monotone) for the starts and the ends, so every event of bucket
 * b is strictly before every event of bucket b + 1, and merging bucket by
 * bucket is merging the whole.  What is kept is one 4-B position per event
 * (grouped by bucket, input order kept) and the events of one bucket at a
 * time, not every event sorted: the sweep of 10^7 requests needs 80 MB, not
 * 480, and each bucket is sorted in cache. */

/* Average events per bucket, and the bound on the buckets (their counts). */
#define SWEEP_FILL 64
#define SWEEP_BUCKETS_MAX (1u << 20)

struct sweep {
    const struct column *c[2];     /* starts, ends */
    size_t n, nb;
    double lo, scale;
    size_t *at[2];                 /* nb + 1 bucket bounds per column */
    uint32_t *pos[2];              /* event positions grouped by bucket */
    struct event *ev[2], *tmp[2];  /* one bucket's events and their scratch, per column */
    double *out_t, *out_b;         /* one bucket's merged signal */
};

/* t >= lo, so the product is in [0, ~nb]: converted as signed, one
 * instruction (to unsigned, x86-64 adds a compare and a branch). */
static inline size_t bucket_of(const struct sweep *w, double t)
{
    size_t b = (size_t)(int64_t)((t - w->lo) * w->scale);
    return b < w->nb ? b : w->nb - 1;
}

static void sweep_free(struct sweep *w)
{
    for (int k = 0; k < 2; k++) {
        ftio_big_free(w->at[k], w->nb + 1, sizeof *w->at[k]);
        ftio_big_free(w->pos[k], w->n + SWEEP_PREFETCH, sizeof *w->pos[k]);
        free(w->ev[k]);
        free(w->tmp[k]);
    }
    free(w->out_t);
    free(w->out_b);
}

/* The earliest start and the latest end of the events (every end is at or
 * after its start). */
static void sweep_span(const struct sweep *w, double *lo_out, double *hi_out)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < w->n; i++) {
        double a, b;
        col_span(w->c[0], i, &a, &b, false);
        lo = a < lo ? a : lo;                 /* finite: no fmin() call */
        hi = b > hi ? b : hi;
    }
    *lo_out = lo;
    *hi_out = hi;
}

/* One pass over the requests (the ends' column shares them with the
 * starts'): the buckets' counts, or (place) the positions placed. */
static inline __attribute__((always_inline)) void positions_pass(struct sweep *w, bool place,
                                                                bool plain)
{
    const struct column *cs = w->c[0];
    size_t *as = w->at[0], *ae = w->at[1];
    uint32_t *ps = w->pos[0], *pe = w->pos[1];
    for (size_t i = 0; i < w->n; i++) {
        double ts, te;
        col_span(cs, i, &ts, &te, plain);
        if (place) {
            ps[as[bucket_of(w, ts)]++] = (uint32_t)i;
            pe[ae[bucket_of(w, te)]++] = (uint32_t)i;
        } else {
            as[bucket_of(w, ts) + 1]++;
            ae[bucket_of(w, te) + 1]++;
        }
    }
}

/* Buckets, their bounds and the positions grouped by them, between the
 * events' span [lo, hi]; 0 or -1 (OOM).  The starts and the ends come
 * from the same requests: each pass reads a request once for both. */
static int sweep_prepare(struct sweep *w, double lo, double hi)
{
    w->nb = w->n / SWEEP_FILL + 1;
    if (w->nb > SWEEP_BUCKETS_MAX)
        w->nb = SWEEP_BUCKETS_MAX;
    w->lo = lo;
    w->scale = (double)w->nb / (hi - lo);
    if (!(w->scale > 0) || !isfinite(w->scale)) {     /* one time, or none: one bucket */
        w->nb = 1;
        w->scale = 0;
    }
    for (int k = 0; k < 2; k++) {
        w->at[k] = ftio_big_calloc(w->nb + 1, sizeof *w->at[k]);
        /* written whole; SWEEP_PREFETCH more, request 0's, so that the
         * gather's prefetch ahead needs no test of the end */
        w->pos[k] = ftio_big_alloc(w->n + SWEEP_PREFETCH, sizeof *w->pos[k]);
        if (!w->at[k] || !w->pos[k])
            return -1;
        memset(w->pos[k] + w->n, 0, SWEEP_PREFETCH * sizeof *w->pos[k]);
    }
    if (col_plain(w->c[0]))
        positions_pass(w, false, true);
    else
        positions_pass(w, false, false);
    size_t largest = 1;
    for (int k = 0; k < 2; k++) {
        size_t *at = w->at[k];
        for (size_t b = 0; b < w->nb; b++) {
            if (at[b + 1] > largest)
                largest = at[b + 1];
            at[b + 1] += at[b];
        }
    }
    if (col_plain(w->c[0]))                   /* at[b] ends one past bucket b */
        positions_pass(w, true, true);
    else
        positions_pass(w, true, false);
    for (int k = 0; k < 2; k++) {             /* back to the buckets' starts */
        size_t *at = w->at[k];
        for (size_t b = w->nb; b > 0; b--)
            at[b] = at[b - 1];
        at[0] = 0;
    }
    for (int k = 0; k < 2; k++) {
        w->ev[k] = malloc(largest * sizeof *w->ev[k]);
        w->tmp[k] = malloc(largest * sizeof *w->tmp[k]);
    }
    w->out_t = malloc(2 * largest * sizeof *w->out_t);
    w->out_b = malloc(2 * largest * sizeof *w->out_b);
    return w->ev[0] && w->ev[1] && w->tmp[0] && w->tmp[1] && w->out_t && w->out_b ? 0 : -1;
}

/* The events at pos[0..m) of column c into ev, their span and order
 * (tspan_add, on the way: no pass of their own); plain: col_plain(c). */
static inline __attribute__((always_inline)) bool
gather(const struct column *c, const uint32_t *pos, size_t m, struct event *ev, double *lo_out,
       double *hi_out, bool plain)
{
    struct tspan s = TSPAN_EMPTY;
    for (size_t i = 0; i < m; i++) {
        col_prefetch(c, pos[i + SWEEP_PREFETCH], plain);   /* past the last: request 0 */
        ev[i] = col_event(c, pos[i], plain);
        tspan_add(&s, ev[i].t);
    }
    *lo_out = s.lo;
    *hi_out = s.hi;
    return s.sorted;
}

/* Bucket b's events of column k, sorted (stable: the positions are in input
 * order), their number into *m; returns where they are (w->ev[k] or
 * w->tmp[k]), NULL on OOM. */
static const struct event *sweep_bucket(struct sweep *w, int k, size_t b, size_t *m)
{
    const struct column *c = w->c[k];
    size_t from = w->at[k][b];
    struct event *ev = w->ev[k];
    const uint32_t *pos = w->pos[k] + from;
    *m = w->at[k][b + 1] - from;
    double lo, hi;
    bool sorted = col_plain(c) ? gather(c, pos, *m, ev, &lo, &hi, true)
                               : gather(c, pos, *m, ev, &lo, &hi, false);
    return *m > 1 ? sort_events(ev, w->tmp[k], *m, 0, lo, hi, sorted) : ev;
}

static int sweep_run(const struct column *cs, const struct column *ce, size_t n, const double *span,
                     ftio_signal_emit_fn *emit, void *ctx);

int ftio_signal_sweep(const struct ftio_requests *r, const uint32_t *idx, size_t nreq,
                      double pad_t0, double pad_t1, ftio_signal_emit_fn *emit, void *ctx)
{
    struct column cs = { r->rec, false, idx, nreq, 0, { 0, 0 } };
    if (!isnan(pad_t0))
        cs.pad[cs.npad++] = pad_t0;
    if (!isnan(pad_t1))
        cs.pad[cs.npad++] = pad_t1;
    struct column ce = cs;
    ce.end = true;
    size_t n = nreq + cs.npad;
    if (n == 0)
        return 0;
    if (n > UINT32_MAX) {
        errno = ENOMEM;
        return -1;
    }
    /* The merge relies on every end being at or after its start
     * (ftio_requests_push_* guarantee it; the struct is public). */
    for (size_t i = 0; i < nreq; i++) {
        const struct ftio_request *q = &r->rec[idx ? idx[i] : i];
        if (!(q->t_end >= q->t_start)) {
            errno = EINVAL;
            return -1;
        }
    }
    return sweep_run(&cs, &ce, n, NULL, emit, ctx);
}

int ftio_signal_sweep_spanned(const struct ftio_requests *r, double lo, double hi,
                              ftio_signal_emit_fn *emit, void *ctx)
{
    struct column cs = { r->rec, false, NULL, r->n, 0, { 0, 0 } };
    struct column ce = cs;
    ce.end = true;
    if (r->n == 0)
        return 0;
    if (r->n > UINT32_MAX) {
        errno = ENOMEM;
        return -1;
    }
    double span[2] = { lo, hi };
    return sweep_run(&cs, &ce, r->n, span, emit, ctx);
}

/* The sweep of n events of cs and ce whose span is span[0..1] (NULL: taken
 * here). */
static int sweep_run(const struct column *cs, const struct column *ce, size_t n, const double *span,
                     ftio_signal_emit_fn *emit, void *ctx)
{
    struct sweep w = { .c = { cs, ce }, .n = n };
    double lo, hi;
    if (span) {
        lo = span[0];
        hi = span[1];
    } else {
        sweep_span(&w, &lo, &hi);
    }
    if (sweep_prepare(&w, lo, hi) != 0) {
        sweep_free(&w);
        errno = ENOMEM;
        return -1;
    }
    /* Merge: on equal times the start comes first (§1), so a request ending
     * exactly when another begins never shows a spurious dip. */
    double level = 0;
    for (size_t b = 0; b < w.nb; b++) {
        size_t ns, ne;
        const struct event *s = sweep_bucket(&w, 0, b, &ns);
        const struct event *e = s ? sweep_bucket(&w, 1, b, &ne) : NULL;
        if (!e) {
            sweep_free(&w);
            errno = ENOMEM;
            return -1;
        }
        size_t i = 0, j = 0, o = 0;
        while (i < ns && j < ne) {               /* both left: one test of the times */
            if (s[i].t <= e[j].t) {
                level += s[i].rate;
                w.out_t[o] = s[i++].t;
            } else {
                level -= e[j].rate;
                w.out_t[o] = e[j++].t;
            }
            w.out_b[o++] = level;
        }
        for (; i < ns; o++) {                    /* then what one column has left */
            level += s[i].rate;
            w.out_t[o] = s[i++].t;
            w.out_b[o] = level;
        }
        for (; j < ne; o++) {
            level -= e[j].rate;
            w.out_t[o] = e[j++].t;
            w.out_b[o] = level;
        }
        if (o)
            emit(ctx, w.out_t, w.out_b, o);
    }
    sweep_free(&w);
    return 0;
}

/* The emitter that keeps the whole signal (sized for every event). */
static void keep_all(void *ctx, const double *t, const double *b, size_t m)
{
    struct ftio_signal *s = ctx;
    memcpy(s->t + s->n, t, m * sizeof *t);
    memcpy(s->b + s->n, b, m * sizeof *b);
    s->n += m;
}

int ftio_signal_build(const struct ftio_requests *r, struct ftio_signal *out)
{
    return ftio_signal_build_view(r, NULL, r->n, NAN, NAN, out);
}

int ftio_signal_build_view(const struct ftio_requests *r, const uint32_t *idx, size_t nreq,
                           double pad_t0, double pad_t1, struct ftio_signal *out)
{
    memset(out, 0, sizeof *out);
    size_t n = nreq + !isnan(pad_t0) + !isnan(pad_t1);
    if (n == 0)
        return 0;
    if (n > ((size_t)-1) / (2 * sizeof(double))) {
        errno = ENOMEM;
        return -1;
    }
    out->t = malloc(2 * n * sizeof *out->t);
    out->b = malloc(2 * n * sizeof *out->b);
    if (!out->t || !out->b) {
        ftio_signal_free(out);
        errno = ENOMEM;
        return -1;
    }
    if (ftio_signal_sweep(r, idx, nreq, pad_t0, pad_t1, keep_all, out) != 0) {
        int e = errno;
        ftio_signal_free(out);
        errno = e;
        return -1;
    }
    return 0;
}

void ftio_signal_free(struct ftio_signal *s)
{
    free(s->t);
    free(s->b);
    memset(s, 0, sizeof *s);
}

double ftio_signal_volume(const struct ftio_signal *s)
{
    double v = 0;
    for (size_t i = 0; i + 1 < s->n; i++)
        v += s->b[i] * (s->t[i + 1] - s->t[i]);
    return v;
}
