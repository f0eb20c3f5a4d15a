/* SPDX-License-Identifier: BSD-3-Clause */
/* helpers.h -- small shared pieces of the analysis unit tests.
 * Tests run from the repository root, so data paths are relative to it. */
#ifndef FTIO_TEST_ANALYSIS_HELPERS_H
#define FTIO_TEST_ANALYSIS_HELPERS_H

#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "grow.h"

/* Reads one double per line; aborts the test when the file is missing. */
static inline double *load_column(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run tests from the repo root)", path);
    size_t cap = 0, len = 0;
    double *v = NULL, x;
    while (fscanf(f, "%lf", &x) == 1) {
        ck_assert_msg(FTIO_GROW(v, cap, len + 1) == 0, "out of memory reading %s", path);
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

/* The two ALGORITHM.md §8 rows small enough to type in: their requests
 * (rate, start, end) and what the published implementation reports.  Both
 * the event-sweep path and the streaming-bins path must reproduce them. */
struct reference_row {
    size_t        n;
    const double *rate, *ts, *te;
    double        t0, t1;
    size_t        samples, bin;
    double        frequency, confidence, amplitude, amplitude_tol;
};

static const double synthetic_14_rate[] = { 0, 0, 1000, 1000, 0, 0, 1000, 1000, 0, 0, 1000, 1000, 0, 0 };
static const double synthetic_14_ts[] = { 0.5, 0, 10.5, 10, 20.5, 20, 30.5, 30, 40.5, 40, 50.5, 50, 60.5, 60 };
static const double synthetic_14_te[] = { 5, 4.5, 15, 14.5, 25, 24.5, 35, 34.5, 45, 44.5, 55, 54.5, 65, 64.5 };
static const struct reference_row synthetic_14_row = {
    14, synthetic_14_rate, synthetic_14_ts, synthetic_14_te,
    0, 65, 650, 3, 0.046153846, 0.802496292, 230311.49, 1e-6,
};

static const double zmq_example_rate[] = { 3, 0, 3, 0, 3 };
static const double zmq_example_ts[] = { 1, 2, 3, 4, 5 };
static const double zmq_example_te[] = { 5, 6, 7, 8, 9 };
static const struct reference_row zmq_example_row = {
    5, zmq_example_rate, zmq_example_ts, zmq_example_te,
    1, 9, 80, 1, 0.125, 1.0, 76.355, 1e-4,   /* amplitude given to 5 digits */
};

/* Both rows, for a loop test (tcase_add_loop_test over N_REFERENCE_ROWS). */
static const struct reference_row *const reference_rows[] = { &synthetic_14_row, &zmq_example_row };
#define N_REFERENCE_ROWS (sizeof reference_rows / sizeof reference_rows[0])

static inline void assert_reference_row(const struct reference_row *row,
                                        const struct ftio_result *res)
{
    ck_assert_double_eq(res->t0, row->t0);
    ck_assert_double_eq(res->t1, row->t1);
    ck_assert_uint_eq(res->samples, row->samples);
    ck_assert_uint_eq(res->ncand, 1);
    ck_assert_int_eq(res->cls, FTIO_CLASS_PERIODIC);
    ck_assert_uint_eq(res->dominant.bin, row->bin);
    ck_assert_rel(res->dominant.frequency, row->frequency, 1e-6);
    ck_assert_abs(res->dominant.confidence, row->confidence, 1e-6);
    ck_assert_rel(res->dominant.amplitude, row->amplitude, row->amplitude_tol);
}

/* Appends the requests of three columns (start, end, rate in B/s), as the
 * hand-worked cases and the reference rows give them. */
static inline void push_rates(struct ftio_requests *r, const double *ts, const double *te,
                              const double *rate, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(ftio_requests_push_rate(r, ts[i], te[i], rate[i]), 0);
}

/* push_rates, then the event sweep of all of *r into *s. */
static inline void sweep_rates(struct ftio_requests *r, struct ftio_signal *s, const double *ts,
                               const double *te, const double *rate, size_t n)
{
    push_rates(r, ts, te, rate, n);
    ck_assert_int_eq(ftio_signal_build(r, s), 0);
}

/* The swept signal is exactly the events (T[i], B[i]), i < n. */
static inline void assert_events(const struct ftio_signal *s, const double *T, const double *B, size_t n)
{
    ck_assert_uint_eq(s->n, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_double_eq(s->t[i], T[i]);
        ck_assert_double_eq(s->b[i], B[i]);
    }
}

/* Samples s at fs over [ts, te] (NAN: unbounded) into *x; the test fails
 * with ftio_sample's message when it refuses. */
static inline void sample_ok(const struct ftio_signal *s, double fs, double ts, double te,
                             enum ftio_sampling mode, struct ftio_samples *x)
{
    char err[128];
    ck_assert_msg(ftio_sample(s, fs, ts, te, mode, x, err, sizeof err) == 0, "%s", err);
}

/* A §8 row through one path of the analysis: its requests given to
 * `analyze` (which fills *res, or fails the test), then the published
 * numbers. */
typedef void reference_path(const struct reference_row *row, const struct ftio_requests *r,
                            struct ftio_result *res);
static inline void check_reference_row(const struct reference_row *row, reference_path *analyze)
{
    struct ftio_requests r = { 0 };
    push_rates(&r, row->ts, row->te, row->rate, row->n);
    struct ftio_result res;
    analyze(row, &r, &res);
    assert_reference_row(row, &res);
    ftio_requests_free(&r);
}

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

#endif
