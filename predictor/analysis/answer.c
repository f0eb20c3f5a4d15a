/* SPDX-License-Identifier: BSD-3-Clause */
/* answer.c -- the job-level answer (answer.h, ALGORITHM.md §10).
 *
 * Why: a job with several periodic activities has one signal holding all of
 * them, and the analysis of that signal answers a mixture: LAMMPS' dumps
 * every 0.6 s and restarts every 2.3-2.9 s read 1.42-1.46 s `periodic`; jobs
 * writing 8 x 16 MiB every 10 s beside 8 x 64 MiB every 60 s read 19.6 s at
 * 0.96 while their activities said 10 s and 60 s.  Each activity's own
 * analysis sees one behaviour; the heaviest one is what a burst buffer or a
 * scheduler plans for first.
 */
#include <math.h>
#include <string.h>

#include "answer.h"
#include "activities.h"

/* The activity that moves the most bytes; among those within FTIO_ANSWER_TIE
 * of it, the first pattern: two activities that move about as much (frames
 * and checkpoints of the same bytes per minute) would otherwise take turns
 * online, after each one's output, and the job's answer with them. */
static size_t heaviest(const struct ftio_answer_part *acts, size_t n)
{
    double most = 0;
    for (size_t k = 0; k < n; k++)
        most = fmax(most, acts[k].bytes);
    size_t d = n;
    for (size_t k = 0; k < n; k++) {
        if (!(acts[k].bytes >= (1 - FTIO_ANSWER_TIE) * most))
            continue;
        if (d == n || (acts[k].pattern && acts[d].pattern && strcmp(acts[k].pattern, acts[d].pattern) < 0))
            d = k;
    }
    return d < n ? d : 0;
}

/* At most c: the confidence, the candidate that carries it, the class. */
static void cap(struct ftio_result *r, double c)
{
    if (!r->has_period || !(r->dominant.confidence > c))
        return;
    r->dominant.confidence = c;
    if (r->ncand > 0)
        r->cand[0].confidence = c;
    if (r->cls == FTIO_CLASS_PERIODIC && c < 0.8)
        r->cls = FTIO_CLASS_UNCERTAIN;
}

void ftio_answer_cap_share(struct ftio_result *r, double share)
{
    if (r->detector != FTIO_DETECTOR_COMPAT && share < 1)
        cap(r, share > 0 ? share : 0);
}

static bool has_period(const struct ftio_answer_part *p)
{
    return p->res && p->res->has_period;
}

int ftio_job_answer(const struct ftio_result *job, const struct ftio_answer_part *acts, size_t n,
                    double now, struct ftio_result *out)
{
    *out = *job;
    if (n <= 1)
        return n == 1 ? 0 : -1;
    if (job->detector == FTIO_DETECTOR_COMPAT)
        return -1;      /* the published FTIO answers from the whole signal */
    size_t d = heaviest(acts, n);
    const struct ftio_result *h = acts[d].res;
    /* Its answer, unless it is not `periodic` while the whole signal is, at
     * another period (then the whole signal's answer, judged below). */
    if (has_period(&acts[d]) && (h->cls == FTIO_CLASS_PERIODIC || job->cls != FTIO_CLASS_PERIODIC ||
                                 ftio_activity_matches(h, job))) {
        *out = *acts[d].res;
        if (!isnan(now))
            ftio_activity_roll_next(out, now);
        /* The whole signal's phases are the activity's with what other
         * activities write at the same time: what the job moves then. */
        if (ftio_activity_matches(out, job) && job->metrics.valid && out->metrics.valid) {
            out->metrics.phase_bytes = job->metrics.phase_bytes;
            out->metrics.phase_duration = job->metrics.phase_duration;
            if (out->next.valid) {
                out->next.bytes = job->metrics.phase_bytes;
                out->next.end = out->next.start + job->metrics.phase_duration;
            }
        }
        return (int)d;
    }
    /* The whole signal's answer, which is the activity whose period it is
     * (the heaviest such), or a mixture of those that have one. */
    int match = -1;
    bool periods = false;
    for (size_t k = 0; k < n; k++) {
        periods |= has_period(&acts[k]);
        if (has_period(&acts[k]) && ftio_activity_matches(job, acts[k].res) &&
            (match < 0 || acts[k].bytes > acts[match].bytes))
            match = (int)k;
    }
    if (match < 0 && periods)
        cap(out, FTIO_MIXTURE_CONF);
    else if (match >= 0 && match != (int)d)
        cap(out, FTIO_NOT_HEAVIEST_CONF);
    return match;
}
