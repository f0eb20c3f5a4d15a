/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c -- how periodic the I/O is and how much it moves per phase (§4).
 *
 * Given the dominant frequency f_d, splits the window into M = floor(dt*f_d)
 * whole periods from t0 and compares them: spread of the volume per period
 * (sigma_vol) and of the time spent in substantial I/O (sigma_time).  One
 * pass over the samples with running (Welford) statistics, no allocation.
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

void ftio_metrics_compute(const struct ftio_samples *x, double f_d, struct ftio_metrics *m)
{
    memset(m, 0, sizeof *m);
    if (!(f_d > 0) || x->n == 0 || !(x->fs > 0))
        return;
    double fs = x->fs;
    double dt = ftio_samples_span(x);
    double v = ftio_samples_volume(x);
    double bbar = v / dt;             /* mean bandwidth over the window */

    size_t periods = (size_t)floor(dt * f_d);
    struct running vol = { 0 }, tau = { 0 };
    double cur_vol = 0, cur_tau = 0;
    size_t cur = 0;
    size_t substantial = 0;
    double substantial_sum = 0;
    for (size_t k = 0; k < x->n; k++) {
        bool busy = x->x[k] > bbar;
        if (busy) {
            substantial++;
            substantial_sum += x->x[k];
        }
        /* A sample belongs to the period holding its centre: period
         * boundaries on sample edges are then never ambiguous. */
        size_t i = (size_t)floor(((double)k + 0.5) / fs * f_d);
        if (i >= periods)
            continue;
        while (cur < i) {             /* close period cur (and empty ones) */
            running_add(&vol, cur_vol);
            running_add(&tau, cur_tau * f_d);
            cur_vol = cur_tau = 0;
            cur++;
        }
        cur_vol += x->x[k] / fs;
        if (busy)
            cur_tau += 1.0 / fs;
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
