/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_step.c -- one turn of a job on an analysis thread (ALGORITHM.md §5,
 * §6).
 *
 * Each (job, mode) runs the online loop of the analysis library
 * (ftio_online_step): one analysis per data-time boundary, every --step
 * seconds of the job's data, the same boundaries `ftio --window` uses, so a
 * replayed trace gives the messages the offline tool prints (under
 * --catch-up every; sched_queue.c says which boundary is next and when one
 * is due).  Under the lock the thread copies the window's bins and the
 * loop's state, drops the lock to analyse, takes it again to store the
 * result and build the JSON, and publishes outside it: ingest never waits
 * for an analysis.  A turn is one boundary per mode.  Jobs whose processes
 * all sent `final`, that were silent for --job-timeout, or all jobs at
 * shutdown (without --state-dir) get their remaining boundaries, one per
 * turn, then a last analysis of the whole job and their `ftio.<job>.end`
 * summary (end_message.c); an ended job is kept --late-batches seconds for
 * a corrected end, then removed (see daemon.h for who removes what).  The
 * summary is laid on the mode's earliest record when the live grid has no
 * edge there (relay_summary), so it is what the offline `ftio` says of the
 * complete trace.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "job_activities.h"
#include "job_clock.h"
#include "sched.h"
#include "publish/report.h"

/* The last edge of the mode's grid at or before t (1e-9 bins of slack for
 * times computed as sums). */
static double grid_floor(const struct ftio_bins *b, double t)
{
    return b->origin + floor((t - b->origin) * b->fs + 1e-9) / b->fs;
}

/* The summary of a mode whose earliest record is not on its grid (it came
 * after the first one: a late rank, an out-of-order replay): lay a grid on
 * the earliest record from the mode's record log and sample [t_min, t_max]
 * from it, as the offline `ftio` samples the complete trace from its t_0.
 * Only when the log is complete and nothing fell off the horizon; false
 * otherwise (the caller stays on the live grid).  Caller holds the lock: it
 * costs O(records + bins), once per job and mode. */
static bool relay_summary(struct analysis *a, const struct job *j, int mode)
{
    const struct job_mode_state *m = &j->mode[mode];
    const struct ftiod_config *c = &a->d->cfg;
    const struct job_record_log *l = &m->log;
    const struct ftio_bins *live = &m->bins;
    if (m->t_min == m->grid_t0 || l->overflow || l->n == 0 ||
        m->t_min < live->origin + (double)live->first / live->fs || live->dropped_bytes > 0)
        return false;
    struct ftio_bins b;
    size_t cap = (size_t)ceil((m->t_max - m->t_min) * c->limits.fs) + 2;
    if (ftio_bins_init(&b, c->limits.fs, m->t_min, cap) < 0)
        return false;
    for (size_t i = 0; i < l->n; i++)
        ftio_bins_add(&b, l->t_start[i], l->t_end[i], l->bytes[i]);
    bool ok = b.dropped_bytes == 0 &&
              ftio_bins_samples_mode(&b, m->t_min, m->t_max, c->opts.sampling, &a->x) == 0 &&
              a->x.n > 0;
    ftio_bins_free(&b);
    if (ok && c->verbose)
        ftiod_log_at(FTIOD_DEBUG,
                     "job %s %s: summary re-laid on the earliest record, %.9f s before "
                     "the grid's", j->id, job_mode_name(mode), m->grid_t0 - m->t_min);
    return ok;
}

/* The mode's online loop, its boundaries laid from its first record (the
 * grid's edge 0), as `ftio --window` lays them from the trace's first event. */
void sched_online_ready(const struct ftiod_config *c, struct job_mode_state *m)
{
    if (m->online_init)
        return;
    ftio_online_init(&m->online, &c->opts, c->step, c->window, m->grid_t0);
    m->boundary = ftio_online_next_boundary(&m->online, m->grid_t0);
    m->online_init = true;
    /* Rebuilt from --state-dir: the daemon that died published the boundaries
     * up to the data's end; go on from there. */
    if (m->restored && m->boundary <= m->t_max)
        m->boundary = ftio_online_next_boundary(&m->online, m->t_max);
    m->restored = false;
}
/* --verbose: the analysis in the words of `ftio` (ftio_report_line) as one
 * debug line. */
static void log_result(const struct job *j, const struct ftio_result *r, int mode)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    ftio_report_line(f, r, job_mode_name(mode));
    if (fclose(f) == 0 && text) {
        while (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
        ftiod_log_at(FTIOD_DEBUG, "job %s %s", j->id, text);
    }
    free(text);
}

/* One step of the online loop of (j, mode) at its next boundary; publish
 * what it says.  Enters and leaves with the lock held; drops it while
 * computing and publishing. */
void sched_analyse_boundary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    struct job_mode_state *m = &j->mode[mode];
    double b = m->boundary;
    m->boundary = ftio_online_next_boundary(&m->online, b);
    if (m->t_max <= b)
        m->dirty = false;             /* everything received is in this window */
    if (m->boundary > m->t_max)
        m->flush = false;
    /* The test ftio_online_step makes first (online.c): no data in the last
     * step, no analysis.  Made here, it spares copying the window. */
    if (m->online.hist.analyses > 0 &&
        !(ftio_bins_bytes(&m->bins, b - m->online.step, b) > 0)) {
        m->last_run = ftiod_now();
        return;
    }
    double ts = ftio_online_window_start(&m->online, b);
    bool ok = ftio_bins_copy(&m->bins, ts - m->online.step, b, &a->bins) == 0;
    a->online = m->online;
    /* The next phase is predicted after "now": the wall clock while the job
     * is live (between bursts the data end lags behind; the daemon's clock
     * is the shims' on one host, NTP-close across nodes), the boundary for
     * old data (a replay of last week's spool files), as `ftio --window`. */
    double now_rel = sched_job_now(j);
    double now = sched_is_live(m, now_rel) && now_rel > b ? now_rel : b;
    struct job_act_work *aw = job_activities_prepare(j, mode, b);
    pthread_mutex_unlock(&d->lock);

    char err[256] = "";
    int rc = ok ? ftio_online_step(&a->online, a->an, &a->bins, b, now, &a->x, &a->upd,
                                   err, sizeof err)
                : -1;
    if (!ok)
        snprintf(err, sizeof err, "out of memory copying the window");
    job_activities_run(aw, a->an, &a->x, b, now);

    pthread_mutex_lock(&d->lock);
    job_activities_commit(j, mode, aw);
    m->online = a->online;
    m->last_run = ftiod_now();
    if (rc != 0) {
        if (rc < 0 && d->cfg.verbose) {
            pthread_mutex_unlock(&d->lock);
            ftiod_log_rl_at(&a->rl_err, FTIOD_DEBUG, "job %s %s: no analysis at %.3f s: %s",
                            j->id, job_mode_name(mode), b, err);
            pthread_mutex_lock(&d->lock);
        }
        return;
    }
    d->stats.analyses++;
    m->last = a->upd.res;
    m->update = a->upd;
    m->has_result = true;
    m->pub_seq++;
    json_t *o = ftiod_prediction_json(j, mode);
    char *topic = ftiod_topic_of(j->id, job_mode_name(mode));
    pthread_mutex_unlock(&d->lock);

    if (o && topic)
        ftiod_publish(d, topic, o);
    else
        json_decref(o);
    free(topic);
    if (d->cfg.verbose)
        log_result(j, &a->upd.res, mode);
    pthread_mutex_lock(&d->lock);
}

/* The summary of (j, mode): the whole job, whole bins, like the offline
 * `ftio` on the complete trace, on a grid from its earliest record when the
 * live grid has no edge there.  Caller holds the lock; it is dropped while
 * computing. */
static void analyse_summary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    const struct ftiod_config *c = &d->cfg;
    struct job_mode_state *m = &j->mode[mode];
    const struct ftio_bins *bins = &m->bins;
    bool ok = relay_summary(a, j, mode);
    if (!ok) {
        double ts = grid_floor(bins, m->t_min);
        double oldest = grid_floor(bins, m->t_max) - c->limits.horizon;   /* kept bins */
        if (ts < oldest)
            ts = oldest;
        ok = ftio_bins_samples_mode(bins, ts, m->t_max, c->opts.sampling, &a->x) == 0 &&
             a->x.n > 0;
    }
    if (!ok)
        return;
    pthread_mutex_unlock(&d->lock);
    char err[256] = "";
    int rc = ftio_analyze(a->an, &a->x, &c->opts, a->x.t1, &a->res, err, sizeof err);
    pthread_mutex_lock(&d->lock);
    d->stats.analyses++;
    if (rc != 0) {
        if (c->verbose)
            ftiod_log_at(FTIOD_DEBUG, "job %s %s: no summary: %s", j->id, job_mode_name(mode), err);
        return;
    }
    m->last = a->res;
    m->last.phases = NULL;
    m->last.nphases = 0;
    m->update.res = m->last;
    m->update.stale = false;
    m->update.since = NAN;
    m->update.has_error = m->online.has_error;
    m->update.last_error = m->online.last_error;
    m->update.p_periodic = ftio_history_p_periodic(&m->online.hist);
    m->has_result = true;
    if (c->verbose)
        log_result(j, &m->last, mode);
}


/* The summary of every mode (the whole job, bounded by the horizon) and the
 * end message.  The job is then kept --late-batches seconds: batches that
 * arrive in that time (a spool file replayed) are merged into it and lead to
 * a corrected end message, the next `revision` (PROTOCOL.md §2). */
void sched_end_job(struct analysis *a, struct job *j, const char *why)
{
    struct ftiod *d = a->d;
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->has_data)
            continue;
        sched_online_ready(&d->cfg, m);
        analyse_summary(a, j, mode);
    }
    ftiod_end_message(d, j, why);
}

bool sched_turn(struct analysis *a, struct job *j, double now, bool stopping)
{
    struct ftiod *d = a->d;
    const char *why;
    enum sched_work w = sched_work_of(d, j, now, stopping, &why);
    if (w == SCHED_NOTHING || w == SCHED_FORGET)
        return false;
    bool ending = w != SCHED_BOUNDARIES, left = false;
    if (ending)     /* batches held for their clock go in before the last analyses */
        job_clock_settle(j, &d->cfg.limits);
    char reason[sizeof j->ended_by];
    snprintf(reason, sizeof reason, "%s", why ? why : "");
    /* A daemon told to stop without --state-dir gives each job its summary
     * at once, not the boundaries still due. */
    for (int mode = 0; mode < JOB_NMODES && !stopping; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->has_data)
            continue;
        sched_online_ready(&d->cfg, m);
        if (sched_boundary_due(d, j, m, ftiod_now(), ending)) {
            sched_analyse_boundary(a, j, mode);
            left |= ending && sched_boundary_due(d, j, m, ftiod_now(), true);
        }
    }
    /* An ending job's boundaries take a turn each, as live ones do; the end
     * comes in the turn that finds none left. */
    if (ending && !left)
        sched_end_job(a, j, reason);
    return true;
}
