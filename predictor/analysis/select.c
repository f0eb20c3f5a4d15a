/* SPDX-License-Identifier: BSD-3-Clause */
/* select.c -- order statistics without comparison sorts (issue 27): the
 * medians, MADs and quantiles of the robust detector (phases.c, robust.c)
 * and the activities' volume classes (activities.c).
 *
 * A window of a 1-h job holds 36,000 samples; the detector used to sort
 * them, and the power spectrum, with qsort() three to five times per
 * analysis (61 % of a first analysis went to the comparator callbacks).
 * Here:
 *   ftio_select()      the k-th smallest value in linear expected time
 *                      (quickselect with a three-way partition: a window of
 *                      a bursty job is mostly equal zeros), falling back to
 *                      the radix sort when the pivots go badly;
 *   ftio_median_rank() the median of the sorted slice of ranks [lo, lo+cnt)
 *                      -- the same element, or the same mean of the two
 *                      middle ones, that sorting gave, so answers are bit
 *                      for bit those of the sorted code;
 *   ftio_sort()        an LSD radix sort of doubles (11-bit digits, the
 *                      passes where every key has the same digit skipped)
 *                      where the order itself is needed (Otsu's split, the
 *                      widest gap between sorted values).
 * The one difference from qsort(): -0.0 becomes +0.0 in a sorted array (the
 * comparator calls them equal and leaves either; no bin or sample of ftio
 * is ever -0.0).  NaNs are not ordered (nor were they by the comparator).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Below this many values an insertion sort beats everything else. */
#define SMALL 24
/* Radix digits: 11 bits, 6 passes over a 64-bit key. */
#define DIGIT 11
#define BUCKETS (1u << DIGIT)
#define PASSES 6

/* Lomuto's partition without a branch per element: v[lo..hi) reordered so
 * that the values below p (or, with `equal`, not above it) come first;
 * returns where the rest begin.  Each step stores both ends and the
 * comparison only moves an index, so a random spectrum costs no
 * mispredictions. */
static size_t partition(double *v, size_t lo, size_t hi, double p, bool equal)
{
    size_t j = lo;
    for (size_t i = lo; i < hi; i++) {
        double t = v[i];
        v[i] = v[j];
        v[j] = t;
        j += equal ? t <= p : t < p;
    }
    return j;
}

static void insertion(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* The total order of doubles as unsigned integers (IEEE 754: flip the sign
 * bit of positives, every bit of negatives); -0.0 as +0.0. */
static inline uint64_t key_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    if (u == 0x8000000000000000ull)
        u = 0;
    return u >> 63 ? ~u : u | 0x8000000000000000ull;
}

static inline double value_of(uint64_t k)
{
    uint64_t u = k >> 63 ? k & 0x7fffffffffffffffull : ~k;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* LSD radix sort of n (< 2^32) keys; tmp holds n keys.  The result is in
 * k.  The counts of the six digits are taken in one pass (48 KiB of stack). */
static void radix_keys(uint64_t *k, uint64_t *tmp, size_t n)
{
    uint32_t count[PASSES][BUCKETS];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < PASSES; p++)
            count[p][(k[i] >> (p * DIGIT)) & (BUCKETS - 1)]++;
    uint64_t *src = k, *dst = tmp;
    for (int p = 0; p < PASSES; p++) {
        uint32_t *c = count[p];
        /* Every key has this digit: nothing to move. */
        if (c[(src[0] >> (p * DIGIT)) & (BUCKETS - 1)] == n)
            continue;
        uint32_t sum = 0;
        for (size_t b = 0; b < BUCKETS; b++) {
            uint32_t x = c[b];
            c[b] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(src[i] >> (p * DIGIT)) & (BUCKETS - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, n * sizeof *k);
}

int ftio_sort_copy(const double *src, size_t n, double *dst, double *tmp)
{
    if (n <= SMALL || n > UINT32_MAX) {
        memmove(dst, src, n * sizeof *dst);
        if (n <= SMALL)
            insertion(dst, n);
        else
            qsort(dst, n, sizeof *dst, ftio_cmp_double);
        return 0;
    }
    double *own = NULL;
    if (!tmp && !(tmp = own = malloc(n * sizeof *tmp)))
        return -1;
    /* A window of a bursty job is mostly zeros: only the other values are
     * sorted, as keys in tmp (the dst block is the radix sort's second
     * buffer), and the zeros written back between the negatives and the
     * positives. */
    uint64_t *k = (uint64_t *)(void *)tmp;
    size_t nz = 0, neg = 0;
    for (size_t i = 0; (i = ftio_next_nonzero(src, i, n)) < n;)
        for (; i < n && src[i] != 0; i++) {
            uint64_t key = key_of(src[i]);
            neg += !(key >> 63);         /* below every zero */
            k[nz++] = key;
        }
    if (nz <= SMALL) {
        for (size_t i = 0; i < nz; i++)
            dst[i] = value_of(k[i]);
        insertion(dst, nz);
        memmove(dst + neg + (n - nz), dst + neg, (nz - neg) * sizeof *dst);
    } else {
        radix_keys(k, (uint64_t *)(void *)dst, nz);
        for (size_t i = 0; i < neg; i++)
            dst[i] = value_of(k[i]);
        for (size_t i = neg; i < nz; i++)
            dst[i + (n - nz)] = value_of(k[i]);
    }
    memset(dst + neg, 0, (n - nz) * sizeof *dst);
    free(own);
    return 0;
}

int ftio_sort(double *v, size_t n, double *tmp)
{
    return ftio_sort_copy(v, n, v, tmp);
}

double ftio_select(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    /* Partitions left before the pivots are judged unlucky (about twice the
     * depth of a balanced recursion). */
    int budget = 8;
    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    /* Invariant: v[0..lo) <= v[lo..hi) <= v[hi..n), k in [lo, hi). */
    while (hi - lo > SMALL) {
        if (budget-- == 0) {
            if (ftio_sort(v + lo, hi - lo, NULL) == 0)
                return v[k];
            budget = -1;           /* out of memory: slower but correct */
        }
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi - 1];
        double p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t lt = partition(v, lo, hi, p, false);      /* [lo, lt) < p */
        if (k < lt) {
            hi = lt;
            continue;
        }
        /* Few values below the pivot: many may equal it (a quiet signal is
         * mostly zeros), which the next round could not split; take the
         * values equal to p out at once. */
        if (lt - lo < (hi - lo) / 8) {
            size_t gt = partition(v, lt, hi, p, true);   /* [lt, gt) == p */
            if (k < gt)
                return p;             /* v[k] == p, v[0..k) <= p */
            lo = gt;
        } else {
            lo = lt;
        }
    }
    insertion(v + lo, hi - lo);
    return v[k];
}

double ftio_median_rank(double *v, size_t n, size_t lo, size_t cnt)
{
    if (cnt == 0)
        return 0;
    size_t r = lo + cnt / 2;
    double upper = ftio_select(v, n, r);
    if (cnt % 2)
        return upper;
    /* Even: the mean of ranks r-1 and r; after the selection v[0..r) holds
     * the r smallest values, whose largest is rank r-1. */
    double lower = v[0];
    for (size_t i = 1; i < r; i++)
        if (v[i] > lower)
            lower = v[i];
    return 0.5 * (lower + upper);
}

double ftio_median(double *v, size_t n)
{
    return ftio_median_rank(v, n, 0, n);
}

/* ---- the median of a view: no copy to reorder ------------------------------ */

/* Below this many values: a copy and ftio_median(). */
#define VIEW_MIN 2048

static inline double view_value(const double *v, size_t i, bool dev, double c)
{
    return dev ? fabs(v[i] - c) : v[i];
}

/* The values of the view in tmp[0..n), and their median. */
static double median_copy(const double *v, size_t n, bool dev, double c, double *tmp)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = view_value(v, i, dev, c);
    return ftio_median(tmp, n);
}

/* Ranks [ka, kb] (kb <= ka + 1) of the view are wanted.  A sample of s
 * values at an even stride brackets them: its ranks ja and jb, about three
 * standard deviations of a sample's rank below and above where the wanted
 * ranks fall, give [lo, hi].  One pass counts the values below lo and
 * gathers those in [lo, hi] into tmp; when the wanted ranks lie among them
 * (almost always), the selection runs on those few.  Else (or with NaNs)
 * the whole copy.  The result is the same element(s) either way. */
static double median_band(const double *v, size_t n, bool dev, double c, double *tmp)
{
    size_t ka = (n - 1) / 2, kb = n / 2;
    size_t s = n / 32 < 512 ? 512 : n / 32 > 4096 ? 4096 : n / 32;
    for (size_t j = 0; j < s; j++)
        tmp[j] = view_value(v, (2 * j + 1) * n / (2 * s), dev, c);
    size_t d = 1 + (size_t)(1.5 * sqrt((double)s)), at = ka * s / n;
    double lo = -INFINITY, hi = INFINITY;
    if (at > d)
        lo = ftio_select(tmp, s, at - d);
    if (at + d + 1 < s)
        hi = ftio_select(tmp, s, at + d + 1);
    size_t below = 0, above = 0, m = 0;
    if (dev) {
        for (size_t i = 0; i < n; i++) {
            double t = fabs(v[i] - c);
            below += t < lo;
            above += t > hi;
            tmp[m] = t;
            m += (t >= lo) & (t <= hi);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            double t = v[i];
            below += t < lo;
            above += t > hi;
            tmp[m] = t;
            m += (t >= lo) & (t <= hi);
        }
    }
    if (below + m + above != n || below > ka || below + m <= kb)
        return median_copy(v, n, dev, c, tmp);
    double upper = ftio_select(tmp, m, kb - below);
    if (ka == kb)
        return upper;
    /* tmp[0..kb-below) holds the band's smaller values: rank ka is their
     * largest (kb > below: rank ka is in the band). */
    double lower = tmp[0];
    for (size_t i = 1; i < kb - below; i++)
        if (tmp[i] > lower)
            lower = tmp[i];
    return 0.5 * (lower + upper);
}

double ftio_median_view(const double *v, size_t n, bool dev, double c, double *tmp)
{
    if (n == 0)
        return 0;
    return n < VIEW_MIN ? median_copy(v, n, dev, c, tmp) : median_band(v, n, dev, c, tmp);
}

/* The k-th smallest (0-based) of the union of the deviations of sorted v
 * from c: below[j] = c - v[m-1-j] (j < m) and above[j] = v[m+j] - c, two
 * ascending runs.  Binary search on how many come from the first. */
static double kth_deviation(const double *v, size_t n, size_t m, double c, size_t k)
{
    size_t na = m, nb = n - m;
#define BELOW(j) (c - v[m - 1 - (j)])
#define ABOVE(j) (v[m + (j)] - c)
    size_t lo = k + 1 > nb ? k + 1 - nb : 0, hi = k + 1 < na ? k + 1 : na;
    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2;
        if (BELOW(i) < ABOVE(k - i))
            lo = i + 1;
        else
            hi = i;
    }
    size_t j = k + 1 - lo;
    double x = lo > 0 ? BELOW(lo - 1) : -INFINITY, y = j > 0 ? ABOVE(j - 1) : -INFINITY;
#undef BELOW
#undef ABOVE
    return x > y ? x : y;
}

double ftio_deviation_median_sorted(const double *v, size_t n, double c)
{
    if (n == 0)
        return 0;
    /* m: the first value not below c.  fabs(v - c) is c - v below it and
     * v - c from it on, both exactly (IEEE subtraction is symmetric). */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    double upper = kth_deviation(v, n, lo, c, n / 2);
    return n % 2 ? upper : 0.5 * (kth_deviation(v, n, lo, c, n / 2 - 1) + upper);
}

/* ---- the order of a trace's times ------------------------------------------- */

static int cmp_order(const void *a, const void *b, void *ctx)
{
    const double *t = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return t[x] < t[y] ? -1 : t[x] > t[y] ? 1 : (x > y) - (x < y);
}

/* One radix sort of 64-bit keys: the time to the microsecond from the
 * earliest in the high 40 bits (12.7 days), the index in the low 24 (16.7
 * million times); beyond either, a comparison sort of the indices. */
#define ORDER_INDEX_BITS 24
#define ORDER_TICKS 1e6

int ftio_time_order(const double *t, size_t n, uint32_t *order)
{
    double lo = INFINITY, hi = -INFINITY;
    bool finite = true;
    for (size_t i = 0; i < n; i++) {
        finite &= isfinite(t[i]);
        lo = fmin(lo, t[i]);
        hi = fmax(hi, t[i]);
    }
    if (n > 0 && finite && n < (1u << ORDER_INDEX_BITS) &&
        (hi - lo) * ORDER_TICKS < (double)(1ull << (64 - ORDER_INDEX_BITS))) {
        uint64_t *k = malloc(2 * n * sizeof *k);
        if (!k)
            return -1;
        for (size_t i = 0; i < n; i++)
            k[i] = ((uint64_t)((t[i] - lo) * ORDER_TICKS) << ORDER_INDEX_BITS) | i;
        radix_keys(k, k + n, n);
        for (size_t i = 0; i < n; i++)
            order[i] = (uint32_t)(k[i] & ((1u << ORDER_INDEX_BITS) - 1));
        free(k);
        return 0;
    }
    if (n > UINT32_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, n, sizeof *order, cmp_order, (void *)t);
    return 0;
}
