/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_step.c -- one turn of a job on an analysis thread (ALGORITHM.md §5,
 * §6).
 *
 * Each (job, mode) is a live stream of the analysis library
 * (analysis/stream.h, the code `ftio --window` runs too): one analysis per
 * data-time boundary, every --step seconds of the job's data, the same
 * boundaries `ftio --window` uses, so a replayed trace gives the messages
 * the offline tool prints (under --catch-up every; sched_queue.c says which
 * boundary is next and when one is due).  Under the lock the thread copies
 * the windows and loops (ftio_stream_prepare), drops the lock to analyse
 * (ftio_stream_run), takes it again to store the results
 * (ftio_stream_commit) and build the JSON, and publishes outside it: ingest
 * never waits for an analysis.  A turn is one boundary per mode.  Jobs whose
 * processes all sent `final`, that were silent for --job-timeout, or all jobs
 * at shutdown (without --state-dir) get their remaining boundaries (a few a
 * turn: sched.h SCHED_ENDING_STEPS), then the summary of the whole job and
 * their `ftio.<job>.end`
 * (end_message.c); an ended job is kept --late-batches seconds for a
 * corrected end, then removed (see daemon.h for who removes what).  The
 * summary is what the offline `ftio` says of the complete trace (the stream
 * lays it on the mode's earliest record when the live grid has no edge
 * there), for the mode and for each activity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "history_glue.h"
#include "job_activities.h"
#include "job_machine.h"
#include "job_clock.h"
#include "sched.h"
#include "publish/report.h"

/* The mode's online loop's boundaries, laid from its first record (the
 * grid's edge 0), as `ftio --window` lays them from the trace's first event. */
void sched_online_ready(const struct ftiod_config *c, struct job_mode_state *m)
{
    (void)c;
    if (m->online_init || !m->stream)
        return;
    const struct ftio_stream_totals *t = ftio_stream_totals(m->stream);
    double t0 = ftio_stream_origin(m->stream);
    m->boundary = ftio_stream_next_boundary(m->stream, t0);
    m->online_init = true;
    /* Rebuilt from --state-dir: the daemon that died published the boundaries
     * up to the data's end; go on from there. */
    if (m->restored && m->boundary <= t->t_max)
        m->boundary = ftio_stream_next_boundary(m->stream, t->t_max);
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

/* The text of publication seq of m, kept for a stopping daemon's `.end`
 * (job.h: said); in place when it fits.  Lock held. */
static void keep_said(struct job_mode_state *m, uint64_t seq, const char *text, size_t len)
{
    if (!text || seq != m->pub_seq)
        return;                       /* another publication came since (a prior) */
    if (len > m->said_cap) {
        char *p = realloc(m->said, len);
        if (!p) {
            job_mode_forget_said(m);  /* the old text would say an older answer */
            return;
        }
        m->said = p;
        m->said_cap = len;
    }
    memcpy(m->said, text, len);
    m->said_len = len;
    m->said_seq = seq;
}

/* One step of the online loop of (j, mode) at its next boundary; publish
 * what it says.  Enters and leaves with the lock held; drops it while
 * computing and publishing. */
void sched_analyse_boundary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    struct job_mode_state *m = &j->mode[mode];
    double t_max = job_mode_totals(m)->t_max;
    double b = m->boundary;
    m->boundary = ftio_stream_next_boundary(m->stream, b);
    if (t_max <= b)
        m->dirty = false;             /* everything received is in this window */
    if (m->boundary > t_max)
        m->flush = false;
    /* Under the lock: the windows' copies (none when the last step holds no
     * data: no analysis, online.c). */
    int rc = ftio_stream_prepare(m->stream, b, false, a->work);
    if (rc != 0) {
        m->last_run = ftiod_now();
        return;
    }
    /* The next phase is predicted after "now": the wall clock while the job
     * is live (between bursts the data end lags behind; the daemon's clock
     * is the shims' on one host, NTP-close across nodes), the boundary for
     * old data (a replay of last week's spool files), as `ftio --window`. */
    double now_rel = sched_job_now(j);
    double now = sched_is_live(m, now_rel) && now_rel > b ? now_rel : b;
    pthread_mutex_unlock(&d->lock);

    char err[256] = "";
    ftio_stream_run(a->work, a->an, now, err, sizeof err);

    ftiod_lock_analysis(d);
    rc = ftio_stream_commit(m->stream, a->work);
    job_table_account(&d->jobs, j);        /* its window may have forgotten bins */
    m->last_run = ftiod_now();
    if (rc != 0) {
        if (rc < 0 && d->cfg.verbose) {
            pthread_mutex_unlock(&d->lock);
            ftiod_log_rl_at(&a->rl_err, FTIOD_DEBUG, "job %s %s: no analysis at %.3f s: %s",
                            j->id, job_mode_name(mode), b, err);
            ftiod_lock_analysis(d);
        }
        return;
    }
    d->stats.analyses++;
    m->pub_seq++;
    ftiod_history_step(a, j, mode, b);   /* the memory of runs' prior, checked (history_glue.h) */
    job_machine_step(d->machine, j, mode, b);   /* phases described, next duration */
    json_t *o = ftiod_prediction_json(j, mode);
    char *topic = ftiod_topic_of(j->id, job_mode_name(mode));
    struct ftio_result said = job_mode_update(m)->res;
    uint64_t seq = m->pub_seq;
    pthread_mutex_unlock(&d->lock);

    char *text = o && topic ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    size_t len = text ? strlen(text) : 0;
    if (text)
        ftiod_publish_text(d, topic, text, len, FTIOD_PUB_LOG | FTIOD_PUB_COUNT);
    free(topic);
    if (d->cfg.verbose)
        log_result(j, &said, mode);
    ftiod_lock_analysis(d);
    keep_said(m, seq, text, len);
    free(text);
}

/* The summary of (j, mode) and of each of its activities: the whole job,
 * whole bins, like the offline `ftio` on the complete trace (stream.c lays
 * it on the earliest record when the live grid has no edge there).  Caller
 * holds the lock; it is dropped while computing. */
static void analyse_summary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    struct job_mode_state *m = &j->mode[mode];
    if (ftio_stream_prepare(m->stream, job_mode_totals(m)->t_max, true, a->work) != 0)
        return;
    pthread_mutex_unlock(&d->lock);
    char err[256] = "";
    ftio_stream_run(a->work, a->an, NAN, err, sizeof err);
    ftiod_lock_analysis(d);
    int rc = ftio_stream_commit(m->stream, a->work);
    d->stats.analyses++;
    m->said_seq = 0;          /* the latest answer is no more the text kept */
    if (rc != 0) {
        if (d->cfg.verbose)
            ftiod_log_at(FTIOD_DEBUG, "job %s %s: no summary: %s", j->id, job_mode_name(mode), err);
        return;
    }
    if (d->cfg.verbose)
        log_result(j, &job_mode_update(m)->res, mode);
}


bool sched_summarised(const struct job *j)
{
    return j->summarised && j->summarised_at == j->last_activity;
}

/* The text of the summary of (j, mode), kept as the latest answer's for
 * the `.end` (end_message.c): made now, not when the end is due or the
 * daemon stops.  Lock held. */
static void keep_summary(struct job *j, int mode)
{
    struct job_mode_state *m = &j->mode[mode];
    if (!job_mode_update(m))
        return;
    json_t *o = ftiod_prediction_json(j, mode);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    keep_said(m, m->pub_seq, text, text ? strlen(text) : 0);
    free(text);
}

/* The summaries of j's modes (stopping: of those without an answer, while
 * there is time); how many modes were left without one. */
static size_t summarise(struct analysis *a, struct job *j, bool stopping)
{
    struct ftiod *d = a->d;
    size_t unanalysed = 0;
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->stream || (stopping && job_mode_update(m)))
            continue;
        if (stopping && !sched_stop_may_analyse(d)) {
            unanalysed++;
            continue;
        }
        sched_online_ready(&d->cfg, m);
        analyse_summary(a, j, mode);
        job_machine_step(d->machine, j, mode, INFINITY);   /* its last phases described */
        keep_summary(j, mode);
    }
    j->summarised = !stopping;
    j->summarised_at = j->last_activity;
    return unanalysed;
}

/* The summary of every mode (the whole job, bounded by what its stream
 * keeps; made already when every process sent final and no batch came
 * since) and the end message.  A stopping daemon says the latest answers,
 * and analyses only the modes that have none yet while it has time for it
 * (sched.h: SCHED_STOP_ANALYSES), so that every job has its end message
 * within the stop's bound however many there are.  The job is then kept
 * --late-batches seconds: batches that arrive in that time (a spool file
 * replayed) are merged into it and lead to a corrected end message, the
 * next `revision` (PROTOCOL.md §2). */
void sched_end_job(struct analysis *a, struct job *j, const char *why, bool stopping)
{
    struct ftiod *d = a->d;
    if (stopping)
        sched_stop_count(d, summarise(a, j, true) + job_clock_holding(j));
    else if (!sched_summarised(j))
        summarise(a, j, false);
    j->summarised = false;    /* a corrected end (late batches) makes them again */
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
    /* Batches held for their clock go in before the last analyses (a
     * stopping daemon: while it has time; 10,000 jobs whose history is held
     * would take seconds). */
    if (ending && (!stopping || sched_stop_may_analyse(d)))
        job_clock_settle(j, &d->cfg.limits);
    char reason[sizeof j->ended_by];
    snprintf(reason, sizeof reason, "%s", why ? why : "");
    /* A daemon told to stop without --state-dir gives each job its summary
     * at once, not the boundaries still due. */
    for (int mode = 0; mode < JOB_NMODES && !stopping; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->stream)
            continue;
        sched_online_ready(&d->cfg, m);
        for (int k = 0; k < (ending ? SCHED_ENDING_STEPS : 1) &&
                        sched_boundary_due(d, j, m, ftiod_now(), ending); k++)
            sched_analyse_boundary(a, j, mode);
        left |= ending && sched_boundary_due(d, j, m, ftiod_now(), true);
    }
    /* An ending job's last boundaries (SCHED_ENDING_STEPS a mode) and then
     * the end (or, before it is due, its summaries) come in the turn that
     * finds none left. */
    if (ending && !left && w == SCHED_SUMMARISE)
        summarise(a, j, false);
    else if (ending && !left)
        sched_end_job(a, j, reason, stopping);
    return true;
}
