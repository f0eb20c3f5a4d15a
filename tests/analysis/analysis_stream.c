/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_stream.c -- the live stream (predictor/analysis/stream.h), the one
 * implementation ftiod and `ftio --window` drive: its steps are the online
 * loop's on the same bins; prepare/run/commit with the stream changing in
 * between (a new activity) stay consistent; its memory follows the window,
 * not the job (a day of 10-s bursts every minute); its summary is the whole
 * record as offline, an end-of-run output left out of the period, or, for a
 * job longer than its bins keep, its last window's analysis. */
#include <string.h>

#include "helpers.h"
#include "analysis/stream.h"

#define FS 10.0

static struct ftio_stream *stream_new(double horizon, size_t log_records)
{
    struct ftio_stream_config c = { .step = 1, .horizon = horizon, .early = 0,
                                    .log_records = log_records, .keep_bytes = 24576,
                                    .max_activities = 8 };
    ftio_options_default(&c.opts);
    struct ftio_stream *s = ftio_stream_new(&c, 0);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* A burst of `d` seconds moving 1 GB/s from t, of activity act. */
static void burst(struct ftio_stream *s, int act, double t, double d)
{
    ck_assert_int_eq(ftio_stream_add(s, act, t, t + d, 1e9 * d), 0);
}

/* Its steps are those of ftio_online_step on bins holding the same data. */
START_TEST(steps_are_the_online_loop)
{
    struct ftio_stream *s = stream_new(600, 0);
    struct ftio_bins b;
    ck_assert_int_eq(ftio_bins_init_for(&b, FS, 0, 6000, FTIO_SAMPLING_AVERAGE), 0);
    b.first = b.last = 0;
    struct ftio_online on;
    struct ftio_options o;
    ftio_options_default(&o);
    ftio_online_init(&on, &o, 1, 0, 0);
    for (int i = 0; i < 12; i++) {
        burst(s, -1, 1 + 10.0 * i, 1);
        ftio_bins_add(&b, 1 + 10.0 * i, 2 + 10.0 * i, 1e9);
    }
    struct ftio_analyzer *a1 = ftio_analyzer_new(), *a2 = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    struct ftio_samples x = { 0 };
    struct ftio_online_update u;
    char err[256];
    int analyses = 0;
    for (double t = 1; t <= 121; t += 1) {
        int rs = ftio_stream_step(s, a1, w, t, t, err, sizeof err);
        int ro = ftio_online_step(&on, a2, &b, t, t, &x, &u, err, sizeof err);
        ck_assert_int_eq(rs, ro);
        if (rs != 0)
            continue;
        analyses++;
        const struct ftio_online_update *v = ftio_stream_activity_answer(s, -1).update;
        ck_assert(v->res.has_period == u.res.has_period && v->stale == u.stale);
        ck_assert(v->res.dominant.period == u.res.dominant.period);
        ck_assert(v->res.next.start == u.res.next.start);
    }
    ck_assert_int_ge(analyses, 12);
    ck_assert_double_eq_tol(ftio_stream_activity_answer(s, -1).update->res.dominant.period, 10, 0.05);
    ftio_samples_free(&x);
    ftio_bins_free(&b);
    ftio_stream_work_free(w);
    ftio_analyzer_free(a1);
    ftio_analyzer_free(a2);
    ftio_stream_free(s);
}
END_TEST

/* A second activity appearing between prepare and commit: the first keeps
 * the mode's data and loop, the commit goes where it was prepared. */
START_TEST(activity_between_prepare_and_commit)
{
    struct ftio_stream *s = stream_new(600, 0);
    int dumps = ftio_stream_activity(s, "dump.#");
    for (int i = 0; i < 6; i++)
        burst(s, dumps, 1 + 5.0 * i, 0.5);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    char err[256];
    ck_assert_int_eq(ftio_stream_prepare(s, 30, false, w), 0);
    int ckpt = ftio_stream_activity(s, "ckpt");      /* lock dropped: a batch came */
    burst(s, ckpt, 28, 2);
    ck_assert_int_eq(ftio_stream_run(w, a, 30, err, sizeof err), 0);
    ck_assert_int_eq(ftio_stream_commit(s, w), 0);
    /* The dumps' bins: their 6 bursts (the mode's copy before the
     * checkpoint); the checkpoint's: its own burst. */
    ck_assert_double_eq_tol(ftio_stream_bytes(s, dumps, -INFINITY, INFINITY), 3e9, 1);
    ck_assert_double_eq_tol(ftio_stream_bytes(s, ckpt, -INFINITY, INFINITY), 2e9, 1);
    ck_assert_double_eq_tol(ftio_stream_bytes(s, -1, -INFINITY, INFINITY), 5e9, 1);
    struct ftio_stream_answer ans[4];
    ck_assert_uint_eq(ftio_stream_answers(s, ans, 4), 3);
    ck_assert_ptr_nonnull(ans[0].update);                   /* the mode's analysis */
    ck_assert_str_eq(ans[1].name, "dump.#");                /* 3 GB before 2 GB */
    ck_assert_ptr_eq(ans[1].update, NULL);                  /* copied before the commit */
    ck_assert_ptr_eq(ans[2].update, NULL);
    ftio_stream_work_free(w);
    ftio_analyzer_free(a);
    ftio_stream_free(s);
}
END_TEST

/* A day of 10-s bursts every 60 s, analysed after each: the bins keep the
 * window (10 periods), the records are forgotten, and the answer is the
 * period. */
START_TEST(memory_follows_the_window)
{
    struct ftio_stream *s = stream_new(3600, 1 << 20);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    char err[256];
    size_t most = 0;
    for (double t = 0; t < 86400; t += 60) {
        burst(s, -1, t, 10);
        /* the boundary after the burst (ftiod under --catch-up newest) */
        double b = ftio_stream_next_boundary(s, t + 9);
        ftio_stream_step(s, a, w, b, b, err, sizeof err);
        if (t > 3600 && ftio_stream_memory(s) > most)
            most = ftio_stream_memory(s);
    }
    /* 10 periods of a 10-s burst a minute: ~30 blocks of 64 bins. */
    ck_assert_uint_lt(most, 40 * 1024);
    ck_assert_int_eq(ftio_stream_logged(s), -1);
    const struct ftio_online_update *u = ftio_stream_activity_answer(s, -1).update;
    ck_assert(u && u->res.cls == FTIO_CLASS_PERIODIC);
    ck_assert_double_eq_tol(u->res.dominant.period, 60, 0.1);
    /* The summary of what is kept: the last window, the same period. */
    double end = ftio_stream_totals(s)->t_max;
    ck_assert_int_eq(ftio_stream_prepare(s, end, true, w), 0);
    ck_assert_int_eq(ftio_stream_run(w, a, NAN, err, sizeof err), 0);
    ck_assert_int_eq(ftio_stream_commit(s, w), 0);
    u = ftio_stream_activity_answer(s, -1).update;
    ck_assert_double_eq_tol(u->res.dominant.period, 60, 0.1);
    ck_assert(!u->stale);
    ftio_stream_work_free(w);
    ftio_analyzer_free(a);
    ftio_stream_free(s);
}
END_TEST

/* Two hours of 10-s bursts every 60 s, analysed at the boundary after each:
 * the bins keep the last window, whose analysis holds all the data, so the
 * summary is that analysis (no window copied), and it is bit for bit what
 * analysing the window's samples again says with the next phase predicted
 * after the window's end.  A record after that analysis: the summary is
 * analysed again, with the record in. */
START_TEST(summary_of_a_long_job_is_its_last_window)
{
    struct ftio_stream *s = stream_new(3600, 1 << 20);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    char err[256];
    for (double t = 0; t < 7200; t += 60) {
        burst(s, -1, t, 10);
        double b = ftio_stream_next_boundary(s, t + 9);
        /* live: the next phase predicted after the wall clock, later */
        ftio_stream_step(s, a, w, b, b + 70, err, sizeof err);
    }
    const struct ftio_online_update *live = ftio_stream_activity_answer(s, -1).update;
    ck_assert(live && !live->stale && live->res.cls == FTIO_CLASS_PERIODIC);
    struct ftio_result last = live->res;
    double end = ftio_stream_totals(s)->t_max;
    ck_assert(end <= last.t1);
    ck_assert_int_eq(ftio_stream_prepare(s, end, true, w), 0);
    ck_assert_int_eq(ftio_stream_run(w, a, NAN, err, sizeof err), 0);
    ck_assert_uint_eq(ftio_stream_samples(w), 0);          /* nothing copied */
    ck_assert_int_eq(ftio_stream_commit(s, w), 0);
    const struct ftio_online_update *u = ftio_stream_activity_answer(s, -1).update;

    /* The window analysed again, as the summary of the whole record would. */
    struct ftio_samples x = { 0 };
    ck_assert_int_eq(ftio_bins_samples_mode(ftio_stream_mode_bins(s), last.t0, last.t1,
                                            FTIO_SAMPLING_AVERAGE, &x), 0);
    ck_assert_uint_eq(x.n, last.samples);
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_result r;
    ck_assert_int_eq(ftio_analyze(a, &x, &o, x.t1, &r, err, sizeof err), 0);
    ck_assert(u->res.t0 == r.t0 && u->res.t1 == r.t1 && u->res.samples == r.samples);
    ck_assert(u->res.cls == r.cls && u->res.has_period == r.has_period);
    ck_assert(u->res.dominant.period == r.dominant.period);
    ck_assert(u->res.dominant.confidence == r.dominant.confidence);
    ck_assert(u->res.volume == r.volume && u->res.metrics.phase_bytes == r.metrics.phase_bytes);
    ck_assert(u->res.next.valid && r.next.valid);
    ck_assert(u->res.next.start == r.next.start && u->res.next.end == r.next.end);
    ck_assert(u->res.next.bytes == r.next.bytes);
    ck_assert(u->after == x.t1 && !u->stale);
    ck_assert(last.next.start > r.next.start);      /* the live one was after its clock */
    ck_assert_double_eq_tol(u->res.dominant.period, 60, 0.1);

    /* A burst after the last analysis: the summary is analysed, with it. */
    burst(s, -1, 7200, 10);
    end = ftio_stream_totals(s)->t_max;
    ck_assert_int_eq(ftio_stream_prepare(s, end, true, w), 0);
    ck_assert_int_eq(ftio_stream_run(w, a, NAN, err, sizeof err), 0);
    ck_assert_uint_gt(ftio_stream_samples(w), 0);
    ck_assert_int_eq(ftio_stream_commit(s, w), 0);
    u = ftio_stream_activity_answer(s, -1).update;
    ck_assert_double_eq_tol(u->res.t1, end, 1 / FS);
    ck_assert_double_eq_tol(u->res.dominant.period, 60, 0.1);
    ftio_samples_free(&x);
    ftio_stream_work_free(w);
    ftio_analyzer_free(a);
    ftio_stream_free(s);
}
END_TEST

/* Checkpoints every 6 s, then a final one 2.5 s after the last (GROMACS at
 * its end): the summary is the period of the checkpoints, not a mean with
 * the final one in. */
START_TEST(end_of_run_output_left_out)
{
    struct ftio_stream *s = stream_new(600, 1 << 20);
    for (int i = 0; i < 9; i++)
        burst(s, -1, 1 + 6.0 * i, 0.4);
    burst(s, -1, 1 + 6.0 * 8 + 2.5, 0.4);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    char err[256];
    double end = ftio_stream_totals(s)->t_max;
    ck_assert_int_eq(ftio_stream_prepare(s, end, true, w), 0);
    ck_assert_int_eq(ftio_stream_run(w, a, NAN, err, sizeof err), 0);
    ck_assert_int_eq(ftio_stream_commit(s, w), 0);
    const struct ftio_online_update *u = ftio_stream_activity_answer(s, -1).update;
    ck_assert(u && u->res.has_period);
    ck_assert_double_eq_tol(u->res.dominant.period, 6, 0.06);
    ck_assert_int_eq(u->res.cls, FTIO_CLASS_PERIODIC);
    ck_assert(u->res.next.start > end);
    /* The plain whole record, for comparison, answers less well. */
    struct ftio_samples x = { 0 };
    struct ftio_bins b;
    ck_assert_int_eq(ftio_bins_init_for(&b, FS, 0, 6000, FTIO_SAMPLING_AVERAGE), 0);
    b.first = b.last = 0;
    for (int i = 0; i < 9; i++)
        ftio_bins_add(&b, 1 + 6.0 * i, 1.4 + 6.0 * i, 0.4e9);
    ftio_bins_add(&b, 51.5, 51.9, 0.4e9);
    ck_assert_int_eq(ftio_bins_samples(&b, NAN, NAN, &x), 0);
    struct ftio_result r;
    struct ftio_options o;
    ftio_options_default(&o);
    ck_assert_int_eq(ftio_analyze(a, &x, &o, x.t1, &r, err, sizeof err), 0);
    ck_assert(r.dominant.confidence < u->res.dominant.confidence);
    ftio_samples_free(&x);
    ftio_bins_free(&b);
    ftio_stream_work_free(w);
    ftio_analyzer_free(a);
    ftio_stream_free(s);
}
END_TEST

/* Records before the origin before any analysis: the grid moves to them
 * (as offline, on the first event); after one, it stays and the summary is
 * laid on the earliest record from the kept records.  The same with a
 * history's log, which lies in the bins' pool. */
START_TEST(grid_relaid)
{
    struct ftio_stream *s = stream_new(600, 100);
    ck_assert_int_eq(ftio_stream_add(s, -1, 0, 1, 10), 0);
    ck_assert_int_eq(ftio_stream_relay(s, -0.55), 0);
    ck_assert_int_eq(ftio_stream_add(s, -1, -0.55, -0.5, 5), 0);
    ck_assert(ftio_stream_origin(s) == -0.55);
    ck_assert_double_eq_tol(ftio_stream_bytes(s, -1, -INFINITY, INFINITY), 15, 1e-9);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_stream_work *w = ftio_stream_work_new();
    char err[256];
    ck_assert_int_eq(ftio_stream_step(s, a, w, 0.45, 0.45, err, sizeof err), 0);
    ck_assert_int_eq(ftio_stream_relay(s, -0.77), -1);        /* analysed: no more */
    ftio_stream_free(s);

    /* A history's log (3,000 records: past 1,024 it lies in the bins' pool,
     * moved to a larger run twice) relays the grid as a small one does: the
     * same bins as a stream laid there at once, every record as it came. */
    s = stream_new(7200, 4096);
    struct ftio_stream *direct = stream_new(7200, 4096);
    ck_assert_int_eq(ftio_stream_relay(direct, -0.33), 0);
    for (int i = 0; i < 3000; i++) {
        double t = i + 0.1 * (i % 7);
        ck_assert_int_eq(ftio_stream_add(s, i % 3 - 1, t, t + 0.4, 100 + i), 0);
        ck_assert_int_eq(ftio_stream_add(direct, i % 3 - 1, t, t + 0.4, 100 + i), 0);
    }
    ck_assert_int_eq(ftio_stream_logged(s), 3000);
    ck_assert_int_eq(ftio_stream_relay(s, -0.33), 0);
    for (int i = 0; i < 3000; i++) {
        double ts, te, bytes, t = i + 0.1 * (i % 7);
        ck_assert_int_eq(ftio_stream_logged_record(s, (size_t)i, &ts, &te, &bytes), 0);
        ck_assert(ts == t && te == t + 0.4 && bytes == 100 + i);
    }
    for (double t = -0.33; t < 3000; t += 97.3)
        ck_assert(ftio_stream_bytes(s, -1, t, t + 50) == ftio_stream_bytes(direct, -1, t, t + 50));
    ck_assert_uint_eq(ftio_stream_memory(s), ftio_stream_memory(direct));
    /* The analysis drops it (past keep_bytes): its pages go back to the pool. */
    ck_assert_int_eq(ftio_stream_step(s, a, w, 3000, 3000, err, sizeof err), 0);
    ck_assert_int_eq(ftio_stream_logged(s), -1);
    ftio_stream_free(direct);
    ftio_stream_free(s);

    /* Past a run's largest size (a large --summary-records) it goes back to
     * malloc, every record kept. */
    s = stream_new(7200, 100000);
    for (int i = 0; i < 50000; i++)
        FTIO_CHECK(ftio_stream_add(s, -1, 0.1 * i, 0.1 * i + 0.05, i) == 0);
    ck_assert_int_eq(ftio_stream_logged(s), 50000);
    for (int i = 0; i < 50000; i++) {
        double ts, te, bytes;
        FTIO_CHECK(ftio_stream_logged_record(s, (size_t)i, &ts, &te, &bytes) == 0);
        FTIO_CHECK(ts == 0.1 * i && te == 0.1 * i + 0.05 && bytes == i);
    }
    ftio_stream_work_free(w);
    ftio_analyzer_free(a);
    ftio_stream_free(s);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("analysis-stream", "stream", &tc, steps_are_the_online_loop,
                          activity_between_prepare_and_commit, memory_follows_the_window,
                          end_of_run_output_left_out, grid_relaid,
                          summary_of_a_long_job_is_its_last_window);
    tcase_set_timeout(tc, 120);      /* a day of bursts under make asan */
    return s;
}
