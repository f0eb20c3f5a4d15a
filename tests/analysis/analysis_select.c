/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_select.c -- select.c against sorting (issue 27): ftio_select,
 * ftio_median_rank, ftio_deviation_median_sorted, ftio_median_view,
 * ftio_sort and ftio_sort_copy give bit for bit what qsort() and the median
 * of the sorted values gave, on the inputs
 * that matter (a bursty window: mostly equal zeros; a random spectrum;
 * negatives; ties; sorted and reversed orders; tiny and odd/even sizes), so
 * that the detector's answers do not move. */
#include <stdint.h>
#include <string.h>

#include "helpers.h"
#include "analysis/analysis_internal.h"
#include "../kit/xorshift.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static double uniform(void)
{
    return (double)(ftio_xorshift64(&rng) >> 11) * 0x1.0p-53;
}

/* Input kinds: the shapes a detector's arrays take. */
enum kind { BURSTY, SPECTRUM, SIGNED, TIES, ASCENDING, DESCENDING, NKINDS };

static void fill(double *v, size_t n, enum kind k)
{
    for (size_t i = 0; i < n; i++) {
        double u = uniform();
        switch (k) {
        case BURSTY:     v[i] = u < 0.8 ? 0 : 1e6 * (1 + uniform()); break;
        case SPECTRUM:   v[i] = u * u * 1e9; break;
        case SIGNED:     v[i] = u < 0.3 ? 0 : (u - 0.6) * 1e3; break;
        case TIES:       v[i] = (double)(ftio_xorshift64(&rng) % 5); break;
        case ASCENDING:  v[i] = (double)i * 0.5; break;
        case DESCENDING: v[i] = (double)(n - i); break;
        default:         break;
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const size_t sizes[] = { 1, 2, 3, 7, 24, 25, 26, 100, 101, 1000, 4097, 36000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

START_TEST(sort_matches_qsort)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int k = 0; k < NKINDS; k++) {
            size_t n = sizes[s];
            double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
            fill(v, n, (enum kind)k);
            memcpy(w, v, n * sizeof *v);
            qsort(w, n, sizeof *w, cmp);
            /* a sorted copy, the source left as it was; then in place */
            double *copy = malloc(n * sizeof *copy), *src = malloc(n * sizeof *src);
            memcpy(src, v, n * sizeof *v);
            ck_assert_int_eq(ftio_sort_copy(v, n, copy, NULL), 0);
            ck_assert_msg(memcmp(copy, w, n * sizeof *v) == 0, "copy: n %zu kind %d", n, k);
            ck_assert(memcmp(src, v, n * sizeof *v) == 0);
            free(copy);
            free(src);
            ck_assert_int_eq(ftio_sort(v, n, NULL), 0);
            ck_assert_msg(memcmp(v, w, n * sizeof *v) == 0, "n %zu kind %d", n, k);
            free(v);
            free(w);
        }
}
END_TEST

START_TEST(medians_match_sorted)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int k = 0; k < NKINDS; k++) {
            size_t n = sizes[s];
            double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w),
                   *sorted = malloc(n * sizeof *v);
            fill(sorted, n, (enum kind)k);
            memcpy(v, sorted, n * sizeof *v);
            qsort(sorted, n, sizeof *sorted, cmp);
            /* Every k-th value, the whole median, and the medians of slices
             * of ranks (the larger half: phases.c's "typical" values). */
            for (size_t r = 0; r < n; r += 1 + n / 17) {
                memcpy(w, v, n * sizeof *v);
                ck_assert(ftio_select(w, n, r) == sorted[r]);
                bool parted = true;         /* one assertion: Check's are slow */
                for (size_t i = 0; i < n; i++)
                    parted &= i < r ? w[i] <= sorted[r] : w[i] >= sorted[r];
                ck_assert_msg(parted, "n %zu kind %d rank %zu: not partitioned", n, k, r);
            }
            memcpy(w, v, n * sizeof *v);
            ck_assert(ftio_median(w, n) == ftio_median_sorted(sorted, n));
            size_t lo = n / 2;
            memcpy(w, v, n * sizeof *v);
            ck_assert(ftio_median_rank(w, n, lo, n - lo) ==
                      ftio_median_sorted(sorted + lo, n - lo));
            /* The median of the view, v left as it was. */
            double *tmp = malloc(n * sizeof *tmp), *keep = malloc(n * sizeof *keep);
            memcpy(keep, v, n * sizeof *v);
            ck_assert(ftio_median_view(v, n, false, 0, tmp) == ftio_median_sorted(sorted, n));
            ck_assert(memcmp(keep, v, n * sizeof *v) == 0);
            /* MAD around the median, and around a value off the centre:
             * from the sorted values and from the view. */
            double c = ftio_median_sorted(sorted, n);
            for (int pass = 0; pass < 2; pass++, c = sorted[n / 5] + 0.25) {
                for (size_t i = 0; i < n; i++)
                    w[i] = fabs(sorted[i] - c);
                qsort(w, n, sizeof *w, cmp);
                ck_assert_msg(ftio_deviation_median_sorted(sorted, n, c) ==
                                  ftio_median_sorted(w, n),
                              "n %zu kind %d c %g", n, k, c);
                ck_assert_msg(ftio_median_view(v, n, true, c, tmp) == ftio_median_sorted(w, n),
                              "view: n %zu kind %d c %g", n, k, c);
            }
            free(tmp);
            free(keep);
            free(v);
            free(w);
            free(sorted);
        }
    double one = 0;
    ck_assert(ftio_median_rank(&one, 1, 0, 0) == 0);
    ck_assert(ftio_deviation_median_sorted(&one, 0, 1) == 0);
}
END_TEST

/* The pivots of a median-of-three quickselect go badly on an "organ pipe":
 * the fallback keeps it linear-ish and right. */
START_TEST(adversarial_order)
{
    size_t n = 100000;
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(i < n / 2 ? 2 * i : 2 * (n - i) - 1);
    ck_assert(ftio_median(v, n) == 0.5 * ((double)(n / 2 - 1) + (double)(n / 2)));   /* 0 .. n-1 */
    free(v);
}
END_TEST

/* ftio_median_view() brackets the median with a sample taken at an even
 * stride; where the sampled values are all the largest, the bracket misses
 * and the whole copy answers: the same median. */
START_TEST(view_unlucky_sample)
{
    size_t n = 36000, s = n / 32;
    double *v = malloc(n * sizeof *v), *tmp = malloc(n * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        v[i] = (double)i;
    for (size_t j = 0; j < s; j++)
        v[(2 * j + 1) * n / (2 * s)] = 1e9 + (double)j;
    double *sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, cmp);
    ck_assert(ftio_median_view(v, n, false, 0, tmp) == ftio_median_sorted(sorted, n));
    ck_assert(ftio_median_view(v, 0, false, 0, tmp) == 0);
    free(v);
    free(tmp);
    free(sorted);
}
END_TEST

/* ftio_time_order: the times in order, each index once, equal times (to the
 * microsecond) in index order; a span past the keys' 12.7 days and NaN
 * take the comparison path, with the same order. */
START_TEST(time_order)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int k = 0; k < NKINDS + 2; k++) {
            size_t n = sizes[s];
            double *t = malloc(n * sizeof *t);
            uint32_t *o = malloc(n * sizeof *o);
            char *seen = calloc(n, 1);
            if (k < NKINDS)
                fill(t, n, (enum kind)k);
            for (size_t i = 0; k >= NKINDS && i < n; i++)   /* a month of trace; times of a day */
                t[i] = k == NKINDS ? uniform() * 86400 * 31 : 1.7e9 + uniform() * 86400;
            ck_assert_int_eq(ftio_time_order(t, n, o), 0);
            for (size_t i = 0; i < n; i++) {
                FTIO_CHECK_MSG(o[i] < n && !seen[o[i]], "n %zu kind %d: index %u at %zu out of range or twice",
                               n, k, o[i], i);
                seen[o[i]] = 1;
                if (i > 0) {
                    double a = t[o[i - 1]], b = t[o[i]];
                    FTIO_CHECK_MSG(a <= b + 1e-6, "n %zu kind %d: %.9f before %.9f", n, k, a, b);
                    FTIO_CHECK_MSG(a != b || o[i - 1] < o[i], "n %zu kind %d: equal times out of index order",
                                   n, k);
                }
            }
            free(t);
            free(o);
            free(seen);
        }
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-select", "select", NULL, sort_matches_qsort, medians_match_sorted,
                      adversarial_order, view_unlucky_sample, time_order);
}
