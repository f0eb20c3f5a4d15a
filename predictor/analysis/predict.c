/* SPDX-License-Identifier: BSD-3-Clause */
/* predict.c -- when the next I/O phase comes and how big it is (§5).
 *
 * The dominant cosine A*cos(2*pi*f*t + phi) peaks in the middle of each I/O
 * phase; the next peak after `now` is the predicted centre, the time in I/O
 * per phase its duration and the volume per phase its size.  Scoring a past
 * prediction against the samples lets the daemon publish its own error.
 */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

void ftio_predict_next(const struct ftio_candidate *dom, const struct ftio_metrics *m,
                       double now, struct ftio_next_phase *next)
{
    memset(next, 0, sizeof *next);
    double f = dom->frequency;
    if (!(f > 0) || !m->valid || !isfinite(now))
        return;
    /* Peaks where 2*pi*f*t + phi = 2*pi*j, i.e. t = (j - phi/(2*pi)) / f. */
    double shift = dom->phase / (2 * M_PI);
    double j = floor(now * f + shift) + 1;
    double centre = (j - shift) / f;
    while (centre <= now)             /* guards rounding at the boundary */
        centre += 1 / f;
    next->valid = true;
    next->start = centre - m->phase_duration / 2;
    next->end = centre + m->phase_duration / 2;
    next->bytes = m->phase_bytes;
}

void ftio_result_predict(struct ftio_result *r, double now)
{
    struct ftio_next_phase *nx = &r->next;
    memset(nx, 0, sizeof *nx);
    if (!r->has_period)
        return;
    if (r->detector == FTIO_DETECTOR_COMPAT) {
        ftio_predict_next(&r->dominant, &r->metrics, now, nx);
        return;
    }
    /* Robust (robust.c): the last onset + T, rolled forward past now. */
    double period = r->dominant.period;
    if (isfinite(r->last_onset)) {
        double j = floor((now - r->last_onset) / period) + 1;
        if (j < 1)
            j = 1;
        double start = r->last_onset + j * period;
        while (start <= now)
            start += period;
        nx->valid = true;
        nx->start = start;
        nx->end = start + r->metrics.phase_duration;
        nx->bytes = r->metrics.phase_bytes;
    } else {
        /* From the cosine: its peak is after now, but the phase around it
         * may begin before; the next phase is the first to begin after now. */
        ftio_predict_next(&r->dominant, &r->metrics, now, nx);
        while (nx->valid && nx->start <= now) {
            nx->start += period;
            nx->end += period;
        }
    }
}

int ftio_next_phase_score(const struct ftio_next_phase *next, const struct ftio_samples *x,
                          double *actual, double *error)
{
    if (x->n == 0 || !(x->fs > 0))
        return -1;
    return ftio_next_phase_score_volume(next, x, ftio_samples_volume(x), actual, error);
}

int ftio_next_phase_score_volume(const struct ftio_next_phase *next, const struct ftio_samples *x,
                                 double volume, double *actual, double *error)
{
    if (!next->valid || x->n == 0 || !(x->fs > 0))
        return -1;
    double bbar = volume / ftio_samples_span(x);
    double from = ceil((next->start - x->t0) * x->fs);
    if (from < 0)
        from = 0;
    for (size_t k = (size_t)fmin(from, (double)x->n); k < x->n; k++) {
        if (x->x[k] > bbar) {
            *actual = x->t0 + (double)k / x->fs;
            *error = *actual - next->start;
            return 0;
        }
    }
    return -1;
}
