/* SPDX-License-Identifier: BSD-3-Clause */
/* window.c -- where the next online analysis window starts (§6).
 *
 * [compat] adaptive window ("frequency hits"): after more than three
 * consecutive analyses with exactly one candidate, the window shrinks to the
 * last three periods; any other outcome widens it back to the job start.
 * With --window S the window is simply the last S seconds.
 */
#include <math.h>
#include <string.h>

#include "analysis.h"

/* Hits needed before the window shrinks, and periods it then keeps. */
#define HITS_BEFORE_SHRINK 3
#define PERIODS_KEPT 3.0

void ftio_window_init(struct ftio_window *w, double job_start, double fixed_len)
{
    memset(w, 0, sizeof *w);
    w->fixed = fixed_len > 0 ? fixed_len : 0;
    w->job_start = job_start;
    w->start = job_start;
}

double ftio_window_update(struct ftio_window *w, const struct ftio_result *r, double t_end)
{
    bool hit = r->ncand == 1 && r->has_period && r->dominant.frequency > 0;
    w->hits = hit ? w->hits + 1 : 0;

    if (w->fixed > 0) {
        w->start = fmax(w->job_start, t_end - w->fixed);
        return w->start;
    }
    if (!hit)
        w->start = w->job_start;
    else if (w->hits > HITS_BEFORE_SHRINK)
        w->start = fmax(w->job_start, t_end - PERIODS_KEPT / r->dominant.frequency);
    return w->start;
}
