/* SPDX-License-Identifier: BSD-3-Clause */
/* sample.c -- from the step signal to equally spaced samples (§2).
 *
 * Two samplers share the window logic: the [compat] zero-order hold of the
 * published implementation (value of B at an accumulated t_step) and the exact
 * average of B over each bin (integral / bin width), which conserves volume
 * and is what bins.c computes online.  Both are a single linear walk over the
 * events and the samples.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Index range [*lo, *hi] of the events with ts <= T <= te. */
static int window_range(const struct ftio_signal *s, double ts, double te,
                        size_t *lo, size_t *hi)
{
    size_t a = 0, b = s->n;
    if (!isnan(ts)) {                 /* first index with t >= ts */
        size_t l = 0, h = s->n;
        while (l < h) {
            size_t m = l + (h - l) / 2;
            if (s->t[m] < ts) l = m + 1; else h = m;
        }
        a = l;
    }
    if (!isnan(te)) {                 /* one past the last index with t <= te */
        size_t l = 0, h = s->n;
        while (l < h) {
            size_t m = l + (h - l) / 2;
            if (s->t[m] <= te) l = m + 1; else h = m;
        }
        b = l;
    }
    if (a >= b)
        return -1;
    *lo = a;
    *hi = b - 1;
    return 0;
}

/* [compat] The reference advances t_step by repeated addition of 1/fs and
 * takes the value of the last event at or before it; rounding of the
 * accumulated step decides some samples next to event times, so keep it. */
static void sample_hold(const struct ftio_signal *s, size_t lo, size_t hi,
                        double fs, double *x, size_t n)
{
    double t_step = s->t[lo];
    size_t i = lo;
    for (size_t k = 0; k < n; k++) {
        while (i < hi && s->t[i + 1] <= t_step)
            i++;
        x[k] = s->b[i];
        t_step = t_step + 1.0 / fs;
    }
}

/* Edge k of the bins starting at t0; always computed the same way so that
 * neighbouring overlaps tile the time axis exactly. */
static inline double bin_edge(double t0, double fs, size_t k)
{
    return t0 + (double)k / fs;
}

/* Exact integral of B over each bin [edge(k), edge(k+1)), divided by the bin
 * width.  Events are sorted, so each segment starts in the bin where the
 * previous one ended: O(events + samples). */
static void sample_average(const struct ftio_signal *s, size_t lo, size_t hi,
                           double fs, double *x, size_t n)
{
    double t0 = s->t[lo];
    memset(x, 0, n * sizeof *x);
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) {
        double a = s->t[i], b = s->t[i + 1], v = s->b[i];
        if (b <= a || v == 0)
            continue;
        while (k < n && bin_edge(t0, fs, k + 1) <= a)
            k++;
        for (size_t j = k; j < n; j++) {
            double e0 = bin_edge(t0, fs, j), e1 = bin_edge(t0, fs, j + 1);
            if (e0 >= b)
                break;
            double overlap = fmin(b, e1) - fmax(a, e0);
            if (overlap > 0)
                x[j] += v * overlap;
        }
    }
    for (size_t j = 0; j < n; j++)
        x[j] *= fs;
}

int ftio_sample(const struct ftio_signal *s, double fs, double ts, double te,
                enum ftio_sampling mode, struct ftio_samples *out,
                char *err, size_t errlen)
{
    if (!(fs > 0) || !isfinite(fs)) {
        snprintf(err, errlen, "invalid sampling frequency %g Hz", fs);
        return -1;
    }
    size_t lo, hi;
    if (s->n == 0 || window_range(s, ts, te, &lo, &hi) != 0) {
        snprintf(err, errlen, "no I/O in the analysis window");
        return -1;
    }
    double t0 = s->t[lo], t_last = s->t[hi];
    double nd = floor((t_last - t0) * fs);
    if (!(nd > 0)) {
        snprintf(err, errlen, "trace shorter than one sample at fs=%g Hz; raise -f", fs);
        out->t0 = t0;
        out->t1 = t_last;
        out->fs = fs;
        errno = ERANGE;
        return -1;
    }
    if (nd > 1e10) {
        snprintf(err, errlen, "too many samples (%.0f) at fs=%g Hz; lower -f", nd, fs);
        return -1;
    }
    size_t n = (size_t)nd;
    if (ftio_grow((void **)&out->x, &out->cap, n, sizeof *out->x) != 0) {
        snprintf(err, errlen, "out of memory for %zu samples", n);
        return -1;
    }
    if (mode == FTIO_SAMPLING_AVERAGE)
        sample_average(s, lo, hi, fs, out->x, n);
    else
        sample_hold(s, lo, hi, fs, out->x, n);

    double v0 = 0;
    for (size_t i = lo; i < hi; i++)
        v0 += s->b[i] * (s->t[i + 1] - s->t[i]);
    out->n = n;
    out->fs = fs;
    out->t0 = t0;
    out->t1 = t_last;
    out->exact_volume = v0;
    out->quiet_before = lo == 0 || s->b[lo - 1] == 0;
    return 0;
}

double ftio_sampling_rate(double fs, double span, double max_samples)
{
    if (!(span > 0) || !(max_samples > 0) || !isfinite(max_samples) || !(span * fs > max_samples))
        return fs;
    return (floor(max_samples) + 0.5) / span;
}

void ftio_samples_free(struct ftio_samples *x)
{
    free(x->x);
    memset(x, 0, sizeof *x);
}

double ftio_abstraction_error_of(const struct ftio_samples *x, double magnitude)
{
    if (isnan(x->exact_volume) || x->exact_volume == 0 || !(x->fs > 0))
        return NAN;
    double va = magnitude / x->fs;
    return fabs(va - x->exact_volume) / fabs(x->exact_volume);
}

double ftio_abstraction_error(const struct ftio_samples *x)
{
    double sum, magnitude;
    ftio_samples_sums(x, &sum, &magnitude);
    return ftio_abstraction_error_of(x, magnitude);
}
