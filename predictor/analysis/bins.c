/* bins.c -- streaming exact-integral binning for the daemon (§1, online).
 *
 * Records of one job arrive out of order across ranks, so instead of the
 * event sweep the daemon spreads each request's bytes over the bins of width
 * 1/fs it overlaps (exact integral of its constant rate).  The bins live in a
 * ring of fixed capacity: memory stays O(window), each record costs O(bins
 * it spans), and the bins are exactly what ftio_sample(..AVERAGE..) computes
 * from the full signal.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/internal.h"

/* Same convention as requests.c: a zero-length request lasts 1 us. */
#define ZERO_LENGTH_DURATION 1e-6
/* Tolerance when mapping window bounds to bin edges. */
#define EDGE_EPS 1e-9

static inline double edge(const struct ftio_bins *b, int64_t j)
{
    return b->origin + (double)j / b->fs;
}

static inline double *slot(const struct ftio_bins *b, int64_t j)
{
    int64_t c = (int64_t)b->capacity;
    return &b->vol[((j % c) + c) % c];
}

int ftio_bins_init(struct ftio_bins *b, double fs, double origin, size_t capacity)
{
    memset(b, 0, sizeof *b);
    if (!(fs > 0) || !isfinite(fs) || !isfinite(origin) || capacity == 0 ||
        capacity > (size_t)INT64_MAX / 2) {
        errno = EINVAL;
        return -1;
    }
    b->vol = calloc(capacity, sizeof *b->vol);
    if (!b->vol)
        return -1;
    b->fs = fs;
    b->origin = origin;
    b->capacity = capacity;
    return 0;
}

/* Slide the ring so that bin j is kept: the oldest bins are forgotten and
 * their slots cleared for reuse. */
static void advance_to(struct ftio_bins *b, int64_t j)
{
    int64_t c = (int64_t)b->capacity;
    int64_t new_first = j - c + 1;
    if (new_first <= b->first)
        return;
    if (new_first - b->first >= c)
        memset(b->vol, 0, b->capacity * sizeof *b->vol);
    else
        for (int64_t i = b->first; i < new_first; i++)
            *slot(b, i) = 0;
    b->first = new_first;
    if (b->last < b->first)
        b->last = b->first;
}

void ftio_bins_add(struct ftio_bins *b, double t_start, double t_end, double bytes)
{
    if (!isfinite(bytes))
        return;
    if (!isfinite(t_start) || !isfinite(t_end) || t_end < t_start) {
        b->dropped_bytes += bytes;    /* accounted, never silently lost */
        return;
    }
    if (t_end == t_start) {
        t_end = t_start + ZERO_LENGTH_DURATION;
        if (t_end == t_start)
            t_end = nextafter(t_start, INFINITY);
    }
    double rate = bytes / (t_end - t_start);
    /* Bins j0 .. j1 hold [t_start, t_end): an end exactly on an edge does
     * not touch the next bin. */
    double j0d = floor((t_start - b->origin) * b->fs);
    double j1d = fmax(j0d, ceil((t_end - b->origin) * b->fs) - 1);
    if (j1d > 4e18 || j0d < -4e18) {
        b->dropped_bytes += bytes;
        return;
    }
    int64_t j0 = (int64_t)j0d, j1 = (int64_t)j1d;
    if (j1 >= b->first + (int64_t)b->capacity)
        advance_to(b, j1);

    /* The part before the horizon is gone: count it. */
    double horizon = edge(b, b->first);
    if (t_start < horizon) {
        b->dropped_bytes += rate * (fmin(t_end, horizon) - t_start);
        if (t_end <= horizon)
            return;
        j0 = b->first;
    }
    for (int64_t j = j0; j <= j1; j++) {
        double overlap = fmin(t_end, edge(b, j + 1)) - fmax(t_start, edge(b, j));
        if (overlap > 0)
            *slot(b, j) += rate * overlap;
    }
    if (j1 + 1 > b->last)
        b->last = j1 + 1;
}

int ftio_bins_samples(const struct ftio_bins *b, double ts, double te,
                      struct ftio_samples *out)
{
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
    double total = 0;
    for (size_t k = 0; k < n; k++) {
        double v = *slot(b, lo + (int64_t)k);
        total += v;
        out->x[k] = v * b->fs;
    }
    out->n = n;
    out->fs = b->fs;
    out->t0 = edge(b, lo);
    out->t1 = edge(b, hi);
    out->exact_volume = total;    /* bins are exact integrals: V_0 is known */
    return 0;
}

void ftio_bins_free(struct ftio_bins *b)
{
    free(b->vol);
    memset(b, 0, sizeof *b);
}
