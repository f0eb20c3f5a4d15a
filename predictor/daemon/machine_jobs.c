/* SPDX-License-Identifier: BSD-3-Clause */
/* machine_jobs.c -- the machine view's work on each job (job_machine.h):
 * after each analysis of a (job, mode) its phases the data has passed are
 * described, those confirmed score and teach the duration model, and the
 * next phase's duration is predicted under the load the latest forecast
 * expects of the others (job_machine_step, an analysis thread); each
 * second the machine thread takes the job's complete seconds of bytes and
 * its predicted phase trains (job_machine_drain, job_machine_trains).
 * Kept apart from job_machine.c, which job.c links alone (the unit tests
 * of the job state need no machine). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "job_activities.h"
#include "job_machine.h"
#include "machine.h"
#include "sched.h"
#include "timeutil.h"

/* The least tolerance on the start of a predicted phase when it is scored. */
#define SCORE_TOLERANCE_MIN 1.0

int job_machine_gfs(const struct job *j, struct ftiod_machine *mc, int slot)
{
    struct job_machine *m = j->mach;
    if (!m)
        return ftiod_machine_fs(mc, NULL);
    if (slot < 0 || slot >= (int)m->nfs)
        slot = JM_FS;
    if (m->gfs[slot] < 0)
        m->gfs[slot] = ftiod_machine_fs(mc, slot == JM_FS ? NULL : m->fs_name[slot]);
    return m->gfs[slot];
}

void job_machine_drain(struct job *j, struct ftiod_machine *mc, int64_t before,
                       void (*add)(void *ctx, int fs, int mode, int64_t sec, double bytes),
                       void *ctx)
{
    struct job_machine *m = j->mach;
    if (!m)
        return;
    for (int i = 0; i < JM_OBS; i++) {
        struct jm_obs *o = &m->obs[i];
        if (o->sec == 0 || o->sec >= before)
            continue;
        for (int md = 0; md < JOB_NMODES; md++)
            for (int k = 0; k <= JM_FS; k++)
                if (o->bytes[md][k] > 0)
                    add(ctx, job_machine_gfs(j, mc, k), md, o->sec, o->bytes[md][k]);
        memset(o, 0, sizeof *o);
    }
}

/* ---- after an analysis ------------------------------------------------------- */

/* Train of j's mode answer: the next phase at `start` (epoch s) with the
 * typical phase's bytes and the given duration. */
static struct ftio_fc_train own_train(const struct ftio_online_update *u, double start,
                                      double duration, double bytes)
{
    const struct ftio_result *r = &u->res;
    return (struct ftio_fc_train){
        .start = start, .period = r->has_period ? r->dominant.period : 0,
        .duration = duration, .bytes = bytes,
        .confidence = r->has_period ? r->dominant.confidence : 1,
        .jitter = r->has_period ? fmax(0.1, r->dominant.period * fmin(r->interval_cv, 1)) : 0.5,
        .cv = r->interval_cv,
    };
}

/* Others' B/s on fs while a phase of j ran over [a, b] (epoch s): what the
 * observed series holds there less the phase's own bytes. */
static double others_observed(struct ftiod_machine *mc, int gfs, double a, double b, double own)
{
    double all = ftiod_machine_observed(mc, gfs, a, b);
    if (isnan(all) || !(b > a))
        return NAN;
    return fmax(0, all - own) / (b - a);
}

void job_machine_step(struct ftiod_machine *mc, struct job *j, int mode, double b)
{
    struct job_machine *m = j->mach;
    if (mc && isfinite(b) && j->has_origin) {
        /* live data: how long after its window's end the prediction comes */
        double late = (double)ftio_real_ns() * 1e-9 - ((double)j->origin_ns * 1e-9 + b);
        if (late >= 0 && late < SCHED_LIVE_LAG)
            ftiod_machine_note_latency(mc, late);
    }
    if (!m || !mc)
        return;
    struct jm_mode *jm = &m->mode[mode];
    struct job_mode_state *ms = &j->mode[mode];
    static const struct ftio_online_update none;   /* before the mode's first answer */
    const struct ftio_online_update *mu = job_mode_update(ms) ? job_mode_update(ms) : &none;
    const struct ftio_result *r = &mu->res;
    double T = r->has_period ? r->dominant.period : NAN;
    double D = r->metrics.valid ? r->metrics.phase_duration : NAN;
    double origin = (double)j->origin_ns * 1e-9;
    ftio_pt_settle(&m->pt, mode, b, ftio_pt_gap(&m->pt, T, D));

    /* The phases confirmed whose time the observed series holds: score the
     * prediction made of each, and learn from it. */
    double tol = fmax(SCORE_TOLERANCE_MIN, isfinite(T) ? 0.25 * T : 0);
    struct ftio_dm_fit *site = ftiod_machine_site_fit(mc), *app = ftiod_machine_app_fit(mc, m->app);
    const struct ftio_pt_phase *ph;
    while ((ph = ftio_pt_take_confirmed(&m->pt, mode, ftiod_machine_complete(mc) - origin))) {
        double dur = ph->end - ph->start;
        if (!(dur > 0) || !(ph->bytes > 0))
            continue;
        if (!jm->dm && !(jm->dm = calloc(1, sizeof *jm->dm)))
            return;
        double load = others_observed(mc, job_machine_gfs(j, mc, ph->fs), origin + ph->start,
                                      origin + ph->end, ph->bytes * ph->fs_share);
        /* Learnt with the load it was predicted with, when it was (what the
         * model will be given), else with the one observed. */
        double predicted;
        ftio_dm_score(site, app, jm->dm, ph->start, dur, tol, &predicted);
        struct ftio_dm_phase p = { .bytes = ph->bytes, .ranks = ph->ranks,
                                   .skew_bytes = ph->skew_bytes, .files = ph->files,
                                   .load = !isnan(predicted) ? predicted : isnan(load) ? 0 : load };
        ftio_dm_learn(site, app, jm->dm, &p, dur);
    }
    /* The phases the answer is of (its bytes per phase). */
    double like = r->next.valid ? r->next.bytes : r->metrics.valid ? r->metrics.phase_bytes : NAN;
    jm->has_typical = ftio_pt_typical(&m->pt, mode, FTIO_PT_HISTORY, like, &jm->typical);

    /* The next phase: its duration under the load the others are expected
     * to put on its file system then. */
    jm->has_pred = false;
    jm->next_start = NAN;
    if (!jm->has_typical || !r->next.valid || !jm->dm || jm->dm->n == 0)
        return;
    double start = r->next.start, guess = jm->typical.end;
    int gfs = job_machine_gfs(j, mc, jm->typical.fs);
    struct ftio_fc_train own = own_train(mu, origin + start, guess, jm->typical.bytes);
    double all = ftiod_machine_expected(mc, gfs, origin + start, origin + start + guess);
    double load = isnan(all) ? 0
                  : fmax(0, all - ftio_fc_train_mean(&own, origin + start, origin + start + guess));
    struct ftio_dm_phase p = { .bytes = jm->typical.bytes, .ranks = jm->typical.ranks,
                               .skew_bytes = jm->typical.skew_bytes, .files = jm->typical.files,
                               .load = load };
    ftio_dm_predict(site, app, jm->dm, &p, &jm->pred);
    if (!jm->pred.valid)
        return;
    jm->has_pred = true;
    jm->next_start = start;
    jm->next_load = load;
    if (job_mode_totals(ms) && start > job_mode_totals(ms)->t_max)   /* a phase still to come */
        ftio_dm_expect(jm->dm, start, &jm->pred, tol);
}

/* ---- the machine thread's view ------------------------------------------------ */

size_t job_machine_trains(const struct job *j, struct ftiod_machine *mc, uint32_t idx,
                          double now, struct ftio_fc_train *out, size_t max)
{
    const struct job_machine *m = j->mach;
    double origin = (double)j->origin_ns * 1e-9;
    size_t n = 0;
    for (int mode = 0; mode < JOB_NMODES && n < max; mode++) {
        const struct job_mode_state *ms = &j->mode[mode];
        const struct jm_mode *jm = m ? &m->mode[mode] : NULL;
        if (!job_mode_update(ms))
            continue;
        struct job_answer ans[1 + JOB_MAX_ACTIVITIES];
        size_t na = job_answers(j, mode, ans, 1 + JOB_MAX_ACTIVITIES);
        int dflt = jm && jm->has_typical ? jm->typical.fs : 0;
        /* The activities, when they are periodic and on several file
         * systems (each on its own); else the mode's own answer. */
        bool split = false;
        int first_fs = -1;
        for (size_t k = 1; m && k < na; k++) {
            int f = job_machine_fs_of_pattern(m, ans[k].pattern, dflt);
            if (first_fs >= 0 && f != first_fs)
                split = true;
            first_fs = f;
        }
        for (size_t k = split ? 1 : 0; k < (split ? na : 1) && n < max; k++) {
            const struct ftio_online_update *u = ans[k].update;
            if (!u || !u->res.next.valid)
                continue;
            const struct ftio_result *r = &u->res;
            double start = origin + r->next.start, bytes = r->next.bytes;
            double dur = r->next.end - r->next.start;
            int slot = k == 0 ? dflt : job_machine_fs_of_pattern(m, ans[k].pattern, dflt);
            if (k == 0 && jm && jm->has_pred && jm->next_start == r->next.start)
                dur = jm->pred.median;
            if (k == 0 && jm && jm->has_typical) {
                bytes = isfinite(bytes) && bytes > 0 ? bytes : jm->typical.bytes;
                if (!(dur > 0))
                    dur = jm->typical.end;
            }
            if (!(dur > 0) || !(bytes > 0))
                continue;
            struct ftio_fc_train t = own_train(u, start, dur, bytes);
            /* A start already past (no analysis since): whole periods on. */
            if (t.period > 0 && t.start < now) {
                double k2 = ceil((now - t.start) / t.period);
                if (k2 > 3)            /* silent for 3 periods: nothing to say */
                    continue;
                t.start += k2 * t.period;
            } else if (!(t.period > 0) && t.start + dur < now) {
                continue;
            }
            t.job = idx;
            t.fs = (uint16_t)job_machine_gfs(j, mc, slot);
            t.mode = (uint8_t)mode;
            out[n++] = t;
        }
    }
    return n;
}
