/* SPDX-License-Identifier: BSD-3-Clause */
/* db.h -- the two databases the memory of runs lives in, behind one small
 * set of calls (internal to libftiohistory.a): SQLite (db_sqlite.c, the
 * embedded default, a file in WAL mode) and PostgreSQL (db_pg.c, a server
 * several daemons share, through libpq).
 *
 * store.c writes every statement once, in the SQL both understand, with `?`
 * placeholders (db_pg.c numbers them $1, $2 ...), and reads rows through a
 * callback; the differences that remain are the backend's: its id column,
 * how a write transaction begins, how a failure is classified.  Statements
 * are prepared once per connection (the text is the key: store.c passes
 * string constants).
 */
#ifndef FTIO_HISTORY_DB_H
#define FTIO_HISTORY_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_type { DB_NULL = 0, DB_INT, DB_REAL, DB_TEXT };
struct db_val {
    enum db_type t;
    int64_t i;
    double r;
    const char *s;
};
static inline struct db_val db_int(int64_t i) { return (struct db_val){.t = DB_INT, .i = i}; }
static inline struct db_val db_real(double r) { return (struct db_val){.t = DB_REAL, .r = r}; }
static inline struct db_val db_text(const char *s) { return (struct db_val){.t = DB_TEXT, .s = s}; }

/* One row: 0 to go on, non-zero to stop (returned by db_exec). */
typedef int (*db_row_fn)(void *ctx, const struct db_val *col, size_t ncol);

/* What went wrong, for the caller's one message: a database that another
 * process holds locked (try again later), one that is damaged or not a
 * database, a server that is gone (reconnect), anything else. */
enum db_fault { DB_OK = 0, DB_BUSY, DB_DAMAGED, DB_GONE, DB_ERROR };

struct db;
struct db_backend {
    const char *name;            /* "sqlite", "postgresql" */
    const char *id_column;       /* DDL of an automatic 64-bit primary key named id */
    int  (*exec)(struct db *db, const char *sql, const struct db_val *p, size_t np,
                 db_row_fn fn, void *ctx);
    int  (*begin)(struct db *db);            /* a write transaction */
    void (*close)(struct db *db);
};

struct db {
    const struct db_backend *ops;
    enum db_fault fault;         /* of the last failure */
    char err[256];               /* its text */
    void *impl;
};

/* Open (creating the file with mode 0600, WAL) / connect.  NULL with err
 * filled when it cannot; busy_ms bounds every wait for a lock. */
struct db *db_sqlite_open(const char *path, int busy_ms, char *err, size_t errlen);
struct db *db_pg_open(const char *conninfo, int busy_ms, char *err, size_t errlen);

/* Run sql with its parameters; fn (may be NULL) sees each row.  0, the
 * callback's non-zero value, or -1 with db->fault and db->err set. */
static inline int db_exec(struct db *db, const char *sql, const struct db_val *p, size_t np,
                          db_row_fn fn, void *ctx)
{
    return db->ops->exec(db, sql, p, np, fn, ctx);
}
/* A backend's new connection object with its zeroed impl (NULL, err
 * "out of memory"). */
struct db *db_new(const struct db_backend *ops, size_t impl_size, char *err, size_t errlen);
int  db_commit(struct db *db);
void db_rollback(struct db *db);
void db_close(struct db *db);

/* Set db->fault and db->err (printf-style) and return -1. */
int  db_fail(struct db *db, enum db_fault fault, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
