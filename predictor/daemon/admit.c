/* SPDX-License-Identifier: BSD-3-Clause */
/* admit.c -- admission of a decoded batch (admit.h): one verdict decided
 * under the lock, its log line and its acknowledgement derived from it.
 * The rules live where they are kept: ownership in claims.c, quotas and the
 * memory bound in quota.c, the merge in job.c, the journal in state.c;
 * here is only their order and what each refusal is counted as. */
#include <stdio.h>
#include "admit.h"
#include "history_glue.h"
#include "job_clock.h"
#include "timeutil.h"
#include "transport.h"

static const char *quota_reason(enum quota_verdict v)
{
    switch (v) {
    case QUOTA_JOBS: return "user owns --user-jobs jobs already";
    case QUOTA_PROCS: return "user has --user-procs processes already";
    case QUOTA_RATE: return "user is over --user-rate records per second";
    case QUOTA_MEMORY: return "over --max-memory";
    default: return "";
    }
}

/* Forget an ended job (job_forgettable): its `.end` is out; its journal goes. */
static void forget_job(struct ftiod *d, struct job *old)
{
    ftiod_state_forget(d->state, old);
    job_table_remove(&d->jobs, old);
}

/* A new job of id for uid, or NULL when the table is full.  A full table
 * makes room by forgetting its oldest ended job. */
static struct job *new_job(struct ftiod *d, const char *id, int64_t uid)
{
    struct job *old = d->jobs.n >= d->jobs.max ? job_table_oldest_closed(&d->jobs) : NULL;
    if (old)
        forget_job(d, old);
    struct job *j = job_table_add(&d->jobs, id, &d->cfg.limits);
    if (j)
        j->uid = uid;    /* its id is the sender's (claims.c) */
    return j;
}

/* Merge b into j, which uid may send to, and journal it.  The verdict is
 * known once the sequence number is judged, and the batch is safe once it
 * is journaled: ack(ack_ctx, status), when given, acknowledges it there,
 * before the merge proper (PROTOCOL.md §1.4: the merge follows under the
 * same lock, so nothing reads the job in between; a daemon killed in
 * between replays it from its --state-dir journal).  The merge of a new
 * job's first batch was most of the time from a short process's final
 * batch to its acknowledgement (bench/README.md "seventh round"). */
static enum admit_verdict merge(struct ftiod *d, struct job *j, const struct ftio_batch *b,
                                int64_t uid, const void *raw, size_t rawlen,
                                ftiod_admit_ack_fn ack, void *ack_ctx)
{
    int64_t recv_ns = job_clock_received(&b->h, ftio_real_ns(), atomic_load(&d->router_quiet_ns));
    struct job_proc *p;
    enum job_merge_status st = job_merge_seq(j, b, &d->cfg.limits, ftiod_now(), &p);
    if (st != JOB_MERGED)
        job_table_account(&d->jobs, j);
    switch (st) {
    case JOB_MERGED:
        break;
    case JOB_DUPLICATE:
        d->stats.duplicates++;
        return ADMIT_DUPLICATE;
    case JOB_BAD_SEQ:
        d->stats.bad_seq++;
        return ADMIT_BAD_SEQ;
    case JOB_TOO_MANY_PROCS:
        d->stats.over_procs++;
        return ADMIT_TOO_MANY_PROCS;
    }
    /* Journaled before the acknowledgement: what the sender forgets
     * survives the daemon (state.c).  Not journaled: merged all the same
     * (as before), refused, so the sender keeps it in its spool file. */
    enum admit_verdict v = ftiod_state_batch(d->state, j, uid, recv_ns, raw, rawlen) != 0
                               ? ADMIT_UNJOURNALED : ADMIT_MERGED;
    if (ack)
        ack(ack_ctx, ftiod_admit_ack(v));
    job_merge_rest(j, p, b, &d->cfg.limits, recv_ns);
    job_table_account(&d->jobs, j);
    d->stats.batches++;
    d->stats.records += b->n;
    if (b->h.mark != NULL || j->ended)
        pthread_cond_signal(&d->wake);
    if (j->closed)
        j->reopened = true;    /* a corrected .end follows */
    ftiod_history_batch(d, j, b);   /* its application: the memory of runs (history_glue.h) */
    return v;
}

/* The verdict (caller holds d->lock). */
static enum admit_verdict decide(struct ftiod *d, const struct ftio_batch *b, int64_t uid,
                                 const void *raw, size_t rawlen, struct admission *a,
                                 ftiod_admit_ack_fn ack, void *ack_ctx)
{
    d->stats.messages++;
    /* Whose id: the owner's claim, else the sender's namespace (claims.c). */
    const char *id = ftiod_claim_resolve(d, b->h.job, uid, a->id, sizeof a->id);
    if (id != a->id)
        snprintf(a->id, sizeof a->id, "%s", id);
    struct job *j = job_table_find(&d->jobs, a->id);
    if (j && j->uid == uid && job_rerun(j, &b->h)) {
        /* A new run under an ended job's id (a lone process's host-pid
         * with its pid reused): a job of its own (job.h job_rerun). */
        forget_job(d, j);
        j = NULL;
        a->rerun = true;
    }
    if (!j) {
        if ((a->quota = ftiod_quota_job(d, uid)) != QUOTA_OK)
            return ADMIT_OVER_QUOTA;
        if (!(j = new_job(d, a->id, uid))) {
            d->stats.over_jobs++;
            a->max_jobs = d->jobs.max;
            return ADMIT_TABLE_FULL;
        }
        a->new_job = true;
    } else if (j->uid != uid) {
        /* Someone else's job under an id claims.c gave this sender (a
         * journal of an --auth none daemon, an ended job whose id Slurm
         * reused): never merged, whatever the batch says. */
        a->owner = j->uid;
        j->foreign_batches++;
        d->stats.foreign++;
        return ADMIT_FOREIGN;
    }
    if (!job_find_proc(j, b->h.host ? b->h.host : "", b->h.pid, b->h.born))
        a->quota = ftiod_quota_proc(d, uid);
    if (a->quota == QUOTA_OK)
        a->quota = ftiod_quota_records(d, uid, b->n, ftiod_now());
    if (a->quota != QUOTA_OK) {
        j->rejected_batches++;
        return ADMIT_OVER_QUOTA;
    }
    return merge(d, j, b, uid, raw, rawlen, ack, ack_ctx);
}

enum admit_verdict ftiod_admit(struct ftiod *d, const struct ftio_batch *b, int64_t uid,
                               const void *raw, size_t rawlen, struct admission *a)
{
    return ftiod_admit_acking(d, b, uid, raw, rawlen, a, NULL, NULL);
}

enum admit_verdict ftiod_admit_acking(struct ftiod *d, const struct ftio_batch *b, int64_t uid,
                                      const void *raw, size_t rawlen, struct admission *a,
                                      ftiod_admit_ack_fn ack, void *ack_ctx)
{
    a->quota = QUOTA_OK;
    a->owner = -1;
    a->max_jobs = 0;
    a->new_job = false;
    a->rerun = false;
    a->id[0] = '\0';
    ftiod_lock_ingest(d);
    a->verdict = decide(d, b, uid, raw, rawlen, a, ack, ack_ctx);
    pthread_mutex_unlock(&d->lock);
    return a->verdict;
}

void ftiod_admit_log(struct admit_limits *rl, const struct ftiod *d, const struct ftio_batch *b,
                     int64_t uid, const struct admission *a)
{
    const char *host = b->h.host ? b->h.host : "?";
    long long pid = (long long)b->h.pid;
    switch (a->verdict) {
    case ADMIT_FOREIGN:
        ftiod_log_rl(&rl->auth, "job %s belongs to uid %lld: dropped a batch from uid %lld "
                     "(%s:%lld)", a->id, (long long)a->owner, (long long)uid, host, pid);
        break;
    case ADMIT_OVER_QUOTA:
        if (a->quota != QUOTA_MEMORY)    /* quota.c says that one, once */
            ftiod_log_rl(&rl->quota, "job %s: dropped a batch of uid %lld (%s:%lld): %s", a->id,
                         (long long)uid, host, pid, quota_reason(a->quota));
        break;
    case ADMIT_TABLE_FULL:
        ftiod_log_rl(&rl->jobs, "job table full (--max-jobs %zu): dropping batch of job %s; "
                     "raise --max-jobs", a->max_jobs, a->id);
        break;
    case ADMIT_TOO_MANY_PROCS:
        ftiod_log_rl(&rl->procs, "job %s: more than %zu processes (--max-procs): "
                     "dropping batch of %s:%lld", a->id, d->cfg.limits.max_procs, host, pid);
        break;
    case ADMIT_BAD_SEQ:
        ftiod_log_rl(&rl->bad, "job %s: batch with an absurd sequence number %llu from %s:%lld, "
                     "dropped", a->id, (unsigned long long)b->h.seq, host, pid);
        break;
    case ADMIT_DUPLICATE:
        if (d->cfg.verbose)
            ftiod_log_rl(&rl->dup, "job %s: batch %llu of %s:%lld seen before, dropped", a->id,
                         (unsigned long long)b->h.seq, host, pid);
        break;
    case ADMIT_MERGED:
    case ADMIT_UNJOURNALED:    /* state.c says why */
        break;
    }
    if (a->rerun)
        ftiod_log_rl(&rl->jobs, "job %s: %s:%lld started again (another process with the pid): a "
                     "new run under the id, the ended job is forgotten (its .end stands)", a->id,
                     host, pid);
    if (a->new_job && d->cfg.verbose)
        ftiod_log("job %s: first batch (from %s:%lld, rank %d of %d, uid %lld)", a->id, host,
                  pid, b->h.rank, b->h.nranks, (long long)uid);
}

int ftiod_admit_ack(enum admit_verdict v)
{
    return v == ADMIT_MERGED || v == ADMIT_DUPLICATE ? FTIO_ACK_MERGED : FTIO_ACK_REFUSED;
}
