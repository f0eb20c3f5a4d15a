/* SPDX-License-Identifier: BSD-3-Clause */
/* online.c -- the online loop: one analysis per data-time boundary, shared by
 * `ftio --window` (offline replay of a trace) and ftiod (live), ALGORITHM.md
 * §6.
 *
 * Both callers keep the signal as struct ftio_bins and call
 * ftio_online_step() with the same boundaries (job_start + k * step), so a
 * trace replayed into the daemon and the same trace through `ftio --window`
 * give the same sequence of predictions.  One step: pick the window (for
 * the robust detector the last FTIO_ONLINE_HORIZON_PERIODS periods once a
 * period is established, else the whole job; FTIO's frequency-hits window
 * under --compat; or a fixed length), sample it from the bins, analyse, score the
 * previous prediction against what happened (§5), add to the history, and
 * decide what to publish: under the robust detector an established answer is
 * not dropped for one unlucky window, it is published again marked stale,
 * and it changes only on evidence.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Two periods within this are the same answer. */
#define AGREE 0.10

void ftio_online_init(struct ftio_online *s, const struct ftio_options *o, double step,
                      double fixed_window, double job_start)
{
    struct ftio_options opts = *o;     /* o may point into *s */
    memset(s, 0, sizeof *s);
    s->opts = opts;
    s->step = step > 0 ? step : 1.0;
    s->fixed_window = fixed_window > 0 ? fixed_window : 0;
    s->job_start = job_start;
    ftio_window_init(&s->win, job_start, s->fixed_window);
}

double ftio_online_next_boundary(const struct ftio_online *s, double t)
{
    double k = floor((t - s->job_start) / s->step + 1e-9) + 1;
    return s->job_start + k * s->step;
}

static bool agree(double a, double b)
{
    return a > 0 && b > 0 && fabs(a - b) <= AGREE * fmax(a, b);
}

/* Robust: the window forgets.  Once a period T is established (published
 * as `periodic`: an uncertain answer, such as the noise before a job's first
 * phase, must not narrow the window below the real period), the window
 * holds the last FTIO_ONLINE_HORIZON_PERIODS periods (at least
 * FTIO_ONLINE_HORIZON_MIN seconds): the answer follows the current regime (a
 * period that drifts, a job that changes pace) instead of the mean of the
 * whole job, and an analysis costs what the horizon holds, not what the job
 * has run.  Without an established period, the whole job. */
double ftio_online_window_start(const struct ftio_online *s, double t_end)
{
    if (s->fixed_window > 0)
        return fmax(s->job_start, t_end - s->fixed_window);
    if (s->opts.detector == FTIO_DETECTOR_COMPAT)
        return s->win.start;
    if (s->has_good && s->good.cls == FTIO_CLASS_PERIODIC && s->good.dominant.period > 0) {
        double h = fmax(FTIO_ONLINE_HORIZON_PERIODS * s->good.dominant.period,
                        FTIO_ONLINE_HORIZON_MIN);
        return fmax(s->job_start, t_end - h);
    }
    return s->job_start;
}

/* Anything in the bins of the last step (t_end - step, t_end]? */
static bool new_data(const struct ftio_online *s, const struct ftio_bins *b, double t_end)
{
    return ftio_bins_bytes(b, t_end - s->step, t_end) > 0;
}

/* §5: score the pending prediction against the fresh samples: the first
 * substantial sample from half a period before the predicted start (a burst
 * a little early is an early arrival, not a miss scored against the next);
 * given up two periods after the start (volume: x's, from its analysis).
 * True when the prediction is refuted now: the phase came more than a whole
 * period late, or not at all (the period that made it is not the data's: a
 * rank's spacing inside one output, taken for the period, predicts phases in
 * the computation). */
static bool score(struct ftio_online *s, const struct ftio_samples *x, double volume)
{
    if (!s->pending)
        return false;
    struct ftio_next_phase from = s->pred;
    from.start -= s->pred_period / 2;
    double actual, error;
    if (ftio_next_phase_score_volume(&from, x, volume, &actual, &error) == 0) {
        s->has_error = true;
        s->last_error = actual - s->pred.start;
        s->scored++;
        s->pending = false;
        return s->last_error > s->pred_period;
    }
    if (x->t1 > s->pred.start + 2 * s->pred_period) {
        s->missed++;
        s->pending = false;
        return true;
    }
    return false;
}

/* The next phase of a kept answer, rolled forward past now. */
static void roll_forward(struct ftio_result *r, double now)
{
    if (!r->next.valid || !r->has_period || !(r->dominant.period > 0))
        return;
    double len = r->next.end - r->next.start;
    while (r->next.start <= now)
        r->next.start += r->dominant.period;
    r->next.end = r->next.start + len;
}

/* Robust: what to publish given the fresh analysis r (window end t_end);
 * refuted: the kept answer's own prediction has just failed (score()). */
static void stabilise(struct ftio_online *s, const struct ftio_result *r, double t_end,
                      double now, bool refuted, struct ftio_online_update *out)
{
    bool adopt;
    if (r->has_period) {
        double p = r->dominant.period;
        if (!s->has_good || agree(p, s->good.dominant.period)) {
            adopt = true;
        } else if (s->has_challenger && agree(p, s->challenger)) {
            adopt = true;            /* the second analysis in a row says so */
        } else if (refuted && agree(s->pred_period, s->good.dominant.period)) {
            adopt = true;            /* what it predicted did not happen */
        } else {
            adopt = false;
            s->has_challenger = true;
            s->challenger = p;
        }
    } else {
        /* No period: believe it once the kept answer is old. */
        adopt = !s->has_good ||
                t_end - s->good_since > FTIO_ONLINE_NONE_PERIODS * s->good.dominant.period;
        s->has_challenger = false;
    }
    if (adopt) {
        if (r->has_period) {
            s->has_good = true;
            s->good = *r;
            s->good.phases = NULL;
            s->good.nphases = 0;
            s->good_since = t_end;
            s->has_challenger = false;
        } else {
            s->has_good = false;
        }
        out->res = *r;
        out->stale = false;
        out->since = NAN;
        return;
    }
    out->res = s->good;
    roll_forward(&out->res, now);
    out->stale = true;
    out->since = s->good_since;
}

int ftio_online_window(const struct ftio_online *s, const struct ftio_bins *b, double t_end,
                       struct ftio_samples *x, char *err, size_t errlen)
{
    if (s->hist.analyses > 0 && !new_data(s, b, t_end))
        return 1;
    double ts = ftio_online_window_start(s, t_end);
    if (ftio_bins_samples_mode(b, ts, t_end, s->opts.sampling, x) != 0 || x->n == 0) {
        snprintf(err, errlen, "no whole bin in the window [%.3f, %.3f]", ts, t_end);
        return -1;
    }
    return 0;
}

int ftio_online_analyse(struct ftio_online *s, struct ftio_analyzer *a, const struct ftio_samples *x,
                        double t_end, double now, struct ftio_online_update *out, char *err,
                        size_t errlen)
{
    struct ftio_result r;
    if (ftio_analyze(a, x, &s->opts, isnan(now) ? x->t1 : now, &r, err, errlen) != 0)
        return -1;
    bool refuted = score(s, x, r.volume);
    ftio_history_add(&s->hist, &r);
    if (s->opts.detector == FTIO_DETECTOR_COMPAT) {
        ftio_window_update(&s->win, &r, t_end);
        out->res = r;
        out->stale = false;
        out->since = NAN;
    } else {
        stabilise(s, &r, t_end, isnan(now) ? x->t1 : now, refuted, out);
    }
    out->res.phases = NULL;
    out->res.nphases = 0;
    /* A new prediction to score once the previous one is settled. */
    if (!s->pending && out->res.has_period && out->res.next.valid) {
        s->pending = true;
        s->pred = out->res.next;
        s->pred_period = out->res.dominant.period;
    }
    out->has_error = s->has_error;
    out->last_error = s->last_error;
    out->p_periodic = ftio_history_p_periodic(&s->hist);
    out->after = isnan(now) ? x->t1 : now;
    return 0;
}

int ftio_online_step(struct ftio_online *s, struct ftio_analyzer *a, const struct ftio_bins *b,
                     double t_end, double now, struct ftio_samples *x,
                     struct ftio_online_update *out, char *err, size_t errlen)
{
    int rc = ftio_online_window(s, b, t_end, x, err, errlen);
    return rc != 0 ? rc : ftio_online_analyse(s, a, x, t_end, now, out, err, errlen);
}
