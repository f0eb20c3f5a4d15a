/* SPDX-License-Identifier: BSD-3-Clause */
/* bins.c -- streaming binning for the daemon (§1, online).
 *
 * Records of one job arrive out of order across ranks, so instead of the
 * event sweep the daemon adds each request to a fixed grid of edges
 * origin + k/fs.  Three rings share that grid:
 *   vol[k]       bytes in [edge k, edge k+1): the exact integral of the
 *                request's constant rate; what ftio_sample(..AVERAGE..)
 *                computes from the full signal;
 *   point[k]     B(edge k): the rates of the requests with
 *                t_start <= edge k < t_end, the sweep's value at that instant
 *                (starts before ends on equal times);
 *   point_end[k] B just before edge k+1: t_start < edge k+1 <= t_end.
 * The [compat] hold samples B at t_step = t_0 + 1/fs + 1/fs ... (accumulated,
 * §2), which drifts from the edge by ~1e-14 s: it only matters when an event
 * lies exactly on the edge, and then the side the drift falls on decides.
 * Keeping B on both sides of every edge lets the hold sampler replay the
 * offline t_step from the window start and pick the side, so the daemon's
 * default reproduces the offline one digit for digit (unless an event lies
 * strictly between t_step and the edge, i.e. within ~1e-14 s of it).
 * Addition commutes, so arrival order does not matter.  The rings hold at
 * most `limit` bins (the horizon): memory stays O(window).  They start small
 * and double as the data's span grows (a daemon with thousands of short jobs
 * pays for what each sent, not for its horizon); until the limit, growing
 * keeps every bin, so the values are those of a ring allocated whole.  Each
 * record costs O(bins it spans).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Tolerance when mapping window bounds to bin edges. */
#define EDGE_EPS 1e-9
/* Bin indices stay far from int64 overflow. */
#define INDEX_LIMIT 4e18

/* Edge j is always computed this way (as sample.c does), so neighbouring
 * overlaps tile the time axis exactly and membership tests are consistent. */
static inline double edge(const struct ftio_bins *b, int64_t j)
{
    return b->origin + (double)j / b->fs;
}

static inline size_t ring_index(const struct ftio_bins *b, int64_t j)
{
    int64_t c = (int64_t)b->capacity;
    return (size_t)(((j % c) + c) % c);
}

static void advance_to(struct ftio_bins *b, int64_t j);

/* The rings' first size: 25.6 s at 10 Hz, 6 KiB. */
#define FIRST_SLOTS 256

/* Rings of `slots` slots holding the kept bins [first, last) of b, each in
 * its slot for the new size. */
static int resize(struct ftio_bins *b, size_t slots)
{
    double *v = calloc(slots, sizeof *v), *p = calloc(slots, sizeof *p),
           *e = calloc(slots, sizeof *e);
    if (!v || !p || !e) {
        free(v);
        free(p);
        free(e);
        return -1;
    }
    if (b->vol) {
        int64_t c = (int64_t)slots;
        for (int64_t j = b->first; j < b->last; j++) {
            size_t from = ring_index(b, j), to = (size_t)(((j % c) + c) % c);
            v[to] = b->vol[from];
            p[to] = b->point[from];
            e[to] = b->point_end[from];
        }
    }
    free(b->vol);
    free(b->point);
    free(b->point_end);
    b->vol = v;
    b->point = p;
    b->point_end = e;
    b->capacity = slots;
    return 0;
}

static int bins_init_slots(struct ftio_bins *b, double fs, double origin, size_t limit,
                           size_t slots)
{
    memset(b, 0, sizeof *b);
    if (!(fs > 0) || !isfinite(fs) || !isfinite(origin) || limit == 0 ||
        limit > (size_t)INT64_MAX / 2) {
        errno = EINVAL;
        return -1;
    }
    if (resize(b, slots < limit ? slots : limit) < 0)
        return -1;
    b->fs = fs;
    b->origin = origin;
    b->limit = limit;
    return 0;
}

int ftio_bins_init(struct ftio_bins *b, double fs, double origin, size_t capacity)
{
    return bins_init_slots(b, fs, origin, capacity, FIRST_SLOTS);
}

/* Room for bin j: grow the rings while under the limit, else slide them. */
static void make_room(struct ftio_bins *b, int64_t j)
{
    if (j < b->first + (int64_t)b->capacity)
        return;
    if (b->capacity < b->limit) {
        size_t need = (size_t)(j - b->first) + 1, slots = 2 * b->capacity;
        if (slots < need)
            slots = need;
        if (slots > b->limit)
            slots = b->limit;
        if (resize(b, slots) == 0 && j < b->first + (int64_t)b->capacity)
            return;
    }
    advance_to(b, j);
}

/* Slide the ring so that bin j is kept: the oldest bins are forgotten and
 * their slots cleared for reuse. */
static void advance_to(struct ftio_bins *b, int64_t j)
{
    int64_t c = (int64_t)b->capacity;
    int64_t new_first = j - c + 1;
    if (new_first <= b->first)
        return;
    if (new_first - b->first >= c) {
        memset(b->vol, 0, b->capacity * sizeof *b->vol);
        memset(b->point, 0, b->capacity * sizeof *b->point);
        memset(b->point_end, 0, b->capacity * sizeof *b->point_end);
    } else {
        for (int64_t i = b->first; i < new_first; i++) {
            size_t s = ring_index(b, i);
            b->vol[s] = 0;
            b->point[s] = 0;
            b->point_end[s] = 0;
        }
    }
    b->first = new_first;
    if (b->last < b->first)
        b->last = b->first;
}

/* The largest j with edge(j) <= t (strict: edge(j) < t).  The product
 * (t - origin) * fs is only a guess: rounding can put it one index off the
 * edge that edge() computes, and edge() is what decides. */
static int last_edge_before(const struct ftio_bins *b, double t, bool strict, int64_t *out)
{
    double jd = floor((t - b->origin) * b->fs);
    if (!(jd > -INDEX_LIMIT && jd < INDEX_LIMIT))
        return -1;
    int64_t j = (int64_t)jd;
#define BEFORE(i) (strict ? edge(b, (i)) < t : edge(b, (i)) <= t)
    for (int n = 0; n < 4 && !BEFORE(j); n++)
        j--;
    for (int n = 0; n < 4 && BEFORE(j + 1); n++)
        j++;
#undef BEFORE
    *out = j;
    return 0;
}

void ftio_bins_add(struct ftio_bins *b, double t_start, double t_end, double bytes)
{
    if (!isfinite(bytes))
        return;
    if (!isfinite(t_start) || !isfinite(t_end) || t_end < t_start) {
        b->dropped_bytes += bytes;    /* accounted, never silently lost */
        return;
    }
    t_end = ftio_request_end(t_start, t_end);   /* same rule as requests.c */
    double rate = bytes / (t_end - t_start);
    /* Bins j0 .. j1 hold [t_start, t_end): j0 is the bin containing the
     * start, j1 the last bin starting before the end (an end exactly on an
     * edge does not touch the next bin).  The edges in [t_start, t_end) are
     * those of j0 (only when t_start is exactly on it) .. j1; the edges in
     * (t_start, t_end] end the bins j0 .. j1 - 1, and j1 too when t_end is
     * exactly on its end. */
    int64_t j0, j1;
    if (last_edge_before(b, t_start, false, &j0) != 0 ||
        last_edge_before(b, t_end, true, &j1) != 0) {
        b->dropped_bytes += bytes;
        return;
    }
    if (j1 < j0)      /* only with edges collapsed by huge times */
        j1 = j0;
    int64_t k0 = edge(b, j0) == t_start ? j0 : j0 + 1;
    int64_t k1 = edge(b, j1 + 1) == t_end ? j1 : j1 - 1;
    make_room(b, j1);

    /* The part before the horizon is gone: count it. */
    double horizon = edge(b, b->first);
    if (t_start < horizon) {
        b->dropped_bytes += rate * (fmin(t_end, horizon) - t_start);
        if (t_end <= horizon)
            return;
        j0 = b->first;
    }
    if (k0 < b->first)
        k0 = b->first;
    for (int64_t j = j0; j <= j1; j++) {
        double overlap = fmin(t_end, edge(b, j + 1)) - fmax(t_start, edge(b, j));
        size_t s = ring_index(b, j);
        if (overlap > 0)
            b->vol[s] += rate * overlap;
        if (j >= k0)
            b->point[s] += rate;
        if (j <= k1)
            b->point_end[s] += rate;
    }
    if (j1 + 1 > b->last)
        b->last = j1 + 1;
}

int ftio_bins_samples_mode(const struct ftio_bins *b, double ts, double te,
                           enum ftio_sampling mode, struct ftio_samples *out)
{
    if (mode != FTIO_SAMPLING_HOLD && mode != FTIO_SAMPLING_AVERAGE) {
        errno = EINVAL;
        return -1;
    }
    int64_t lo = b->first, hi = b->last;
    if (!isnan(ts)) {
        double j = ceil((ts - b->origin) * b->fs - EDGE_EPS);
        if (j > (double)lo)
            lo = j < (double)hi ? (int64_t)j : hi;
    }
    if (!isnan(te)) {
        double j = floor((te - b->origin) * b->fs + EDGE_EPS);
        if (j < (double)hi)
            hi = j > (double)lo ? (int64_t)j : lo;
    }
    if (hi <= lo) {
        errno = ERANGE;
        return -1;
    }
    size_t n = (size_t)(hi - lo);
    if (ftio_grow((void **)&out->x, &out->cap, n, sizeof *out->x) != 0)
        return -1;
    /* The window is at most two runs of the ring: its slots from lo's to
     * the end of the ring, then from its start. */
    size_t first = ring_index(b, lo), run = b->capacity - first < n ? b->capacity - first : n;
    const double *part[2] = { b->vol + first, b->vol };
    size_t len[2] = { run, n - run };
    double total = 0;
    size_t k = 0;
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < len[r]; i++, k++) {
            total += part[r][i];
            if (mode == FTIO_SAMPLING_AVERAGE)
                out->x[k] = part[r][i] * b->fs;
        }
    if (mode == FTIO_SAMPLING_HOLD) {
        /* [compat] t_step as sample.c advances it, from the window start;
         * below the edge it sees B before it (the end of the previous bin,
         * which is kept: k > 0 there since t_step starts on edge lo). */
        double t_step = edge(b, lo);
        for (size_t k = 0; k < n; k++) {
            int64_t j = lo + (int64_t)k;
            out->x[k] = t_step >= edge(b, j) ? b->point[ring_index(b, j)]
                                             : b->point_end[ring_index(b, j - 1)];
            t_step = t_step + 1.0 / b->fs;
        }
    }
    out->n = n;
    out->fs = b->fs;
    out->t0 = edge(b, lo);
    out->t1 = edge(b, hi);
    out->exact_volume = total;    /* bins are exact integrals: V_0 is known */
    out->quiet_before = lo > b->first ? b->vol[ring_index(b, lo - 1)] == 0
                                      : b->dropped_bytes == 0;
    return 0;
}

int ftio_bins_clone(const struct ftio_bins *src, struct ftio_bins *dst)
{
    if (bins_init_slots(dst, src->fs, src->origin, src->limit, src->capacity) != 0)
        return -1;
    memcpy(dst->vol, src->vol, src->capacity * sizeof *dst->vol);
    memcpy(dst->point, src->point, src->capacity * sizeof *dst->point);
    memcpy(dst->point_end, src->point_end, src->capacity * sizeof *dst->point_end);
    dst->first = src->first;
    dst->last = src->last;
    dst->dropped_bytes = src->dropped_bytes;
    return 0;
}

int ftio_bins_copy(const struct ftio_bins *src, double ts, double te, struct ftio_bins *dst)
{
    double lo = ceil((ts - src->origin) * src->fs - EDGE_EPS) - 1;   /* one bin before: hold */
    double hi = floor((te - src->origin) * src->fs + EDGE_EPS) + 1;
    if (lo < (double)src->first)
        lo = (double)src->first;
    if (hi > (double)src->last)
        hi = (double)src->last;
    if (hi < lo)
        hi = lo;
    size_t n = (size_t)(hi - lo) + 1;
    if (dst->capacity < n || !dst->vol) {
        /* A window that grows by a step at each boundary: room for twice
         * as many, so the copy is not reallocated (and its pages faulted
         * in again) at every one. */
        size_t room = dst->capacity > n ? dst->capacity : n + n / 2;
        ftio_bins_free(dst);
        if (bins_init_slots(dst, src->fs, src->origin, room, room) != 0)
            return -1;
    }
    dst->fs = src->fs;
    dst->origin = src->origin;
    dst->limit = dst->capacity;
    dst->first = (int64_t)lo;
    dst->last = (int64_t)hi;
    dst->dropped_bytes = src->dropped_bytes;
    /* Runs of slots contiguous in both rings, copied whole (this is the
     * analysis threads' copy under the daemon's lock: it must be quick). */
    for (int64_t j = dst->first; j < dst->last;) {
        size_t from = ring_index(src, j), to = ring_index(dst, j);
        size_t run = (size_t)(dst->last - j);
        if (run > src->capacity - from)
            run = src->capacity - from;
        if (run > dst->capacity - to)
            run = dst->capacity - to;
        memcpy(dst->vol + to, src->vol + from, run * sizeof *dst->vol);
        memcpy(dst->point + to, src->point + from, run * sizeof *dst->point);
        memcpy(dst->point_end + to, src->point_end + from, run * sizeof *dst->point_end);
        j += (int64_t)run;
    }
    return 0;
}

/* The kept bins whole inside [ts, te]: indices [*lo, *hi) (empty when
 * *hi <= *lo). */
static void kept_range(const struct ftio_bins *b, double ts, double te, double *lo, double *hi)
{
    *lo = ceil((ts - b->origin) * b->fs - EDGE_EPS);
    *hi = floor((te - b->origin) * b->fs + EDGE_EPS);
    if (*lo < (double)b->first)
        *lo = (double)b->first;
    if (*hi > (double)b->last)
        *hi = (double)b->last;
}

double ftio_bins_bytes(const struct ftio_bins *b, double ts, double te)
{
    double lo, hi;
    kept_range(b, ts, te, &lo, &hi);
    double total = 0;
    for (int64_t j = (int64_t)lo; (double)j < hi; j++)
        total += b->vol[ring_index(b, j)];
    return total;
}

double ftio_bins_last_data(const struct ftio_bins *b, double ts, double te)
{
    double lo, hi;
    kept_range(b, ts, te, &lo, &hi);
    for (int64_t j = (int64_t)hi - 1; (double)j >= lo; j--)
        if (b->vol[ring_index(b, j)] > 0)
            return edge(b, j);
    return NAN;
}

int ftio_bins_samples(const struct ftio_bins *b, double ts, double te,
                      struct ftio_samples *out)
{
    return ftio_bins_samples_mode(b, ts, te, FTIO_SAMPLING_AVERAGE, out);
}

void ftio_bins_free(struct ftio_bins *b)
{
    free(b->vol);
    free(b->point);
    free(b->point_end);
    memset(b, 0, sizeof *b);
}
