/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_history.c -- the prediction history of predictor/plot/ (plot.h):
 * one step per published online analysis, from `ftio --window`'s loop
 * (ftio_plot_step_from_update) or from ftiod's --log (ftio report).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "plot/plot.h"


int ftio_plot_history_add(struct ftio_plot_history *h, const struct ftio_plot_step *s)
{
    if (FTIO_GROW(h->step, h->cap, h->n + 1) < 0)
        return -1;
    h->step[h->n++] = *s;
    return 0;
}

void ftio_plot_history_free(struct ftio_plot_history *h)
{
    free(h->step);
    memset(h, 0, sizeof *h);
}

void ftio_plot_step_from_update(struct ftio_plot_step *s, const struct ftio_online_update *u,
                                double t_end)
{
    const struct ftio_result *r = &u->res;
    *s = (struct ftio_plot_step){
        .t = t_end,
        .period = r->has_period ? r->dominant.period : NAN,
        .confidence = r->has_period ? r->dominant.confidence : NAN,
        .cls = r->cls,
        .stale = u->stale,
        .last_error = u->has_error ? u->last_error : NAN,
        .phase_bytes = r->has_period && r->metrics.valid ? r->metrics.phase_bytes : NAN,
        .bytes_total = NAN,       /* the bandwidth chart shows the trace */
    };
}
