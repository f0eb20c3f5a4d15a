/* SPDX-License-Identifier: BSD-3-Clause */
/* history.h -- the memory of runs (libftiohistory.a, docs/ALGORITHM.md §11):
 * for each application of each user, the final answers (`.end`) of its
 * latest runs, per mode and per activity, so that the next run of the same
 * application gets a prediction at its first batch (ftiod,
 * predictor/daemon/history_*.c), and a site can fill it from its archive
 * (`ftio scan --history`) and look into it (`ftio history`).
 *
 * One small interface, two stores behind it (db.h): a SQLite file (the
 * default, WAL mode: one daemon, and `ftio scan` or `ftio history` beside
 * it) or a PostgreSQL database (`postgresql://...`: several daemons share
 * one memory, as a site's slurmdbd shares one accounting database).
 *
 * An application is (uid, program, hash of the arguments, name): the
 * program is the executable's last path component (a Darshan log has argv[0]
 * as typed), the arguments are only ever their hashes (common/app_key.h),
 * the name is FTIO_APP ("" without).  A lookup falls back in levels, the
 * most specific first, always within the uid and the name: the exact
 * arguments, the arguments with their numbers normalised, the program alone,
 * and with a name, the name alone (whatever the program).  Bounds: the
 * latest FTIO_STORE_RUNS_KEPT runs per application, at most max_apps
 * applications per uid (the least recently used are forgotten, counted).
 *
 * Not thread-safe: one store per thread (ftiod's history thread).
 */
#ifndef FTIO_STORE_H
#define FTIO_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/prior.h"    /* the lookup levels: enum ftio_prior_level */

#define FTIO_STORE_RUNS_KEPT 16       /* runs kept per application */
#define FTIO_STORE_RUNS_USED 16       /* runs a lookup returns, latest first */
#define FTIO_STORE_PATTERN_MAX 256    /* an activity's pattern as stored */
#define FTIO_STORE_NAME_MAX 256       /* FTIO_APP */

/* Where the memory lives: a file (SQLite) or a postgresql:// URI. */
enum ftio_store_kind { FTIO_STORE_SQLITE, FTIO_STORE_POSTGRESQL };
enum ftio_store_kind ftio_store_kind_of(const char *spec);
/* The spec for messages: a URI's password replaced by "***". */
void ftio_store_spec_redacted(const char *spec, char *out, size_t cap);

/* An application as the store keys it. */
struct ftio_store_app {
    int64_t     uid;          /* its owner (ftiod: the job's authenticated owner) */
    const char *prog;         /* ftio_app_prog(exe) */
    const char *exe;          /* the whole path, as last seen ("" unknown) */
    const char *args;         /* 16 hex digits (app_key.h) */
    const char *args_norm;
    const char *name;         /* FTIO_APP, "" for none */
};

/* One final answer of a run: the mode's own (pattern "") or an activity's. */
struct ftio_store_answer {
    int    mode;              /* 0 write, 1 read */
    char   pattern[FTIO_STORE_PATTERN_MAX];
    double period;            /* s; NAN: no period */
    double confidence;        /* NAN without a period */
    int    cls;               /* enum ftio_class */
    double bytes;             /* per phase; NAN unknown */
    double duration;          /* of a phase, s; NAN unknown */
    double first_offset;      /* from the job's start to the first phase of this
                                 answer's train, s; NAN unknown */
};

struct ftio_store_run {
    struct ftio_store_app app;
    const char *job;          /* the job's id: a later record of it replaces this one */
    const char *source;       /* "ftiod", "scan" */
    const char *exe_id;       /* stamp of the executable file, "" unknown */
    double  start, end;       /* Unix s; start NAN when unknown */
    int64_t nranks;           /* -1 unknown */
    size_t  nanswers;
    const struct ftio_store_answer *answers;
};

/* A lookup's answers: the latest runs of the level that matched. */
struct ftio_store_match {
    enum ftio_prior_level level;   /* NONE: no level knows the application */
    size_t  nruns;            /* distinct runs among the rows */
    size_t  n, cap;
    struct ftio_store_row {
        int64_t run;          /* its id (rows of one run are together) */
        double  end;          /* Unix s */
        char    job[128], source[16];
        int64_t nranks;
        struct ftio_store_answer a;
    } *row;
};
void ftio_store_match_free(struct ftio_store_match *m);

/* What `ftio history list` shows of one application. */
struct ftio_store_info {
    int64_t id, uid;
    char    prog[256], exe[1024], args[17], args_norm[17], name[FTIO_STORE_NAME_MAX];
    int64_t runs;
    double  used, last_end;   /* Unix s */
};
typedef void (*ftio_store_info_fn)(void *ctx, const struct ftio_store_info *info);

struct ftio_store_stats {
    int64_t apps, runs;
    int64_t forgotten;        /* applications forgotten for the per-uid bound, ever */
};

struct ftio_store;
/* Open or create the store.  busy_ms bounds each wait for a lock held by
 * another process; read_only: `ftio history` on a file (no schema made).
 * NULL with a one-line reason. */
struct ftio_store *ftio_store_open(const char *spec, int busy_ms, bool read_only,
                                       char *err, size_t errlen);
void ftio_store_close(struct ftio_store *h);
/* The last failure: the database is locked by another process (busy), or
 * damaged / not a database (damaged), or its server is gone. */
bool ftio_store_busy(const struct ftio_store *h);
bool ftio_store_damaged(const struct ftio_store *h);
const char *ftio_store_error(const struct ftio_store *h);

/* Record a run (one transaction): the app's row (touched: used = now), the
 * run replacing an earlier record of the same job, its answers; the app keeps
 * its latest FTIO_STORE_RUNS_KEPT runs, its uid at most max_apps apps (0:
 * no bound), the least recently used forgotten (*forgotten says how many).
 * 0 or -1. */
int ftio_store_record(struct ftio_store *h, const struct ftio_store_run *r, size_t max_apps,
                        double now, size_t *forgotten);
/* The latest runs of the most specific level that knows app (FTIO_PRIOR_*;
 * NONE: none does).  Read only (the least recently used order is that of the
 * runs recorded: a job looked up is recorded at its end).  0 or -1. */
int ftio_store_lookup(struct ftio_store *h, const struct ftio_store_app *app,
                      struct ftio_store_match *out);
/* The applications of uid (-1: every uid), most recently used first. */
int ftio_store_list(struct ftio_store *h, int64_t uid, ftio_store_info_fn fn, void *ctx);
/* One application (of uid, unless uid is -1) and its runs' answers (rows
 * latest run first).  1 found, 0 no such application (or another uid's), -1. */
int ftio_store_show(struct ftio_store *h, int64_t id, int64_t uid,
                      struct ftio_store_info *info, struct ftio_store_match *runs);
/* Forget application id (-1: every application) of uid (-1: any uid); *n
 * how many.  0 or -1. */
int ftio_store_forget(struct ftio_store *h, int64_t id, int64_t uid, size_t *n);
int ftio_store_stats(struct ftio_store *h, struct ftio_store_stats *s);

/* ---- what the runs say (priors.c) ------------------------------------------------------ */

/* A prior of a lookup's runs (analysis/prior.h): of a mode's own answers
 * (pattern ""), or of an activity's; an activity is matched across runs by
 * the last component of its pattern (a run in another directory writes the
 * same outputs). */
struct ftio_store_prior {
    int    mode;
    char   pattern[FTIO_STORE_PATTERN_MAX];
    struct ftio_prior p;
};
/* Per mode the mode's own first, then its activities; at most max; returns
 * how many. */
size_t ftio_store_priors(const struct ftio_store_match *m, struct ftio_store_prior *out, size_t max);

/* ---- the replies of `ftio history` (store_json.c) ------------------------------------------ */

/* The same JSON whether ftiod answers (its control socket: apps, app ID,
 * forget ID) or `ftio history --history` reads the store itself; uid -1:
 * every uid's.  {"error": ...} when the store fails. */
struct json_t;
struct json_t *ftio_store_reply_apps(struct ftio_store *h, int64_t uid);
struct json_t *ftio_store_reply_app(struct ftio_store *h, int64_t id, int64_t uid);
struct json_t *ftio_store_reply_forget(struct ftio_store *h, int64_t id, int64_t uid);

#endif
