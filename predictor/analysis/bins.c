/* SPDX-License-Identifier: BSD-3-Clause */
/* bins.c -- streaming binning for the daemon (§1, online).
 *
 * Records of one job arrive out of order across ranks, so instead of the
 * event sweep the daemon adds each request to a fixed grid of edges
 * origin + k/fs.  Per bin:
 *   vol          bytes in [edge k, edge k+1): the exact integral of the
 *                request's constant rate; what ftio_sample(..AVERAGE..)
 *                computes from the full signal;
 *   point        (hold) B(edge k): the rates of the requests with
 *                t_start <= edge k < t_end, the sweep's value at that
 *                instant (starts before ends on equal times);
 *   point_end    (hold) B just before edge k+1: t_start < edge k+1 <= t_end.
 * The [compat] hold samples B at t_step = t_0 + 1/fs + 1/fs ... (accumulated,
 * §2), which drifts from the edge by ~1e-14 s: it only matters when an event
 * lies exactly on the edge, and then the side the drift falls on decides.
 * Keeping B on both sides of every edge lets the hold sampler replay the
 * offline t_step from the window start and pick the side, so the daemon's
 * default reproduces the offline one digit for digit (unless an event lies
 * strictly between t_step and the edge, i.e. within ~1e-14 s of it).  The
 * robust detector samples by average: its bins keep vol alone.
 * Addition commutes, so arrival order does not matter.
 *
 * Memory: an I/O signal is mostly quiet (a burst, then the computation), so
 * bins live in blocks of FTIO_BIN_BLOCK, a sorted array of the blocks that
 * hold data; a quiet stretch costs nothing, a 24-h job with a 10-s burst a
 * minute keeps a few blocks per burst.  At most `limit` bins behind the
 * newest are kept (the horizon), and a caller that knows its window will
 * not reach back drops older ones (ftio_bins_forget).  Each record costs
 * O(bins it spans); a lookup is O(1) for records in time order (the block
 * of the previous one or the next), O(log blocks) otherwise.  The blocks live
 * in pages of their own (bin_pool.c): what a window forgets goes back to the
 * system with its pages, not at a heap trim.
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

/* One block: FTIO_BIN_BLOCK bins from bin index `index` x FTIO_BIN_BLOCK;
 * v holds vol, then (hold) point and point_end. */
struct ftio_bin_block {
    int64_t index;
    double  v[];
};

static size_t columns(const struct ftio_bins *b)
{
    return b->hold ? 3 : 1;
}

/* Floor division by the block size (bin indices may be negative: records
 * before the origin). */
static inline int64_t block_of(int64_t j)
{
    return j >= 0 ? j / FTIO_BIN_BLOCK : -((-j + FTIO_BIN_BLOCK - 1) / FTIO_BIN_BLOCK);
}

static inline size_t slot_of(int64_t j)
{
    return (size_t)(j - block_of(j) * FTIO_BIN_BLOCK);
}

/* Edge j is always computed this way (as sample.c does), so neighbouring
 * overlaps tile the time axis exactly and membership tests are consistent. */
static inline double edge(const struct ftio_bins *b, int64_t j)
{
    return b->origin + (double)j / b->fs;
}

/* Position of block `index` in b->block, or where it would go. */
static size_t block_pos(const struct ftio_bins *b, int64_t index, bool *found)
{
    size_t c = b->cursor;
    /* Records mostly come in time order: this block or the next. */
    for (size_t k = c; k < b->nblocks && k <= c + 1; k++)
        if (b->block[k]->index == index) {
            *found = true;
            return k;
        }
    size_t lo = 0, hi = b->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->block[mid]->index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < b->nblocks && b->block[lo]->index == index;
    return lo;
}

/* The block holding bin j, NULL when none does (all zero). */
static struct ftio_bin_block *find(const struct ftio_bins *b, int64_t j)
{
    bool found;
    size_t k = block_pos(b, block_of(j), &found);
    return found ? b->block[k] : NULL;
}

/* The block holding bin j, made (zeroed) when missing; NULL out of memory. */
static struct ftio_bin_block *reach(struct ftio_bins *b, int64_t j)
{
    bool found;
    int64_t index = block_of(j);
    size_t k = block_pos(b, index, &found);
    if (!found) {
        if (ftio_grow((void **)&b->block, &b->cap, b->nblocks + 1, sizeof *b->block) != 0)
            return NULL;
        struct ftio_bin_block *n =   /* zeroed; its page goes back whole (bin_pool.c) */
            ftio_bin_pool_alloc(sizeof *n + columns(b) * FTIO_BIN_BLOCK * sizeof(double));
        if (!n)
            return NULL;
        n->index = index;
        memmove(b->block + k + 1, b->block + k, (b->nblocks - k) * sizeof *b->block);
        b->block[k] = n;
        b->nblocks++;
    }
    b->cursor = k;
    return b->block[k];
}

int ftio_bins_init_for(struct ftio_bins *b, double fs, double origin, size_t capacity,
                       enum ftio_sampling mode)
{
    memset(b, 0, sizeof *b);
    if (!(fs > 0) || !isfinite(fs) || !isfinite(origin) || capacity == 0 ||
        capacity > (size_t)INT64_MAX / 2) {
        errno = EINVAL;
        return -1;
    }
    b->fs = fs;
    b->origin = origin;
    b->limit = capacity;
    b->hold = mode != FTIO_SAMPLING_AVERAGE;
    return 0;
}

int ftio_bins_init(struct ftio_bins *b, double fs, double origin, size_t capacity)
{
    return ftio_bins_init_for(b, fs, origin, capacity, FTIO_SAMPLING_HOLD);
}

/* Free the blocks wholly before bin `first`. */
static void drop_before(struct ftio_bins *b, int64_t first)
{
    size_t n = 0;
    while (n < b->nblocks && (b->block[n]->index + 1) * FTIO_BIN_BLOCK <= first)
        ftio_bin_pool_free(b->block[n++]);
    memmove(b->block, b->block + n, (b->nblocks - n) * sizeof *b->block);
    b->nblocks -= n;
    b->cursor = 0;
}

/* Room for bin j within the horizon: the oldest bins are forgotten. */
static void make_room(struct ftio_bins *b, int64_t j)
{
    int64_t new_first = j - (int64_t)b->limit + 1;
    if (new_first <= b->first)
        return;
    b->first = new_first;
    if (b->last < b->first)
        b->last = b->first;
    drop_before(b, b->first);
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
    struct ftio_bin_block *blk = NULL;
    /* Per bin the least work (a record spans ~8 bins at 10 Hz, and this loop
     * was a third of ftiod's merge instructions: callgrind, bench/README.md
     * "ingest16"): each edge computed once (a bin's end is the next one's
     * start, the same expression, so the same double), the slot counted on
     * instead of divided out, and fmin/fmax written out as the library's
     * minsd/maxsd give them for operands that are not NaN (t_start and t_end
     * were checked above, an edge is a finite origin plus j / fs). */
    double e0 = edge(b, j0);
    size_t s = slot_of(j0);
    for (int64_t j = j0; j <= j1; j++, s = (s + 1) % FTIO_BIN_BLOCK) {
        double e1 = edge(b, j + 1);
        if (!blk || s == 0) {
            if (!(blk = reach(b, j))) {
                /* Out of memory: the rest of the request is lost, counted. */
                b->dropped_bytes += rate * (t_end - fmax(t_start, e0));
                break;
            }
        }
        double overlap = (t_end < e1 ? t_end : e1) - (t_start > e0 ? t_start : e0);
        e0 = e1;
        if (overlap > 0)
            blk->v[s] += rate * overlap;
        if (b->hold) {
            if (j >= k0)
                blk->v[FTIO_BIN_BLOCK + s] += rate;
            if (j <= k1)
                blk->v[2 * FTIO_BIN_BLOCK + s] += rate;
        }
    }
    if (j1 + 1 > b->last)
        b->last = j1 + 1;
}

double ftio_bins_volume_at(const struct ftio_bins *b, int64_t k)
{
    if (k < b->first || k >= b->last)
        return 0;
    const struct ftio_bin_block *blk = find(b, k);
    return blk ? blk->v[slot_of(k)] : 0;
}

void ftio_bins_points_at(const struct ftio_bins *b, int64_t k, double *at, double *before_end)
{
    const struct ftio_bin_block *blk = k >= b->first && k < b->last && b->hold ? find(b, k) : NULL;
    *at = blk ? blk->v[FTIO_BIN_BLOCK + slot_of(k)] : 0;
    *before_end = blk ? blk->v[2 * FTIO_BIN_BLOCK + slot_of(k)] : 0;
}

/* The kept bins whole inside [ts, te] (NAN: unbounded): indices [*lo, *hi)
 * (empty when *hi <= *lo). */
static void kept_range(const struct ftio_bins *b, double ts, double te, int64_t *lo, int64_t *hi)
{
    *lo = b->first;
    *hi = b->last;
    if (!isnan(ts)) {
        double j = ceil((ts - b->origin) * b->fs - EDGE_EPS);
        if (j > (double)*lo)
            *lo = j < (double)*hi ? (int64_t)j : *hi;
    }
    if (!isnan(te)) {
        double j = floor((te - b->origin) * b->fs + EDGE_EPS);
        if (j < (double)*hi)
            *hi = j > (double)*lo ? (int64_t)j : *lo;
    }
}

/* The runs of bins in [lo, hi) that blocks hold, in order: each is n bins
 * from bin j, their values at v (the bins between runs are zero). */
struct runs {
    const struct ftio_bins *b;
    size_t k;                 /* the next block */
    int64_t hi;
};

static struct runs runs_from(const struct ftio_bins *b, int64_t lo, int64_t hi)
{
    bool found;
    return (struct runs){ b, block_pos(b, block_of(lo), &found), hi };
}

static bool next_run(struct runs *r, int64_t lo, const double **v, int64_t *j, int64_t *n)
{
    if (r->k >= r->b->nblocks)
        return false;
    const struct ftio_bin_block *blk = r->b->block[r->k++];
    int64_t from = blk->index * FTIO_BIN_BLOCK, to = from + FTIO_BIN_BLOCK;
    if (from >= r->hi)
        return false;
    *j = from < lo ? lo : from;
    *n = (to < r->hi ? to : r->hi) - *j;
    *v = blk->v + slot_of(*j);
    return *n > 0 || next_run(r, lo, v, j, n);
}

int ftio_bins_samples_mode(const struct ftio_bins *b, double ts, double te,
                           enum ftio_sampling mode, struct ftio_samples *out)
{
    if ((mode != FTIO_SAMPLING_HOLD && mode != FTIO_SAMPLING_AVERAGE) ||
        (mode == FTIO_SAMPLING_HOLD && !b->hold)) {
        errno = EINVAL;
        return -1;
    }
    int64_t lo, hi;
    kept_range(b, ts, te, &lo, &hi);
    if (hi <= lo) {
        errno = ERANGE;
        return -1;
    }
    size_t n = (size_t)(hi - lo);
    if (ftio_grow((void **)&out->x, &out->cap, n, sizeof *out->x) != 0)
        return -1;
    memset(out->x, 0, n * sizeof *out->x);
    /* The bytes in order of the bins (zeros add nothing: the same sum as
     * adding every bin). */
    double total = 0;
    const double *v;
    int64_t j0, cnt;
    for (struct runs r = runs_from(b, lo, hi); next_run(&r, lo, &v, &j0, &cnt);) {
        double *x = out->x + (j0 - lo);
        for (int64_t i = 0; i < cnt; i++) {
            total += v[i];
            if (mode == FTIO_SAMPLING_AVERAGE)
                x[i] = v[i] * b->fs;
        }
    }
    if (mode == FTIO_SAMPLING_HOLD) {
        /* [compat] t_step as sample.c advances it, from the window start;
         * below the edge it sees B before it (the end of the previous bin,
         * which is kept: k > 0 there since t_step starts on edge lo). */
        double t_step = edge(b, lo);
        for (size_t k = 0; k < n; k++) {
            int64_t j = lo + (int64_t)k;
            double at, unused;
            if (t_step >= edge(b, j))
                ftio_bins_points_at(b, j, &at, &unused);
            else
                ftio_bins_points_at(b, j - 1, &unused, &at);
            out->x[k] = at;
            t_step = t_step + 1.0 / b->fs;
        }
    }
    out->n = n;
    out->fs = b->fs;
    out->t0 = edge(b, lo);
    out->t1 = edge(b, hi);
    out->exact_volume = total;    /* bins are exact integrals: V_0 is known */
    out->quiet_before = lo > b->first ? ftio_bins_volume_at(b, lo - 1) == 0
                                      : b->dropped_bytes == 0 && !b->forgot_data;
    return 0;
}

int ftio_bins_clone(const struct ftio_bins *src, struct ftio_bins *dst)
{
    *dst = *src;
    dst->block = NULL;
    dst->nblocks = dst->cap = dst->cursor = 0;
    if (src->nblocks == 0)
        return 0;
    if (!(dst->block = malloc(src->nblocks * sizeof *dst->block)))
        return -1;
    dst->cap = src->nblocks;
    size_t size = sizeof **src->block + columns(src) * FTIO_BIN_BLOCK * sizeof(double);
    for (; dst->nblocks < src->nblocks; dst->nblocks++) {
        if (!(dst->block[dst->nblocks] = ftio_bin_pool_alloc(size))) {
            ftio_bins_free(dst);
            return -1;
        }
        memcpy(dst->block[dst->nblocks], src->block[dst->nblocks], size);
    }
    return 0;
}

void ftio_bins_forget(struct ftio_bins *b, double t)
{
    int64_t j;
    if (last_edge_before(b, t, false, &j) != 0 || j <= b->first)
        return;
    if (j > b->last)
        j = b->last;
    b->forgot_data = ftio_bins_volume_at(b, j - 1) != 0;
    b->first = j;
    drop_before(b, j);
}

size_t ftio_bins_memory(const struct ftio_bins *b)
{
    return b->cap * sizeof *b->block +
           b->nblocks * (sizeof **b->block + columns(b) * FTIO_BIN_BLOCK * sizeof(double));
}

double ftio_bins_bytes(const struct ftio_bins *b, double ts, double te)
{
    int64_t lo, hi;
    kept_range(b, ts, te, &lo, &hi);
    double total = 0;
    const double *v;
    int64_t j0, cnt;
    for (struct runs r = runs_from(b, lo, hi); next_run(&r, lo, &v, &j0, &cnt);)
        for (int64_t i = 0; i < cnt; i++)
            total += v[i];
    return total;
}

double ftio_bins_last_data(const struct ftio_bins *b, double ts, double te)
{
    int64_t lo, hi;
    kept_range(b, ts, te, &lo, &hi);
    double found = NAN;
    const double *v;
    int64_t j0, cnt;
    for (struct runs r = runs_from(b, lo, hi); next_run(&r, lo, &v, &j0, &cnt);)
        for (int64_t i = cnt; i-- > 0;)
            if (v[i] > 0) {
                found = edge(b, j0 + i);
                break;
            }
    return found;
}

int ftio_bins_samples(const struct ftio_bins *b, double ts, double te,
                      struct ftio_samples *out)
{
    return ftio_bins_samples_mode(b, ts, te, FTIO_SAMPLING_AVERAGE, out);
}

void ftio_bins_free(struct ftio_bins *b)
{
    for (size_t k = 0; k < b->nblocks; k++)
        ftio_bin_pool_free(b->block[k]);
    free(b->block);
    memset(b, 0, sizeof *b);
}
