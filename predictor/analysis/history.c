/* SPDX-License-Identifier: BSD-3-Clause */
/* history.c -- what many online analyses of one job say together (§6).
 *
 * Each analysis adds its dominant frequency (if any) to a group of nearby
 * frequencies (within one frequency step 1/dt of the group's range), so a
 * job whose period drifts a little keeps one group while a job that changes
 * behaviour opens a new one.  P(periodic) is the share of analyses that
 * reported a period.  Start from a zeroed struct.
 */
#include <math.h>

#include "analysis.h"

/* Distance from f to the interval [g->f_min, g->f_max]. */
static double group_distance(const struct ftio_freq_group *g, double f)
{
    if (f < g->f_min) return g->f_min - f;
    if (f > g->f_max) return f - g->f_max;
    return 0;
}

void ftio_history_add(struct ftio_history *h, const struct ftio_result *r)
{
    h->analyses++;
    if (!r->has_period || !(r->dominant.frequency > 0))
        return;
    h->periodic++;
    double f = r->dominant.frequency;
    double dt = r->t1 - r->t0;
    double step = dt > 0 ? 1.0 / dt : (r->samples ? r->fs / (double)r->samples : 0);

    size_t best = h->ngroups;
    double best_d = INFINITY;
    for (size_t i = 0; i < h->ngroups; i++) {
        double d = group_distance(&h->group[i], f);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    /* A new group when none is close, unless the table is full: then the
     * nearest absorbs it rather than the analysis being lost. */
    if (best == h->ngroups || (best_d > step * (1 + 1e-9) && h->ngroups < FTIO_MAX_GROUPS)) {
        h->group[h->ngroups++] = (struct ftio_freq_group){ f, f, 1 };
        return;
    }
    struct ftio_freq_group *g = &h->group[best];
    g->f_min = fmin(g->f_min, f);
    g->f_max = fmax(g->f_max, f);
    g->count++;
}

double ftio_history_p_periodic(const struct ftio_history *h)
{
    return h->analyses ? (double)h->periodic / (double)h->analyses : 0;
}
