/* SPDX-License-Identifier: BSD-3-Clause */
/* store.c -- the memory of runs (history.h): its schema and every statement,
 * written once for both databases (db.h).
 *
 *   ftio_meta      (key, value): the schema's version
 *   ftio_apps      one row per application: (uid, prog, args, name) unique,
 *                  args_norm, the last exe path, `used` (Unix s: its last
 *                  run recorded, the LRU order)
 *   ftio_runs      one per run (app, job) unique: where it came from, the
 *                  stamp of its executable, start, end, ranks
 *   ftio_answers   its final answers: per mode, the mode's own (pattern '')
 *                  and each activity's
 *   ftio_forgotten per uid, applications forgotten for the per-uid bound
 * A forgotten application takes its runs and answers along (foreign keys,
 * ON DELETE CASCADE).  Writes are one transaction each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "history/db.h"
#include "history/history.h"

#define SCHEMA_VERSION "1"

struct ftio_store {
    struct db *db;
};

/* ---- names and specs ---------------------------------------------------------------- */

enum ftio_store_kind ftio_store_kind_of(const char *spec)
{
    return spec && (!strncmp(spec, "postgresql://", 13) || !strncmp(spec, "postgres://", 11))
               ? FTIO_STORE_POSTGRESQL : FTIO_STORE_SQLITE;
}

void ftio_store_spec_redacted(const char *spec, char *out, size_t cap)
{
    snprintf(out, cap, "%s", spec ? spec : "");
    if (ftio_store_kind_of(out) != FTIO_STORE_POSTGRESQL)
        return;
    /* postgresql://user:password@host/...: the password never in a log */
    char *auth = strstr(out, "://") + 3, *at = strchr(auth, '@'), *colon = strchr(auth, ':');
    if (at && colon && colon < at) {
        char rest[1024];
        snprintf(rest, sizeof rest, "%s", at);
        snprintf(colon, cap - (size_t)(colon - out), ":***%s", rest);
    }
}

bool ftio_store_busy(const struct ftio_store *h)
{
    return h->db->fault == DB_BUSY;
}

bool ftio_store_damaged(const struct ftio_store *h)
{
    return h->db->fault == DB_DAMAGED;
}

const char *ftio_store_error(const struct ftio_store *h)
{
    return h->db->err;
}

/* ---- values of a row ------------------------------------------------------------------- */

static int64_t col_int(const struct db_val *v)
{
    return v->t == DB_INT ? v->i : v->t == DB_REAL ? (int64_t)v->r
         : v->t == DB_TEXT ? strtoll(v->s, NULL, 10) : 0;
}

static double col_real(const struct db_val *v)
{
    return v->t == DB_REAL ? v->r : v->t == DB_INT ? (double)v->i
         : v->t == DB_TEXT ? strtod(v->s, NULL) : NAN;
}

static void col_text(const struct db_val *v, char *out, size_t cap)
{
    snprintf(out, cap, "%s", v->t == DB_TEXT && v->s ? v->s : "");
}

/* A callback that keeps the first column of the first row as an integer. */
static int first_int(void *ctx, const struct db_val *col, size_t n)
{
    if (n > 0)
        *(int64_t *)ctx = col_int(&col[0]);
    return 1;
}

/* ---- schema ------------------------------------------------------------------------------- */

static const char ddl_format[] =
    "CREATE TABLE IF NOT EXISTS ftio_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS ftio_apps (%s, uid BIGINT NOT NULL, prog TEXT NOT NULL,"
    " args TEXT NOT NULL, args_norm TEXT NOT NULL, name TEXT NOT NULL, exe TEXT NOT NULL,"
    " used DOUBLE PRECISION NOT NULL, UNIQUE (uid, prog, args, name));"
    "CREATE INDEX IF NOT EXISTS ftio_apps_norm ON ftio_apps (uid, prog, args_norm, name);"
    "CREATE INDEX IF NOT EXISTS ftio_apps_name ON ftio_apps (uid, name);"
    "CREATE INDEX IF NOT EXISTS ftio_apps_used ON ftio_apps (uid, used);"
    "CREATE TABLE IF NOT EXISTS ftio_runs (%s,"
    " app BIGINT NOT NULL REFERENCES ftio_apps (id) ON DELETE CASCADE, job TEXT NOT NULL,"
    " source TEXT NOT NULL, exe_id TEXT NOT NULL, start DOUBLE PRECISION,"
    " ended DOUBLE PRECISION NOT NULL, nranks BIGINT NOT NULL, UNIQUE (app, job));"
    "CREATE INDEX IF NOT EXISTS ftio_runs_ended ON ftio_runs (app, ended);"
    "CREATE TABLE IF NOT EXISTS ftio_answers ("
    " run BIGINT NOT NULL REFERENCES ftio_runs (id) ON DELETE CASCADE, mode INTEGER NOT NULL,"
    " pattern TEXT NOT NULL, period DOUBLE PRECISION, confidence DOUBLE PRECISION,"
    " class INTEGER NOT NULL, bytes DOUBLE PRECISION, duration DOUBLE PRECISION,"
    " first_offset DOUBLE PRECISION);"
    "CREATE INDEX IF NOT EXISTS ftio_answers_run ON ftio_answers (run);"
    "CREATE TABLE IF NOT EXISTS ftio_forgotten (uid BIGINT PRIMARY KEY, apps BIGINT NOT NULL);"
    "INSERT INTO ftio_meta (key, value) VALUES ('schema', '" SCHEMA_VERSION "')"
    " ON CONFLICT (key) DO NOTHING";

static const char sql_schema[] = "SELECT value FROM ftio_meta WHERE key = 'schema'";

static int text_of_first(void *ctx, const struct db_val *col, size_t n)
{
    if (n > 0)
        col_text(&col[0], ctx, 32);
    return 1;
}

/* The tables, made once (several daemons may start at once on one
 * PostgreSQL: a lost race to create them is tried again). */
static int schema(struct ftio_store *h, bool create, char *err, size_t errlen)
{
    struct db *db = h->db;
    int rc = 0;
    for (int attempt = 0; create && attempt < 3; attempt++) {
        char ddl[sizeof ddl_format + 128];
        snprintf(ddl, sizeof ddl, ddl_format, db->ops->id_column, db->ops->id_column);
        rc = db->ops->begin(db);
        if (rc == 0 && (rc = db_exec(db, ddl, NULL, 0, NULL, NULL)) == 0 && (rc = db_commit(db)) == 0)
            break;
        db_rollback(db);
        usleep(100000);
    }
    char version[32] = "";
    if (rc == 0 && db_exec(db, sql_schema, NULL, 0, text_of_first, version) < 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "%s", db->err);
        return -1;
    }
    if (strcmp(version, SCHEMA_VERSION) != 0) {
        snprintf(err, errlen, "a memory of runs of schema '%s', this ftio reads '%s'", version,
                 SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

struct ftio_store *ftio_store_open(const char *spec, int busy_ms, bool read_only,
                                       char *err, size_t errlen)
{
    struct ftio_store *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (ftio_store_kind_of(spec) == FTIO_STORE_POSTGRESQL) {
        h->db = db_pg_open(spec, busy_ms, err, errlen);
    } else if (read_only && access(spec, F_OK) != 0) {
        snprintf(err, errlen, "%s: no memory of runs there (ftiod --history, ftio scan --history "
                 "make one)", spec);
    } else {
        h->db = db_sqlite_open(spec, busy_ms, err, errlen);
    }
    if (!h->db || schema(h, !read_only, err, errlen) != 0) {
        ftio_store_close(h);
        return NULL;
    }
    return h;
}

void ftio_store_close(struct ftio_store *h)
{
    if (!h)
        return;
    db_close(h->db);
    free(h);
}

/* ---- recording a run ------------------------------------------------------------------------ */

static const char sql_app_upsert[] =
    "INSERT INTO ftio_apps (uid, prog, args, args_norm, name, exe, used)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid, prog, args, name)"
    " DO UPDATE SET args_norm = excluded.args_norm, exe = excluded.exe, used = excluded.used"
    " RETURNING id";
static const char sql_run_delete[] = "DELETE FROM ftio_runs WHERE app = ? AND job = ?";
static const char sql_run_insert[] =
    "INSERT INTO ftio_runs (app, job, source, exe_id, start, ended, nranks)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id";
static const char sql_answer_insert[] =
    "INSERT INTO ftio_answers (run, mode, pattern, period, confidence, class, bytes, duration,"
    " first_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char sql_runs_trim[] =
    "DELETE FROM ftio_runs WHERE app = ? AND id NOT IN"
    " (SELECT id FROM ftio_runs WHERE app = ? ORDER BY ended DESC, id DESC LIMIT ?)";
static const char sql_apps_count[] = "SELECT count(*) FROM ftio_apps WHERE uid = ?";
static const char sql_apps_lru[] =
    "DELETE FROM ftio_apps WHERE id IN (SELECT id FROM ftio_apps WHERE uid = ? AND id <> ?"
    " ORDER BY used ASC, id ASC LIMIT ?)";
static const char sql_forgotten_add[] =
    "INSERT INTO ftio_forgotten (uid, apps) VALUES (?, ?) ON CONFLICT (uid)"
    " DO UPDATE SET apps = ftio_forgotten.apps + excluded.apps";

static int record_in(struct db *db, const struct ftio_store_run *r, size_t max_apps,
                     double now, size_t *forgotten)
{
    const struct ftio_store_app *a = &r->app;
    struct db_val app[] = {
        db_int(a->uid), db_text(a->prog), db_text(a->args), db_text(a->args_norm),
        db_text(a->name ? a->name : ""), db_text(a->exe ? a->exe : ""), db_real(now),
    };
    int64_t app_id = -1, run_id = -1;
    if (db_exec(db, sql_app_upsert, app, 7, first_int, &app_id) < 0 || app_id < 0)
        return -1;
    struct db_val key[] = { db_int(app_id), db_text(r->job) };
    if (db_exec(db, sql_run_delete, key, 2, NULL, NULL) < 0)
        return -1;
    struct db_val run[] = {
        db_int(app_id), db_text(r->job), db_text(r->source), db_text(r->exe_id ? r->exe_id : ""),
        db_real(r->start), db_real(r->end), db_int(r->nranks),
    };
    if (db_exec(db, sql_run_insert, run, 7, first_int, &run_id) < 0 || run_id < 0)
        return -1;
    for (size_t i = 0; i < r->nanswers; i++) {
        const struct ftio_store_answer *x = &r->answers[i];
        struct db_val ans[] = {
            db_int(run_id), db_int(x->mode), db_text(x->pattern), db_real(x->period),
            db_real(x->confidence), db_int(x->cls), db_real(x->bytes), db_real(x->duration),
            db_real(x->first_offset),
        };
        if (db_exec(db, sql_answer_insert, ans, 9, NULL, NULL) < 0)
            return -1;
    }
    struct db_val trim[] = { db_int(app_id), db_int(app_id), db_int(FTIO_STORE_RUNS_KEPT) };
    if (db_exec(db, sql_runs_trim, trim, 3, NULL, NULL) < 0)
        return -1;
    int64_t napps = 0;
    struct db_val uid[] = { db_int(a->uid) };
    if (max_apps > 0 && db_exec(db, sql_apps_count, uid, 1, first_int, &napps) < 0)
        return -1;
    if (max_apps > 0 && napps > (int64_t)max_apps) {
        int64_t over = napps - (int64_t)max_apps;
        struct db_val lru[] = { db_int(a->uid), db_int(app_id), db_int(over) };
        struct db_val add[] = { db_int(a->uid), db_int(over) };
        if (db_exec(db, sql_apps_lru, lru, 3, NULL, NULL) < 0 ||
            db_exec(db, sql_forgotten_add, add, 2, NULL, NULL) < 0)
            return -1;
        *forgotten = (size_t)over;
    }
    return 0;
}

int ftio_store_record(struct ftio_store *h, const struct ftio_store_run *r, size_t max_apps,
                        double now, size_t *forgotten)
{
    size_t dummy;
    if (!forgotten)
        forgotten = &dummy;
    *forgotten = 0;
    if (h->db->ops->begin(h->db) != 0)
        return -1;
    if (record_in(h->db, r, max_apps, now, forgotten) != 0 || db_commit(h->db) != 0) {
        db_rollback(h->db);
        *forgotten = 0;
        return -1;
    }
    return 0;
}

/* ---- lookup ------------------------------------------------------------------------------------- */

#define RUN_COLUMNS                                                                        \
    "SELECT r.id, r.ended, r.job, r.source, r.nranks, a.mode, a.pattern, a.period,"        \
    " a.confidence, a.class, a.bytes, a.duration, a.first_offset"                          \
    " FROM ftio_runs r JOIN ftio_answers a ON a.run = r.id"
#define LATEST(where)                                                                      \
    RUN_COLUMNS " WHERE r.id IN (SELECT r2.id FROM ftio_runs r2 JOIN ftio_apps p ON p.id = r2.app" \
    " WHERE " where " ORDER BY r2.ended DESC, r2.id DESC LIMIT ?)"                         \
    " ORDER BY r.ended DESC, r.id DESC, a.mode, a.pattern"

/* Per level (history.h): the latest runs of the applications it matches. */
static const struct level_sql {
    enum ftio_prior_level level;
    const char *runs;
    bool needs_name;
} levels[] = {
    { FTIO_PRIOR_ARGS, LATEST("p.uid = ? AND p.prog = ? AND p.args = ? AND p.name = ?"), false },
    { FTIO_PRIOR_ARGS_NORM, LATEST("p.uid = ? AND p.prog = ? AND p.args_norm = ? AND p.name = ?"),
      false },
    { FTIO_PRIOR_EXE, LATEST("p.uid = ? AND p.prog = ? AND p.name = ?"), false },
    { FTIO_PRIOR_NAME, LATEST("p.uid = ? AND p.name = ?"), true },
};

void ftio_store_match_free(struct ftio_store_match *m)
{
    free(m->row);
    memset(m, 0, sizeof *m);
}

/* Rows of RUN_COLUMNS into a match. */
static int add_row(void *ctx, const struct db_val *c, size_t n)
{
    struct ftio_store_match *m = ctx;
    if (n < 13)
        return 0;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        void *p = realloc(m->row, cap * sizeof *m->row);
        if (!p)
            return 2;
        m->row = p;
        m->cap = cap;
    }
    struct ftio_store_row *r = &m->row[m->n];
    memset(r, 0, sizeof *r);
    r->run = col_int(&c[0]);
    r->end = col_real(&c[1]);
    col_text(&c[2], r->job, sizeof r->job);
    col_text(&c[3], r->source, sizeof r->source);
    r->nranks = col_int(&c[4]);
    r->a.mode = (int)col_int(&c[5]);
    col_text(&c[6], r->a.pattern, sizeof r->a.pattern);
    r->a.period = col_real(&c[7]);
    r->a.confidence = col_real(&c[8]);
    r->a.cls = (int)col_int(&c[9]);
    r->a.bytes = col_real(&c[10]);
    r->a.duration = col_real(&c[11]);
    r->a.first_offset = col_real(&c[12]);
    if (m->n == 0 || m->row[m->n - 1].run != r->run)
        m->nruns++;
    m->n++;
    return 0;
}

/* The parameters of a level's statements: its key's columns. */
static size_t level_params(const struct level_sql *l, const struct ftio_store_app *a,
                           struct db_val *p)
{
    const char *name = a->name ? a->name : "";
    size_t n = 0;
    p[n++] = db_int(a->uid);
    if (l->level != FTIO_PRIOR_NAME)
        p[n++] = db_text(a->prog);
    if (l->level == FTIO_PRIOR_ARGS)
        p[n++] = db_text(a->args);
    else if (l->level == FTIO_PRIOR_ARGS_NORM)
        p[n++] = db_text(a->args_norm);
    p[n++] = db_text(name);
    return n;
}

int ftio_store_lookup(struct ftio_store *h, const struct ftio_store_app *app,
                      struct ftio_store_match *out)
{
    out->level = FTIO_PRIOR_NONE;
    out->n = out->nruns = 0;
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
        const struct level_sql *l = &levels[i];
        if (l->needs_name && !(app->name && *app->name))
            continue;
        struct db_val p[6];
        size_t np = level_params(l, app, p);
        p[np] = db_int(FTIO_STORE_RUNS_USED);
        int rc = db_exec(h->db, l->runs, p, np + 1, add_row, out);
        if (rc != 0) {
            if (rc > 0)
                db_fail(h->db, DB_ERROR, "out of memory");
            return -1;
        }
        if (out->n == 0)
            continue;
        out->level = l->level;
        return 0;
    }
    return 0;
}

/* ---- list, show, forget, stats -------------------------------------------------------------- */

#define INFO_COLUMNS                                                                        \
    "SELECT p.id, p.uid, p.prog, p.exe, p.args, p.args_norm, p.name, p.used, count(r.id),"  \
    " max(r.ended) FROM ftio_apps p LEFT JOIN ftio_runs r ON r.app = p.id"
#define INFO_GROUP " GROUP BY p.id, p.uid, p.prog, p.exe, p.args, p.args_norm, p.name, p.used"
static const char sql_list[] =
    INFO_COLUMNS " WHERE (? < 0 OR p.uid = ?)" INFO_GROUP " ORDER BY p.used DESC, p.id DESC";
static const char sql_info[] =
    INFO_COLUMNS " WHERE p.id = ? AND (? < 0 OR p.uid = ?)" INFO_GROUP;
static const char sql_runs_of[] =
    RUN_COLUMNS " WHERE r.app = ? ORDER BY r.ended DESC, r.id DESC, a.mode, a.pattern";

static void info_of(const struct db_val *c, struct ftio_store_info *i)
{
    memset(i, 0, sizeof *i);
    i->id = col_int(&c[0]);
    i->uid = col_int(&c[1]);
    col_text(&c[2], i->prog, sizeof i->prog);
    col_text(&c[3], i->exe, sizeof i->exe);
    col_text(&c[4], i->args, sizeof i->args);
    col_text(&c[5], i->args_norm, sizeof i->args_norm);
    col_text(&c[6], i->name, sizeof i->name);
    i->used = col_real(&c[7]);
    i->runs = col_int(&c[8]);
    i->last_end = col_real(&c[9]);
}

struct list_ctx { ftio_store_info_fn fn; void *ctx; };

static int list_row(void *ctx, const struct db_val *c, size_t n)
{
    struct list_ctx *l = ctx;
    if (n >= 10) {
        struct ftio_store_info i;
        info_of(c, &i);
        l->fn(l->ctx, &i);
    }
    return 0;
}

int ftio_store_list(struct ftio_store *h, int64_t uid, ftio_store_info_fn fn, void *ctx)
{
    struct list_ctx l = { fn, ctx };
    struct db_val p[] = { db_int(uid), db_int(uid) };
    return db_exec(h->db, sql_list, p, 2, list_row, &l) < 0 ? -1 : 0;
}

static int one_info(void *ctx, const struct db_val *c, size_t n)
{
    if (n >= 10)
        info_of(c, ctx);
    return 1;
}

int ftio_store_show(struct ftio_store *h, int64_t id, int64_t uid,
                      struct ftio_store_info *info, struct ftio_store_match *runs)
{
    memset(info, 0, sizeof *info);
    info->id = -1;
    struct db_val p[] = { db_int(id), db_int(uid), db_int(uid) };
    if (db_exec(h->db, sql_info, p, 3, one_info, info) < 0)
        return -1;
    if (info->id != id)
        return 0;
    runs->n = runs->nruns = 0;
    int rc = db_exec(h->db, sql_runs_of, p, 1, add_row, runs);
    return rc == 0 ? 1 : -1;
}

static const char sql_forget_count[] =
    "SELECT count(*) FROM ftio_apps WHERE (? < 0 OR id = ?) AND (? < 0 OR uid = ?)";
static const char sql_forget[] =
    "DELETE FROM ftio_apps WHERE (? < 0 OR id = ?) AND (? < 0 OR uid = ?)";

int ftio_store_forget(struct ftio_store *h, int64_t id, int64_t uid, size_t *n)
{
    struct db_val p[] = { db_int(id), db_int(id), db_int(uid), db_int(uid) };
    int64_t count = 0;
    *n = 0;
    if (h->db->ops->begin(h->db) != 0)
        return -1;
    if (db_exec(h->db, sql_forget_count, p, 4, first_int, &count) < 0 ||
        db_exec(h->db, sql_forget, p, 4, NULL, NULL) < 0 || db_commit(h->db) != 0) {
        db_rollback(h->db);
        return -1;
    }
    *n = (size_t)count;
    return 0;
}

static const char sql_stats[] =
    "SELECT (SELECT count(*) FROM ftio_apps), (SELECT count(*) FROM ftio_runs),"
    " (SELECT COALESCE(sum(apps), 0) FROM ftio_forgotten)";

static int stats_row(void *ctx, const struct db_val *c, size_t n)
{
    struct ftio_store_stats *s = ctx;
    if (n >= 3) {
        s->apps = col_int(&c[0]);
        s->runs = col_int(&c[1]);
        s->forgotten = col_int(&c[2]);
    }
    return 1;
}

int ftio_store_stats(struct ftio_store *h, struct ftio_store_stats *s)
{
    memset(s, 0, sizeof *s);
    return db_exec(h->db, sql_stats, NULL, 0, stats_row, s) < 0 ? -1 : 0;
}
