/* SPDX-License-Identifier: BSD-3-Clause */
/* db_pg.c -- the memory of runs in a PostgreSQL database (db.h), through
 * libpq: what several daemons share (jobs are spread over daemons by their
 * id, so the next run of an application may land on another one).
 *
 * The connection string is libpq's (a postgresql:// URI or key=value
 * pairs); the password belongs in ~/.pgpass or PGPASSFILE, never on the
 * command line.  Every wait for a lock or a statement is bounded
 * (lock_timeout, statement_timeout = busy_ms), so a busy server delays the
 * history thread, never a job.  A connection that broke is reset before
 * the next statement; the prepared statements go with it.  Parameters and
 * results travel as text; the `?` of store.c's SQL become $1, $2 ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>
#include "history/db.h"

#define STMT_CACHE 48
#define MAX_COLS 24
/* Type oids of the results (pg_type.h is server-side). */
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

struct pg_db {
    PGconn *conn;
    int busy_ms;
    struct { const char *sql; char name[16]; } cache[STMT_CACHE];
    size_t ncache;
};

/* The SQLSTATE classes a caller may retry later: a lock not granted in
 * time, a statement cancelled by its timeout, a serialisation conflict. */
static enum db_fault fault_of(const PGresult *r, const PGconn *c)
{
    if (PQstatus(c) != CONNECTION_OK)
        return DB_GONE;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (state && (!strcmp(state, "55P03") || !strcmp(state, "57014") || !strcmp(state, "40001") ||
                  !strcmp(state, "40P01")))
        return DB_BUSY;
    return DB_ERROR;
}

static int pg_fail(struct db *db, PGresult *r)
{
    struct pg_db *p = db->impl;
    const char *msg = r ? PQresultErrorMessage(r) : PQerrorMessage(p->conn);
    char line[200];
    snprintf(line, sizeof line, "%s", msg && *msg ? msg : "unknown error");
    line[strcspn(line, "\n")] = '\0';
    int rc = db_fail(db, fault_of(r, p->conn), "%s", line);
    PQclear(r);
    return rc;
}

/* Per connection: bounded waits. */
static int session_setup(struct db *db)
{
    struct pg_db *p = db->impl;
    char sql[128];
    snprintf(sql, sizeof sql, "SET lock_timeout = %d; SET statement_timeout = %d", p->busy_ms,
             p->busy_ms * 4);
    PGresult *r = PQexec(p->conn, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        return pg_fail(db, r);
    PQclear(r);
    /* Tables that exist already: CREATE ... IF NOT EXISTS says so as a notice. */
    r = PQexec(p->conn, "SET client_min_messages = warning");
    PQclear(r);
    return 0;
}

/* Up again after the server went away (the statements prepared on the old
 * connection are gone with it). */
static int reconnect(struct db *db)
{
    struct pg_db *p = db->impl;
    if (PQstatus(p->conn) == CONNECTION_OK)
        return 0;
    PQreset(p->conn);
    p->ncache = 0;
    if (PQstatus(p->conn) != CONNECTION_OK)
        return db_fail(db, DB_GONE, "%.*s", (int)strcspn(PQerrorMessage(p->conn), "\n"),
                       PQerrorMessage(p->conn));
    return session_setup(db);
}

/* The statement's name on this connection, prepared on first use. */
static const char *prepared(struct db *db, const char *sql, size_t np)
{
    struct pg_db *p = db->impl;
    for (size_t i = 0; i < p->ncache; i++)
        if (p->cache[i].sql == sql)
            return p->cache[i].name;
    if (p->ncache == STMT_CACHE) {
        db_fail(db, DB_ERROR, "more than %d statements", STMT_CACHE);   /* store.c has fewer */
        return NULL;
    }
    size_t len = strlen(sql), k = 0;
    char *text = malloc(len + 8 * np + 1), *o = text;
    if (!text) {
        db_fail(db, DB_ERROR, "out of memory");
        return NULL;
    }
    for (const char *s = sql; *s; s++)
        if (*s == '?')
            o += sprintf(o, "$%zu", ++k);
        else
            *o++ = *s;
    *o = '\0';
    char *name = p->cache[p->ncache].name;
    snprintf(name, sizeof p->cache[0].name, "ftio%zu", p->ncache);
    PGresult *r = PQprepare(p->conn, name, text, 0, NULL);
    free(text);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        pg_fail(db, r);
        return NULL;
    }
    PQclear(r);
    p->cache[p->ncache].sql = sql;
    return p->cache[p->ncache++].name;
}

static struct db_val value_of(const PGresult *r, int row, int c)
{
    if (PQgetisnull(r, row, c))
        return (struct db_val){.t = DB_NULL};
    const char *v = PQgetvalue(r, row, c);
    switch (PQftype(r, c)) {
    case OID_INT2: case OID_INT4: case OID_INT8:
        return db_int(strtoll(v, NULL, 10));
    case OID_FLOAT4: case OID_FLOAT8: case OID_NUMERIC:
        return db_real(strtod(v, NULL));
    default:
        return db_text(v);
    }
}

static int pg_exec(struct db *db, const char *sql, const struct db_val *p, size_t np,
                   db_row_fn fn, void *ctx)
{
    struct pg_db *g = db->impl;
    if (reconnect(db) != 0)
        return -1;
    if (np == 0 && !fn) {
        /* transaction control and the schema: the simple protocol */
        PGresult *r = PQexec(g->conn, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            return pg_fail(db, r);
        PQclear(r);
        return 0;
    }
    const char *name = prepared(db, sql, np);
    if (!name)
        return -1;
    char buf[MAX_COLS][32];
    const char *vals[MAX_COLS];
    for (size_t i = 0; i < np && i < MAX_COLS; i++) {
        switch (p[i].t) {
        case DB_INT: snprintf(buf[i], sizeof buf[i], "%lld", (long long)p[i].i); vals[i] = buf[i]; break;
        case DB_REAL:
            snprintf(buf[i], sizeof buf[i], "%.17g", p[i].r);
            vals[i] = p[i].r == p[i].r ? buf[i] : NULL;      /* NAN: NULL */
            break;
        case DB_TEXT: vals[i] = p[i].s; break;
        default: vals[i] = NULL; break;
        }
    }
    PGresult *r = PQexecPrepared(g->conn, name, (int)(np < MAX_COLS ? np : MAX_COLS), vals, NULL,
                                 NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
        return pg_fail(db, r);
    int ret = 0, rows = PQntuples(r), ncol = PQnfields(r);
    if (ncol > MAX_COLS)
        ncol = MAX_COLS;
    for (int i = 0; fn && i < rows && ret == 0; i++) {
        struct db_val col[MAX_COLS];
        for (int c = 0; c < ncol; c++)
            col[c] = value_of(r, i, c);
        ret = fn(ctx, col, (size_t)ncol);
    }
    PQclear(r);
    return ret;
}

static int pg_begin(struct db *db)
{
    return pg_exec(db, "BEGIN", NULL, 0, NULL, NULL);
}

static void pg_close(struct db *db)
{
    struct pg_db *p = db->impl;
    PQfinish(p->conn);
    free(p);
    free(db);
}

static const struct db_backend pg_backend = {
    .name = "postgresql",
    .id_column = "id BIGSERIAL PRIMARY KEY",
    .exec = pg_exec,
    .begin = pg_begin,
    .close = pg_close,
};

struct db *db_pg_open(const char *conninfo, int busy_ms, char *err, size_t errlen)
{
    struct db *db = db_new(&pg_backend, sizeof(struct pg_db), err, errlen);
    if (!db)
        return NULL;
    struct pg_db *p = db->impl;
    p->busy_ms = busy_ms;
    /* A server that does not answer must not hold ftiod's start: 5 s unless
     * the connection string says otherwise (the later keyword wins). */
    const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
    const char *vals[] = { "5", "ftio", conninfo, NULL };
    p->conn = PQconnectdbParams(keys, vals, 1);
    if (!p->conn || PQstatus(p->conn) != CONNECTION_OK || session_setup(db) != 0) {
        const char *m = db->err[0] ? db->err : p->conn ? PQerrorMessage(p->conn) : "out of memory";
        snprintf(err, errlen, "%.*s", (int)strcspn(m, "\n"), m);
        pg_close(db);
        return NULL;
    }
    return db;
}
