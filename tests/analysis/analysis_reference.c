/* SPDX-License-Identifier: BSD-3-Clause */
/* test_reference.c -- the event sweep, sampling, spectrum and detection
 * against the reference numbers of ALGORITHM.md §1 and §8 and the
 * intermediate vectors of the published implementation. */
#include <string.h>

#include "helpers.h"
#include "analysis/analysis_internal.h"

#define VEC "tests/data/vectors/tmio-8ranks-f10/"

START_TEST(sweep_example)
{
    static const double ts[] = { 0, 2, 4 }, te[] = { 10, 8, 6 }, rate[] = { 10, 20, 30 };
    struct ftio_requests r = { 0 };
    struct ftio_signal s;
    sweep_rates(&r, &s, ts, te, rate, 3);
    const double T[] = { 0, 2, 4, 6, 8, 10 }, B[] = { 10, 30, 60, 30, 10, 0 };
    assert_events(&s, T, B, 6);
    ck_assert_double_eq(ftio_signal_volume(&s), 10 * 10 + 20 * 6 + 30 * 2);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* Starts before ends on equal times: no dip to 0 between back-to-back
 * requests; and input order does not matter. */
START_TEST(sweep_ties_and_order)
{
    static const double ts[] = { 5, 3, -1 }, te[] = { 7, 5, 1 }, rate[] = { 4, 4, 2 };  /* negative times sort too */
    struct ftio_requests r = { 0 };
    struct ftio_signal s;
    sweep_rates(&r, &s, ts, te, rate, 3);
    const double T[] = { -1, 1, 3, 5, 5, 7 }, B[] = { 2, 0, 4, 8, 4, 0 };
    assert_events(&s, T, B, 6);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* Zero-length requests keep their bytes (1 us duration); bad ones fail. */
START_TEST(requests_bytes)
{
    struct ftio_requests r = { 0 };
    ck_assert_int_eq(ftio_requests_push_bytes(&r, 2, 2, 1000), 0);
    ck_assert_int_eq(ftio_requests_push_bytes(&r, 0, 4, 400), 0);
    ck_assert_int_eq(ftio_requests_push_bytes(&r, 5, 4, 1), -1);
    ck_assert_int_eq(ftio_requests_push_rate(&r, NAN, 4, 1), -1);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_double_eq_tol(r.rec[0].rate * (r.rec[0].t_end - r.rec[0].t_start), 1000, 1e-6);
    ck_assert_double_eq(r.rec[1].rate, 100);
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    ck_assert_double_eq_tol(ftio_signal_volume(&s), 1400, 1e-6);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* Larger random input: the sweep equals a brute-force evaluation of B. */
START_TEST(sweep_random_matches_bruteforce)
{
    enum { N = 3000 };
    struct ftio_requests r = { 0 };
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        double ts = (rand_r(&seed) % 100000) / 1000.0;
        double te = ts + (rand_r(&seed) % 5000) / 1000.0;
        ftio_requests_push_rate(&r, ts, te, 1 + rand_r(&seed) % 7);
    }
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    ck_assert_uint_eq(s.n, 2 * N);
    for (size_t i = 1; i < s.n; i++)
        ck_assert(s.t[i - 1] <= s.t[i]);
    for (size_t i = 0; i + 1 < s.n; i += 37) {
        if (s.t[i] == s.t[i + 1])
            continue;
        double mid = (s.t[i] + s.t[i + 1]) / 2, want = 0;
        for (int j = 0; j < N; j++)
            if (r.rec[j].t_start <= mid && mid < r.rec[j].t_end)
                want += r.rec[j].rate;
        ck_assert_double_eq_tol(s.b[i], want, 1e-9);
    }
    ck_assert_double_eq_tol(s.b[s.n - 1], 0, 1e-9);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* The published implementation's vectors, step by step. */
START_TEST(tmio_vectors)
{
    size_t nt, nb, ns, na, nc;
    double *t = load_column(VEC "app_t.txt", &nt);
    double *b = load_column(VEC "app_b.txt", &nb);
    double *bs = load_column(VEC "b_sampled.txt", &ns);
    double *amp = load_column(VEC "amp_half.txt", &na);
    double *conf = load_column(VEC "conf_half.txt", &nc);
    ck_assert_uint_eq(nt, nb);
    struct ftio_signal sig = { nt, t, b };
    struct ftio_samples x = { 0 };
    char err[256];
    ck_assert_int_eq(ftio_sample(&sig, 10, NAN, NAN, FTIO_SAMPLING_HOLD, &x, err, sizeof err), 0);
    ck_assert_uint_eq(x.n, 289);
    ck_assert_uint_eq(ns, 289);
    ck_assert_double_eq_tol(x.t0, 0.05309, 1e-12);
    ck_assert_double_eq_tol(x.t1, 28.982125, 1e-12);
    for (size_t k = 0; k < ns; k++)
        ck_assert_msg(fabs(x.x[k] - bs[k]) <= 1e-9 * fmax(1, fabs(bs[k])),
                      "sample %zu: %.12g vs %.12g", k, x.x[k], bs[k]);
    ck_assert(ftio_abstraction_error(&x) >= 0);

    struct ftio_options o;
    ftio_options_compat(&o);
    o.top_n = (int)na;                          /* all bins, to compare |X_k| */
    if (o.top_n > FTIO_MAX_CANDIDATES)
        o.top_n = FTIO_MAX_CANDIDATES;
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_result res;
    ck_assert_int_eq(ftio_analyze(a, &x, &o, x.t1, &res, err, sizeof err), 0);
    ck_assert_uint_eq(res.samples, 289);
    ck_assert_uint_eq(na, 289 / 2 + 1);
    /* Top bins carry |X_k| and conf of their bin: compare with the vectors. */
    for (size_t i = 0; i < res.ntop; i++) {
        size_t k = res.top[i].bin;
        ck_assert_rel(res.top[i].amplitude, amp[k], 1e-6);
        if (k > 0)
            ck_assert_abs(res.top[i].confidence, conf[k - 1], 1e-6);
        if (i > 0)
            ck_assert(res.top[i].amplitude <= res.top[i - 1].amplitude);
    }
    ck_assert_uint_eq(res.ncand, 1);
    ck_assert_int_eq(res.cls, FTIO_CLASS_PERIODIC);
    ck_assert(res.has_period);
    ck_assert_uint_eq(res.dominant.bin, 15);
    ck_assert_rel(res.dominant.frequency, 0.519031142, 1e-6);
    ck_assert_abs(res.dominant.confidence, 0.677441493, 1e-6);
    ck_assert_rel(res.dominant.amplitude, 4259.3646, 1e-6);
    ck_assert_rel(res.dominant.period, 1.9267, 1e-4);
    ck_assert_str_eq(ftio_class_name(res.cls), "periodic");

    /* -n 5 of §8. */
    o.top_n = 5;
    ck_assert_int_eq(ftio_analyze(a, &x, &o, x.t1, &res, err, sizeof err), 0);
    const double top5[] = { 0, 0.519031, 1.072664, 4.152249, 0.069204 };
    ck_assert_uint_eq(res.ntop, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_abs(res.top[i].frequency, top5[i], 1e-6);

    ftio_analyzer_free(a);
    ftio_samples_free(&x);
    free(t); free(b); free(bs); free(amp); free(conf);
}
END_TEST

/* Every bin of the spectrum and of the confidence vector against the
 * reference (through the internal interface: -n stops at 32 bins). */
START_TEST(tmio_full_spectrum)
{
    size_t nt, nb, na, nc;
    double *t = load_column(VEC "app_t.txt", &nt);
    double *b = load_column(VEC "app_b.txt", &nb);
    double *amp = load_column(VEC "amp_half.txt", &na);
    double *conf = load_column(VEC "conf_half.txt", &nc);
    struct ftio_signal sig = { nt, t, b };
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    char err[256];
    ck_assert_int_eq(ftio_sample(&sig, 10, NAN, NAN, FTIO_SAMPLING_HOLD, &x, err, sizeof err), 0);
    struct ftio_spectrum *sp;
    ck_assert_int_eq(ftio_spectrum_compute(a, &x, &sp), 0);
    ftio_spectrum_amplitudes(sp);
    ck_assert_uint_eq(sp->half + 1, na);
    ck_assert_uint_eq(sp->half, nc);
    for (size_t k = 0; k <= sp->half; k++)
        ck_assert_msg(fabs(sp->amp[k] - amp[k]) <= 1e-6 * amp[k] + 1e-9,
                      "|X_%zu| = %.12g, reference %.12g", k, sp->amp[k], amp[k]);
    struct ftio_result res;
    memset(&res, 0, sizeof res);
    ftio_detect(sp, &o, &res);
    size_t nonzero = 0;
    for (size_t k = 1; k <= sp->half; k++) {
        ck_assert_msg(fabs(sp->conf[k] - conf[k - 1]) <= 1e-6,
                      "conf_%zu = %.12g, reference %.12g", k, sp->conf[k], conf[k - 1]);
        nonzero += sp->conf[k] != 0;
    }
    ck_assert_uint_eq(nonzero, 4);
    ftio_analyzer_free(a);
    ftio_samples_free(&x);
    free(t); free(b); free(amp); free(conf);
}
END_TEST

/* The event sweep and offline analysis of a row's requests. */
static void sweep_path(const struct reference_row *row, const struct ftio_requests *r,
                       struct ftio_result *res)
{
    (void)row;
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_analyzer *a = ftio_analyzer_new();
    char err[256];
    ck_assert_msg(ftio_analyze_requests(a, r, &o, res, err, sizeof err) == 0, "%s", err);
    ftio_analyzer_free(a);
}

/* The rows of ALGORITHM.md §8 (helpers.h) through the event sweep: their
 * requests analysed offline give the published numbers. */
START_TEST(reference_rows_sweep)
{
    check_reference_row(reference_rows[_i], sweep_path);
}
END_TEST

/* N <= 0 is the spec's error, and an empty window is an error too. */
START_TEST(too_short)
{
    struct ftio_requests r = { 0 };
    ftio_requests_push_rate(&r, 1.0, 1.05, 100);
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_result res;
    char err[256] = "";
    ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err, sizeof err), -1);
    ck_assert_str_eq(err, "trace shorter than one sample at fs=10 Hz; raise -f");
    o.fs = 100;
    ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err, sizeof err), 0);
    ck_assert_uint_eq(res.samples, 5);
    o.t_start = 5;
    ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err, sizeof err), -1);
    ck_assert_str_eq(err, "no I/O in the analysis window");
    struct ftio_requests empty = { 0 };
    ck_assert_int_eq(ftio_analyze_requests(a, &empty, &o, &res, err, sizeof err), -1);
    o.fs = 0;
    o.t_start = NAN;
    ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err, sizeof err), -1);
    ck_assert(strstr(err, "sampling frequency") != NULL);
    ftio_analyzer_free(a);
    ftio_requests_free(&r);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("analysis-reference", "reference", &tc,
                          sweep_example, sweep_ties_and_order, requests_bytes,
                          sweep_random_matches_bruteforce, tmio_vectors, tmio_full_spectrum,
                          too_short);
    tcase_add_loop_test(tc, reference_rows_sweep, 0, N_REFERENCE_ROWS);
    return s;
}
