/* daemon.h -- internals of ftiod shared by its files.
 *
 *   main.c     options, sockets, signals, start/stop of the two threads
 *   ingest.c   main thread: PULL -> ftio_wire_decode -> job_merge (job.c),
 *              plus the REP status socket (status.c) in the same poll loop
 *   analyze.c  analysis thread: per job and mode, copy the bins under the
 *              lock, run ftio_analyze outside it, score, publish, end jobs
 *   publish.c  PUB socket + --log JSON Lines (owned by the analysis thread)
 *   status.c   `ftiod --status` reply (server) and client
 *   log.c      one-line, rate-limited logging
 *
 * Threads: ingest and analysis share `jobs` under `lock`; ingest never waits
 * for an analysis (the analysis thread holds the lock only to copy bins and
 * store results).  Only the analysis thread removes jobs, so a job pointer it
 * took stays valid after it drops the lock.  Each ZeroMQ socket belongs to one
 * thread.
 */
#ifndef FTIOD_DAEMON_H
#define FTIOD_DAEMON_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "analysis.h"
#include "job.h"

struct ftiod_config {
    const char *listen;         /* PULL, --listen */
    const char *pub;            /* PUB, --pub */
    const char *status;         /* REP, --status-endpoint */
    const char *log_path;       /* --log FILE (JSON Lines), NULL = none */
    double   min_interval;      /* wall s between live analyses of one (job, mode) */
    double   step;              /* data s between analyses (boundaries) */
    double   settle;            /* data s a boundary waits for late records */
    double   window;            /* > 0: fixed window length, s */
    double   job_timeout;       /* s of silence that ends a job */
    size_t   max_jobs;
    int64_t  max_msg;           /* ZMQ_MAXMSGSIZE, bytes */
    int      rcvhwm;            /* ZMQ_RCVHWM: batches queued per sender */
    int      verbose;
    struct job_limits   limits;
    struct ftio_options opts;   /* fs, tol, psd, sampling for ftio_analyze */
};

/* Counters of things that are not any job's. */
struct ftiod_stats {
    uint64_t messages, batches, records;
    uint64_t malformed, truncated, multipart, over_jobs, over_procs, duplicates, bad_seq;
    uint64_t analyses, published;
    uint64_t log_lost;          /* --log lines that could not be written */
};

struct ftiod {
    struct ftiod_config cfg;
    void *zctx;
    void *pull, *rep;           /* ingest thread */
    void *pub;                  /* analysis thread */
    FILE *log;                  /* --log, analysis thread */
    bool log_failing;           /* the last --log write failed (reported once) */

    pthread_mutex_t lock;       /* jobs and stats */
    pthread_cond_t  wake;       /* ingest -> analysis: a mark or a final arrived */
    struct job_table jobs;
    struct ftiod_stats stats;
    double started;             /* monotonic s */

    volatile sig_atomic_t stop; /* SIGINT/SIGTERM */
    bool analysis_done;         /* set under lock when the analysis thread left */
};

/* log.c: "ftiod: <message>" on stderr.  ftiod_log_rl() prints at most one
 * line per second per limiter and says how many it swallowed. */
struct ftiod_ratelimit { double last; uint64_t suppressed; };
void ftiod_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ftiod_log_rl(struct ftiod_ratelimit *rl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
double ftiod_now(void);          /* monotonic seconds */

/* ingest.c: the main loop; returns when d->stop is set. */
int  ftiod_ingest_loop(struct ftiod *d);

/* analyze.c */
int  ftiod_analysis_start(struct ftiod *d, pthread_t *th);

/* publish.c (analysis thread only) */
int  ftiod_publish_open(struct ftiod *d);
void ftiod_publish_close(struct ftiod *d);
/* Send topic + JSON (stolen reference) and append to --log. */
void ftiod_publish(struct ftiod *d, const char *topic, json_t *obj);

/* status.c */
/* Build the status document (caller holds d->lock). */
char *ftiod_status_json(struct ftiod *d);
/* `ftiod --status`: ask a running daemon, print, return the exit code. */
int  ftiod_status_client(const char *endpoint, bool json, double timeout);

#endif
