/* SPDX-License-Identifier: BSD-3-Clause */
/* quota.c -- one user cannot lock the others out, and the daemon's memory
 * has a bound (--user-jobs, --user-procs, --user-rate, --max-memory).
 *
 * Called by the ingest thread under d->lock before a batch is merged:
 *
 *   - a new job of a uid that already owns --user-jobs jobs is refused;
 *   - a new process of a uid that already has --user-procs processes (all
 *     its jobs together) is refused;
 *   - records beyond --user-rate per second per uid (a token bucket holding
 *     two seconds' worth; a batch may overdraw it) are refused;
 *   - a new job or process that would take the reserved memory past
 *     --max-memory is refused, and said once in the log until memory is
 *     available again.
 *
 * Under --auth none there is no uid (-1): the per-user quotas cannot tell
 * users apart and do not apply; --max-memory always does.  Memory is
 * counted as the jobs use it (job_memory: their streams' blocks of bins,
 * which follow their analysis window once past JOB_KEEP_BYTES, and record
 * logs while the whole record is kept), kept up to date after every merge
 * and analysis (job_table_account): a site with thousands of short jobs is
 * not refused for what each might grow to.  A job already in keeps growing
 * up to its own bound: the memory bound refuses new jobs and processes,
 * never a running job's data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "job_activities.h"

#define RATE_SLOTS 4096
#define PROC_BYTES (2 * sizeof(struct job_proc) + 64)   /* open addressing, host name */

struct rate_slot {
    int64_t uid;                 /* -2 = free */
    double  tokens, last;
};

struct ftiod_quota {
    struct rate_slot slot[RATE_SLOTS];
    bool memory_said;            /* the --max-memory refusal was logged */
};

struct ftiod_quota *ftiod_quota_new(void)
{
    struct ftiod_quota *q = calloc(1, sizeof *q);
    if (q)
        for (size_t i = 0; i < RATE_SLOTS; i++)
            q->slot[i].uid = -2;
    return q;
}

void ftiod_quota_free(struct ftiod_quota *q)
{
    free(q);
}

/* What a new job takes before its first record: its state. */
#define JOB_BYTES (sizeof(struct job) + 64)

double ftiod_memory_reserved(const struct ftiod *d)
{
    return d->jobs.mem;
}

static enum quota_verdict memory(struct ftiod *d, double more)
{
    if (d->cfg.max_memory <= 0)
        return QUOTA_OK;
    double used = ftiod_memory_reserved(d);
    if (used + more <= d->cfg.max_memory) {
        d->quota->memory_said = false;
        return QUOTA_OK;
    }
    d->stats.over_memory++;
    if (!d->quota->memory_said) {
        d->quota->memory_said = true;
        ftiod_log_at(FTIOD_WARNING,
                     "memory bound reached: the %zu jobs use %.1f MB of --max-memory %.0f MB; "
                     "refusing new jobs and processes until some end (counted as over_memory); "
                     "raise --max-memory", d->jobs.n, used / 1048576, d->cfg.max_memory / 1048576);
    }
    return QUOTA_MEMORY;
}

enum quota_verdict ftiod_quota_job(struct ftiod *d, int64_t uid)
{
    if (uid >= 0 && d->cfg.user_jobs > 0) {
        size_t owned = 0;
        for (size_t i = 0; i < d->jobs.n; i++)
            owned += d->jobs.job[i]->uid == uid && !d->jobs.job[i]->closed;
        if (owned >= d->cfg.user_jobs) {
            d->stats.over_user_jobs++;
            return QUOTA_JOBS;
        }
    }
    return memory(d, JOB_BYTES + PROC_BYTES);
}

enum quota_verdict ftiod_quota_proc(struct ftiod *d, int64_t uid)
{
    if (uid >= 0 && d->cfg.user_procs > 0) {
        size_t procs = 0;
        for (size_t i = 0; i < d->jobs.n; i++)
            if (d->jobs.job[i]->uid == uid)
                procs += d->jobs.job[i]->nprocs;
        if (procs >= d->cfg.user_procs) {
            d->stats.over_user_procs++;
            return QUOTA_PROCS;
        }
    }
    return memory(d, PROC_BYTES);
}

enum quota_verdict ftiod_quota_records(struct ftiod *d, int64_t uid, size_t n, double now)
{
    if (uid < 0 || d->cfg.user_rate <= 0)
        return QUOTA_OK;
    struct ftiod_quota *q = d->quota;
    size_t h = (size_t)((uint64_t)uid * 0x9E3779B97F4A7C15ull >> 52) % RATE_SLOTS, pick = h;
    for (size_t k = 0; k < 16; k++) {
        struct rate_slot *s = &q->slot[(h + k) % RATE_SLOTS];
        if (s->uid == uid || s->uid == -2) {
            pick = (h + k) % RATE_SLOTS;
            break;
        }
        if (s->last < q->slot[pick].last)
            pick = (h + k) % RATE_SLOTS;   /* the least recently used of the probe */
    }
    struct rate_slot *s = &q->slot[pick];
    double cap = 2 * d->cfg.user_rate;
    if (s->uid != uid) {
        s->uid = uid;
        s->tokens = cap;
        s->last = now;
    }
    s->tokens = fmin(cap, s->tokens + (now - s->last) * d->cfg.user_rate);
    s->last = now;
    /* A batch larger than the bucket still passes when the bucket has
     * anything left, and leaves it in debt: the rate holds over time. */
    if (s->tokens <= 0) {
        d->stats.over_user_rate++;
        return QUOTA_RATE;
    }
    s->tokens -= (double)n;
    return QUOTA_OK;
}
