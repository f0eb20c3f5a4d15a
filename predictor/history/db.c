/* SPDX-License-Identifier: BSD-3-Clause */
/* db.c -- what both databases of db.h do alike: the end of a transaction,
 * closing, and recording a failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "history/db.h"

struct db *db_new(const struct db_backend *ops, size_t impl_size, char *err, size_t errlen)
{
    struct db *db = calloc(1, sizeof *db);
    if (db && !(db->impl = calloc(1, impl_size))) {
        free(db);
        db = NULL;
    }
    if (!db)
        snprintf(err, errlen, "out of memory");
    else
        db->ops = ops;
    return db;
}

int db_commit(struct db *db)
{
    return db_exec(db, "COMMIT", NULL, 0, NULL, NULL);
}

void db_rollback(struct db *db)
{
    /* keeps the failure that made the caller roll back */
    enum db_fault f = db->fault;
    char err[sizeof db->err];
    snprintf(err, sizeof err, "%s", db->err);
    db_exec(db, "ROLLBACK", NULL, 0, NULL, NULL);
    db->fault = f;
    snprintf(db->err, sizeof db->err, "%s", err);
}

void db_close(struct db *db)
{
    if (db)
        db->ops->close(db);
}

int db_fail(struct db *db, enum db_fault fault, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err, sizeof db->err, fmt, ap);
    va_end(ap);
    db->fault = fault;
    return -1;
}
