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

/* Edge k of the bins starting at t0; always computed the same way so that
 * neighbouring overlaps tile the time axis exactly. */
static inline double bin_edge(double t0, double fs, size_t k)
{
    return t0 + (double)k / fs;
}

/* One sampling in progress: the events of the window are pushed in order
 * (a whole signal's, or the sweep's as it comes), each closing the segment
 * the previous one opened.
 * AVERAGE: the exact integral of B over each bin [edge(k), edge(k+1)),
 * divided by the bin width; each segment starts in the bin where the
 * previous one ended: O(events + samples).
 * HOLD [compat]: the reference advances t_step by repeated addition of
 * 1/fs and takes the value of the last event at or before it (rounding of
 * the accumulated step decides some samples next to event times, so keep
 * it): sample k is the value before the first event after its t_step. */
struct sampler {
    enum ftio_sampling mode;
    double fs, t0, *x;
    size_t n, k;
    double t_step;             /* HOLD: the time of sample k */
    double e0, e1;             /* AVERAGE: the edges of bin k (a division each: most
                                  segments lie inside one bin and need neither anew) */
    double pt, pb;             /* the previous event of the window */
    bool any;                  /* one came */
    double v0;                 /* exact volume of the window */
};

static void sampler_begin(struct sampler *s, enum ftio_sampling mode, double fs, double t0,
                          double *x, size_t n)
{
    *s = (struct sampler){ .mode = mode, .fs = fs, .t0 = t0, .x = x, .n = n, .t_step = t0,
                           .e0 = bin_edge(t0, fs, 0), .e1 = bin_edge(t0, fs, 1) };
    if (mode == FTIO_SAMPLING_AVERAGE)
        memset(x, 0, n * sizeof *x);
}

/* Inline (forced: gcc's estimate leaves it a call per point), and its
 * callers push a batch into a copy of the sampler on their stack: its state
 * then stays in registers over the batch (through the caller's struct, a
 * load and a store per field and point). */
static inline __attribute__((always_inline)) void sampler_push(struct sampler *s, double t, double v)
{
    if (s->any) {
        double a = s->pt, b = t, pv = s->pb;
        s->v0 += pv * (b - a);
        if (s->mode != FTIO_SAMPLING_AVERAGE) {
            while (s->k < s->n && !(t <= s->t_step)) {
                s->x[s->k++] = pv;
                s->t_step = s->t_step + 1.0 / s->fs;
            }
        } else if (b > a && pv != 0) {
            if (s->k < s->n && a >= s->e0 && b <= s->e1) {
                /* inside bin k (most segments): what the loops below add, the
                 * overlap being b - a exactly, with nothing to advance */
                s->x[s->k] += pv * (b - a);
            } else {
                while (s->k < s->n && s->e1 <= a) {       /* bin k ends before the segment */
                    s->k++;
                    s->e0 = s->e1;
                    s->e1 = bin_edge(s->t0, s->fs, s->k + 1);
                }
                /* bins j = k, k + 1, ... from e0 = edge(j) to e1 = edge(j + 1), while
                 * they start before b (finite times: no fmin()/fmax() calls) */
                double e0 = s->e0, e1 = s->e1;
                for (size_t j = s->k; j < s->n && e0 < b; j++) {
                    double overlap = (e1 < b ? e1 : b) - (e0 > a ? e0 : a);
                    if (overlap > 0)
                        s->x[j] += pv * overlap;
                    e0 = e1;
                    if (e0 >= b)
                        break;
                    e1 = bin_edge(s->t0, s->fs, j + 2);
                }
            }
        }
    }
    s->any = true;
    s->pt = t;
    s->pb = v;
}

static void sampler_end(struct sampler *s)
{
    if (s->mode != FTIO_SAMPLING_AVERAGE) {
        while (s->k < s->n)
            s->x[s->k++] = s->pb;
        return;
    }
    for (size_t j = 0; j < s->n; j++)
        s->x[j] *= s->fs;
}

/* The samples of a window whose first and last events are at t0 and
 * t_last: their number into *n and room for them in out, or the error
 * (ERANGE: shorter than one sample, out's span set). */
static int sample_room(double fs, double t0, double t_last, struct ftio_samples *out, size_t *n,
                       char *err, size_t errlen)
{
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
    *n = (size_t)nd;
    if (ftio_grow((void **)&out->x, &out->cap, *n, sizeof *out->x) != 0) {
        snprintf(err, errlen, "out of memory for %zu samples", *n);
        return -1;
    }
    return 0;
}

static void sample_done(const struct sampler *s, double t_last, bool quiet_before,
                        struct ftio_samples *out)
{
    out->n = s->n;
    out->fs = s->fs;
    out->t0 = s->t0;
    out->t1 = t_last;
    out->exact_volume = s->v0;
    out->quiet_before = quiet_before;
}

static int check_fs(double fs, char *err, size_t errlen)
{
    if (!(fs > 0) || !isfinite(fs)) {
        snprintf(err, errlen, "invalid sampling frequency %g Hz", fs);
        return -1;
    }
    return 0;
}

int ftio_sample(const struct ftio_signal *s, double fs, double ts, double te,
                enum ftio_sampling mode, struct ftio_samples *out,
                char *err, size_t errlen)
{
    if (check_fs(fs, err, errlen) != 0)
        return -1;
    size_t lo, hi, n;
    if (s->n == 0 || window_range(s, ts, te, &lo, &hi) != 0) {
        snprintf(err, errlen, "no I/O in the analysis window");
        return -1;
    }
    if (sample_room(fs, s->t[lo], s->t[hi], out, &n, err, errlen) != 0)
        return -1;
    struct sampler sm;                        /* on the stack: see sampler_push */
    sampler_begin(&sm, mode, fs, s->t[lo], out->x, n);
    for (size_t i = lo; i <= hi; i++)
        sampler_push(&sm, s->t[i], s->b[i]);
    sampler_end(&sm);
    sample_done(&sm, s->t[hi], lo == 0 || s->b[lo - 1] == 0, out);
    return 0;
}

/* ftio_sample_requests: the sweep's points as they come, those of the
 * window [ts, te] (time order: a range, as window_range finds it) to the
 * sampler, all of them to the whole signal's volume. */
struct sample_stream {
    struct sampler sm;
    bool sampling;             /* false: the volume only */
    double ts, te;
    double pt, pb;             /* the previous point */
    bool any, quiet_before;
    double volume;             /* ftio_signal_volume of the whole signal */
};

static inline void stream_point(struct sample_stream *w, double t, double b)
{
    if (w->any)
        w->volume += w->pb * (t - w->pt);
    if (w->sampling && !(t < w->ts) && !(t > w->te)) {
        if (!w->sm.any)
            w->quiet_before = !w->any || w->pb == 0;
        sampler_push(&w->sm, t, b);
    }
    w->any = true;
    w->pt = t;
    w->pb = b;
}

static void stream_points(void *ctx, const double *t, const double *b, size_t m)
{
    struct sample_stream *ws = ctx, w = *ws;  /* in registers for the batch (sampler_push) */
    if (m == 0)
        return;
    stream_point(&w, t[0], b[0]);
    /* The points come in time order: when the second and the last are in
     * the window, so is every one between, and after the first the
     * previous point and the sampler's are there (the same sums as
     * stream_point's, without its tests per point).  The previous point is
     * then the sampler's (t[0] in the window, or none pushed yet): the
     * volume's product is the sampler's, computed once. */
    if (w.sampling && w.sm.any && m > 1 && !(t[1] < w.ts) && !(t[m - 1] > w.te)) {
        for (size_t i = 1; i < m; i++) {
            w.volume += w.sm.pb * (t[i] - w.sm.pt);
            sampler_push(&w.sm, t[i], b[i]);
        }
        w.pt = w.sm.pt;
        w.pb = w.sm.pb;
    } else {
        for (size_t i = 1; i < m; i++)
            stream_point(&w, t[i], b[i]);
    }
    *ws = w;
}

/* One pass: every end at or after its start (else the first request that
 * is not: its index, else r->n); the window's first and last points
 * (window_range on the signal): the earliest start or end at or after ts,
 * the latest at or before te; and the whole signal's span for the sweep
 * (the earliest start, the latest end).  Without a window (windowed false:
 * ts and te NaN) the first two are the span, as the tests would find. */
static inline __attribute__((always_inline)) size_t
requests_span(const struct ftio_requests *r, double ts, double te, double *t0_out,
              double *t_last_out, double *lo_out, double *hi_out, bool windowed)
{
    double t0 = INFINITY, t_last = -INFINITY, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < r->n; i++) {
        double a = r->rec[i].t_start, b = r->rec[i].t_end;
        if (!(b >= a))
            return i;
        if (windowed) {
            double first = !(a < ts) ? a : !(b < ts) ? b : INFINITY;
            double end = !(b > te) ? b : !(a > te) ? a : -INFINITY;
            t0 = first < t0 ? first : t0;     /* finite: no fmin() call */
            t_last = end > t_last ? end : t_last;
        }
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    *t0_out = windowed ? t0 : lo;
    *t_last_out = windowed ? t_last : hi;
    *lo_out = lo;
    *hi_out = hi;
    return r->n;
}

int ftio_sample_requests(const struct ftio_requests *r, double fs, double ts, double te,
                         enum ftio_sampling mode, struct ftio_samples *out, double *volume,
                         char *err, size_t errlen)
{
    struct sample_stream w = { .ts = ts, .te = te };
    if (volume)
        *volume = 0;
    double t0 = NAN, t_last = NAN, lo = NAN, hi = NAN;      /* set by requests_span */
    size_t bad = isnan(ts) && isnan(te) ? requests_span(r, ts, te, &t0, &t_last, &lo, &hi, false)
                                        : requests_span(r, ts, te, &t0, &t_last, &lo, &hi, true);
    if (bad < r->n) {
        snprintf(err, errlen, "request %zu ends before it starts", bad);
        errno = EINVAL;
        return -1;
    }
    if (check_fs(fs, err, errlen) != 0)
        return -1;
    if (!(t0 <= t_last)) {
        snprintf(err, errlen, "no I/O in the analysis window");
        return -1;
    }
    size_t n;
    errno = 0;
    int rc = sample_room(fs, t0, t_last, out, &n, err, errlen);
    if (rc != 0 && !(errno == ERANGE && volume))
        return -1;
    w.sampling = rc == 0;
    if (w.sampling)
        sampler_begin(&w.sm, mode, fs, t0, out->x, n);
    int e = errno;
    if (ftio_signal_sweep_spanned(r, lo, hi, stream_points, &w) != 0) {
        snprintf(err, errlen, "out of memory building the signal of %zu requests", r->n);
        return -1;
    }
    if (volume)
        *volume = w.volume;
    if (!w.sampling) {
        errno = e;
        return -1;
    }
    sampler_end(&w.sm);
    sample_done(&w.sm, t_last, w.quiet_before, out);
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
