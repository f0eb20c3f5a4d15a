/* SPDX-License-Identifier: BSD-3-Clause */
/* analyze.c -- the analysis driver: samples in, struct ftio_result out.
 *
 * Runs spectrum.c, detect.c, then (when a period was found) metrics.c and
 * predict.c, and acf.c on request.  ftio_analyze_signal() is the one
 * signal -> samples -> analysis call of every offline caller;
 * ftio_analyze_requests() samples the requests' sweep as it goes (no whole
 * signal kept).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

const char *ftio_detector_name(enum ftio_detector d)
{
    return d == FTIO_DETECTOR_COMPAT ? "compat" : "robust";
}

void ftio_options_default(struct ftio_options *o)
{
    memset(o, 0, sizeof *o);
    o->detector = FTIO_DETECTOR_ROBUST;
    o->fs = FTIO_FS_DEFAULT;
    o->tol = FTIO_TOL_DEFAULT;
    o->psd = true;
    o->top_n = 0;
    o->sampling = FTIO_SAMPLING_AVERAGE;   /* exact bin averages: conserve volume */
    o->autocorrelation = false;
    o->t_start = NAN;
    o->t_end = NAN;
}

void ftio_options_compat(struct ftio_options *o)
{
    ftio_options_default(o);
    o->detector = FTIO_DETECTOR_COMPAT;
    o->sampling = FTIO_SAMPLING_HOLD;
}

/* Windows longer than this are trimmed to a fast FFT size (below, the
 * lengths are few enough for the plans of them all to be kept). */
#define FFT_TRIM_MIN 128

int ftio_analyze(struct ftio_analyzer *a, const struct ftio_samples *x,
                 const struct ftio_options *o, double now, struct ftio_result *out,
                 char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->abstraction_error = NAN;
    if (!x || x->n == 0 || !x->x) {
        snprintf(err, errlen, "no samples to analyse");
        return -1;
    }
    if (!(x->fs > 0) || !isfinite(x->fs)) {
        snprintf(err, errlen, "invalid sampling frequency %g Hz", x->fs);
        return -1;
    }
    out->t0 = x->t0;
    out->t1 = x->t1;
    out->fs = x->fs;
    out->samples = x->n;
    double sum, magnitude;                /* one pass for both */
    ftio_samples_sums(x, &sum, &magnitude);
    out->volume = sum / x->fs;
    out->abstraction_error = ftio_abstraction_error_of(x, magnitude);
    out->detector = o->detector;

    /* The robust detector's spectrum (an arbiter, §9 step 8) covers the
     * newest samples of a fast FFT size (prime factors 2, 3, 5, 7: at most
     * 5 % fewer at 128 samples, under 1 % from 500 on; FFTW took 23x as long
     * for 36,001 samples as for 36,000, and a plan for a length it has not
     * seen costs 0.4-1.5 ms: a window that grows by a step at each boundary
     * would need one each time, these sizes are a few hundred in all);
     * --compat's covers them all, as FTIO's does. */
    struct ftio_samples xs = *x;
    if (o->detector != FTIO_DETECTOR_COMPAT && x->n > FFT_TRIM_MIN) {
        size_t m = ftio_fft_size_below(x->n);
        xs.x += x->n - m;
        xs.n = m;
        xs.t0 += (double)(x->n - m) / x->fs;
    }
    struct ftio_spectrum *s;
    if (ftio_spectrum_compute(a, &xs, &s) != 0) {
        snprintf(err, errlen, "out of memory computing the DFT of %zu samples", x->n);
        return -1;
    }
    if (o->detector == FTIO_DETECTOR_COMPAT) {
        ftio_detect(s, o, out);
        if (!out->has_period)
            out->reason = out->nsurvivors >= 3
                              ? "too many dominant frequencies: signal may not be periodic"
                              : "no dominant frequency";
        if (out->has_period) {
            ftio_metrics_compute(x, out->volume, out->dominant.frequency, &out->metrics);
            ftio_result_predict(out, isnan(now) ? x->t1 : now);
        }
    } else {
        if (ftio_detect_robust(a, s, x, o, now, out) != 0) {
            snprintf(err, errlen, "out of memory finding the phases of %zu samples", x->n);
            return -1;
        }
        if (o->top_n > 0)
            ftio_detect_top(s, o->top_n, out);
    }
    if (o->autocorrelation) {
        const double *acf;
        if (ftio_acf_compute(a, x, &acf) != 0) {
            snprintf(err, errlen, "out of memory computing the ACF of %zu samples", x->n);
            return -1;
        }
        ftio_acf_period(acf, x->n, x->fs, a->in, &out->acf);
        if (out->acf.valid && out->has_period)
            out->acf.agrees = fabs(out->acf.period - out->dominant.period)
                              <= 0.1 * out->dominant.period;
    }
    return 0;
}

/* After the sampling (rc, errno): shorter than one sample is an answer,
 * not a failure (issue 28: `ftio` ended with status 1 on such Darshan
 * logs), of the signal's whole volume (volume: computes it); --compat keeps
 * the published implementation's error. */
static int analyze_sampled(struct ftio_analyzer *a, int rc, struct ftio_samples *xs,
                           double (*volume)(const void *), const void *of,
                           const struct ftio_options *o, struct ftio_result *out,
                           char *err, size_t errlen)
{
    if (rc != 0 && errno == ERANGE && o->detector != FTIO_DETECTOR_COMPAT) {
        memset(out, 0, sizeof *out);
        out->t0 = xs->t0;
        out->t1 = xs->t1;
        out->fs = o->fs;
        out->volume = volume(of);
        out->abstraction_error = NAN;
        out->detector = o->detector;
        out->reason = FTIO_REASON_TOO_SHORT;
        xs->n = 0;
        return 0;
    }
    return rc == 0 ? ftio_analyze(a, xs, o, xs->t1, out, err, errlen) : rc;
}

static double signal_volume(const void *sig)
{
    return ftio_signal_volume(sig);
}

int ftio_analyze_signal(struct ftio_analyzer *a, const struct ftio_signal *sig,
                        const struct ftio_options *o, struct ftio_samples *x,
                        struct ftio_result *out, char *err, size_t errlen)
{
    struct ftio_samples scratch = { 0 };
    struct ftio_samples *xs = x ? x : &scratch;
    errno = 0;
    int rc = ftio_sample(sig, o->fs, o->t_start, o->t_end, o->sampling, xs, err, errlen);
    rc = analyze_sampled(a, rc, xs, signal_volume, sig, o, out, err, errlen);
    ftio_samples_free(&scratch);
    return rc;
}

static double the_volume(const void *v)
{
    return *(const double *)v;
}

int ftio_analyze_request_samples(struct ftio_analyzer *a, const struct ftio_requests *r,
                                 const struct ftio_options *o, struct ftio_samples *x,
                                 struct ftio_result *out, char *err, size_t errlen)
{
    struct ftio_samples scratch = { 0 };
    struct ftio_samples *xs = x ? x : &scratch;
    double volume = 0;
    int rc = ftio_sample_requests(r, o->fs, o->t_start, o->t_end, o->sampling, xs, &volume,
                                  err, errlen);
    rc = analyze_sampled(a, rc, xs, the_volume, &volume, o, out, err, errlen);
    ftio_samples_free(&scratch);
    return rc;
}

int ftio_analyze_requests(struct ftio_analyzer *a, const struct ftio_requests *r,
                          const struct ftio_options *o, struct ftio_result *out,
                          char *err, size_t errlen)
{
    return ftio_analyze_request_samples(a, r, o, NULL, out, err, errlen);
}
