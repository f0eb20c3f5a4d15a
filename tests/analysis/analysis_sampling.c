/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_sampling.c -- §1-§2 beyond the reference rows: the threaded
 * sweep on a large input, zero-order hold and average sampling, windows,
 * volume conservation and the abstraction error; plan-cache reuse. */
#include <string.h>

#include "helpers.h"

/* Random requests in [0, span]; the first starts at 0 and the last ends at
 * span so the window is known exactly. */
static void random_requests(struct ftio_requests *r, size_t n, double span, unsigned seed)
{
    ftio_requests_push_bytes(r, 0, 1, 100);
    for (size_t i = 1; i + 1 < n; i++) {
        double ts = (double)rand_r(&seed) / RAND_MAX * (span - 5);
        double len = (double)rand_r(&seed) / RAND_MAX * 4;
        FTIO_CHECK(ftio_requests_push_bytes(r, ts, ts + len, 1 + rand_r(&seed) % 5000) == 0);
    }
    ftio_requests_push_bytes(r, span - 1, span, 100);
}

/* Enough requests for many buckets of the sweep. */
START_TEST(sweep_large_threaded)
{
    enum { N = 250000 };
    struct ftio_requests r = { 0 };
    random_requests(&r, N, 1000, 7);
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    ck_assert_uint_eq(s.n, 2 * N);
    for (size_t i = 1; i < s.n; i++)
        FTIO_CHECK(s.t[i - 1] <= s.t[i]);
    double total = 0;
    for (size_t i = 0; i < r.n; i++)
        total += r.rec[i].rate * (r.rec[i].t_end - r.rec[i].t_start);
    ck_assert_rel(ftio_signal_volume(&s), total, 1e-9);
    unsigned seed = 99;
    for (int probe = 0; probe < 100; probe++) {
        size_t i = (size_t)rand_r(&seed) % (s.n - 1);
        if (s.t[i] == s.t[i + 1])
            continue;
        double mid = (s.t[i] + s.t[i + 1]) / 2, want = 0;
        for (size_t j = 0; j < r.n; j++)
            if (r.rec[j].t_start <= mid && mid < r.rec[j].t_end)
                want += r.rec[j].rate;
        ck_assert_msg(fabs(s.b[i] - want) <= 1e-9 * fmax(1, want),
                      "B(%.6f) = %.9g, brute force %.9g", mid, s.b[i], want);
    }
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* Back-to-back requests in shuffled order, plus zero-width ones: ties go
 * to the starts, so B never dips between neighbours (and the in-place merge
 * of the threaded path is exercised on equal times). */
START_TEST(sweep_back_to_back_shuffled)
{
    enum { N = 150000 };
    size_t *order = malloc(N * sizeof *order);
    for (size_t i = 0; i < N; i++)
        order[i] = i;
    unsigned seed = 11;
    for (size_t i = N - 1; i > 0; i--) {
        size_t j = (size_t)rand_r(&seed) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    struct ftio_requests r = { 0 };
    for (size_t i = 0; i < N; i++) {
        double t = (double)order[i];
        ftio_requests_push_rate(&r, t, t + 1, 2);
        if (order[i] % 1000 == 0)
            ftio_requests_push_rate(&r, t + 0.5, t + 0.5, 7);   /* zero width */
    }
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    ck_assert_uint_eq(s.n, 2 * r.n);
    for (size_t i = 0; i + 1 < s.n; i++) {
        FTIO_CHECK(s.t[i] <= s.t[i + 1]);
        if (s.t[i] < s.t[i + 1])                     /* every segment of width > 0 */
            FTIO_CHECK_MSG(s.b[i] == (s.t[i] < N ? 2 : 0), "B(%g) = %g", s.t[i], s.b[i]);
    }
    ck_assert_double_eq(s.b[s.n - 1], 0);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
    free(order);
}
END_TEST

/* Sorted input takes the fast path and gives the same signal. */
START_TEST(sweep_sorted_input)
{
    struct ftio_requests r = { 0 };
    for (int i = 0; i < 1000; i++)
        ftio_requests_push_rate(&r, i, i + 2.5, 1);
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    ck_assert_uint_eq(s.n, 2000);
    /* Two or three requests overlap at any time from t = 3 on. */
    for (size_t i = 0; i + 1 < s.n; i++) {
        double mid = (s.t[i] + s.t[i + 1]) / 2;
        if (mid > 3 && mid < 999)
            ck_assert_double_eq(s.b[i], (mid - floor(mid) < 0.5) ? 3 : 2);
    }
    ftio_signal_free(&s);
    /* A request ending before it starts is refused by the sweep too. */
    r.rec[5].t_end = r.rec[5].t_start - 1;
    ck_assert_int_eq(ftio_signal_build(&r, &s), -1);
    ftio_requests_free(&r);
}
END_TEST

/* Hand-checked zero-order hold: B = 3 on [0,1), 5 on [1,2.5), 0 after. */
START_TEST(hold_by_hand)
{
    static const double ts[] = { 0, 1, 3 }, te[] = { 2.5, 2.5, 4 }, rate[] = { 3, 2, 0 };
    struct ftio_requests r = { 0 };
    struct ftio_signal s;
    sweep_rates(&r, &s, ts, te, rate, 3);
    struct ftio_samples x = { 0 };
    sample_ok(&s, 2, NAN, NAN, FTIO_SAMPLING_HOLD, &x);
    const double want[] = { 3, 3, 5, 5, 5, 0, 0, 0 };  /* t = 0, 0.5, ..., 3.5 */
    ck_assert_uint_eq(x.n, 8);
    for (size_t k = 0; k < 8; k++)
        ck_assert_double_eq(x.x[k], want[k]);
    /* V_0 = 3 + 7.5 = 10.5; V_a = (2*3 + 3*5) / 2 = 10.5. */
    ck_assert_double_eq_tol(x.exact_volume, 10.5, 1e-12);
    ck_assert_double_eq_tol(ftio_abstraction_error(&x), 0, 1e-12);
    /* Average of B over [2, 2.5) and [2.5, 3): 5 and 0; over [2.25,..]: */
    sample_ok(&s, 4, NAN, NAN, FTIO_SAMPLING_AVERAGE, &x);
    ck_assert_uint_eq(x.n, 16);
    ck_assert_double_eq_tol(x.x[0], 3, 1e-12);
    ck_assert_double_eq_tol(x.x[9], 5, 1e-12);
    ck_assert_double_eq_tol(x.x[10], 0, 1e-12);
    ftio_samples_free(&x);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* Bins straddling events get the exact mean, and volume is conserved. */
START_TEST(average_conserves_volume)
{
    struct ftio_requests r = { 0 };
    random_requests(&r, 5000, 50, 3);
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    struct ftio_samples x = { 0 };
    sample_ok(&s, 10, NAN, NAN, FTIO_SAMPLING_AVERAGE, &x);
    ck_assert_uint_eq(x.n, 500);
    ck_assert_double_eq(x.t0, 0);
    ck_assert_double_eq(x.t1, 50);
    double va = 0;
    for (size_t k = 0; k < x.n; k++)
        va += x.x[k] / x.fs;
    ck_assert_rel(va, ftio_signal_volume(&s), 1e-12);
    ck_assert(ftio_abstraction_error(&x) < 1e-12);
    /* Hold sampling of the same signal loses some volume: E > 0. */
    sample_ok(&s, 10, NAN, NAN, FTIO_SAMPLING_HOLD, &x);
    ck_assert(ftio_abstraction_error(&x) > 1e-6);
    ftio_samples_free(&x);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* -ts/-te keep events with ts <= T <= te. */
START_TEST(window_bounds)
{
    struct ftio_requests r = { 0 };              /* the synthetic-14 row (helpers.h) */
    struct ftio_signal s;
    sweep_rates(&r, &s, synthetic_14_ts, synthetic_14_te, synthetic_14_rate, 14);
    struct ftio_samples x = { 0 };
    sample_ok(&s, 10, 9.9, 40, FTIO_SAMPLING_HOLD, &x);
    ck_assert_double_eq(x.t0, 10);
    ck_assert_double_eq(x.t1, 40);
    ck_assert_uint_eq(x.n, 300);
    ck_assert_double_eq(x.x[0], 1000);      /* B right after the start at 10 */
    /* [compat] the accumulated t_step reaches 10.499999999999998, not 10.5:
     * sample 5 still holds the old value, sample 6 sees both ranks. */
    ck_assert_double_eq(x.x[5], 1000);
    ck_assert_double_eq(x.x[6], 2000);
    char err[128];
    ck_assert_int_eq(ftio_sample(&s, 10, 70, NAN, FTIO_SAMPLING_HOLD, &x, err, sizeof err), -1);
    ck_assert_str_eq(err, "no I/O in the analysis window");
    ck_assert_int_eq(ftio_sample(&s, 10, 64.9, NAN, FTIO_SAMPLING_HOLD, &x, err, sizeof err), -1);
    ck_assert_str_eq(err, "trace shorter than one sample at fs=10 Hz; raise -f");
    ftio_samples_free(&x);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* One analyzer, many sizes (more than its plan cache holds), same answers
 * as a fresh analyzer each time. */
START_TEST(analyzer_reuse)
{
    struct ftio_analyzer *shared = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_compat(&o);
    o.autocorrelation = true;
    char err[128];
    for (int round = 0; round < 2; round++) {
        for (size_t n = 200; n < 2000; n += 137) {
            double *v = malloc(n * sizeof *v);
            for (size_t k = 0; k < n; k++)
                v[k] = 100 + 100 * cos(2 * M_PI * (double)k / 40);  /* 4 s at 10 Hz */
            struct ftio_samples x = samples_of(v, n, 10, 5);
            struct ftio_result r1, r2;
            struct ftio_analyzer *fresh = ftio_analyzer_new();
            ck_assert_int_eq(ftio_analyze(shared, &x, &o, x.t1, &r1, err, sizeof err), 0);
            ck_assert_int_eq(ftio_analyze(fresh, &x, &o, x.t1, &r2, err, sizeof err), 0);
            ck_assert(memcmp(&r1, &r2, sizeof r1) == 0);
            ck_assert(r1.has_period);
            ck_assert_double_eq_tol(r1.dominant.period, 4, 0.25);
            ftio_analyzer_free(fresh);
            ftio_samples_free(&x);
            free(v);
        }
    }
    ftio_analyzer_free(shared);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("analysis-sampling", "sampling", &tc,
                          sweep_large_threaded, sweep_back_to_back_shuffled, sweep_sorted_input,
                          hold_by_hand, average_conserves_volume, window_bounds, analyzer_reuse);
    tcase_set_timeout(tc, 60);
    return s;
}
