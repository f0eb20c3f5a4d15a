/* SPDX-License-Identifier: BSD-3-Clause */
/* db_sqlite.c -- the memory of runs in a SQLite file (db.h): Debian's
 * libsqlite3, WAL mode (readers never wait for the writer, so `ftio history`
 * and `ftio scan --history` work beside a running ftiod), synchronous=NORMAL
 * (a power cut may lose the last runs, never the file), foreign keys on (a
 * forgotten application takes its runs along).  The file is created 0600
 * (SQLite gives its -wal and -shm files the same mode) and never opened
 * through a symbolic link.  Statements are prepared once and kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include "history/db.h"

#define STMT_CACHE 48
#define MAX_COLS 24

struct sqlite_db {
    sqlite3 *conn;
    struct { const char *sql; sqlite3_stmt *st; } cache[STMT_CACHE];   /* by the text's address */
    size_t ncache;
};

static enum db_fault fault_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return DB_BUSY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return DB_DAMAGED;
    default:
        return DB_ERROR;
    }
}

static int sqlite_fail(struct db *db, int rc)
{
    struct sqlite_db *s = db->impl;
    return db_fail(db, fault_of(rc), "%s", s->conn ? sqlite3_errmsg(s->conn) : sqlite3_errstr(rc));
}

static sqlite3_stmt *prepared(struct db *db, const char *sql)
{
    struct sqlite_db *s = db->impl;
    for (size_t i = 0; i < s->ncache; i++)
        if (s->cache[i].sql == sql)
            return s->cache[i].st;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v3(s->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (rc != SQLITE_OK) {
        sqlite_fail(db, rc);
        return NULL;
    }
    if (s->ncache < STMT_CACHE)
        s->cache[s->ncache++] = (typeof(s->cache[0])){ sql, st };
    return st;
}

static int sqlite_exec(struct db *db, const char *sql, const struct db_val *p, size_t np,
                       db_row_fn fn, void *ctx)
{
    struct sqlite_db *s = db->impl;
    if (np == 0 && !fn) {
        /* transaction control, pragmas and the schema: not kept */
        char *msg = NULL;
        int rc = sqlite3_exec(s->conn, sql, NULL, NULL, &msg);
        if (rc != SQLITE_OK) {
            db_fail(db, fault_of(rc), "%s", msg ? msg : sqlite3_errstr(rc));
            sqlite3_free(msg);
            return -1;
        }
        return 0;
    }
    sqlite3_stmt *st = prepared(db, sql);
    if (!st)
        return -1;
    bool cached = false;
    for (size_t i = 0; i < s->ncache; i++)
        cached |= s->cache[i].st == st;
    int rc = SQLITE_OK;
    for (size_t i = 0; i < np && rc == SQLITE_OK; i++) {
        int k = (int)i + 1;
        switch (p[i].t) {
        case DB_INT: rc = sqlite3_bind_int64(st, k, p[i].i); break;
        case DB_REAL: rc = p[i].r == p[i].r ? sqlite3_bind_double(st, k, p[i].r)
                                            : sqlite3_bind_null(st, k); break;   /* NAN: NULL */
        case DB_TEXT: rc = sqlite3_bind_text(st, k, p[i].s, -1, SQLITE_STATIC); break;
        default: rc = sqlite3_bind_null(st, k); break;
        }
    }
    int ret = 0;
    if (rc != SQLITE_OK) {
        ret = sqlite_fail(db, rc);
    } else {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (!fn)
                continue;
            struct db_val col[MAX_COLS];
            size_t n = (size_t)sqlite3_column_count(st);
            if (n > MAX_COLS)
                n = MAX_COLS;
            for (size_t c = 0; c < n; c++) {
                int ct = sqlite3_column_type(st, (int)c);
                col[c] = ct == SQLITE_INTEGER ? db_int(sqlite3_column_int64(st, (int)c))
                         : ct == SQLITE_FLOAT ? db_real(sqlite3_column_double(st, (int)c))
                         : ct == SQLITE_NULL  ? (struct db_val){.t = DB_NULL}
                         : db_text((const char *)sqlite3_column_text(st, (int)c));
            }
            if ((ret = fn(ctx, col, n)) != 0)
                break;
        }
        if (ret == 0 && rc != SQLITE_DONE)
            ret = sqlite_fail(db, rc);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (!cached)
        sqlite3_finalize(st);
    return ret;
}

static int sqlite_begin(struct db *db)
{
    /* IMMEDIATE: take the write lock now (waiting busy_ms), not halfway. */
    return sqlite_exec(db, "BEGIN IMMEDIATE", NULL, 0, NULL, NULL);
}

static void sqlite_close(struct db *db)
{
    struct sqlite_db *s = db->impl;
    for (size_t i = 0; i < s->ncache; i++)
        sqlite3_finalize(s->cache[i].st);
    sqlite3_close(s->conn);
    free(s);
    free(db);
}

static const struct db_backend sqlite_backend = {
    .name = "sqlite",
    .id_column = "id INTEGER PRIMARY KEY",
    .exec = sqlite_exec,
    .begin = sqlite_begin,
    .close = sqlite_close,
};

/* The file itself: created 0600 when missing; a symbolic link or anything
 * but a regular file is refused (SQLite would follow the link). */
static int check_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    struct stat st;
    if (errno != EEXIST || lstat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    return 0;
}

struct db *db_sqlite_open(const char *path, int busy_ms, char *err, size_t errlen)
{
    if (check_file(path, err, errlen) != 0)
        return NULL;
    struct db *db = db_new(&sqlite_backend, sizeof(struct sqlite_db), err, errlen);
    if (!db)
        return NULL;
    struct sqlite_db *s = db->impl;
    int rc = sqlite3_open_v2(path, &s->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                             SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout(s->conn, busy_ms);
    static const char *const pragmas[] = {
        "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
    };
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof pragmas / sizeof *pragmas; i++)
        if (sqlite_exec(db, pragmas[i], NULL, 0, NULL, NULL) != 0)
            rc = SQLITE_ERROR;
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db->err[0] ? db->err
                 : s->conn ? sqlite3_errmsg(s->conn) : sqlite3_errstr(rc));
        sqlite_close(db);
        return NULL;
    }
    return db;
}
