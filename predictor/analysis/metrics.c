/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c -- how periodic the I/O is and how much it moves per phase (§4).
 *
 * Given the dominant frequency f_d, splits the window into M = floor(dt*f_d)
 * whole periods from t0 and compares them: spread of the volume per period
 * (sigma_vol) and of the time spent in substantial I/O (sigma_time).  One
 * pass over the samples (their zeros skipped) with running (Welford)
 * statistics, no allocation.
 */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Running mean and population variance. */
struct running {
    double n, mean, m2;
};

static void running_add(struct running *r, double v)
{
    r->n += 1;
    double d = v - r->mean;
    r->mean += d / r->n;
    r->m2 += d * (v - r->mean);
}

static double running_std(const struct running *r)
{
    return r->n > 0 ? sqrt(fmax(r->m2 / r->n, 0)) : 0;
}

/* The period holding sample k's centre: period boundaries on sample edges
 * are then never ambiguous.  (The quotient is positive: truncation is
 * floor().)  Monotone in k, as rounding is. */
static inline size_t period_of(size_t k, double fs, double f_d)
{
    return (size_t)(((double)k + 0.5) / fs * f_d);
}

/* The first sample after k in a later period than i = period_of(k): from
 * where the arithmetic puts it, moved to where period_of() says. */
static size_t period_end(size_t k, size_t i, size_t n, double fs, double f_d)
{
    double guess = ceil(((double)i + 1) * fs / f_d - 0.5);
    size_t e = !(guess < (double)n) ? n : guess > (double)k + 1 ? (size_t)guess : k + 1;
    while (e > k + 1 && period_of(e - 1, fs, f_d) > i)
        e--;
    while (e < n && period_of(e, fs, f_d) <= i)
        e++;
    return e;
}

void ftio_metrics_compute(const struct ftio_samples *x, double v, double f_d,
                          struct ftio_metrics *m)
{
    memset(m, 0, sizeof *m);
    if (!(f_d > 0) || x->n == 0 || !(x->fs > 0))
        return;
    double fs = x->fs;
    double dt = ftio_samples_span(x);
    double bbar = v / dt;             /* mean bandwidth over the window */
    /* A zero sample then adds nothing: neither busy nor volume. */
    bool skip_zeros = bbar >= 0;

    size_t periods = (size_t)floor(dt * f_d);
    struct running vol = { 0 }, tau = { 0 };
    double cur_vol = 0, cur_tau = 0;
    size_t cur = 0;
    size_t substantial = 0;
    double substantial_sum = 0;
    /* Runs of samples in one period: no division per sample (a window of a
     * bursty job is mostly zeros, which add nothing to cur_vol). */
    for (size_t k = 0; k < x->n;) {
        size_t i = period_of(k, fs, f_d), e = period_end(k, i, x->n, fs, f_d);
        bool whole = i < periods;     /* samples after the last whole period only count as I/O */
        while (whole && cur < i) {    /* close period cur (and empty ones) */
            running_add(&vol, cur_vol);
            running_add(&tau, cur_tau * f_d);
            cur_vol = cur_tau = 0;
            cur++;
        }
        for (; k < e; k++) {
            if (skip_zeros && (k = ftio_next_nonzero(x->x, k, e)) == e)
                break;
            bool busy = x->x[k] > bbar;
            if (busy) {
                substantial++;
                substantial_sum += x->x[k];
            }
            if (!whole)
                continue;
            if (x->x[k] != 0)
                cur_vol += x->x[k] / fs;
            if (busy)
                cur_tau += 1.0 / fs;
        }
    }
    if (periods > 0 && cur < periods) {
        running_add(&vol, cur_vol);
        running_add(&tau, cur_tau * f_d);
    }

    m->valid = true;
    m->r_io = (double)substantial / (double)x->n;
    m->b_io = substantial ? substantial_sum / (double)substantial : 0;
    m->phase_bytes = v / (dt * f_d);
    m->phase_duration = m->r_io / f_d;
    if (periods >= 2) {
        m->sigma_valid = true;
        double sv = vol.mean > 0 ? running_std(&vol) / vol.mean : 0;
        m->sigma_vol = fmin(fmax(sv, 0), 1);
        m->sigma_time = running_std(&tau);
        m->periodicity = 1 - (m->sigma_vol + m->sigma_time) / 2;
    }
}
