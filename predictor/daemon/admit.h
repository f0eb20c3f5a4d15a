/* SPDX-License-Identifier: BSD-3-Clause */
/* admit.h -- whether a decoded batch goes into its job, as one verdict.
 *
 * ftiod_admit() decides under d->lock, in this order: whose job the batch
 * is (claims.c: another uid's job is never merged), whether its owner may
 * start a job (quota.c), room in the job table (--max-jobs, making room by
 * forgetting the oldest ended job), whether its owner may add a process and
 * send that many records (quota.c), the sequence number and the process
 * (job.c: duplicate, absurd sequence number, --max-procs), the journal
 * (state.c), and the merge proper (job.c; ftiod_admit_acking() acknowledges
 * before it).  It
 * counts what it decides and returns the verdict with the few facts a log
 * line needs; ftiod_admit_log() says it (after the lock, rate-limited) and
 * ftiod_admit_ack() is the acknowledgement the sender gets.  The ingest
 * thread (ingest.c) calls the three in turn for every decoded batch. */
#ifndef FTIOD_ADMIT_H
#define FTIOD_ADMIT_H

#include "daemon.h"

enum admit_verdict {
    ADMIT_MERGED,          /* merged and journaled */
    ADMIT_DUPLICATE,       /* merged before: acknowledged again, dropped */
    ADMIT_UNJOURNALED,     /* merged, but the journal failed: refused, so the
                              sender keeps it in its spool file (state.c says why) */
    ADMIT_FOREIGN,         /* another uid's job under the id it resolved to */
    ADMIT_OVER_QUOTA,      /* a per-user quota or --max-memory (quota says which) */
    ADMIT_TABLE_FULL,      /* --max-jobs jobs, none ended to make room */
    ADMIT_TOO_MANY_PROCS,  /* a new process over --max-procs */
    ADMIT_BAD_SEQ,         /* an absurd sequence number (forged) */
};

struct admission {
    enum admit_verdict verdict;
    enum quota_verdict quota;      /* ADMIT_OVER_QUOTA: which */
    int64_t owner;                 /* ADMIT_FOREIGN: the job's uid */
    size_t  max_jobs;              /* ADMIT_TABLE_FULL: the table's bound */
    bool    new_job;               /* the batch started its job */
    bool    rerun;                 /* ... in place of an ended one (job_rerun) */
    char    id[FTIOD_ID_MAX + 1];  /* the job's id (claims.c) */
};

/* The rate limiters of the ingest thread's log lines (one per kind; `bad`
 * is shared with the lines of undecodable messages, ingest.c). */
struct admit_limits {
    struct ftiod_ratelimit bad, jobs, procs, dup, auth, quota;
};

/* Admit batch b, decoded from raw, sent by uid (-1: unauthenticated, --auth
 * none): takes d->lock, decides, merges, journals, counts; fills *a and
 * returns its verdict. */
enum admit_verdict ftiod_admit(struct ftiod *d, const struct ftio_batch *b, int64_t uid,
                               const void *raw, size_t rawlen, struct admission *a);
/* The same, acknowledging a batch that goes into its job as soon as its
 * verdict is known and it is journaled, before the merge proper (admit.c
 * merge()): ack(ack_ctx, status) is called then, under d->lock, and only
 * for such a batch; the caller acknowledges every other verdict itself. */
typedef void (*ftiod_admit_ack_fn)(void *ctx, int status);
enum admit_verdict ftiod_admit_acking(struct ftiod *d, const struct ftio_batch *b, int64_t uid,
                                      const void *raw, size_t rawlen, struct admission *a,
                                      ftiod_admit_ack_fn ack, void *ack_ctx);
/* The log line of a verdict, if it has one, and the "first batch" line of
 * a new job under --verbose (d->lock not held). */
void ftiod_admit_log(struct admit_limits *rl, const struct ftiod *d, const struct ftio_batch *b,
                     int64_t uid, const struct admission *a);
/* The acknowledgement (common/transport.h) of a verdict: merged for what
 * ftiod has (merged now or before), refused for the rest. */
int  ftiod_admit_ack(enum admit_verdict v);

#endif
