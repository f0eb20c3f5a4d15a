/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_activities.c -- the grouping of a job's requests into activities
 * (predictor/activities.h, ALGORITHM.md §10) on request sets built here, so
 * every expectation follows from the construction: file patterns with
 * numbers, one file per output, the directory fallback and "other" beyond
 * the bound, requests without names, one shared file of two phase shapes,
 * and each activity's own period through the job's analysis.
 */
#include "helpers.h"

#include <string.h>
#include "activities.h"

/* A request set with file ids, and an id -> path table. */
struct job {
    struct ftio_requests r;
    uint32_t fid[65536];
    const char *path[256];     /* path[id] */
};

static const char *path_of(void *ctx, uint32_t id)
{
    struct job *j = ctx;
    return id < 256 ? j->path[id] : NULL;
}

/* `ranks` ranks each write `reqs` requests of 1 MiB (0.04 s each) to file
 * id from t. */
static void phase(struct job *j, double t, uint32_t id, int ranks, int reqs)
{
    for (int r = 0; r < ranks; r++)
        for (int k = 0; k < reqs; k++) {
            double ts = t + 0.001 * r + 0.04 * k;
            ck_assert_int_eq(ftio_requests_push_bytes(&j->r, ts, ts + 0.04, 1048576.0), 0);
            j->fid[j->r.n - 1] = id;
        }
}

static struct job *job_new(void)
{
    struct job *j = calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    return j;
}

static void job_free(struct job *j)
{
    ftio_requests_free(&j->r);
    free(j);
}

static void group(struct job *j, struct ftio_activity_set *s)
{
    ck_assert_int_eq(ftio_activities_group(&j->r, j->fid, j->r.n, path_of, j, NULL, NULL, s), 0);
}

static const struct ftio_activity *find(const struct ftio_activity_set *s, const char *pattern,
                                        enum ftio_activity_shape shape)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->a[k].pattern, pattern) == 0 && s->a[k].shape == shape)
            return &s->a[k];
    ck_abort_msg("no activity %s (%s) among %zu", pattern, ftio_activity_shape_name(shape), s->n);
    return NULL;
}

static double period_of(const struct ftio_activity *a)
{
    struct ftio_analyzer *an = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_result r;
    char err[256];
    ck_assert_msg(ftio_activity_analyze(an, a, &o, &r, err, sizeof err) == 0, "%s", err);
    ftio_analyzer_free(an);
    ck_assert_msg(r.has_period, "%s: no period", a->pattern);
    return r.dominant.period;
}

START_TEST(pattern_rule)
{
    char p[FTIO_PATTERN_MAX];
    ftio_activity_pattern("/run/dump.100.lammpstrj", p, sizeof p);
    ck_assert_str_eq(p, "/run/dump.#.lammpstrj");
    ftio_activity_pattern("/run/ckpt_0007.h5", p, sizeof p);
    ck_assert_str_eq(p, "/run/ckpt_#.h5");             /* the extension names a format */
    ftio_activity_pattern("/r2/out.0001", p, sizeof p);
    ck_assert_str_eq(p, "/r2/out.#");                  /* a numeric extension is a number */
    /* Issue 28: only the file name's digits; two runs' directories differ. */
    ftio_activity_pattern("runs/lmp1/dump.100.txt", p, sizeof p);
    ck_assert_str_eq(p, "runs/lmp1/dump.#.txt");
    ftio_activity_series("out/step100/rank#.dat", p, sizeof p);
    ck_assert_str_eq(p, "out/step#/rank#.dat");
    ftio_activity_pattern("/run/traj.xtc", p, sizeof p);
    ck_assert_str_eq(p, "/run/traj.xtc");
    ftio_activity_pattern(NULL, p, sizeof p);
    ck_assert_str_eq(p, "");
    ck_assert_uint_eq(ftio_activity_pattern("/a/b123456789", p, 6), 5);   /* truncated */
    ck_assert_str_eq(p, "/a/b#");
}
END_TEST

/* Dumps to a new file every 4 s, checkpoints rewriting one file every 32 s:
 * two activities, each with its own period and share of the bytes. */
START_TEST(files_and_patterns)
{
    struct job *j = job_new();
    static char names[64][64];
    for (int s = 1; s <= 64; s++) {
        uint32_t id = (uint32_t)(10 + s);
        snprintf(names[s - 1], sizeof names[0], "/scratch/dump.%d.lammpstrj", 100 * s);
        j->path[id] = names[s - 1];
        phase(j, 4.0 * s, id, 4, 1);
        if (s % 8 == 0)
            phase(j, 4.0 * s + 1.0, 2, 4, 16);
    }
    j->path[2] = "/scratch/restart.equil";
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, 2);
    const struct ftio_activity *d = find(&s, "/scratch/dump.#.lammpstrj", FTIO_SHAPE_ALL);
    const struct ftio_activity *r = find(&s, "/scratch/restart.equil", FTIO_SHAPE_ALL);
    ck_assert_int_eq(d->rule, FTIO_RULE_PATTERN);
    ck_assert_uint_eq(d->nfiles, 64);
    ck_assert_int_eq(r->rule, FTIO_RULE_FILE);
    ck_assert_uint_eq(r->nfiles, 1);
    ck_assert_uint_eq(d->nreq, 256);
    ck_assert_uint_eq(r->nreq, 8 * 64);
    ck_assert(&s.a[0] == r);                           /* largest first */
    ck_assert_double_eq_tol(r->share, 2.0 / 3.0, 1e-9);
    ck_assert_double_eq_tol(d->share + r->share, 1.0, 1e-9);
    ck_assert_double_eq_tol(period_of(d), 4.0, 0.4);
    ck_assert_double_eq_tol(period_of(r), 32.0, 3.2);
    ftio_activities_free(&s);
    job_free(j);
}
END_TEST

/* More patterns than the bound: the 7 largest keep theirs; the rest share
 * one activity, named after their directory when they all lie in one. */
START_TEST(directory_fallback)
{
    struct job *j = job_new();
    static char names[12][64];
    for (uint32_t f = 1; f <= 12; f++) {
        snprintf(names[f - 1], sizeof names[0], "%s/%c.dat", f <= 7 ? "/big" : "/small",
                 'a' + (int)f);
        j->path[f] = names[f - 1];
        for (int s = 0; s < 5; s++)
            phase(j, 10.0 * s + f * 0.5, f, 1, f <= 7 ? 30 - (int)f : 1);
    }
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, FTIO_MAX_ACTIVITIES);
    const struct ftio_activity *d = find(&s, "/small/*", FTIO_SHAPE_ALL);
    ck_assert_int_eq(d->rule, FTIO_RULE_DIRECTORY);
    ck_assert_uint_eq(d->nfiles, 5);
    ck_assert_uint_eq(d->nreq, 25);
    ftio_activities_free(&s);

    /* One more pattern elsewhere among the small ones: "other". */
    j->path[12] = "/elsewhere/m.dat";
    group(j, &s);
    ck_assert_uint_eq(s.n, FTIO_MAX_ACTIVITIES);
    ck_assert_int_eq(find(&s, "other", FTIO_SHAPE_ALL)->rule, FTIO_RULE_OTHER);
    ftio_activities_free(&s);
    job_free(j);
}
END_TEST

/* No file names (CSV, TMIO; ids without a path): one activity. */
START_TEST(unknown_files)
{
    struct job *j = job_new();
    for (int s = 0; s < 10; s++)
        phase(j, 5.0 * s, (uint32_t)(s % 3), 2, 4);   /* ids 1, 2 have no path */
    struct ftio_activity_set s;
    ck_assert_int_eq(ftio_activities_group(&j->r, NULL, 0, NULL, NULL, NULL, NULL, &s), 0);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_int_eq(s.a[0].rule, FTIO_RULE_UNKNOWN);
    ck_assert_uint_eq(s.a[0].nreq, j->r.n);
    ftio_activities_free(&s);
    group(j, &s);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_str_eq(s.a[0].pattern, "(unknown)");
    ftio_activities_free(&s);
    /* No requests: no activity. */
    struct ftio_requests none = { 0 };
    ck_assert_int_eq(ftio_activities_group(&none, NULL, 0, NULL, NULL, NULL, NULL, &s), 0);
    ck_assert_uint_eq(s.n, 0);
    job_free(j);
}
END_TEST

/* One shared file: 4 MiB every 5 s and 128 MiB every 40 s (between two small
 * phases): split by phase volume into two activities with their periods;
 * phases of one size in one file stay one activity. */
START_TEST(shared_file_shapes)
{
    struct job *j = job_new();
    j->path[5] = "/scratch/shared.dat";
    for (int s = 1; s <= 48; s++) {
        phase(j, 5.0 * s, 5, 4, 1);
        if (s % 8 == 0)
            phase(j, 5.0 * s + 2.5, 5, 4, 32);
    }
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, 2);
    const struct ftio_activity *sm = find(&s, "/scratch/shared.dat", FTIO_SHAPE_SMALL);
    const struct ftio_activity *lg = find(&s, "/scratch/shared.dat", FTIO_SHAPE_LARGE);
    ck_assert_uint_eq(sm->nreq, 48 * 4);
    ck_assert_uint_eq(lg->nreq, 6 * 4 * 32);
    ck_assert_double_eq_tol(period_of(sm), 5.0, 0.5);
    ck_assert_double_eq_tol(period_of(lg), 40.0, 4.0);
    ftio_activities_free(&s);
    job_free(j);

    j = job_new();
    j->path[5] = "/scratch/shared.dat";
    for (int s = 1; s <= 48; s++)
        phase(j, 5.0 * s, 5, 4, 1 + s % 2);          /* 1 or 2 MiB per rank: one class */
    group(j, &s);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_int_eq(s.a[0].shape, FTIO_SHAPE_ALL);
    ftio_activities_free(&s);
    job_free(j);
}
END_TEST

/* Each activity is analysed on the job's time span: its window is the
 * job's, whatever part of the job it covers. */
START_TEST(job_time_span)
{
    struct job *j = job_new();
    j->path[1] = "/a/early.dat";
    j->path[2] = "/a/late.dat";
    for (int s = 0; s < 10; s++)
        phase(j, 2.0 * s, 1, 1, 2);
    for (int s = 0; s < 10; s++)
        phase(j, 100.0 + 3.0 * s, 2, 1, 2);
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, 2);
    struct ftio_analyzer *an = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    for (size_t k = 0; k < 2; k++) {
        struct ftio_result r;
        char err[256];
        ck_assert_msg(ftio_activity_analyze(an, &s.a[k], &o, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_double_eq_tol(r.t0, 0.0, 1e-9);
        ck_assert_double_eq_tol(r.t1, 127.08, 1e-6);
    }
    ftio_analyzer_free(an);
    ftio_activities_free(&s);
    job_free(j);
}
END_TEST

/* Issue 28, the names users give: two runs side by side in numbered
 * directories are two activities (before: one, runs/lmp#/dump.#.txt); a
 * directory per output, written one after the other, is one series; each
 * activity names an example file. */
START_TEST(runs_and_series)
{
    struct job *j = job_new();
    static char names[3][40][64];
    for (int s = 1; s <= 40; s++)
        for (int run = 1; run <= 2; run++) {
            uint32_t id = (uint32_t)(run * 50 + s);
            snprintf(names[run][s - 1], sizeof names[0][0], "runs/lmp%d/dump.%d.txt", run, 100 * s);
            j->path[id] = names[run][s - 1];
            phase(j, 4.0 * s + 0.5 * run, id, 1, run);
        }
    for (int s = 1; s <= 8; s++) {
        uint32_t id = (uint32_t)(150 + s);
        snprintf(names[0][s - 1], sizeof names[0][0], "out/step%d/data.h5", 20 * s);
        j->path[id] = names[0][s - 1];
        phase(j, 20.0 * s + 2.0, id, 4, 4);
    }
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, 3);
    const struct ftio_activity *r1 = find(&s, "runs/lmp1/dump.#.txt", FTIO_SHAPE_ALL);
    const struct ftio_activity *r2 = find(&s, "runs/lmp2/dump.#.txt", FTIO_SHAPE_ALL);
    const struct ftio_activity *out = find(&s, "out/step#/data.h5", FTIO_SHAPE_ALL);
    ck_assert_uint_eq(r1->nfiles, 40);
    ck_assert_uint_eq(r2->nreq, 80);
    ck_assert_uint_eq(out->nfiles, 8);
    ck_assert_int_eq(out->rule, FTIO_RULE_PATTERN);
    ck_assert_str_eq(r1->example, "runs/lmp1/dump.100.txt");
    ck_assert_str_eq(out->example, "out/step20/data.h5");
    ck_assert_double_eq_tol(period_of(out), 20.0, 2.0);
    ck_assert_double_eq_tol(period_of(r2), 4.0, 0.4);
    ftio_activities_free(&s);
    job_free(j);
}
END_TEST

/* Issue 28: randomly named temporary files of a few bytes (PyTorch's
 * $TMPDIR/qrin..hm..), each written once, are no activity: they go with the
 * rest (named after their directory), and the checkpoints are the job's
 * only activity of their own (before: 6 of the 8 slots). */
START_TEST(tiny_files_are_not_activities)
{
    struct job *j = job_new();
    static char names[12][32];
    j->path[1] = "/scratch/ckpt.pt";
    for (int s = 0; s < 10; s++)
        phase(j, 10.0 * s, 1, 1, 8);
    for (uint32_t f = 0; f < 12; f++) {
        snprintf(names[f], sizeof names[0], "/tmp/q%cin%uhm%u", 'a' + (int)f, f * 7, f * 3);
        j->path[20 + f] = names[f];
        ck_assert_int_eq(ftio_requests_push_bytes(&j->r, 3.0 + 7.0 * f, 3.0 + 7.0 * f + 1e-4, 4.0), 0);
        j->fid[j->r.n - 1] = 20 + f;
    }
    struct ftio_activity_set s;
    group(j, &s);
    ck_assert_uint_eq(s.n, 2);
    const struct ftio_activity *c = find(&s, "/scratch/ckpt.pt", FTIO_SHAPE_ALL);
    const struct ftio_activity *t = find(&s, "/tmp/*", FTIO_SHAPE_ALL);
    ck_assert_int_eq(t->rule, FTIO_RULE_DIRECTORY);
    ck_assert_uint_eq(t->nreq, 12);
    ck_assert_uint_eq(t->nfiles, 12);
    ck_assert(&s.a[0] == c);
    ftio_activities_free(&s);
    job_free(j);
    ck_assert(ftio_activity_tiny(4, 1, 0));
    ck_assert(!ftio_activity_tiny(4, 2, 0));              /* a second file: a series */
    ck_assert(!ftio_activity_tiny(4, 1, 30));             /* again later: it repeats */
    ck_assert(!ftio_activity_tiny(1e6, 1, 0));
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-activities", "activities", NULL,
                      pattern_rule, files_and_patterns, directory_fallback, unknown_files,
                      shared_file_shapes, job_time_span, runs_and_series,
                      tiny_files_are_not_activities);
}
