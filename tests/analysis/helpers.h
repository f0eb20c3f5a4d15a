/* helpers.h -- small shared pieces of the analysis unit tests.
 * Tests run from the repository root, so data paths are relative to it. */
#ifndef FTIO_TEST_ANALYSIS_HELPERS_H
#define FTIO_TEST_ANALYSIS_HELPERS_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"

/* Reads one double per line; aborts the test when the file is missing. */
static inline double *load_column(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run tests from the repo root)", path);
    size_t cap = 1024, len = 0;
    double *v = malloc(cap * sizeof *v);
    double x;
    while (fscanf(f, "%lf", &x) == 1) {
        if (len == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[len++] = x;
    }
    fclose(f);
    *n = len;
    return v;
}

#define ck_assert_rel(a, b, tol) do {                                        \
        double a_ = (a), b_ = (b);                                            \
        ck_assert_msg(fabs(a_ - b_) <= (tol) * fabs(b_),                      \
                      "%s = %.12g, expected %.12g (rel tol %g)", #a, a_, b_,  \
                      (double)(tol));                                         \
    } while (0)
#define ck_assert_abs(a, b, tol) do {                                        \
        double a_ = (a), b_ = (b);                                            \
        ck_assert_msg(fabs(a_ - b_) <= (tol),                                 \
                      "%s = %.12g, expected %.12g (abs tol %g)", #a, a_, b_,  \
                      (double)(tol));                                         \
    } while (0)

/* Samples over [t0, t0 + n/fs] from an array (no signal involved). */
static inline struct ftio_samples samples_of(const double *x, size_t n, double fs, double t0)
{
    struct ftio_samples s = { 0 };
    s.x = malloc(n * sizeof *s.x);
    for (size_t k = 0; k < n; k++)
        s.x[k] = x[k];
    s.n = s.cap = n;
    s.fs = fs;
    s.t0 = t0;
    s.t1 = t0 + (double)n / fs;
    s.exact_volume = NAN;
    return s;
}

/* Runs a suite, returns the process exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
