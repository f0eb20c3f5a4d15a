/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_metrics.c -- §3 classes and harmonics on hand-built spectra,
 * §4 characterisation, §5 next phase and its self-scoring, §7 ACF.
 * Every expected number is worked out by hand in the comments. */
#include <string.h>

#include "helpers.h"
#include "analysis/analysis_internal.h"

/* Square wave at fs = 10 Hz: `periods` periods of 10 s, high (`level`) for
 * the first `high` samples of each 100. */
static double *square(size_t periods, size_t high, double level, size_t *n)
{
    *n = periods * 100;
    double *v = malloc(*n * sizeof *v);
    for (size_t k = 0; k < *n; k++)
        v[k] = (k % 100) < high ? level : 0;
    return v;
}

static void analyze(const double *v, size_t n, double t0, struct ftio_options *o,
                    struct ftio_result *r)
{
    struct ftio_samples x = samples_of(v, n, 10, t0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    char err[128];
    ck_assert_int_eq(ftio_analyze(a, &x, o, x.t1, r, err, sizeof err), 0);
    ftio_analyzer_free(a);
    ftio_samples_free(&x);
}

/* The §4 metrics worked out by hand; per-phase values NAN: not checked. */
struct metrics_want {
    double r_io, b_io, sigma_vol, sigma_time, periodicity, phase_bytes, phase_duration;
};

static void assert_metrics(const struct ftio_metrics *m, const struct metrics_want *w)
{
    ck_assert(m->valid && m->sigma_valid);
    ck_assert_double_eq_tol(m->r_io, w->r_io, 1e-12);
    ck_assert_double_eq_tol(m->b_io, w->b_io, 1e-9);
    ck_assert_double_eq_tol(m->sigma_vol, w->sigma_vol, 1e-12);
    ck_assert_double_eq_tol(m->sigma_time, w->sigma_time, 1e-12);
    ck_assert_double_eq_tol(m->periodicity, w->periodicity, 1e-12);
    if (!isnan(w->phase_bytes))
        ck_assert_double_eq_tol(m->phase_bytes, w->phase_bytes, 1e-9);
    if (!isnan(w->phase_duration))
        ck_assert_double_eq_tol(m->phase_duration, w->phase_duration, 1e-9);
}

/* The square wave of these tests, square(10, 30, 500), analysed from t0 = 0
 * with the [compat] options (*o, for another run). */
static double *square_analyzed(size_t *n, struct ftio_options *o, struct ftio_result *r)
{
    double *v = square(10, 30, 500, n);
    ftio_options_compat(o);
    analyze(v, *n, 0, o, r);
    return v;
}

/* 10 periods of 10 s, 3 s at 500 B/s: V = 15000 B over dt = 100 s, so
 * Bbar = 150; the 300 high samples are substantial: R_IO = 0.3, B_IO = 500;
 * every period moves 1500 B in 3 s: sigma_vol = sigma_time = 0,
 * periodicity 1, volume per phase 15000 / (100 * 0.1) = 1500, time in I/O
 * per phase 0.3 / 0.1 = 3 s. */
START_TEST(square_wave_metrics)
{
    size_t n;
    struct ftio_options o;
    struct ftio_result r;
    double *v = square_analyzed(&n, &o, &r);
    ck_assert(r.has_period);
    ck_assert_uint_eq(r.ncand, 1);
    ck_assert_uint_eq(r.dominant.bin, 10);
    ck_assert_double_eq_tol(r.dominant.frequency, 0.1, 1e-12);
    ck_assert_double_eq_tol(r.volume, 15000, 1e-9);
    assert_metrics(&r.metrics, &(struct metrics_want){ .r_io = 0.3, .b_io = 500, .sigma_vol = 0,
                                                       .sigma_time = 0, .periodicity = 1,
                                                       .phase_bytes = 1500, .phase_duration = 3 });
    free(v);
}
END_TEST

/* Uneven volumes, f_d given: 4 periods of 10 s, 3 s high at 400, 400,
 * 800, 800.  V = 7200, dt = 40, Bbar = 180: all 120 high samples are
 * substantial, R_IO = 0.3, B_IO = (60*400 + 60*800)/120 = 600.
 * V_i = 1200, 1200, 2400, 2400: mean 1800, std 600, sigma_vol = 1/3;
 * tau_i * f = 0.3 each: sigma_time = 0; periodicity = 1 - 1/6 = 5/6;
 * volume per phase 7200 / 4 = 1800, time per phase 3 s. */
START_TEST(uneven_volumes)
{
    double v[400];
    const double level[] = { 400, 400, 800, 800 };
    for (size_t k = 0; k < 400; k++)
        v[k] = (k % 100) < 30 ? level[k / 100] : 0;
    struct ftio_samples x = samples_of(v, 400, 10, 0);
    struct ftio_metrics m;
    ftio_metrics_compute(&x, ftio_samples_volume(&x), 0.1, &m);
    assert_metrics(&m, &(struct metrics_want){ .r_io = 0.3, .b_io = 600, .sigma_vol = 1.0 / 3,
                                               .sigma_time = 0, .periodicity = 5.0 / 6,
                                               .phase_bytes = 1800, .phase_duration = 3 });
    ftio_samples_free(&x);
}
END_TEST

/* Uneven durations: 2 periods of 10 s at 1000 B/s for 2 s then 4 s.
 * V = 6000, dt = 20, Bbar = 300, 60 substantial samples: R_IO = 0.3,
 * B_IO = 1000.  V_i = 2000, 4000: sigma_vol = 1000/3000 = 1/3;
 * tau_i * f = 0.2, 0.4: sigma_time = 0.1; periodicity = 1 - (1/3+0.1)/2. */
START_TEST(uneven_durations)
{
    double v[200];
    for (size_t k = 0; k < 200; k++)
        v[k] = (k % 100) < (k < 100 ? 20u : 40u) ? 1000 : 0;
    struct ftio_samples x = samples_of(v, 200, 10, 0);
    struct ftio_metrics m;
    ftio_metrics_compute(&x, ftio_samples_volume(&x), 0.1, &m);
    assert_metrics(&m, &(struct metrics_want){ .r_io = 0.3, .b_io = 1000, .sigma_vol = 1.0 / 3,
                                               .sigma_time = 0.1,
                                               .periodicity = 1 - (1.0 / 3 + 0.1) / 2,
                                               .phase_bytes = NAN, .phase_duration = NAN });
    /* Fewer than two whole periods: no sigmas. */
    x.n = 150;
    x.t1 = 15;
    ftio_metrics_compute(&x, ftio_samples_volume(&x), 0.1, &m);
    ck_assert(m.valid);
    ck_assert(!m.sigma_valid);
    /* No frequency: nothing valid. */
    ftio_metrics_compute(&x, ftio_samples_volume(&x), 0, &m);
    ck_assert(!m.valid);
    ftio_samples_free(&x);
}
END_TEST

/* The square wave's high samples sit at t = 0 .. 2.9 s of each period, so
 * the dominant cosine peaks at their centre 1.45 s (+10 s j), phase referred
 * to absolute time 0.  Shifting the whole signal by t0 = 7 s (samples at
 * 7 + k/10) moves the peaks to 8.45 + 10 j. */
START_TEST(next_phase)
{
    size_t n;
    struct ftio_options o;
    struct ftio_result r;
    double *v = square_analyzed(&n, &o, &r);
    ck_assert(r.next.valid);
    double centre = 101.45;
    ck_assert_double_eq_tol((r.next.start + r.next.end) / 2, centre, 1e-9);
    ck_assert_double_eq_tol(r.next.end - r.next.start, 3, 1e-9);
    ck_assert_double_eq_tol(r.next.bytes, 1500, 1e-9);
    analyze(v, n, 7, &o, &r);
    ck_assert_double_eq_tol((r.next.start + r.next.end) / 2, 108.45, 1e-9);

    /* Self-scoring against what then happened: 11 periods observed from
     * t0 = 0; the first substantial sample at or after the predicted start
     * 99.95 s is the one at 100 s. */
    analyze(v, n, 0, &o, &r);
    size_t n2;
    double *v2 = square(11, 30, 500, &n2);
    struct ftio_samples later = samples_of(v2, n2, 10, 0);
    double actual, error;
    ck_assert_int_eq(ftio_next_phase_score(&r.next, &later, &actual, &error), 0);
    ck_assert_double_eq_tol(actual, 100, 1e-9);
    ck_assert_double_eq_tol(error, 0.05, 1e-9);
    /* Not observed yet: no score. */
    struct ftio_samples before = samples_of(v, 995, 10, 0);
    ck_assert_int_eq(ftio_next_phase_score(&r.next, &before, &actual, &error), -1);
    ftio_samples_free(&before);
    ftio_samples_free(&later);
    free(v2);
    free(v);
}
END_TEST

/* ACF of the square wave: peaks every 100 lags, heights 0.9, 0.8, ... above
 * 0.15, so a 10 s period with confidence 1, in agreement with the DFT. */
START_TEST(acf_square_wave)
{
    size_t n;
    double *v = square(10, 30, 500, &n);
    struct ftio_options o;
    ftio_options_compat(&o);
    o.autocorrelation = true;
    struct ftio_result r;
    analyze(v, n, 0, &o, &r);
    ck_assert(r.acf.valid);
    ck_assert_double_eq_tol(r.acf.period, 10, 1e-9);
    ck_assert_double_eq_tol(r.acf.confidence, 1, 1e-9);
    ck_assert(r.acf.agrees);

    /* The FFT-based ACF equals the direct O(N^2) sum (checked here only). */
    struct ftio_samples x = samples_of(v, n, 10, 0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    const double *acf;
    ck_assert_int_eq(ftio_acf_compute(a, &x, &acf), 0);
    double mean = 0, var = 0;
    for (size_t k = 0; k < n; k++)
        mean += v[k] / (double)n;
    for (size_t k = 0; k < n; k++)
        var += (v[k] - mean) * (v[k] - mean);
    for (size_t lag = 0; lag < n; lag += 7) {
        double c = 0;
        for (size_t k = 0; k + lag < n; k++)
            c += (v[k] - mean) * (v[k + lag] - mean);
        ck_assert_double_eq_tol(acf[lag], c / var, 1e-9);
    }
    ftio_analyzer_free(a);
    ftio_samples_free(&x);

    /* A 4 s square wave analysed at 10 s DFT resolution still agrees. */
    double w[1000];
    for (size_t k = 0; k < 1000; k++)
        w[k] = (k % 40) < 12 ? 200 : 0;
    analyze(w, 1000, 0, &o, &r);
    ck_assert(r.has_period && r.acf.valid);
    ck_assert_double_eq_tol(r.dominant.period, 4, 1e-9);
    ck_assert_double_eq_tol(r.acf.period, 4, 1e-9);
    ck_assert(r.acf.agrees);
    free(v);
}
END_TEST

/* Constant and zero signals: no candidates, no period, no crash. */
START_TEST(flat_signals)
{
    double v[100];
    struct ftio_options o;
    ftio_options_compat(&o);
    o.autocorrelation = true;
    o.top_n = 3;
    struct ftio_result r;
    for (int level = 0; level < 2; level++) {
        for (int k = 0; k < 100; k++)
            v[k] = level * 42.0;
        analyze(v, 100, 0, &o, &r);
        ck_assert(!r.has_period);
        ck_assert_int_eq(r.cls, FTIO_CLASS_NONE);
        ck_assert_uint_eq(r.ncand, 0);
        ck_assert(!r.metrics.valid && !r.next.valid && !r.acf.valid);
        ck_assert_uint_eq(r.ntop, 3);
        ck_assert_uint_eq(r.top[0].bin, 0);
        ck_assert_double_eq_tol(r.top[0].amplitude, 4200.0 * level, 1e-6);
    }
    /* A single sample is analysed too (no bins above DC). */
    analyze(v, 1, 0, &o, &r);
    ck_assert(!r.has_period);
}
END_TEST

/* Up to three tones over 10 B/s: amplitude amp[i] at DFT bin bin[i] of
 * 1000 samples. */
struct tones {
    int m;
    double amp[3];
    size_t bin[3];
};

static void analyze_tones(const struct tones *t, struct ftio_options *o, struct ftio_result *r)
{
    double v[1000];
    for (size_t k = 0; k < 1000; k++) {
        v[k] = 10;
        for (int i = 0; i < t->m; i++)
            v[k] += t->amp[i] * cos(2 * M_PI * (double)(t->bin[i] * k) / 1000.0);
    }
    analyze(v, 1000, 0, o, r);
}

/* Two unrelated tones of similar power: 2 candidates, moderate class,
 * dominant = larger amplitude, conf = z_k / (z_a + z_b) for each. */
START_TEST(two_tones_moderate)
{
    const struct tones two = { 2, { 0.95, 1.0 }, { 10, 37 } };
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_result r;
    analyze_tones(&two, &o, &r);
    ck_assert_uint_eq(r.ncand, 2);
    ck_assert_int_eq(r.cls, FTIO_CLASS_UNCERTAIN);
    ck_assert(r.has_period);
    ck_assert_uint_eq(r.cand[0].bin, 10);
    ck_assert_uint_eq(r.cand[1].bin, 37);
    ck_assert_uint_eq(r.dominant.bin, 37);
    /* p_k ~ amp^2, all other bins ~0: z is affine in p, and the two
     * confidences add up to one. */
    ck_assert_double_eq_tol(r.cand[0].confidence + r.cand[1].confidence, 1, 1e-9);
    ck_assert(r.cand[1].confidence > r.cand[0].confidence);
    ck_assert_str_eq(ftio_class_name(r.cls), "uncertain");
    /* --no-psd: same candidates on the amplitude spectrum. */
    o.psd = false;
    analyze_tones(&two, &o, &r);
    ck_assert_uint_eq(r.ncand, 2);
    ck_assert_uint_eq(r.dominant.bin, 37);
}
END_TEST

/* Three unrelated tones: "too many dominant frequencies", no period. */
START_TEST(three_tones_none)
{
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_result r;
    analyze_tones(&(struct tones){ 3, { 1, 1, 1 }, { 10, 37, 123 } }, &o, &r);
    ck_assert_uint_eq(r.nsurvivors, 3);
    ck_assert_uint_eq(r.ncand, 0);
    ck_assert(!r.has_period);
    ck_assert_int_eq(r.cls, FTIO_CLASS_NONE);
    ck_assert(!r.metrics.valid);
}
END_TEST

/* A tone and its exact second harmonic: the harmonic is dropped, and left
 * out of the confidence sums, so the fundamental has confidence 1. */
START_TEST(harmonic_dropped)
{
    struct ftio_options o;
    ftio_options_compat(&o);
    o.top_n = 3;
    struct ftio_result r;
    analyze_tones(&(struct tones){ 2, { 1, 1 }, { 10, 20 } }, &o, &r);
    ck_assert_uint_eq(r.ncand, 1);
    ck_assert_uint_eq(r.dominant.bin, 10);
    ck_assert_double_eq_tol(r.dominant.confidence, 1, 1e-12);
    ck_assert_int_eq(r.cls, FTIO_CLASS_PERIODIC);
    /* -n 3 lists DC first (|X_0| = 10 * 1000), then the two tones
     * (|X_k| = 1000 / 2); the dropped harmonic has confidence 0. */
    ck_assert_uint_eq(r.ntop, 3);
    ck_assert_uint_eq(r.top[0].bin, 0);
    ck_assert_double_eq_tol(r.top[0].amplitude, 10000, 1e-6);
    for (int i = 1; i < 3; i++) {
        ck_assert_double_eq_tol(r.top[i].amplitude, 500, 1e-6);
        ck_assert_double_eq_tol(r.top[i].confidence, r.top[i].bin == 10 ? 1 : 0, 1e-12);
    }
    /* Stricter tolerance keeps only the strongest bins as candidates. */
    const struct tones weaker = { 2, { 1, 0.8 }, { 10, 37 } };
    o.tol = 0.8;     /* 0.8^2 = 0.64 of the power: below tol */
    analyze_tones(&weaker, &o, &r);
    ck_assert_uint_eq(r.ncand, 1);
    ck_assert_uint_eq(r.dominant.bin, 10);
    o.tol = 0.5;
    analyze_tones(&weaker, &o, &r);
    ck_assert_uint_eq(r.ncand, 2);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-metrics", "metrics", NULL,
                      square_wave_metrics, uneven_volumes, uneven_durations, next_phase,
                      acf_square_wave, flat_signals, two_tones_moderate, three_tones_none,
                      harmonic_dropped);
}
