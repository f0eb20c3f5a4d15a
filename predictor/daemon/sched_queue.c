/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_queue.c -- which job the analysis threads work on next.
 *
 * Work is given out in rounds.  When the queue runs dry one thread scans the
 * job table (starting one job further each round: round robin) and queues
 * every job that has something due -- a boundary of a mode, its end, a
 * corrected end -- once: ends first, then live jobs, then backlogs (data that lags the
 * wall clock by more than SCHED_LIVE_LAG: a replayed spool file; or, under
 * --catch-up every, a job more than one boundary behind).  A queued job is
 * `held`: one thread at a time takes it for one turn (sched_step.c: one
 * boundary per mode), then gives it back, and it waits for the next round.
 * So a job with thousands of boundaries due (a replay, a hostile sender)
 * takes one turn per round like any other: it slows only itself.
 *
 * A job far behind (its newest due boundary more than one step past the
 * next) goes straight to its newest due boundary under --catch-up newest
 * (the default): the skipped boundaries are not analysed one by one, the
 * window of the newest holds their data anyway.  It goes to the newest one
 * whose last step holds data, since an analysis is made only where data
 * arrived (online.c).  --catch-up every analyses each boundary, as `ftio
 * --window` does: a replay then gives the offline tool's messages one for
 * one (tests/daemon/replay_online.sh).
 *
 * Everything here runs under d->lock.  A scan costs O(jobs); a round queues
 * each due job once, so the scan is amortised over the turns it hands out;
 * a scan is not repeated for SCAN_PAUSE or ten times its own cost (three
 * times, at least 1 ms, when a mark or a final woke the thread).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "job_clock.h"
#include "sched.h"
#include "timeutil.h"

/* An empty scan is not repeated within this (s) nor within ten of its costs. */
#define SCAN_PAUSE 0.005

struct sched_queue {
    struct job **q;            /* this round's jobs: live ones, then backlogs */
    struct job **back;         /* backlogs while scanning */
    size_t n, head, cap;
    size_t cursor;             /* the table index the next scan starts at */
    double last_scan, scan_cost;
    /* Stopping without --state-dir: 0 while the ends that need no analysis
     * go out, then 1 (the rest); the ends published, and those short of a
     * mode's summary. */
    int    stop_pass;
    size_t stop_ends, stop_short;
};

double sched_job_now(const struct job *j)
{
    return (double)(ftio_real_ns() - j->origin_ns) * 1e-9;
}

bool sched_is_live(const struct job_mode_state *m, double now_rel)
{
    return now_rel - job_mode_totals(m)->t_max < SCHED_LIVE_LAG;
}

/* Boundaries whose window's data has left the horizon (the ring of bins
 * keeps --horizon seconds behind the data's end) are not analysed one by
 * one: the next is the first whose last step the bins still hold.  This
 * bounds the boundaries of any job by horizon / step however far apart its
 * records lie (a clock that jumps, a replay of a long job), in O(1). */
static void skip_lost_boundaries(const struct ftiod_config *c, struct job_mode_state *m)
{
    double kept = job_mode_totals(m)->t_max - c->limits.horizon + c->limits.step;
    if (m->boundary < kept)
        m->boundary = ftio_stream_next_boundary(m->stream, kept);
}

/* The newest boundary the due tests of sched_boundary_due accept (a
 * boundary at or before x is next_boundary(x - step)). */
static double newest_due(const struct ftiod *d, const struct job *j,
                         const struct job_mode_state *m, bool ending)
{
    const struct ftio_online *o = ftio_stream_online(m->stream);
    double t_max = job_mode_totals(m)->t_max;
    if (ending) {
        double b = ftio_online_next_boundary(o, t_max);
        return b < t_max + o->step ? b : ftio_online_next_boundary(o, t_max - o->step);
    }
    double x = m->flush ? t_max : t_max - d->cfg.settle;
    double b = ftio_online_next_boundary(o, x - o->step);
    double now_rel = sched_job_now(j);
    if (sched_is_live(m, now_rel) && m->dirty) {
        /* Live, data lagging: the wall clock makes boundaries due up to the
         * first one past the data's end. */
        double w = fmin(ftio_online_next_boundary(o, t_max),
                        ftio_online_next_boundary(o, now_rel - d->cfg.settle - o->step));
        if (w > b)
            b = w;
    }
    return b;
}

/* --catch-up newest: from more than one boundary behind to the newest due
 * one whose last step holds data (or past them all when none does: no
 * analysis would be made).  The first analysis of a mode is always made. */
static void skip_to_newest(const struct ftiod *d, const struct job *j, struct job_mode_state *m,
                           bool ending)
{
    const struct ftio_online *o = ftio_stream_online(m->stream);
    double nb = newest_due(d, j, m, ending);
    if (!(nb > m->boundary + 0.5 * o->step))
        return;
    double t = ftio_stream_last_data(m->stream, m->boundary - o->step, nb);
    if (!isnan(t))
        nb = fmin(nb, ftio_online_next_boundary(o, t));
    else if (o->hist.analyses > 0)
        nb = ftio_online_next_boundary(o, nb);
    if (nb > m->boundary)
        m->boundary = nb;
}

bool sched_boundary_due(struct ftiod *d, const struct job *j, struct job_mode_state *m,
                        double now_mono, bool ending)
{
    if (!m->stream || !m->online_init)
        return false;
    skip_lost_boundaries(&d->cfg, m);
    if (d->cfg.catch_up == FTIOD_CATCH_UP_NEWEST)
        skip_to_newest(d, j, m, ending);
    double b = m->boundary, t_max = job_mode_totals(m)->t_max;
    if (ending)                       /* every boundary up to the data's end */
        return b < t_max + d->cfg.limits.step;
    if (t_max >= b + d->cfg.settle || (m->flush && t_max >= b))
        return true;
    double now_rel = sched_job_now(j);
    return sched_is_live(m, now_rel) && m->dirty && now_rel >= b + d->cfg.settle &&
           now_mono - m->last_run >= d->cfg.min_interval;
}

enum sched_work sched_work_of(struct ftiod *d, struct job *j, double now, bool stopping,
                              const char **why)
{
    *why = NULL;
    if (j->closed) {
        /* Ended.  Late batches: a corrected end once they stop coming (a
         * replay sends many); else forgotten after --late-batches (--status
         * and `last` still know its end message: --keep-ended). */
        if (stopping)
            return SCHED_NOTHING;
        if (j->reopened && now - j->last_activity > SCHED_REVISION_SETTLE) {
            *why = j->ended_by;
            return SCHED_REVISION;
        }
        if (!j->reopened && now - j->closed_at > d->cfg.late_batches &&
            now - j->last_activity > d->cfg.late_batches)
            return SCHED_FORGET;
        return SCHED_NOTHING;
    }
    /* With --state-dir a stopping daemon leaves its jobs to the next one;
     * without, the ends that need no analysis go first (sched.h). */
    if (stopping && (d->state || (d->sched && d->sched->stop_pass == 0 &&
                                  sched_end_needs_analysis(j))))
        return SCHED_NOTHING;
    bool over = job_due_to_end(j, now, d->cfg.settle_end);
    if (stopping || over || j->told || now - j->last_activity > d->cfg.job_timeout) {
        *why = stopping ? "shutdown" : over ? "final" : j->told ? "told" : "timeout";
        return SCHED_END;
    }
    /* Its processes are done: the end's analyses now, not --settle-end later
     * (thousands of jobs ending at once), the `.end` when it is due. */
    if (job_all_final(j) && !sched_summarised(j))
        return SCHED_SUMMARISE;
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->stream)
            continue;
        sched_online_ready(&d->cfg, m);
        if (sched_boundary_due(d, j, m, now, false))
            return SCHED_BOUNDARIES;
    }
    return SCHED_NOTHING;
}

/* A backlog: old data (a replay), or more than one boundary due. */
static bool is_backlog(const struct ftiod *d, const struct job *j)
{
    double now_rel = sched_job_now(j);
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        const struct job_mode_state *m = &j->mode[mode];
        if (!m->stream || !m->online_init)
            continue;
        if (!sched_is_live(m, now_rel) ||
            m->boundary + d->cfg.limits.step + d->cfg.settle < job_mode_totals(m)->t_max)
            return true;
    }
    return false;
}

/* Room for n jobs in this round's queue and its backlogs (one capacity). */
static int queue_room(struct sched_queue *s, size_t n)
{
    void **const arrays[] = {(void **)&s->q, (void **)&s->back};
    const size_t elem[] = {sizeof *s->q, sizeof *s->back};
    return ftio_grow_parallel(&s->cap, n, 2, arrays, elem);
}

/* One round: every job with something due, once. */
static void refill(struct ftiod *d, struct sched_queue *s, double now, bool stopping)
{
    double t0 = ftiod_now();
    size_t n = d->jobs.n, nback = 0, nend = 0;
    s->n = s->head = 0;
    if (n == 0 || queue_room(s, n) < 0)
        return;
    size_t start = s->cursor % n;
    for (size_t k = 0; k < n; k++) {
        struct job *j = d->jobs.job[(start + k) % n];
        if (j->held)
            continue;
        const char *why;
        enum sched_work w = sched_work_of(d, j, now, stopping, &why);
        if (w == SCHED_NOTHING)
            continue;
        if (w == SCHED_FORGET) {
            /* Under the lock and not held: removed after the scan (the table
             * moves its last job into the hole). */
            j->forget = true;
            continue;
        }
        j->held = true;
        if (w == SCHED_END || w == SCHED_SUMMARISE || w == SCHED_REVISION) {
            /* Ends first: a `.end` is due --settle-end after the final
             * batch, and 10,000 of them may come at once; the live job
             * whose place it takes goes to the round's end. */
            if (nend < s->n)
                s->q[s->n] = s->q[nend];
            s->n++;
            s->q[nend++] = j;
        } else if (is_backlog(d, j)) {
            s->back[nback++] = j;
        } else {
            s->q[s->n++] = j;
        }
    }
    memcpy(s->q + s->n, s->back, nback * sizeof *s->back);
    s->n += nback;
    s->cursor = start + 1;
    for (size_t i = 0; i < d->jobs.n;) {
        struct job *j = d->jobs.job[i];
        if (j->forget && !j->held) {
            ftiod_state_forget(d->state, j);
            job_table_remove(&d->jobs, j);
        } else {
            i++;
        }
    }
    s->last_scan = now;
    s->scan_cost = ftiod_now() - t0;
}

struct job *sched_take(struct ftiod *d, double now, bool stopping, bool force)
{
    if (!d->sched) {
        d->sched = calloc(1, sizeof *d->sched);
        if (!d->sched)
            return NULL;
        d->sched->last_scan = -INFINITY;
    }
    struct sched_queue *s = d->sched;
    if (s->head == s->n) {
        /* Woken by a mark or a final: sooner, but a flood of marks still
         * leaves the lock free two thirds of the time. */
        double pause = force ? fmax(0.001, 3 * s->scan_cost) : fmax(SCAN_PAUSE, 10 * s->scan_cost);
        if (!stopping && now - s->last_scan < pause)
            return NULL;
        refill(d, s, now, stopping);
        if (stopping && s->n == 0 && s->stop_pass == 0) {
            s->stop_pass = 1;     /* every cheap end is out or taken: the rest */
            refill(d, s, now, stopping);
        }
    }
    return s->head < s->n ? s->q[s->head++] : NULL;
}

void sched_give_back(struct ftiod *d, struct job *j)
{
    (void)d;
    j->held = false;
}

bool sched_end_needs_analysis(const struct job *j)
{
    if (job_clock_holding(j))
        return true;
    for (int mode = 0; mode < JOB_NMODES; mode++)
        if (j->mode[mode].stream && !job_mode_update(&j->mode[mode]))
            return true;
    return false;
}

bool sched_stop_may_analyse(const struct ftiod *d)
{
    return ftiod_now() - d->stop_at < SCHED_STOP_ANALYSES;
}

void sched_stop_count(struct ftiod *d, size_t unanalysed)
{
    if (!d->sched)
        return;
    d->sched->stop_ends++;
    d->sched->stop_short += unanalysed > 0;
}

void sched_stop_counts(const struct ftiod *d, size_t *ends, size_t *short_ends)
{
    *ends = d->sched ? d->sched->stop_ends : 0;
    *short_ends = d->sched ? d->sched->stop_short : 0;
}

void sched_queue_free(struct ftiod *d)
{
    if (!d->sched)
        return;
    free(d->sched->q);
    free(d->sched->back);
    free(d->sched);
    d->sched = NULL;
}
