/* SPDX-License-Identifier: BSD-3-Clause */
/* prediction_json.c -- the prediction message of one (job, mode) (PROTOCOL.md
 * §2): the latest result of the mode's online loop, its times moved from
 * job-relative seconds to the Unix epoch, with the job's ids, the mode's
 * publication number and the job's totals.  Built under the lock by the
 * analysis threads (sched_step.c) and by the control socket (control_serve.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "history_glue.h"
#include "answer.h"
#include "job_activities.h"
#include "job_machine.h"
#include "jobid.h"
#include "publish/report.h"
#include "timeutil.h"

/* Phase referred to relative time 0 -> referred to the Unix epoch. */
static double epoch_phase(double phase, double f, double origin)
{
    double turns = fmod(f * origin, 1.0);
    double p = phase - 2.0 * M_PI * turns;
    p = fmod(p, 2.0 * M_PI);
    if (p > M_PI)
        p -= 2.0 * M_PI;
    else if (p <= -M_PI)
        p += 2.0 * M_PI;
    return p;
}

/* "job" (the id as sent, topics use it) plus "jobid" and "step": a
 * step-qualified id "<job>.<step>" (Slurm, common/jobid.h) split, else the
 * id and null (PROTOCOL.md §2). */
void ftiod_set_job_fields(json_t *o, const char *id)
{
    size_t cap = strlen(id) + 1;
    char job[cap], step[cap];
    int stepped = ftio_job_split(id, job, cap, step, cap);
    json_object_set_new(o, "job", json_string(id));
    json_object_set_new(o, "jobid", json_string(job));
    json_object_set_new(o, "step", stepped ? json_string(step) : json_null());
}

/* The job-level answer of mode m (answer.h): the mode's own (its whole
 * signal, latest) or its heaviest activity's, read through job_answers();
 * *u gets the online fields of the answer chosen.  The activity's pattern,
 * or NULL. */
static const char *job_level(const struct job *j, int mode, const struct ftio_online_update *latest,
                             struct ftio_result *r, struct ftio_online_update *u)
{
    struct job_answer ans[JOB_MAX_ACTIVITIES + 1];
    struct ftio_answer_part part[JOB_MAX_ACTIVITIES];
    size_t n = job_answers(j, mode, ans, JOB_MAX_ACTIVITIES + 1);
    for (size_t k = 1; k < n; k++)
        part[k - 1] = (struct ftio_answer_part){ ans[k].pattern, ans[k].bytes,
                                                 ans[k].update ? &ans[k].update->res : NULL };
    int k = ftio_job_answer(&latest->res, part, n ? n - 1 : 0, latest->after, r);
    *u = *latest;
    if (k >= 0 && ans[k + 1].update && ans[k + 1].update != latest) {
        *u = *ans[k + 1].update;
        u->res = *r;
        u->after = latest->after;
    }
    return k >= 0 ? ans[k + 1].pattern : NULL;
}

/* The §2 prediction object of mode m (caller holds the lock). */
json_t *ftiod_prediction_json(const struct job *j, int mode)
{
    const struct job_mode_state *m = &j->mode[mode];
    const struct ftio_online_update *latest = job_mode_update(m);
    const struct ftio_stream_totals *tot = job_mode_totals(m);
    static const struct ftio_online_update none;   /* a prior leading before the first analysis */
    if (!latest && !ftiod_history_leads(j, mode))
        return NULL;
    if (!latest)
        latest = &none;
    double origin = (double)j->origin_ns * 1e-9;
    struct ftio_result r;             /* shifted copy: epoch times */
    struct ftio_online_update u;
    const char *activity = job_level(j, mode, latest, &r, &u);
    r.t0 += origin;
    r.t1 += origin;
    if (r.next.valid) {
        r.next.start += origin;
        r.next.end += origin;
    }
    if (r.has_period)
        r.dominant.phase = epoch_phase(r.dominant.phase, r.dominant.frequency, origin);
    for (size_t i = 0; i < r.ncand && i < FTIO_RESULT_CANDIDATES; i++)
        r.cand[i].phase = epoch_phase(r.cand[i].phase, r.cand[i].frequency, origin);
    for (size_t i = 0; i < r.ntop && i < FTIO_MAX_CANDIDATES; i++)
        r.top[i].phase = epoch_phase(r.top[i].phase, r.top[i].frequency, origin);

    json_t *o = ftio_report_json(&r, job_mode_name(mode));
    if (!o)
        return NULL;
    ftiod_set_job_fields(o, j->id);
    json_object_set_new(o, "seq", json_integer((json_int_t)m->pub_seq));
    json_object_set_new(o, "published", json_real((double)ftio_real_ns() * 1e-9));
    json_object_set_new(o, "activity", activity ? json_string(activity) : json_null());
    if (u.stale)
        u.since += origin;
    ftio_report_json_online(o, &u);
    struct ftio_report_totals t = {
        .ranks = (int64_t)j->nprocs, .bytes = tot->bytes,
        .records = (int64_t)tot->records, .lost = j->lost,
    };
    ftio_report_json_totals(o, &t);
    job_machine_json(j, mode, origin, o);   /* phase and next descriptors, next.duration */
    json_object_set_new(o, "activities", job_activities_json(j, mode, origin, &u));
    ftiod_history_json(j, mode, o);   /* v4 `source`, `history` (history_glue.h) */
    return o;
}

char *ftiod_topic_of(const char *job, const char *what)
{
    size_t n = strlen(job) + strlen(what) + 7;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "ftio.%s.%s", job, what);
    return t;
}

