/* SPDX-License-Identifier: BSD-3-Clause */
/* sched.h -- the analysis side of ftiod, shared by its files (daemon.h says
 * who holds which lock):
 *
 *   scheduler.c      the pool of analysis threads (--threads): each takes a
 *                    job from the queue, gives it one turn, gives it back;
 *                    the bounded shutdown
 *   sched_queue.c    which job next: live jobs before backlogs, round robin
 *                    across jobs, and for a job far behind its newest
 *                    boundary (--catch-up newest) or every one (every)
 *   sched_step.c     one turn of a job: one boundary per mode (copy the
 *                    window under the lock, analyse outside it, publish),
 *                    the summary and the end of a job
 *   end_message.c    the `ftio.<job>.end` message (PROTOCOL.md §2)
 *   prediction_json.c the prediction message of a (job, mode)
 */
#ifndef FTIOD_SCHED_H
#define FTIOD_SCHED_H

#include "daemon.h"

/* Data whose end lags the wall clock by more than this is not live. */
#define SCHED_LIVE_LAG 300.0
/* Late batches of an ended job are taken together: the corrected end waits
 * until none came for this long (a replay sends them back to back). */
#define SCHED_REVISION_SETTLE 1.0
/* SIGTERM: a daemon without --state-dir gives every job its end message
 * with its latest answers, no new analysis (a JSON message: 0.1-0.3 ms of
 * thread CPU a job), the main thread helping the analysis threads.  First
 * the jobs whose every mode has an answer, then those with a mode never
 * analysed (a young job, or ftiod behind) or with batches held for their
 * clock: that mode is analysed, those batches merged, while
 * SCHED_STOP_ANALYSES s of the stop have not passed; else its end says the
 * other modes only, without those batches, and a warning counts such ends.  Past SCHED_STOP_BUDGET it says how many jobs are still
 * to go, and goes on. */
#define SCHED_STOP_BUDGET 1.5
#define SCHED_STOP_ANALYSES 0.75

/* An ending job takes up to this many of its last boundaries a mode in one
 * turn, and its summaries in the same turn when none is left: under
 * --catch-up newest an end has one or two (the newest due, the one past the
 * data), so 10,000 jobs ending together need one round of turns for their
 * summaries and one for their `.end`, not a round per boundary; a replay's
 * end under --catch-up every, with thousands due, still takes many turns. */
#define SCHED_ENDING_STEPS 8

/* One analysis thread's private buffers: nothing here is shared. */
struct analysis {
    struct ftiod *d;
    struct ftio_analyzer *an;
    struct ftio_stream_work *work;   /* a boundary's private copies (analysis/stream.h) */
    struct ftiod_ratelimit rl_err;
};

/* What a job's turn does (sched_queue.c decides, sched_step.c does). */
enum sched_work {
    SCHED_NOTHING = 0,
    SCHED_FORGET,        /* ended long ago: remove it (done under the lock) */
    SCHED_BOUNDARIES,    /* the next boundary of each mode that has one due */
    SCHED_SUMMARISE,     /* every process sent final: remaining boundaries, then
                            the summaries (the end follows after --settle-end) */
    SCHED_END,           /* remaining boundaries (SCHED_ENDING_STEPS a turn), then the end */
    SCHED_REVISION,      /* late batches after its end: a corrected end */
};

/* ---- sched_queue.c (caller holds d->lock) ---- */
/* Job-relative wall clock of j, and whether mode m's data is live. */
double sched_job_now(const struct job *j);
bool   sched_is_live(const struct job_mode_state *m, double now_rel);
/* What j's turn would do now; *why names the end (final, timeout, told,
 * shutdown, or the first end's reason for a revision). */
enum sched_work sched_work_of(struct ftiod *d, struct job *j, double now, bool stopping,
                              const char **why);
/* Is the next boundary of (j, m) due (after the skips of the horizon and of
 * --catch-up newest)?  ending: every boundary up to the data's end. */
bool   sched_boundary_due(struct ftiod *d, const struct job *j, struct job_mode_state *m,
                          double now_mono, bool ending);
/* The next job to work on, marked held (the ingest thread leaves it alone),
 * or NULL when nothing is due; refills the queue from the job table when it
 * ran dry (a round), at most every few ms (sooner when `force`: a mark or a
 * final woke the thread; at once when stopping). */
struct job *sched_take(struct ftiod *d, double now, bool stopping, bool force);
/* The turn of j is over: it may be queued again. */
void   sched_give_back(struct ftiod *d, struct job *j);
void   sched_queue_free(struct ftiod *d);
/* Stopping: does j's end need work (a mode with data and no answer to
 * analyse, batches held for their clock to merge)?
 * May a stopping daemon still make one?  The ends published since the stop,
 * and those without a mode's summary (not analysed in time). */
bool   sched_end_needs_analysis(const struct job *j);
bool   sched_stop_may_analyse(const struct ftiod *d);
void   sched_stop_count(struct ftiod *d, size_t unanalysed);
void   sched_stop_counts(const struct ftiod *d, size_t *ends, size_t *short_ends);

/* ---- sched_step.c (enter and leave with d->lock held; j is held) ---- */
void sched_online_ready(const struct ftiod_config *c, struct job_mode_state *m);
/* One boundary of (j, mode); publishes what it says. */
void sched_analyse_boundary(struct analysis *a, struct job *j, int mode);
/* One turn of j: returns true when it did something. */
bool sched_turn(struct analysis *a, struct job *j, double now, bool stopping);
/* The summary of each mode (made already when j->summarised is still
 * valid; a stopping daemon says the latest answers where there are some) and
 * the end message. */
void sched_end_job(struct analysis *a, struct job *j, const char *why, bool stopping);
/* Are j's summaries made, with every batch it got? */
bool sched_summarised(const struct job *j);

/* ---- end_message.c ---- */
/* Build, remember and publish j's end message; marks j closed.  Caller holds
 * the lock (dropped while publishing). */
void ftiod_end_message(struct ftiod *d, struct job *j, const char *why);

/* ---- prediction_json.c ---- */
/* "job", "jobid", "step" of a message (PROTOCOL.md §2). */
void  ftiod_set_job_fields(json_t *o, const char *id);
/* "ftio.<job>.<what>" (malloc'd, NULL when out of memory). */
char *ftiod_topic_of(const char *job, const char *what);

#endif
