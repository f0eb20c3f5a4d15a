/* daemon.h -- internals of ftiod shared by its files.
 *
 *   ftiod_main.c   options, sockets, signals, start/stop of the two threads
 *   ingest.c       main thread: ROUTER -> auth -> ftio_wire_decode -> job_merge
 *                  (job.c) -> journal (state.c) -> acknowledgement, plus the
 *                  REP status socket (status.c) in the same poll loop
 *   scheduler.c    analysis thread: per job and mode, copy the bins under the
 *                  lock, run ftio_analyze outside it, score, publish, end jobs
 *   state.c        --state-dir: per-job journals, read back at start
 *   publish.c      PUB socket + --log JSON Lines (owned by the analysis thread)
 *   status.c       `ftiod --status` reply (server) and client
 *   log.c          one-line, levelled, rate-limited logging (stderr or journal)
 *   auth_verify.c  which uid sent a batch / asks a question (MUNGE + MAC)
 *   zap.c          which connections are accepted (ZAP thread: connection
 *                  bound, CURVE allow-list of PUB and status)
 *   quota.c        per-uid quotas and the memory bound
 *
 * Threads: ingest and analysis share `jobs` under `lock`; ingest never waits
 * for an analysis (the analysis thread holds the lock only to copy bins and
 * store results).  Only the analysis thread removes jobs it works on, so a
 * job pointer it took stays valid after it drops the lock; the ingest thread
 * forgets only an ended job that no late batch reopened (to make room in a
 * full table), which the analysis thread touches under the lock only.  Each ZeroMQ socket belongs to one
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
#include "cliopt.h"
#include "job.h"

struct ftiod_config {
    const char *listen;         /* ROUTER, --listen */
    const char *pub;            /* PUB, --pub */
    const char *status;         /* REP, --status-endpoint */
    const char *log_path;       /* --log FILE (JSON Lines), NULL = none */
    const char *state_dir;      /* --state-dir DIR: durable job state, NULL = none */
    double   min_interval;      /* wall s between live analyses of one (job, mode) */
    double   step;              /* data s between analyses (boundaries) */
    double   settle;            /* data s a boundary waits for late records */
    double   window;            /* > 0: fixed window length, s */
    double   job_timeout;       /* s of silence that ends a job */
    double   settle_end;        /* s a job whose processes all sent `final` waits for
                                   more before it ends (unless MPI says it is over) */
    size_t   keep_ended;        /* --keep-ended: ended jobs kept for --status / last */
    double   late_batches;      /* s an ended job still takes late batches (revisions) */
    size_t   max_jobs;
    int64_t  max_msg;           /* ZMQ_MAXMSGSIZE, bytes */
    int      rcvhwm;            /* ZMQ_RCVHWM: batches queued per sender */
    int      verbose;
    /* security (docs/SECURITY.md) */
    int      auth;              /* --auth: enum ftio_auth_mode */
    const char *munge_socket;   /* --munge-socket, NULL = libmunge's default */
    const char *curve_secret;   /* --curve-secret FILE: PUB and status are CURVE */
    const char *curve_clients;  /* --curve-clients DIR: allow-list of public keys */
    long     socket_mode;       /* --socket-mode for ipc:// endpoints, -1 = umask */
    const char *socket_group;   /* --socket-group for ipc:// endpoints */
    size_t   max_connections;   /* --max-connections on --listen */
    size_t   user_jobs;         /* --user-jobs: jobs per uid */
    size_t   user_procs;        /* --user-procs: processes per uid, all jobs */
    double   user_rate;         /* --user-rate: records/s per uid, 0 = unbounded */
    double   max_memory;        /* --max-memory, bytes */
    struct job_limits   limits;
    struct ftio_options opts;   /* fs, tol, psd, sampling for ftio_analyze */
    struct cliopt_parser cliopt_strings;   /* owns the configuration file's strings */
};

/* Counters of things that are not any job's. */
struct ftiod_stats {
    uint64_t messages, batches, records;
    uint64_t malformed, truncated, multipart, over_jobs, over_procs, duplicates, bad_seq;
    uint64_t unauthenticated;   /* no, bad or unverifiable authentication */
    uint64_t foreign;           /* batches for a job owned by another uid */
    uint64_t over_user_jobs, over_user_procs, over_user_rate, over_memory;
    uint64_t connections_refused, queries_refused;
    uint64_t connections;       /* ingest connections open now (zap.c) */
    uint64_t analyses, published;
    uint64_t log_lost;          /* --log lines that could not be written */
};

/* At most this many ended jobs are kept (--keep-ended). */
#define FTIOD_MAX_ENDED 100000

/* A job that ended recently: what --status and `ftio sub --last` still say
 * about it (status.c). */
struct ftiod_ended {
    int64_t uid;                /* its owner, -1 under --auth none */
    json_t *end;                /* a copy of its end message (PROTOCOL.md §2) with
                                   "ended_at" (Unix s) and "uid" added */
};

struct ftiod {
    struct ftiod_config cfg;
    void *zctx;
    void *router, *rep;         /* ingest thread */
    void *pub;                  /* analysis thread */
    struct ftiod_auth *auth;    /* ingest thread */
    struct ftiod_quota *quota;  /* under lock */
    struct ftiod_state *state;  /* --state-dir, NULL without; used under lock */
    volatile int zap_stop;      /* tells the ZAP thread to leave */
    FILE *log;                  /* --log, analysis thread */
    bool log_failing;           /* the last --log write failed (reported once) */

    pthread_mutex_t lock;       /* jobs and stats */
    pthread_cond_t  wake;       /* ingest -> analysis: a mark or a final arrived */
    struct job_table jobs;
    struct ftiod_ended *ended;  /* ring of the last cfg.keep_ended ended jobs */
    size_t nended, ended_next;  /* how many are in it; where the next one goes */
    struct ftiod_stats stats;
    double started;             /* monotonic s */

    volatile sig_atomic_t stop; /* SIGINT/SIGTERM */
    volatile sig_atomic_t reopen; /* SIGHUP: the analysis thread reopens --log */
    bool analysis_done;         /* set under lock when the analysis thread left */
};

/* log.c: one line per event on stderr, "2026-11-24T23:50:01.123Z
 * ftiod[PID] LEVEL: message", or "<N>message" when stderr is the journal.
 * The levels are syslog's priorities (the N of the journal's prefix).
 * ftiod_log() says info; ftiod_log_rl() prints at most one line per second
 * per limiter, says how many it swallowed, and says warning (what is rate
 * limited is refused input). */
enum ftiod_level {
    FTIOD_ERROR = 3,      /* ftiod cannot do what it was asked (and may stop) */
    FTIOD_WARNING = 4,    /* input refused or lost, a risky setting */
    FTIOD_NOTICE = 5,     /* start, stop, reopen, recovery */
    FTIOD_INFO = 6,       /* jobs coming and going */
    FTIOD_DEBUG = 7,      /* --verbose: every analysis */
};
struct ftiod_ratelimit { double last; uint64_t suppressed; };
void ftiod_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ftiod_log_at(enum ftiod_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ftiod_log_rl(struct ftiod_ratelimit *rl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ftiod_log_rl_at(struct ftiod_ratelimit *rl, enum ftiod_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double ftiod_now(void);          /* monotonic seconds */

/* ingest.c: the main loop; returns when d->stop is set. */
int  ftiod_ingest_loop(struct ftiod *d);

/* scheduler.c */
int  ftiod_analysis_start(struct ftiod *d, pthread_t *th);
/* The latest prediction (PROTOCOL.md §2) of job j, mode (caller holds the
 * lock and has checked j->mode[mode].has_result). */
json_t *ftiod_prediction_json(const struct job *j, int mode);

/* publish.c (analysis thread only) */
int  ftiod_publish_open(struct ftiod *d);
void ftiod_publish_close(struct ftiod *d);
/* SIGHUP: open --log again by its name (logrotate moved it) and close the
 * old file; on failure keep writing to the old one and say so. */
void ftiod_publish_reopen(struct ftiod *d);
/* Send topic + JSON (stolen reference) and append to --log. */
void ftiod_publish(struct ftiod *d, const char *topic, json_t *obj);

/* auth_verify.c (ingest thread): 0 with the sender's uid (-1 under --auth none),
 * else -1 with a static reason.  frame is the batch's second frame (NULL
 * when it had none). */
struct ftiod_auth;
struct ftiod_auth *ftiod_auth_new(int mode, const char *munge_socket, char *err, size_t errlen);
void ftiod_auth_free(struct ftiod_auth *a);
int  ftiod_auth_mode(const struct ftiod_auth *a);
int  ftiod_auth_batch(struct ftiod_auth *a, const void *batch, size_t len, const void *frame,
                      size_t flen, int64_t *uid, const char **why);
/* A status query's credential: 0 with the uid when it is fresh and carries
 * exactly this request. */
int  ftiod_auth_query(struct ftiod_auth *a, const void *req, size_t len, const void *cred,
                      size_t clen, int64_t *uid, const char **why);

/* state.c: durable job state (--state-dir).  Every call but open/close,
 * restore and sync is made under d->lock; all do nothing without a state dir. */
struct ftiod_state;
struct ftiod_state *ftiod_state_open(const char *dir, char *err, size_t errlen);
void ftiod_state_close(struct ftiod_state *s);
/* Rebuild the jobs of the journals in the directory (before any batch). */
int  ftiod_state_restore(struct ftiod_state *s, struct ftiod *d);
/* A batch merged into j (before its acknowledgement), received at recv_ns
 * (ftiod's wall clock, what job_merge() was given); 0 or -1 (not kept:
 * refuse the acknowledgement, so the sender keeps it in its spool file). */
int  ftiod_state_batch(struct ftiod_state *s, struct job *j, int64_t uid, int64_t recv_ns,
                       const void *batch, size_t len);
/* An `.end` of j was published with this revision. */
void ftiod_state_end(struct ftiod_state *s, struct job *j, unsigned revision, const char *why);
/* j is forgotten: its journal goes. */
void ftiod_state_forget(struct ftiod_state *s, struct job *j);
/* Close j's journal, keeping it (shutdown: the next ftiod continues). */
void ftiod_state_release(struct job *j);
/* fdatasync the journals written to, at most once a second (ingest
 * thread; takes d->lock itself, and only when a sync is due). */
void ftiod_state_sync(struct ftiod *d, double now);

/* zap.c: the ZAP thread (bound before any socket with a ZAP domain connects). */
int  ftiod_zap_start(struct ftiod *d, pthread_t *th);

/* quota.c (caller holds d->lock): may uid add a job / a process to j / n
 * records now?  Each returns 0, or -1 having counted the refusal; *why is
 * a static reason for the log. */
enum quota_verdict { QUOTA_OK = 0, QUOTA_JOBS, QUOTA_PROCS, QUOTA_RATE, QUOTA_MEMORY };
struct ftiod_quota;
struct ftiod_quota *ftiod_quota_new(void);
void ftiod_quota_free(struct ftiod_quota *q);
enum quota_verdict ftiod_quota_job(struct ftiod *d, int64_t uid);
enum quota_verdict ftiod_quota_proc(struct ftiod *d, int64_t uid);
enum quota_verdict ftiod_quota_records(struct ftiod *d, int64_t uid, size_t n, double now);
/* Bytes the jobs may use at most as they are now (what --max-memory bounds). */
double ftiod_memory_reserved(const struct ftiod *d);

/* status.c */
/* Build the status document (caller holds d->lock): every job when uid < 0,
 * else only the jobs uid owns. */
char *ftiod_status_json(struct ftiod *d, int64_t uid);
/* Remember an ended job (caller holds d->lock): end is its end message
 * (copied). */
void ftiod_ended_add(struct ftiod *d, const struct job *j, json_t *end);
/* The end message of the latest ended job of that id that uid may see
 * (uid < 0: any), or NULL (caller holds d->lock; the result is a new
 * reference). */
json_t *ftiod_ended_find(struct ftiod *d, const char *id, int64_t uid);
void ftiod_ended_free(struct ftiod *d);
/* `ftiod --status`: ask each running daemon of the comma-separated
 * endpoints, print, return the exit code. */
struct ftio_query_opts;
int  ftiod_status_client(const struct ftio_query_opts *q, const char *endpoints, bool json);

#endif
