/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_online.c -- the daemon's helpers: streaming bins (agreement with
 * the event sweep + average sampling, ring horizon), the adaptive and fixed
 * windows (§6 frequency hits) and the frequency history / P(periodic). */
#include <string.h>

#include "helpers.h"

#define VEC "tests/data/vectors/tmio-8ranks-f10/"

/* The [compat] analysis of the sweep's samples a and of the bins' samples b. */
static void analyze_both(const struct ftio_samples *a, const struct ftio_samples *b,
                         struct ftio_result *ra, struct ftio_result *rb)
{
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_analyzer *an = ftio_analyzer_new();
    char err[128];
    ck_assert_msg(ftio_analyze(an, a, &o, a->t1, ra, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(ftio_analyze(an, b, &o, b->t1, rb, err, sizeof err) == 0, "%s", err);
    ftio_analyzer_free(an);
}

/* Bins fed out of order equal the sweep + average sampling, bin for bin. */
START_TEST(bins_match_sweep)
{
    enum { N = 4000 };
    struct ftio_requests r = { 0 };
    unsigned seed = 5;
    for (int i = 0; i < N; i++) {
        double ts = 3 + (double)rand_r(&seed) / RAND_MAX * 200;
        double len = (i % 10 == 0) ? 0 : (double)rand_r(&seed) / RAND_MAX * 3;
        ftio_requests_push_bytes(&r, ts, ts + len, 1 + rand_r(&seed) % 100000);
    }
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    struct ftio_samples a = { 0 }, b = { 0 };
    sample_ok(&s, 10, NAN, NAN, FTIO_SAMPLING_AVERAGE, &a);

    struct ftio_bins bins;
    ck_assert_int_eq(ftio_bins_init(&bins, 10, s.t[0], 4096), 0);
    for (size_t i = r.n; i-- > 0;)       /* reverse order: arrival order is irrelevant */
        ftio_bins_add(&bins, r.rec[i].t_start, r.rec[i].t_end,
                      r.rec[i].rate * (r.rec[i].t_end - r.rec[i].t_start));
    ck_assert_int_eq(ftio_bins_samples(&bins, s.t[0], s.t[s.n - 1], &b), 0);
    ck_assert_uint_eq(b.n, a.n);
    ck_assert_double_eq(b.t0, a.t0);
    /* Zero-length requests (1 us at ~1e11 B/s) cost the running sum of the
     * sweep some cancellation: compare relative to the peak bandwidth. */
    double peak = 0;
    for (size_t i = 0; i < s.n; i++)
        peak = fmax(peak, fabs(s.b[i]));
    for (size_t k = 0; k < a.n; k++)
        ck_assert_msg(fabs(a.x[k] - b.x[k]) <= 1e-9 * fabs(a.x[k]) + 1e-15 * peak,
                      "bin %zu: sweep %.12g, bins %.12g", k, a.x[k], b.x[k]);
    ck_assert_double_eq(bins.dropped_bytes, 0);

    struct ftio_result ra, rb;
    analyze_both(&a, &b, &ra, &rb);
    ck_assert_uint_eq(ra.ncand, rb.ncand);
    ck_assert_uint_eq(ra.dominant.bin, rb.dominant.bin);
    ftio_bins_free(&bins);
    ftio_samples_free(&a);
    ftio_samples_free(&b);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* The reference application signal of tmio-8ranks, replayed as requests
 * (one per step), detects the same period through bins as through the
 * sweep with average sampling (1.0727 Hz, k = 31: averaging removes the
 * aliasing that makes the [compat] hold sampling report 0.519 Hz). */
START_TEST(bins_reference_signal)
{
    size_t nt, nb;
    double *t = load_column(VEC "app_t.txt", &nt);
    double *bw = load_column(VEC "app_b.txt", &nb);
    struct ftio_signal sig = { nt, t, bw };
    struct ftio_samples a = { 0 }, b = { 0 };
    sample_ok(&sig, 10, NAN, NAN, FTIO_SAMPLING_AVERAGE, &a);
    struct ftio_bins bins;
    ck_assert_int_eq(ftio_bins_init(&bins, 10, t[0], 1000), 0);
    for (size_t i = 0; i + 1 < nt; i++)
        if (t[i + 1] > t[i])
            ftio_bins_add(&bins, t[i], t[i + 1], bw[i] * (t[i + 1] - t[i]));
    ck_assert_int_eq(ftio_bins_samples(&bins, NAN, t[nt - 1], &b), 0);
    ck_assert_uint_eq(b.n, 289);
    struct ftio_result ra, rb;
    analyze_both(&a, &b, &ra, &rb);
    ck_assert(ra.has_period && rb.has_period);
    ck_assert_uint_eq(ra.dominant.bin, 31);
    ck_assert_uint_eq(rb.dominant.bin, 31);
    ck_assert_double_eq_tol(ra.dominant.confidence, rb.dominant.confidence, 1e-9);
    ck_assert_double_eq_tol(ra.volume, rb.volume, 1e-6);
    ftio_bins_free(&bins);
    ftio_samples_free(&a);
    ftio_samples_free(&b);
    free(t);
    free(bw);
}
END_TEST

/* The ring: 10 bins of 1 s.  [0,5) 500 B fills bins 0-4; [20,21) 7 B moves
 * the horizon to bin 11; late bytes before it are counted as dropped. */
START_TEST(bins_ring_horizon)
{
    struct ftio_bins b;
    ck_assert_int_eq(ftio_bins_init(&b, 1, 0, 10), 0);
    ftio_bins_add(&b, 0, 5, 500);
    struct ftio_samples x = { 0 };
    ck_assert_int_eq(ftio_bins_samples(&b, NAN, NAN, &x), 0);
    ck_assert_uint_eq(x.n, 5);
    for (size_t k = 0; k < 5; k++)
        ck_assert_double_eq_tol(x.x[k], 100, 1e-12);
    ftio_bins_add(&b, 20, 21, 7);
    ck_assert_int_eq(b.first, 11);
    ck_assert_int_eq(b.last, 21);
    ftio_bins_add(&b, 3, 4, 50);              /* entirely before the horizon */
    ftio_bins_add(&b, 9, 13, 40);             /* 20 B before, 10 B in bins 11, 12 */
    ck_assert_double_eq_tol(b.dropped_bytes, 70, 1e-12);
    ck_assert_int_eq(ftio_bins_samples(&b, NAN, NAN, &x), 0);
    ck_assert_uint_eq(x.n, 10);
    ck_assert_double_eq(x.t0, 11);
    ck_assert_double_eq(x.t1, 21);
    ck_assert_double_eq_tol(x.x[0], 10, 1e-12);
    ck_assert_double_eq_tol(x.x[1], 10, 1e-12);
    ck_assert_double_eq_tol(x.x[2], 0, 1e-12);    /* old bin 3's slot was cleared */
    ck_assert_double_eq_tol(x.x[9], 7, 1e-12);
    /* A window inside the ring, and one outside it. */
    ck_assert_int_eq(ftio_bins_samples(&b, 12, 15.5, &x), 0);
    ck_assert_uint_eq(x.n, 3);
    ck_assert_double_eq(x.t0, 12);
    ck_assert_int_eq(ftio_bins_samples(&b, 30, 40, &x), -1);
    /* Bad records are accounted, never lost silently; zero-length ones kept. */
    ftio_bins_add(&b, 18, 17, 5);
    ck_assert_double_eq_tol(b.dropped_bytes, 75, 1e-12);
    ftio_bins_add(&b, 19.5, 19.5, 8);
    ck_assert_int_eq(ftio_bins_samples(&b, NAN, NAN, &x), 0);
    ck_assert_double_eq_tol(x.x[8], 8, 1e-9);
    /* A request far in the future slides the ring past everything. */
    ftio_bins_add(&b, 1000, 1001, 1);
    ck_assert_int_eq(ftio_bins_samples(&b, NAN, NAN, &x), 0);
    ck_assert_uint_eq(x.n, 10);
    double sum = 0;
    for (size_t k = 0; k < x.n; k++)
        sum += x.x[k];
    ck_assert_double_eq_tol(sum, 1, 1e-12);
    ftio_samples_free(&x);
    ftio_bins_free(&b);
    ck_assert_int_eq(ftio_bins_init(&b, 0, 0, 10), -1);
    ck_assert_int_eq(ftio_bins_init(&b, 1, 0, 0), -1);
}
END_TEST

static struct ftio_result result_with(size_t ncand, double f, double t0, double t1)
{
    struct ftio_result r;
    memset(&r, 0, sizeof r);
    r.t0 = t0;
    r.t1 = t1;
    r.ncand = ncand;
    r.has_period = ncand >= 1 && ncand <= 2;
    r.dominant.frequency = r.has_period ? f : 0;
    return r;
}

/* Feeds the window the analysis r at each time at[i][0]: it must then
 * start at at[i][1]. */
static void updates(struct ftio_window *w, const struct ftio_result *r, const double at[][2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double start = ftio_window_update(w, r, at[i][0]);
        ck_assert_msg(start == at[i][1], "at %g: window from %.12g, expected %.12g", at[i][0], start,
                      at[i][1]);
    }
}

/* [compat] frequency hits: the 4th consecutive single-candidate analysis
 * shrinks the window to the last 3 periods; anything else resets it. */
START_TEST(window_hits)
{
    struct ftio_window w;
    ftio_window_init(&w, 100, 0);
    struct ftio_result hit = result_with(1, 0.5, 100, 0);
    updates(&w, &hit, (const double[][2]){ { 110, 100 }, { 120, 100 }, { 130, 100 } }, 3);
    ck_assert_int_eq(w.hits, 3);
    updates(&w, &hit, (const double[][2]){ { 140, 134 }, { 150, 144 } }, 2);   /* 140 - 3/0.5 */
    struct ftio_result two = result_with(2, 0.5, 100, 0);
    ck_assert_double_eq(ftio_window_update(&w, &two, 160), 100);
    ck_assert_int_eq(w.hits, 0);
    struct ftio_result none = result_with(0, 0, 100, 0);
    for (int i = 0; i < 4; i++)
        ftio_window_update(&w, &hit, 170 + i);
    ck_assert_double_eq(w.start, 173 - 6);
    ck_assert_double_eq(ftio_window_update(&w, &none, 180), 100);
    /* Never before the job start. */
    struct ftio_result slow = result_with(1, 0.01, 100, 0);
    for (int i = 0; i < 4; i++)
        ftio_window_update(&w, &slow, 200);
    ck_assert_double_eq(w.start, 100);
}
END_TEST

START_TEST(window_fixed)
{
    struct ftio_window w;
    ftio_window_init(&w, 5, 30);
    struct ftio_result hit = result_with(1, 0.5, 5, 0);
    updates(&w, &hit, (const double[][2]){ { 20, 5 }, { 50, 20 } }, 2);
    for (int i = 0; i < 5; i++)
        ftio_window_update(&w, &hit, 60);
    ck_assert_double_eq(w.start, 30);     /* hits never shrink a fixed window */
}
END_TEST

/* Groups within one frequency step 1/dt; P(periodic) = share with a period. */
START_TEST(history_groups)
{
    struct ftio_history h;
    memset(&h, 0, sizeof h);
    ck_assert_double_eq(ftio_history_p_periodic(&h), 0);
    struct ftio_result r = result_with(1, 0.1, 0, 100);       /* step 0.01 Hz */
    ftio_history_add(&h, &r);
    r = result_with(1, 0.105, 0, 100);
    ftio_history_add(&h, &r);
    r = result_with(2, 0.2, 0, 100);
    ftio_history_add(&h, &r);
    r = result_with(0, 0, 0, 100);
    ftio_history_add(&h, &r);
    r = result_with(1, 0.114, 0, 100);                       /* within 0.01 of 0.105 */
    ftio_history_add(&h, &r);
    ck_assert_uint_eq(h.analyses, 5);
    ck_assert_uint_eq(h.periodic, 4);
    ck_assert_double_eq_tol(ftio_history_p_periodic(&h), 0.8, 1e-12);
    ck_assert_uint_eq(h.ngroups, 2);
    ck_assert_double_eq(h.group[0].f_min, 0.1);
    ck_assert_double_eq(h.group[0].f_max, 0.114);
    ck_assert_uint_eq(h.group[0].count, 3);
    ck_assert_double_eq(h.group[1].f_min, 0.2);
    ck_assert_uint_eq(h.group[1].count, 1);
    /* A full table absorbs new frequencies into the nearest group. */
    for (int i = 0; i < 40; i++) {
        r = result_with(1, 1.0 + i, 0, 100);
        ftio_history_add(&h, &r);
    }
    ck_assert_uint_eq(h.ngroups, FTIO_MAX_GROUPS);
    unsigned total = 0;
    for (size_t i = 0; i < h.ngroups; i++)
        total += h.group[i].count;
    ck_assert_uint_eq(total, h.periodic);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-online", "online", NULL,
                      bins_match_sweep, bins_reference_signal, bins_ring_horizon, window_hits,
                      window_fixed, history_groups);
}
