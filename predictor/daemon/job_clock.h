/* SPDX-License-Identifier: BSD-3-Clause */
/* job_clock.h -- ftiod's judgement of each process's clock (job.h
 * JOB_CLOCK_*, PROTOCOL.md §1 "clocks").
 *
 * A record's time is its process's monotonic clock mapped to wall time by
 * the batch's anchor (clock_real at encoding).  A node whose clock is off
 * puts its records off by as much.  Ahead is certain at once (no batch
 * arrives before it was made).  Behind is ambiguous: the batch may be old (a
 * spool file replayed, batches held while ftiod was away).  Two kinds of
 * evidence decide, whichever comes first:
 *   - the process's own batches arriving live: as far apart as its clock
 *     says they were made (ftiod's clock);
 *   - the other ranks: a process whose clock agrees with ftiod's sent a
 *     batch within JOB_CLOCK_LIVE_WINDOW, so the job is running now, and a
 *     batch that arrives now was made now; or a process's batches came back
 *     to back although made apart (a replay), so the job's batches are old.
 * Until one of them speaks, the data batches of a process whose first batch
 * is behind are held (in arrival order, at most JOB_CLOCK_HOLD_RECORDS
 * records per job), so that one rank never places the job in the past: the
 * job's time base (origin_ns) is laid by the first batch merged, and a held
 * batch is merged once its process's clock is decided -- moved to ftiod's
 * clock when it was behind, as it is when it was old (a replay) -- or when
 * the job ends.  job.c calls these in job_merge(); the analysis threads call
 * job_clock_settle() before a job's last analyses.
 */
#ifndef FTIOD_JOB_CLOCK_H
#define FTIOD_JOB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "job.h"

/* When batch h came, as its clock is judged (and journaled: a restarted
 * ftiod judges it again the same): now_ns, unless the ingest has read
 * without finding its socket empty for more than JOB_CLOCK_TOLERANCE
 * (quiet_ns: when it last did, 0 unknown).  Then the batch came somewhere
 * in [quiet_ns, now_ns], queued behind a backlog, and it is taken as
 * received at the moment of that span nearest its anchor: a batch made
 * while the backlog built up is not "behind" by the backlog's age. */
int64_t job_clock_received(const struct ftio_batch_header *h, int64_t now_ns, int64_t quiet_ns);

/* The process's clock against ftiod's and the other ranks', at batch h
 * received at now_real_ns (updates p->clock and the job's evidence). */
void job_clock_judge(struct job *j, struct job_proc *p, const struct ftio_batch_header *h,
                     int64_t now_real_ns);

/* Hold batch b of p (true) while p's clock is undecided and behind: the
 * records are copied, the file table is the caller's to register. */
bool job_clock_hold(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    int64_t now_real_ns);

/* Merge the held batches whose process's clock is decided (all of them,
 * undecided ones as they are, when `all`), in arrival order. */
void job_clock_release(struct job *j, const struct job_limits *lim, bool all);

/* The job ends (or ftiod stops): every held batch is merged now. */
static inline void job_clock_settle(struct job *j, const struct job_limits *lim)
{
    job_clock_release(j, lim, true);
}

/* Does j hold batches (a stopping daemon merges them only while it has
 * time: sched_step.c)? */
bool   job_clock_holding(const struct job *j);
/* Bytes the held batches take (job_memory), and freeing them (job_free). */
size_t job_clock_memory(const struct job *j);
void   job_clock_free(struct job *j);

/* job.c: merge the data records of batch b (anchor corrected by p's fix
 * when its clock is FIXED), received at recv_ns. */
void job_merge_data(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    const struct job_limits *lim, int64_t recv_ns);

#endif
