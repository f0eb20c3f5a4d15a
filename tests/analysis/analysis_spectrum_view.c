/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_spectrum_view.c -- ftio_analyzer_spectrum(), the spectrum the
 * pictures and --export-spectrum show: the normalised values add up to 1,
 * the compat threshold is the level of §3's candidate test (every candidate
 * above it, every other bin above it a harmonic of one), the robust one is
 * the spectral arbiter's line level recomputed here from its definition
 * (median + 8 robust deviations of the power spectrum), a flat signal has
 * none, and an analyzer that analysed nothing has no spectrum.
 */
#include "helpers.h"

#include <string.h>

#define FS 10.0

static struct ftio_samples pulses(size_t n, size_t period, size_t width, double rate)
{
    struct ftio_samples x = { .n = n, .fs = FS, .t0 = 0, .t1 = (double)n / FS,
                              .exact_volume = NAN, .quiet_before = true };
    x.x = calloc(n, sizeof *x.x);
    for (size_t k = 0; k < n; k++)
        x.x[k] = (k % period) < width ? rate : 0;
    return x;
}

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)         /* insertion sort: n is small */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void analyse(struct ftio_analyzer *a, const struct ftio_samples *x,
                    const struct ftio_options *o, struct ftio_result *r)
{
    char err[256];
    ck_assert_msg(ftio_analyze(a, x, o, x->t1, r, err, sizeof err) == 0, "%s", err);
}

START_TEST(nothing_analysed)
{
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_spectrum_view v;
    ck_assert_int_eq(ftio_analyzer_spectrum(a, &o, &v), -1);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(compat_threshold)
{
    for (int psd = 1; psd >= 0; psd--) {
        struct ftio_samples x = pulses(400, 40, 10, 1000);
        x.x[7] += 300;                       /* not a perfect comb */
        struct ftio_analyzer *a = ftio_analyzer_new();
        struct ftio_options o;
        ftio_options_compat(&o);
        o.psd = psd;
        struct ftio_result r;
        analyse(a, &x, &o, &r);
        struct ftio_spectrum_view v;
        ck_assert_int_eq(ftio_analyzer_spectrum(a, &o, &v), 0);
        ck_assert_int_eq(v.n, 400);
        ck_assert_int_eq(v.half, 200);
        ck_assert(v.power == (bool)psd);
        ck_assert(isfinite(v.threshold) && v.threshold > 0);
        double sum = 0;
        for (size_t k = 0; k <= v.half + 1; k++)
            sum += ftio_spectrum_value(&v, k);
        ck_assert_abs(sum, 1.0, 1e-12);
        ck_assert(r.has_period);
        ck_assert_int_eq(r.dominant.bin, 10);            /* 400 samples / 40 */
        for (size_t i = 0; i < r.ncand; i++)
            ck_assert_msg(ftio_spectrum_value(&v, r.cand[i].bin) > v.threshold,
                          "candidate bin %zu not above the threshold", r.cand[i].bin);
        for (size_t k = 1; k <= v.half; k++) {
            if (!(ftio_spectrum_value(&v, k) > v.threshold))
                continue;
            bool harmonic = false;
            for (size_t i = 0; i < r.ncand; i++)
                harmonic |= k % r.cand[i].bin == 0;
            ck_assert_msg(harmonic, "bin %zu above the threshold is no candidate's harmonic", k);
        }
        free(x.x);
        ftio_analyzer_free(a);
    }
}
END_TEST

START_TEST(robust_threshold)
{
    struct ftio_samples x = pulses(600, 50, 4, 1e9);
    for (size_t k = 0; k < x.n; k++)
        x.x[k] += 1e7 * (double)((k * 7919) % 13);     /* deterministic noise */
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    o.psd = false;                                     /* the robust detector reads power anyway */
    struct ftio_result r;
    analyse(a, &x, &o, &r);
    struct ftio_spectrum_view v;
    ck_assert_int_eq(ftio_analyzer_spectrum(a, &o, &v), 0);
    ck_assert(v.power);
    size_t half = v.half;
    double *p = malloc(half * sizeof *p), *d = malloc(half * sizeof *d), total = 0;
    for (size_t k = 1; k <= half; k++) {
        p[k - 1] = v.amplitude[k] * v.amplitude[k];
        total += p[k - 1];
    }
    double med = median(p, half);
    for (size_t k = 1; k <= half; k++)
        d[k - 1] = fabs(v.amplitude[k] * v.amplitude[k] - med);
    double mad = 1.4826 * median(d, half);
    ck_assert_rel(v.threshold, (med + 8 * mad) / total, 1e-12);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 5.0, 1e-3);
    ck_assert(ftio_spectrum_value(&v, r.dominant.bin) > v.threshold);
    free(p);
    free(d);
    free(x.x);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(flat_has_no_threshold)
{
    struct ftio_samples x = pulses(300, 1, 1, 5e6);     /* constant */
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_options o;
    for (int compat = 0; compat <= 1; compat++) {
        if (compat)
            ftio_options_compat(&o);
        else
            ftio_options_default(&o);
        struct ftio_result r;
        analyse(a, &x, &o, &r);
        struct ftio_spectrum_view v;
        ck_assert_int_eq(ftio_analyzer_spectrum(a, &o, &v), 0);
        ck_assert_msg(isnan(v.threshold), "%s: threshold %g on a flat signal",
                      compat ? "compat" : "robust", v.threshold);
        ck_assert(!r.has_period);
    }
    free(x.x);
    ftio_analyzer_free(a);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-spectrum-view", "spectrum-view", NULL,
                      nothing_analysed, compat_threshold, robust_threshold, flat_has_no_threshold);
}
