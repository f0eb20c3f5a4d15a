/* SPDX-License-Identifier: BSD-3-Clause */
/* test_job_activities.c -- Check unit tests of ftiod's per-activity streams
 * (predictor/daemon/job_activities.c, the streams of analysis/stream.c):
 * records go to the activity of their file's pattern (file tables arrive in
 * batches), a mode's first activity takes exactly its own data when a second
 * appears (its records, not the other's, of the batch that brings it), at
 * most JOB_MAX_ACTIVITIES per mode with the rest in "other", the v3 JSON
 * array, an online step per activity on the mode's boundary, and
 * job_answers().
 */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/job.h"
#include "daemon/job_activities.h"
#include "daemon/job_clock.h"

#define MONO 1000000000ll
#define REAL 1700000000000000000ll
#define NOW_REAL (REAL + 100ll * 1000000000ll)
#define MIB 1048576

static struct job_limits lim;
static struct ftio_record rec[64];
static size_t nrec;
static struct ftio_file_entry files[16];
static size_t nfiles;
static uint64_t seq;

static void setup(void)
{
    job_limits_default(&lim);
    lim.horizon = 100;
    nrec = nfiles = 0;
    seq = 0;
}

static void add_file(uint32_t id, const char *path)
{
    files[nfiles++] = (struct ftio_file_entry){ id, path, NULL };
}

static void add_write(uint32_t fid, double ts, double te, int64_t bytes)
{
    rec[nrec++] = (struct ftio_record){
        .t_start = (uint64_t)(MONO + (int64_t)llround(ts * 1e9)),
        .t_end = (uint64_t)(MONO + (int64_t)llround(te * 1e9)),
        .offset = -1, .bytes = bytes, .file_id = fid, .op = FTIO_OP_WRITE};
}

static void send(struct job *j)
{
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = j->id, .host = "h", .pid = 1,
                                     .rank = -1, .seq = seq++, .clock_mono = MONO,
                                     .clock_real = REAL, .nfiles = nfiles, .files = files};
    b.n = nrec;
    b.rec = rec;
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    job_clock_settle(j, &lim);   /* old batches: merged at once (not about clocks) */
    nrec = nfiles = 0;
}

/* The answer of the write activity named `pattern`. */
static struct job_answer find(const struct job *j, const char *pattern)
{
    struct job_answer a[JOB_MAX_ACTIVITIES + 1];
    size_t n = job_answers(j, JOB_WRITE, a, JOB_MAX_ACTIVITIES + 1);
    for (size_t k = 1; k < n; k++)
        if (strcmp(a[k].pattern, pattern) == 0)
            return a[k];
    ck_abort_msg("no activity %s", pattern);
    return a[0];
}

static size_t nacts(const struct job *j, int mode)
{
    return j->mode[mode].stream ? ftio_stream_nactivities(j->mode[mode].stream) : 0;
}

/* Bytes in the bins of activity `pattern` (NULL: the mode's). */
static double vol(const struct job *j, const char *pattern)
{
    const struct ftio_stream *s = j->mode[JOB_WRITE].stream;
    for (size_t k = 0; pattern && k < ftio_stream_nactivities(s); k++)
        if (strcmp(ftio_stream_activity_answer(s, (int)k).name, pattern) == 0)
            return ftio_stream_bytes(s, (int)k, -INFINITY, INFINITY);
    ck_assert_ptr_null(pattern);
    return ftio_stream_bytes(s, -1, -INFINITY, INFINITY);
}

/* Dumps to new files and one checkpoint file: two activities; the dumps'
 * bins hold the dumps alone although the first checkpoint came in a batch
 * of dumps. */
START_TEST(test_split_keeps_each_its_own)
{
    struct job *j = job_new("j", &lim);
    add_file(11, "/run/dump.100.dat");
    add_write(11, 0.0, 0.1, MIB);
    send(j);
    ck_assert_uint_eq(nacts(j, JOB_WRITE), 1);
    add_file(12, "/run/dump.200.dat");
    add_file(99, "/run/restart.equil");
    add_write(12, 2.0, 2.1, MIB);
    add_write(99, 2.2, 2.6, 16 * MIB);
    add_write(12, 2.7, 2.8, MIB);                          /* a dump after it, same batch */
    send(j);
    ck_assert_uint_eq(nacts(j, JOB_WRITE), 2);
    struct job_answer d = find(j, "/run/dump.#.dat"), r = find(j, "/run/restart.equil");
    ck_assert_uint_eq(d.records, 3);
    ck_assert_uint_eq(r.records, 1);
    ck_assert_uint_eq(d.nfiles, 2);
    ck_assert_uint_eq(r.nfiles, 1);
    ck_assert_double_eq_tol(vol(j, "/run/dump.#.dat"), 3.0 * MIB, 1e-3);
    ck_assert_double_eq_tol(vol(j, "/run/restart.equil"), 16.0 * MIB, 1e-3);
    ck_assert_double_eq_tol(vol(j, "/run/dump.#.dat") + vol(j, "/run/restart.equil"), vol(j, NULL),
                            1e-3);
    /* Later records go to their own bins only. */
    add_write(99, 4.0, 4.5, 16 * MIB);
    add_write(7, 5.0, 5.1, MIB);                           /* a file never named */
    send(j);
    ck_assert_double_eq_tol(vol(j, "/run/restart.equil"), 32.0 * MIB, 1e-3);
    ck_assert_double_eq_tol(vol(j, "(unknown)"), 1.0 * MIB, 1e-3);
    job_free(j);
}
END_TEST

/* Ten patterns: seven activities of their own, the rest in "other". */
START_TEST(test_bound_and_other)
{
    struct job *j = job_new("j", &lim);
    static char names[10][32];
    for (uint32_t f = 0; f < 10; f++) {
        snprintf(names[f], sizeof names[f], "/run/%c.out", 'a' + (int)f);
        add_file(100 + f, names[f]);
        add_write(100 + f, 0.5 * f, 0.5 * f + 0.1, MIB);
    }
    send(j);
    ck_assert_uint_eq(nacts(j, JOB_WRITE), JOB_MAX_ACTIVITIES);
    ck_assert_uint_eq(find(j, "other").records, 10 - (JOB_MAX_ACTIVITIES - 1));
    struct job_answer a[JOB_MAX_ACTIVITIES + 1];
    size_t n = job_answers(j, JOB_WRITE, a, JOB_MAX_ACTIVITIES + 1);
    uint64_t total = 0;
    for (size_t k = 1; k < n; k++)
        total += a[k].records;
    ck_assert_uint_eq(total, a[0].records);

    /* v3: one entry per activity, shares summing to 1, largest first. */
    struct ftio_online_update none;
    memset(&none, 0, sizeof none);
    json_t *arr = job_activities_json(j, JOB_WRITE, 1.7e9, &none);
    ck_assert_uint_eq(json_array_size(arr), JOB_MAX_ACTIVITIES);
    double share = 0;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        share += json_real_value(json_object_get(e, "share"));
        ck_assert_ptr_nonnull(json_object_get(e, "next"));
        ck_assert(json_is_false(json_object_get(e, "matches_job")));
    }
    ck_assert_double_eq_tol(share, 1.0, 1e-12);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(arr, 0), "pattern")), "other");
    json_decref(arr);
    ck_assert_uint_eq(nacts(j, JOB_READ), 0);                      /* no reads: nothing */
    job_free(j);
}
END_TEST

/* Two periodic activities, each stepped on the mode's boundary: their own
 * periods (2 s and 10 s). */
START_TEST(test_online_step_per_activity)
{
    struct job *j = job_new("j", &lim);
    add_file(1, "/run/dump.1.dat");
    add_file(2, "/run/ckpt_1.h5");
    for (int s = 0; s < 30; s++) {
        add_write(1, 2.0 * s, 2.0 * s + 0.1, MIB);
        if (s % 5 == 4)
            add_write(2, 2.0 * s + 0.5, 2.0 * s + 1.0, 32 * MIB);
    }
    send(j);
    struct ftio_stream_work *w = ftio_stream_work_new();
    struct ftio_analyzer *an = ftio_analyzer_new();
    char err[256];
    ck_assert_int_eq(ftio_stream_step(j->mode[JOB_WRITE].stream, an, w, 60, 60, err, sizeof err), 0);
    struct job_answer d = find(j, "/run/dump.#.dat"), c = find(j, "/run/ckpt_#.h5");
    ck_assert(d.update && c.update);
    ck_assert_double_eq_tol(d.update->res.dominant.period, 2.0, 0.2);
    ck_assert_double_eq_tol(c.update->res.dominant.period, 10.0, 1.0);
    ftio_stream_work_free(w);
    ftio_analyzer_free(an);
    job_free(j);
}
END_TEST

/* job_answers: the mode's own answer first, then the activities largest
 * bytes first; one activity's answer is the mode's. */
START_TEST(test_answers)
{
    struct job *j = job_new("j", &lim);
    add_file(11, "/run/dump.1.dat");
    add_write(11, 0.0, 0.1, MIB);
    add_write(11, 10.0, 10.1, MIB);
    send(j);
    struct job_answer ans[JOB_MAX_ACTIVITIES + 1];
    ck_assert_uint_eq(job_answers(j, JOB_WRITE, ans, 8), 2);
    ck_assert_ptr_null(ans[0].update);                               /* no analysis yet */
    struct ftio_stream_work *w = ftio_stream_work_new();
    struct ftio_analyzer *an = ftio_analyzer_new();
    char err[256];
    ck_assert_int_eq(ftio_stream_step(j->mode[JOB_WRITE].stream, an, w, 11, 11, err, sizeof err), 0);
    ck_assert_uint_eq(job_answers(j, JOB_WRITE, ans, 8), 2);
    ck_assert_ptr_null(ans[0].pattern);
    ck_assert_ptr_nonnull(ans[0].update);
    ck_assert_ptr_eq(ans[0].update, job_mode_update(&j->mode[JOB_WRITE]));
    ck_assert_str_eq(ans[1].pattern, "/run/dump.#.dat");
    ck_assert_ptr_eq(ans[1].update, ans[0].update);                  /* one activity: the mode's */
    add_file(12, "/run/restart.bin");
    add_write(12, 1.0, 1.5, 8 * MIB);
    send(j);
    ck_assert_uint_eq(job_answers(j, JOB_WRITE, ans, 8), 3);
    ck_assert_str_eq(ans[1].pattern, "/run/restart.bin");           /* the larger first */
    ck_assert_double_eq_tol(ans[1].bytes, 8.0 * MIB, 1e-3);
    ck_assert_ptr_null(ans[1].update);                               /* no answer of its own yet */
    ck_assert_ptr_nonnull(ans[2].update);                            /* the first kept the mode's */
    ck_assert_double_eq_tol(ans[0].bytes, 10.0 * MIB, 1e-3);
    ck_assert_uint_eq(job_answers(j, JOB_WRITE, ans, 2), 2);         /* bounded by max */
    ck_assert_uint_eq(job_answers(j, JOB_READ, ans, 8), 1);          /* no reads: the mode alone */
    ck_assert_ptr_null(ans[0].update);
    ftio_stream_work_free(w);
    ftio_analyzer_free(an);
    job_free(j);
}
END_TEST

/* Issue 28, the names users give (activities.h rules 1 and 1b) online:
 * randomly named files of 4 bytes written once take no slot (before: one
 * each); the checkpoints' next numbered directory, written after the last
 * one ended, joins their series; two runs' directories side by side stay
 * two activities; each activity names its first file. */
START_TEST(test_names_tiny_and_series)
{
    struct job *j = job_new("j", &lim);
    static char tmp[10][32];
    for (uint32_t f = 0; f < 10; f++) {
        snprintf(tmp[f], sizeof tmp[f], "/tmp/q%cin%uhm%u", 'a' + (int)f, f, f * 7);
        add_file(200 + f, tmp[f]);
        add_write(200 + f, 0.3 * f, 0.3 * f + 1e-4, 4);
    }
    add_file(11, "/out/step100/data.h5");
    add_write(11, 0.0, 0.5, 8 * MIB);
    add_file(21, "/runs/lmp1/dump.100.txt");
    add_file(22, "/runs/lmp2/dump.100.txt");
    add_write(21, 0.6, 0.7, MIB);
    add_write(22, 0.6, 0.7, MIB);
    send(j);
    add_file(12, "/out/step200/data.h5");
    add_write(12, 10.0, 10.5, 8 * MIB);
    add_file(23, "/runs/lmp1/dump.200.txt");
    add_file(24, "/runs/lmp2/dump.200.txt");
    add_write(23, 10.6, 10.7, MIB);
    add_write(24, 10.6, 10.7, MIB);
    send(j);
    ck_assert_uint_eq(nacts(j, JOB_WRITE), 3);
    struct job_answer o = find(j, "/out/step#/data.h5");
    ck_assert_uint_eq(o.records, 2);
    ck_assert_uint_eq(o.nfiles, 2);
    ck_assert_str_eq(o.example, "/out/step100/data.h5");
    ck_assert_uint_eq(find(j, "/runs/lmp1/dump.#.txt").records, 2);
    ck_assert_str_eq(find(j, "/runs/lmp2/dump.#.txt").example, "/runs/lmp2/dump.100.txt");
    ck_assert_uint_eq(job_mode_totals(&j->mode[JOB_WRITE])->records, 16);       /* the tiny files count in the mode */
    job_free(j);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("daemon-job-activities", "activities", &tc,
                          test_split_keeps_each_its_own, test_bound_and_other,
                          test_online_step_per_activity, test_answers, test_names_tiny_and_series);
    tcase_add_checked_fixture(tc, setup, NULL);
    return s;
}
