/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon.h -- internals of ftiod shared by its files.
 *
 *   ftiod_main.c   options, sockets, signals, start/stop of the threads
 *   ingest.c       main thread: ROUTER -> auth -> ftio_wire_decode -> admit
 *                  (admit.c: job_merge of job.c, journal of state.c) ->
 *                  acknowledgement; its poll loop also serves the control
 *                  socket (control_serve.c)
 *   admit.c        whether a decoded batch goes into its job: one verdict
 *                  (ownership, quotas, table room, merge, journal), its log
 *                  line and its acknowledgement (admit.h)
 *   control_serve.c the control socket (REP): who asks, what they may see,
 *                  the dispatch table of status, end, last, claim
 *   message.c      a multi-frame ZeroMQ message received whole (message.h)
 *   scheduler.c    the analysis threads (--threads), bounded shutdown;
 *                  sched_queue.c which job next, sched_step.c one turn of a
 *                  job (copy the bins under the lock, ftio_analyze outside
 *                  it, publish), end_message.c, prediction_json.c (sched.h)
 *   state.c        --state-dir: per-job journals, read back at start
 *   publish.c      PUB socket + --log JSON Lines (any analysis thread, one
 *                  at a time: pub_lock)
 *   status.c       the status document `ftiod --status` asks for, and the
 *                  ring of recently ended jobs
 *   status_client.c `ftiod --status`: asks the daemons, prints their answers
 *   log.c          one-line, levelled, rate-limited logging (stderr or journal)
 *   auth_verify.c  which uid sent a batch / asks a question (MUNGE + MAC)
 *   zap.c          which connections are accepted (ZAP thread: connection
 *                  bound, CURVE allow-list of PUB and status)
 *   quota.c        per-uid quotas and the memory bound
 *   claims.c       who owns a job id: claims, namespaces of unclaimed ids
 *   heap.c         freed memory back to the system: malloc's (ingest thread)
 *                  and the bins' pages (a thread of its own), both waiting
 *                  while the ingest reads behind a backlog
 *
 * Threads and locks.  The ingest thread and the analysis threads share
 * `jobs` (and the queue, stats, quotas) under `lock`; ingest never waits for
 * an analysis: an analysis thread holds the lock only to pick a job, copy
 * its window's bins and store the results, and analyses and publishes with
 * it dropped.  A job an analysis thread works on is `held` (queued or in a
 * turn): no other analysis thread takes it -- one thread per job at a time,
 * so each (job, mode) publishes in order -- and nobody removes it, so the
 * pointer stays valid with the lock dropped.  Only the analysis threads
 * remove jobs they do not hold (sched_queue.c: ended ones past
 * --late-batches); the ingest thread forgets only an ended job that is not
 * held and that no late batch reopened (to make room in a full table),
 * which the analysis threads touch under the lock only.  The ingest thread
 * may merge batches into a held job: the thread holding it works on its
 * copy.  pub_lock (taken without `lock`, which publish.c takes inside it)
 * serialises the PUB socket and --log.  Each other ZeroMQ socket belongs to
 * one thread.  heap.c's pool trimmer touches no job: it gives the bins' empty
 * pages back under the pool's own lock (analysis/bin_pool.c), and reads only
 * router_quiet_ns, which the ingest thread alone writes (atomic).
 */
#ifndef FTIOD_DAEMON_H
#define FTIOD_DAEMON_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <jansson.h>
#include "analysis.h"
#include "cliopt.h"
#include "job.h"
#include "wire.h"

struct ftiod_config {
    const char *listen;         /* ROUTER, --listen */
    const char *pub;            /* PUB, --pub */
    const char *status;         /* REP, --status-endpoint */
    const char *log_path;       /* --log FILE (JSON Lines), NULL = none */
    const char *state_dir;      /* --state-dir DIR: durable job state, NULL = none */
    const char *history;        /* --history: the memory of runs (history_glue.h) */
    size_t   history_apps;      /* --history-apps: applications kept per uid */
    double   min_interval;      /* wall s between live analyses of one (job, mode) */
    double   settle;            /* data s a boundary waits for late records */
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
    size_t   threads;           /* --threads: analysis threads, 0 = one per core */
    int      catch_up;          /* --catch-up: enum ftiod_catch_up */
    /* the machine view (machine.c, metrics.c) */
    double   machine_horizon;   /* --machine-horizon: s predicted */
    double   machine_history;   /* --machine-history: s observed */
    size_t   machine_log;       /* --machine-log: s between machine messages in --log, 0 none */
    size_t   machine_jobs;      /* --machine-jobs: jobs listed with their phases */
    const char *metrics_listen; /* --metrics-listen [HOST:]PORT, NULL: no metrics */
    struct job_limits   limits;     /* and the analysis: opts, step, window */
    struct cliopt_parser cliopt_strings;   /* owns the configuration file's strings */
};

/* --catch-up: a job more than one boundary behind goes to its newest due
 * boundary, or analyses each (`ftio --window` parity for replays). */
enum ftiod_catch_up { FTIOD_CATCH_UP_NEWEST = 0, FTIOD_CATCH_UP_EVERY = 1 };

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
    uint64_t turns_now, turns_max;  /* jobs in an analysis turn now, at most at once */
    uint64_t threads;           /* analysis threads running */
    uint64_t log_lost;          /* --log lines that could not be written */
};

/* At most this many ended jobs are kept (--keep-ended). */
#define FTIOD_MAX_ENDED 100000

/* A job that ended recently: what --status and `ftio sub --last` still say
 * about it (status.c). */
struct ftiod_ended {
    int64_t uid;                /* its owner, -1 under --auth none */
    double  ended_at;           /* Unix s */
    char   *id;                 /* its job id */
    char   *end;                /* its end message (PROTOCOL.md §2) as published: parsed,
                                   with "ended_at" and "uid" added, only when asked
                                   for (10,000 ends at once parsed nothing) */
};

/* lock_share.c */
struct ftiod_lock_share {
    atomic_uint waiting;        /* analysis threads waiting for `lock` */
    atomic_uint grants;         /* times one of them took it (a futex word) */
    atomic_llong granted_ns;    /* monotonic ns of the last time */
    atomic_uint yielding;       /* the ingest waits for a grant */
};

struct ftiod {
    struct ftiod_config cfg;
    void *zctx;
    void *router, *rep;         /* ingest thread */
    void *pub;                  /* analysis threads, under pub_lock */
    pthread_mutex_t pub_lock;   /* PUB socket and --log */
    struct ftiod_auth *auth;    /* ingest thread */
    struct ftiod_quota *quota;  /* under lock */
    struct ftiod_claims *claims; /* under lock */
    struct ftiod_state *state;  /* --state-dir, NULL without; used under lock */
    volatile int zap_stop;      /* tells the ZAP thread to leave */
    FILE *log;                  /* --log, under pub_lock */
    bool log_failing;           /* the last --log write failed (reported once) */

    pthread_mutex_t lock;       /* jobs and stats */
    pthread_cond_t  wake;       /* ingest -> analysis: a mark or a final arrived */
    struct ftiod_lock_share share;  /* the ingest gives the analyses their turn at `lock` (lock_share.c) */
    struct job_table jobs;
    struct ftiod_ended *ended;  /* ring of the last cfg.keep_ended ended jobs */
    size_t nended, ended_next;  /* how many are in it; where the next one goes */
    struct ftiod_stats stats;
    double started;             /* monotonic s */

    volatile sig_atomic_t stop; /* SIGINT/SIGTERM */
    volatile int64_t signalled_ns;  /* monotonic ns of that signal (the handler's clock read) */
    volatile sig_atomic_t reopen; /* SIGHUP: an analysis thread reopens --log */
    double stop_at;             /* monotonic s the analysis threads saw stop */
    atomic_llong router_quiet_ns;   /* wall ns the ingest last found the ROUTER empty (written
                                   by the ingest thread; job_clock_received, heap.c: behind
                                   a backlog) */
    double heap_checked;        /* monotonic s heap.c last looked (ingest thread) */
    pthread_t pool_trimmer;     /* gives the bins' empty pages back (heap.c) */
    bool pool_trimmer_up;
    size_t heap_free;           /* bytes malloc held free after its last trim (heap.c) */
    size_t heap_used;           /* bytes in use at heap.c's last look */
    struct sched_queue *sched;  /* under lock (sched_queue.c) */
    struct ftiod_history *history;  /* the memory of runs (history_thread.c), NULL without */
    struct ftiod_pool *pool;    /* the analysis threads (scheduler.c) */
    struct ftiod_machine *machine; /* the machine view and its thread (machine.c), under lock */
    struct ftiod_metrics *metrics; /* --metrics-listen (metrics.c), NULL without */
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
/* ingest.c: close the ROUTER, letting the acknowledgements already made
 * leave for at most left_ms (and FTIO_ACK_LINGER_MS, transport.h). */
void ftiod_ingest_close(struct ftiod *d, int left_ms);
/* control_serve.c (ingest thread): answer the request queued on d->rep, if
 * any, once. */
void ftiod_control_serve(struct ftiod *d);

/* scheduler.c: start the analysis threads; stop them (sets d->stop;
 * returns within the shutdown bound). */
int  ftiod_analysis_start(struct ftiod *d);
void ftiod_analysis_stop(struct ftiod *d);
/* The latest prediction (PROTOCOL.md §2) of job j, mode (caller holds the
 * lock; NULL before the mode's first answer: job_mode_update). */
json_t *ftiod_prediction_json(const struct job *j, int mode);

/* publish.c (analysis threads; each call takes pub_lock) */
int  ftiod_publish_open(struct ftiod *d);
void ftiod_publish_close(struct ftiod *d);
/* SIGHUP: open --log again by its name (logrotate moved it) and close the
 * old file; on failure keep writing to the old one and say so. */
void ftiod_publish_reopen(struct ftiod *d);
/* Send topic + JSON (stolen reference) and append to --log. */
void ftiod_publish(struct ftiod *d, const char *topic, json_t *obj);
/* The same, appended to --log only with FTIOD_PUB_LOG, and counted as a
 * prediction only with FTIOD_PUB_COUNT (ftiod_publish: both). */
enum { FTIOD_PUB_LOG = 1, FTIOD_PUB_COUNT = 2 };
void ftiod_publish_to(struct ftiod *d, const char *topic, json_t *obj, unsigned flags);
/* The same with the JSON text of the message (len bytes, the caller's). */
void ftiod_publish_text(struct ftiod *d, const char *topic, const char *text, size_t len,
                        unsigned flags);

/* metrics.c: the Prometheus endpoint (--metrics-listen), its own threads
 * (libmicrohttpd); 0 without the option. */
int  ftiod_metrics_start(struct ftiod *d);
void ftiod_metrics_stop(struct ftiod *d);
/* Is spec a --metrics-listen value ([HOST:]PORT)?  0, or -1 with the reason. */
int  ftiod_metrics_check(const char *spec, char *err, size_t errlen);

/* auth_verify.c (ingest thread): 0 with the sender's uid (-1 under --auth none),
 * else -1 with a static reason, or FTIOD_AUTH_RENEW when a new session of
 * the sender would be accepted (a credential this ftiod never saw fresh: it
 * restarted; an expired session).  frame is the batch's second frame (NULL
 * when it had none). */
#define FTIOD_AUTH_RENEW (-2)
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
 * (ftiod's wall clock as job_clock_received() judged it: what job_merge() was
 * given); 0 or -1 (not kept:
 * refuse the acknowledgement, so the sender keeps it in its spool file). */
int  ftiod_state_batch(struct ftiod_state *s, struct job *j, int64_t uid, int64_t recv_ns,
                       const void *batch, size_t len);
/* An `.end` of j was published with this revision. */
void ftiod_state_end(struct ftiod_state *s, struct job *j, unsigned revision, const char *why);
/* j is forgotten: its journal goes. */
void ftiod_state_forget(struct ftiod_state *s, struct job *j);
/* Close every job's journal, keeping it, made durable at once (shutdown:
 * the next ftiod continues). */
void ftiod_state_release_all(struct ftiod_state *s, struct job_table *t);
/* Make the journals written to durable, at most once a second (ingest
 * thread; takes d->lock itself, and only when a sync is due; syncs outside
 * it). */
void ftiod_state_sync(struct ftiod *d, double now);
/* heap.c (ingest thread, each poll turn): free memory back to the system. */
void ftiod_heap_trim(struct ftiod *d, double now);
/* heap.c: the thread that gives the bins' empty pages back (started with the
 * analysis threads; stopped after the ingest loop: it leaves at d->stop). */
int  ftiod_pool_trimmer_start(struct ftiod *d);
void ftiod_pool_trimmer_stop(struct ftiod *d);
/* heap.c: has the ingest read behind a backlog for more than a second? */
bool ftiod_backlogged(const struct ftiod *d);

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
/* Bytes the jobs use now (job_memory; what --max-memory bounds). */
double ftiod_memory_reserved(const struct ftiod *d);

/* claims.c (caller holds d->lock): who owns a job id (the rules are at the
 * top of claims.c). */
#define FTIOD_ID_MAX (FTIO_WIRE_MAX_STR + 24)   /* a job id with "u<uid>:" */
struct ftiod_claims;
struct ftiod_claims *ftiod_claims_new(void);
void ftiod_claims_free(struct ftiod_claims *c);
/* Root or ftiod's own uid: may claim, and keeps unclaimed ids bare. */
bool ftiod_trusted_uid(int64_t uid);
/* `claim ID UID`: 0, or -1 with a static reason. */
int  ftiod_claim(struct ftiod *d, const char *id, int64_t uid, const char **why);
/* The id in the job table of a batch or request about id from uid: id
 * itself or "u<uid>:id" written into out (cap >= FTIOD_ID_MAX + 1). */
const char *ftiod_claim_resolve(struct ftiod *d, const char *id, int64_t uid, char *out,
                                size_t cap);
/* A job restored from its journal: its bare id is its owner's claim again. */
void ftiod_claim_restored(struct ftiod *d, const struct job *j);
/* Is id in a user's namespace ("u<digits>:...")? */
bool ftiod_claim_namespaced(const char *id);
/* Is a journaled batch of wire id `id` from uid one of job j? */
bool ftiod_claim_stored(const struct job *j, const char *id, int64_t uid);

/* lock_share.c: `lock` taken by the analysis threads (sched_*.c,
 * scheduler.c, end_message.c) and by the ingest's admission (admit.c) */
void ftiod_lock_analysis(struct ftiod *d);
void ftiod_lock_ingest(struct ftiod *d);

/* status.c */
/* Build the status document (caller holds d->lock; it shares nothing with
 * the jobs, so its text is made after the lock is dropped): every job when
 * uid < 0, else only the jobs uid owns. */
json_t *ftiod_status_doc(struct ftiod *d, int64_t uid);
/* Remember an ended job (caller holds d->lock): end is its end message
 * (copied). */
void ftiod_ended_add(struct ftiod *d, const struct job *j, const char *end);
/* The end message of the latest ended job of that id that uid may see
 * (uid < 0: any), or NULL (caller holds d->lock; the result is a new
 * reference). */
json_t *ftiod_ended_find(struct ftiod *d, const char *id, int64_t uid);
void ftiod_ended_free(struct ftiod *d);

/* status_client.c */
/* `ftiod --status`: ask each running daemon of the comma-separated
 * endpoints, print, return the exit code. */
struct ftio_query_opts;
int  ftiod_status_client(const struct ftio_query_opts *q, const char *endpoints, bool json);

#endif
