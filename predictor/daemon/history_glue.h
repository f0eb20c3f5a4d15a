/* SPDX-License-Identifier: BSD-3-Clause */
/* history_glue.h -- ftiod's memory of runs (docs/ALGORITHM.md §11): the
 * daemon's side of predictor/history/ (the store) and analysis/prior.h (the
 * rule).  Its files, and the one line each hook takes in the daemon:
 *
 *   history_job.c     per job: the application identity of its first batch
 *                     (admit.c), the prior checked after each online step
 *                     (sched_step.c), the prediction while the prior leads
 *                     (prediction_json.c: `source`, `history`), the run
 *                     recorded from its `.end` (end_message.c)
 *   history_thread.c  the store's own thread and its bounded queue: lookups
 *                     at a job's first batch and the prior published at
 *                     once, records at its end, `ftio history`'s requests
 *                     (control_serve.c, answered late by the ingest loop:
 *                     ingest.c); nothing of the store ever runs on the
 *                     ingest thread or under d->lock
 *
 * A user's history shapes only that user's jobs: the key's uid is the job's
 * owner (MUNGE-proven or claimed, j->uid; the `app.uid` a sender claims only
 * under --auth none), for lookups and records alike.  A damaged, locked or
 * unreachable store never stops ftiod: jobs get no prior, and it is said
 * once (again when it works again).
 */
#ifndef FTIOD_HISTORY_GLUE_H
#define FTIOD_HISTORY_GLUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <jansson.h>
#include "analysis/prior.h"
#include "control.h"
#include "history/history.h"
#include "job.h"

struct ftiod;
struct analysis;

/* ---- per job (history_job.c) ------------------------------------------------------- */

/* A prior of one mode, or of one activity of it (pattern != ""). */
struct job_prior {
    char   pattern[FTIO_STORE_PATTERN_MAX];   /* "" the mode's own; else the last
                                                 component of the activity's */
    struct ftio_prior_check c;   /* the prior, and its check once started */
    bool   started;              /* c is on the job's time axis (its origin known) */
};

struct job_history {
    uint64_t serial;             /* tells a lookup's answer this job from a later one */
    struct ftio_store_app key;   /* owned strings; key.uid: the job's owner */
    char    *exe_id;
    int64_t  start_ns;           /* wall ns of the job's start: its first batch, and for an
                                    MPI job once every rank said so, the last MPI_Init */
    bool     ranks_up;           /* every MPI rank is through MPI_Init (start_ns is its) */
    int32_t  nranks;
    bool     looked_up;          /* the lookup's answer came (with or without a prior) */
    bool     ended;              /* its `.end` came: what is published is observed */
    enum ftio_prior_level level;
    unsigned runs;
    size_t   nprior[JOB_NMODES];
    struct job_prior *prior[JOB_NMODES];   /* [0] the mode's own, then activities */
};
/* The strings of a key this daemon copied (history_job.c). */
static inline void history_key_free(struct ftio_store_app *k)
{
    free((char *)k->prog);
    free((char *)k->exe);
    free((char *)k->args);
    free((char *)k->args_norm);
    free((char *)k->name);
}

/* job.c's job_free(): inline, so that job.c's tests link without the rest. */
static inline void job_history_free(struct job_history *h)
{
    if (!h)
        return;
    history_key_free(&h->key);
    free(h->exe_id);
    for (int m = 0; m < JOB_NMODES; m++)
        free(h->prior[m]);
    free(h);
}

/* admit.c, every merged batch (lock held; cheap unless the job's first
 * `app`): the identity, and the lookup queued. */
void ftiod_history_batch(struct ftiod *d, struct job *j, const struct ftio_batch *b);
/* sched_step.c, after each online step of (j, mode) at boundary b (lock
 * held; dropped while judging): the prior against the job's phases and its
 * own answer. */
void ftiod_history_step(struct analysis *a, struct job *j, int mode, double b);
/* prediction_json.c (lock held): `source` and `history`, and while the
 * prior leads its answer in place of the observed one. */
void ftiod_history_json(const struct job *j, int mode, json_t *o);
/* Does the memory of runs' prior lead mode m's answer (a message even before
 * the job's own first analysis: prediction_json.c)? */
bool ftiod_history_leads(const struct job *j, int mode);
/* end_message.c, before the `.end` is built (lock held): the job's final
 * answers, recorded by the thread. */
void ftiod_history_end(struct ftiod *d, struct job *j);

/* ---- the thread (history_thread.c) --------------------------------------------------- */

/* --history: "auto" (STATE_DIR/history.sqlite with --state-dir, else none),
 * "none", a file, or a postgresql:// URI.  The store's name, or NULL. */
const char *ftiod_history_spec(const char *history, const char *state_dir, char *buf, size_t cap);
/* Start the thread (it opens the store itself: a slow or broken one never
 * delays the start).  0, or -1 (out of memory). */
int  ftiod_history_start(struct ftiod *d);
/* Write what is queued (bounded: the shutdown's budget), stop, free. */
void ftiod_history_stop(struct ftiod *d);
/* Queue work; false when the queue is full (counted). */
struct history_req;
bool ftiod_history_queue(struct ftiod *d, struct history_req *r);
/* A lookup's answer: the job gets its priors and they are published; m NULL:
 * the priors it has are published again (HREQ_REPUBLISH).  history_job.c;
 * the thread calls it with nothing locked. */
void ftiod_history_install(struct ftiod *d, const char *job, uint64_t serial,
                           const struct ftio_store_match *m);
/* The "history" object of the status document (lock held; counters only). */
json_t *ftiod_history_status(struct ftiod *d);

/* The control socket's `apps`, `app ID`, `forget ID|all` (control_serve.c):
 * the reply now (an error), or FTIOD_REPLY_LATER: the thread answers and
 * the ingest loop sends it (ftiod_control_late). */
extern char ftiod_reply_later[];
#define FTIOD_REPLY_LATER ftiod_reply_later
char *ftiod_history_request(struct ftiod *d, bool admin, int64_t uid, enum ftio_control_verb v,
                            const char *arg);
/* ingest.c: a late reply is owed (do not take the next request yet); the
 * descriptor that says it is ready (-1: none); send it when it is ready or
 * its time is up. */
bool ftiod_control_waiting(struct ftiod *d);
int  ftiod_control_late_fd(struct ftiod *d);
void ftiod_control_late(struct ftiod *d);

/* Requests of the queue (history_job.c makes lookups and records). */
enum history_req_kind {
    HREQ_LOOKUP,     /* a job's first batch: its application's runs */
    HREQ_REPUBLISH,  /* every MPI rank of a known job is up: its priors again, from its start */
    HREQ_RECORD,     /* a job's end: its run */
    HREQ_QUERY,      /* `ftio history` */
};
struct history_req {
    enum history_req_kind kind;
    char    *job;
    uint64_t serial;
    struct ftio_store_app key;    /* owned strings */
    /* HREQ_RECORD */
    char    *exe_id;
    double   start, end;          /* Unix s */
    int64_t  nranks;
    size_t   nanswers;
    struct ftio_store_answer *answers;   /* first_offset from x, by the thread */
    struct ftio_samples x[JOB_NMODES];   /* the start of each mode's signal */
    double   job_start;           /* job-relative s */
    /* HREQ_QUERY */
    enum ftio_control_verb verb;
    bool     admin;
    int64_t  asker;
    int64_t  id;                  /* app id, -1 all */
    uint64_t generation;
};
void history_req_free(struct history_req *r);

#endif
