/* SPDX-License-Identifier: BSD-3-Clause */
/* test_store.c -- the memory of runs on SQLite (predictor/history/): its
 * schema (tables, version, file mode 0600, WAL), the levels of a lookup
 * (exact arguments, numbers normalised, the program, the name; never
 * another uid's, nor across names), a job's later record replacing its
 * earlier one, the latest runs kept per application, the per-uid bound
 * (least recently used forgotten, counted), list / show / forget within a
 * uid, a symbolic link refused, a damaged file and a locked database (a
 * clear error, in bounded time).  With FTIO_TEST_STORE=postgresql://...
 * (tests/history/postgres.sh, against the server it starts) the cases that
 * are not about SQLite's file run on PostgreSQL, its tables emptied first. */
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libpq-fe.h>
#include "../check_main.h"
#include "history/history.h"

static char dir[64], path[1024];
static bool pg;             /* FTIO_TEST_STORE names a PostgreSQL database */

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ftio-store-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *spec = getenv("FTIO_TEST_STORE");
    pg = spec && *spec;
    snprintf(path, sizeof path, "%s", pg ? spec : "");
    if (!pg)
        snprintf(path, sizeof path, "%s/history.sqlite", dir);
}

static void teardown(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The store, empty (PostgreSQL: the tables of an earlier case emptied). */
static struct ftio_store *open_store(void)
{
    char err[256];
    struct ftio_store *h = ftio_store_open(path, 500, false, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    size_t n;
    ck_assert_int_eq(ftio_store_forget(h, -1, -1, &n), 0);
    if (pg) {
        PGconn *c = PQconnectdb(path);
        PQclear(PQexec(c, "DELETE FROM ftio_forgotten"));
        PQfinish(c);
    }
    return h;
}

/* A run of app (uid, prog, args, args_norm, name) with one answer per mode. */
static int record(struct ftio_store *h, int64_t uid, const char *prog, const char *args,
                  const char *norm, const char *name, const char *job, double end, double period,
                  size_t max_apps, size_t *forgotten)
{
    struct ftio_store_answer a[2];
    memset(a, 0, sizeof a);
    a[0].mode = 0;
    a[0].period = period;
    a[0].confidence = 0.9;
    a[0].cls = 2;
    a[0].bytes = 1e8;
    a[0].duration = 1;
    a[0].first_offset = 5;
    a[1] = a[0];
    snprintf(a[1].pattern, sizeof a[1].pattern, "/scratch/run/ckpt_#.h5");
    a[1].period = 3 * period;
    char exe[256];
    snprintf(exe, sizeof exe, "/opt/bin/%s", prog);
    struct ftio_store_run r = {
        .app = { uid, prog, exe, args, norm, name }, .job = job, .source = "ftiod",
        .exe_id = "fe00:1:2", .start = end - 100, .end = end, .nranks = 4, .nanswers = 2,
        .answers = a,
    };
    return ftio_store_record(h, &r, max_apps, end, forgotten);
}

static enum ftio_prior_level lookup(struct ftio_store *h, int64_t uid, const char *prog,
                                    const char *args, const char *norm, const char *name,
                                    size_t *nruns)
{
    struct ftio_store_app k = { uid, prog, "", args, norm, name };
    struct ftio_store_match m = { 0 };
    ck_assert_int_eq(ftio_store_lookup(h, &k, &m), 0);
    *nruns = m.nruns;
    enum ftio_prior_level l = m.level;
    ftio_store_match_free(&m);
    return l;
}

START_TEST(schema_and_levels)
{
    struct ftio_store *h = open_store();
    struct stat st;
    ck_assert(pg || stat(path, &st) == 0);
    ck_assert(pg || (st.st_mode & 0777) == 0600);
    size_t n, f;
    ck_assert_int_eq(record(h, 1000, "lmp", "aaaa", "nnnn", "", "j1", 1000, 10, 0, &f), 0);
    ck_assert_int_eq(record(h, 1000, "lmp", "aaaa", "nnnn", "", "j2", 1100, 10.2, 0, &f), 0);
    ck_assert_int_eq(record(h, 1000, "lmp", "bbbb", "nnnn", "", "j3", 1200, 9.8, 0, &f), 0);
    /* exact: the two runs of those arguments */
    ck_assert_int_eq(lookup(h, 1000, "lmp", "aaaa", "nnnn", "", &n), FTIO_PRIOR_ARGS);
    ck_assert_uint_eq(n, 2);
    /* numbers normalised: all three */
    ck_assert_int_eq(lookup(h, 1000, "lmp", "cccc", "nnnn", "", &n), FTIO_PRIOR_ARGS_NORM);
    ck_assert_uint_eq(n, 3);
    /* the program alone */
    ck_assert_int_eq(lookup(h, 1000, "lmp", "dddd", "mmmm", "", &n), FTIO_PRIOR_EXE);
    ck_assert_uint_eq(n, 3);
    /* another uid, another program, another name: nothing */
    ck_assert_int_eq(lookup(h, 1001, "lmp", "aaaa", "nnnn", "", &n), FTIO_PRIOR_NONE);
    ck_assert_int_eq(lookup(h, 1000, "gmx", "aaaa", "nnnn", "", &n), FTIO_PRIOR_NONE);
    ck_assert_int_eq(lookup(h, 1000, "lmp", "aaaa", "nnnn", "md", &n), FTIO_PRIOR_NONE);
    /* a name: its runs, whatever the program */
    ck_assert_int_eq(record(h, 1000, "python3", "eeee", "ffff", "md", "j4", 1300, 30, 0, &f), 0);
    ck_assert_int_eq(lookup(h, 1000, "python3.11", "gggg", "hhhh", "md", &n), FTIO_PRIOR_NAME);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(lookup(h, 1000, "python3", "gggg", "hhhh", "md", &n), FTIO_PRIOR_EXE);
    /* the rows: both answers of a run, latest run first */
    struct ftio_store_app k = { 1000, "lmp", "", "aaaa", "nnnn", "" };
    struct ftio_store_match m = { 0 };
    ck_assert_int_eq(ftio_store_lookup(h, &k, &m), 0);
    ck_assert_uint_eq(m.n, 4);
    ck_assert_str_eq(m.row[0].job, "j2");
    ck_assert_double_eq_tol(m.row[0].a.period, 10.2, 1e-12);
    ck_assert_str_eq(m.row[0].a.pattern, "");
    ck_assert_str_eq(m.row[1].a.pattern, "/scratch/run/ckpt_#.h5");
    ck_assert_double_eq_tol(m.row[1].a.period, 30.6, 1e-12);
    ck_assert_double_eq_tol(m.row[0].a.first_offset, 5, 1e-12);
    ck_assert_int_eq(m.row[0].nranks, 4);
    ftio_store_match_free(&m);
    /* a job recorded again (a corrected .end) replaces its run */
    ck_assert_int_eq(record(h, 1000, "lmp", "aaaa", "nnnn", "", "j2", 1150, 11, 0, &f), 0);
    ck_assert_int_eq(lookup(h, 1000, "lmp", "aaaa", "nnnn", "", &n), FTIO_PRIOR_ARGS);
    ck_assert_uint_eq(n, 2);
    struct ftio_store_stats s;
    ck_assert_int_eq(ftio_store_stats(h, &s), 0);
    ck_assert_int_eq(s.apps, 3);
    ck_assert_int_eq(s.runs, 4);
    ftio_store_close(h);
    if (pg)
        return;
    /* the schema's version is checked at open */
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "UPDATE ftio_meta SET value = '99' WHERE key = 'schema'",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    char err[256];
    ck_assert_ptr_null(ftio_store_open(path, 500, false, err, sizeof err));
    ck_assert_msg(strstr(err, "schema '99'") != NULL, "%s", err);
}
END_TEST

START_TEST(bounds)
{
    struct ftio_store *h = open_store();
    size_t n, f;
    /* the latest FTIO_STORE_RUNS_KEPT runs of an application */
    for (int i = 0; i < FTIO_STORE_RUNS_KEPT + 5; i++) {
        char job[16];
        snprintf(job, sizeof job, "r%d", i);
        ck_assert_int_eq(record(h, 7, "app", "a", "n", "", job, 100 + i, 10, 0, &f), 0);
    }
    ck_assert_int_eq(lookup(h, 7, "app", "a", "n", "", &n), FTIO_PRIOR_ARGS);
    ck_assert_uint_eq(n, FTIO_STORE_RUNS_KEPT);
    /* at most 3 applications of uid 8: the least recently used goes */
    ck_assert_int_eq(record(h, 8, "p1", "a", "n", "", "j", 10, 10, 3, &f), 0);
    ck_assert_int_eq(record(h, 8, "p2", "a", "n", "", "j", 20, 10, 3, &f), 0);
    ck_assert_int_eq(record(h, 8, "p3", "a", "n", "", "j", 30, 10, 3, &f), 0);
    ck_assert_uint_eq(f, 0);
    /* a new run of p1 at 40 makes it the most recently used */
    ck_assert_int_eq(record(h, 8, "p1", "a", "n", "", "j2", 40, 10, 3, &f), 0);
    ck_assert_int_eq(record(h, 8, "p4", "a", "n", "", "j", 50, 10, 3, &f), 0);
    ck_assert_uint_eq(f, 1);
    ck_assert_int_eq(lookup(h, 8, "p2", "a", "n", "", &n), FTIO_PRIOR_NONE);
    ck_assert_int_eq(lookup(h, 8, "p1", "a", "n", "", &n), FTIO_PRIOR_ARGS);
    ck_assert_int_eq(lookup(h, 8, "p4", "a", "n", "", &n), FTIO_PRIOR_ARGS);
    /* another uid's bound is its own: uid 7 untouched */
    ck_assert_int_eq(lookup(h, 7, "app", "a", "n", "", &n), FTIO_PRIOR_ARGS);
    struct ftio_store_stats s;
    ck_assert_int_eq(ftio_store_stats(h, &s), 0);
    ck_assert_int_eq(s.forgotten, 1);
    ftio_store_close(h);
}
END_TEST

static void count_info(void *ctx, const struct ftio_store_info *i)
{
    (*(int *)ctx)++;
    ck_assert(i->runs >= 1);
}

static void id_of_a(void *ctx, const struct ftio_store_info *i)
{
    if (!strcmp(i->prog, "a"))
        *(int64_t *)ctx = i->id;
}

START_TEST(list_show_forget)
{
    struct ftio_store *h = open_store();
    size_t f, n;
    ck_assert_int_eq(record(h, 1, "a", "x", "y", "", "j1", 10, 10, 0, &f), 0);
    ck_assert_int_eq(record(h, 1, "b", "x", "y", "", "j2", 20, 10, 0, &f), 0);
    ck_assert_int_eq(record(h, 2, "a", "x", "y", "", "j3", 30, 10, 0, &f), 0);
    int count = 0;
    ck_assert_int_eq(ftio_store_list(h, 1, count_info, &count), 0);
    ck_assert_int_eq(count, 2);
    count = 0;
    ck_assert_int_eq(ftio_store_list(h, -1, count_info, &count), 0);
    ck_assert_int_eq(count, 3);
    /* show: uid 2 cannot see uid 1's application */
    struct ftio_store_info info;
    struct ftio_store_match runs = { 0 };
    int64_t id1 = -1;
    ck_assert_int_eq(ftio_store_list(h, 1, id_of_a, &id1), 0);
    ck_assert(id1 > 0);
    ck_assert_int_eq(ftio_store_show(h, id1, 1, &info, &runs), 1);
    ck_assert_str_eq(info.exe, "/opt/bin/a");
    ck_assert_str_eq(info.args, "x");
    ck_assert_int_eq(info.runs, 1);
    ck_assert_uint_eq(runs.n, 2);
    ck_assert_int_eq(ftio_store_show(h, id1, 2, &info, &runs), 0);
    ck_assert_int_eq(ftio_store_show(h, id1, -1, &info, &runs), 1);
    /* forget: another uid's is not found; the owner's goes with its runs */
    ck_assert_int_eq(ftio_store_forget(h, id1, 2, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(ftio_store_forget(h, id1, 1, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(ftio_store_show(h, id1, -1, &info, &runs), 0);
    ck_assert_int_eq(ftio_store_forget(h, -1, 2, &n), 0);     /* all of uid 2's */
    ck_assert_uint_eq(n, 1);
    struct ftio_store_stats s;
    ck_assert_int_eq(ftio_store_stats(h, &s), 0);
    ck_assert_int_eq(s.apps, 1);
    ck_assert_int_eq(s.runs, 1);                 /* the runs went with their applications */
    ftio_store_match_free(&runs);
    ftio_store_close(h);
}
END_TEST

START_TEST(refused_and_damaged)
{
    char err[256];
    /* a symbolic link is not followed */
    char link[160];
    snprintf(link, sizeof link, "%s/link.sqlite", dir);
    ck_assert_int_eq(symlink("/etc/passwd", link), 0);
    ck_assert_ptr_null(ftio_store_open(link, 100, false, err, sizeof err));
    ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
    /* a file that is not a database: one line, no crash */
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    ck_assert(fd >= 0);
    char junk[8192];
    memset(junk, 'x', sizeof junk);
    ck_assert_int_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    ck_assert_ptr_null(ftio_store_open(path, 100, false, err, sizeof err));
    ck_assert_msg(strstr(err, "not a database") != NULL, "%s", err);
    /* read-only: a missing store is an error, not a new file */
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.sqlite", dir);
    ck_assert_ptr_null(ftio_store_open(missing, 100, true, err, sizeof err));
    ck_assert_int_ne(access(missing, F_OK), 0);
}
END_TEST

START_TEST(locked)
{
    struct ftio_store *h = open_store();
    size_t f, n;
    ck_assert_int_eq(record(h, 1, "a", "x", "y", "", "j1", 10, 10, 0, &f), 0);
    /* another process's exclusive lock */
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(record(h, 1, "a", "x", "y", "", "j2", 20, 10, 0, &f), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ck_assert(ftio_store_busy(h));
    ck_assert_msg(waited >= 0.4 && waited < 5, "waited %g s", waited);   /* busy_ms = 500 */
    /* in WAL mode readers go on: the lookup still answers */
    ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(lookup(h, 1, "a", "x", "y", "", &n), FTIO_PRIOR_ARGS);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    ck_assert_int_eq(record(h, 1, "a", "x", "y", "", "j2", 20, 10, 0, &f), 0);
    ftio_store_close(h);
}
END_TEST

START_TEST(redacted)
{
    char out[256];
    ftio_store_spec_redacted("postgresql://ftio:s3cret@db.site:5432/ftio", out, sizeof out);
    ck_assert_str_eq(out, "postgresql://ftio:***@db.site:5432/ftio");
    ftio_store_spec_redacted("postgresql://ftio@db/ftio", out, sizeof out);
    ck_assert_str_eq(out, "postgresql://ftio@db/ftio");
    ftio_store_spec_redacted("/var/lib/ftio/history.sqlite", out, sizeof out);
    ck_assert_str_eq(out, "/var/lib/ftio/history.sqlite");
    ck_assert_int_eq(ftio_store_kind_of("postgres://x"), FTIO_STORE_POSTGRESQL);
    ck_assert_int_eq(ftio_store_kind_of("x.sqlite"), FTIO_STORE_SQLITE);
}
END_TEST

Suite *ftio_test_suite(void)
{
    Suite *s = suite_create("store");
    const char *spec = getenv("FTIO_TEST_STORE");
    TCase *tc = tcase_create(spec && *spec ? "postgresql" : "sqlite");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, schema_and_levels);
    tcase_add_test(tc, bounds);
    tcase_add_test(tc, list_show_forget);
    if (!(spec && *spec)) {           /* SQLite's own file */
        tcase_add_test(tc, refused_and_damaged);
        tcase_add_test(tc, locked);
        tcase_add_test(tc, redacted);
    }
    suite_add_tcase(s, tc);
    return s;
}
