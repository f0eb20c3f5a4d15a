/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_online_loop.c -- ftio_online_step(), the online loop of
 * `ftio --window` and ftiod, on streaming bins built phase by phase: it
 * analyses only boundaries with new data, keeps an established answer
 * through a window that says nothing new (stale, since), publishes a period
 * change within three new periods, never predicts a phase in the past, and
 * scores its previous prediction.
 */
#include "helpers.h"

#include <string.h>

#define FS 10.0

struct run {
    struct ftio_bins b;
    struct ftio_online on;
    struct ftio_analyzer *a;
    struct ftio_samples x;
};

static void run_init(struct run *r, double seconds, enum ftio_detector det)
{
    memset(r, 0, sizeof *r);
    ck_assert_int_eq(ftio_bins_init(&r->b, FS, 0, (size_t)(seconds * FS) + 2), 0);
    struct ftio_options o;
    if (det == FTIO_DETECTOR_COMPAT)
        ftio_options_compat(&o);
    else
        ftio_options_default(&o);
    ftio_online_init(&r->on, &o, 1.0, 0, 0);
    r->a = ftio_analyzer_new();
}

static void run_free(struct run *r)
{
    ftio_bins_free(&r->b);
    ftio_samples_free(&r->x);
    ftio_analyzer_free(r->a);
}

/* A phase of `d` seconds moving 1 GB/s from t. */
static void phase(struct run *r, double t, double d)
{
    ftio_bins_add(&r->b, t, t + d, 1e9 * d);
}

/* A run of `seconds` holding `n` phases of 1 s every 10 s from t = 1 s. */
static void run_every_10s(struct run *r, double seconds, enum ftio_detector det, int n)
{
    run_init(r, seconds, det);
    for (int i = 0; i < n; i++)
        phase(r, 1 + 10.0 * i, 1);
}

/* Step boundary t_end; returns the step's code and fills u. */
static int step(struct run *r, double t_end, struct ftio_online_update *u)
{
    char err[256];
    int rc = ftio_online_step(&r->on, r->a, &r->b, t_end, t_end, &r->x, u, err, sizeof err);
    ck_assert_msg(rc >= 0, "%s", err);
    return rc;
}

START_TEST(skips_boundaries_without_data)
{
    struct run r;
    run_every_10s(&r, 60, FTIO_DETECTOR_ROBUST, 5);
    struct ftio_online_update u;
    int analysed = 0;
    for (double t = 1; t <= 51; t += 1)
        analysed += step(&r, t, &u) == 0;
    /* One analysis per phase (the first boundary too): 1 + 5 (each phase
     * spans two boundaries: 1-2 s after its start there is data too). */
    ck_assert_int_le(analysed, 11);
    ck_assert_int_ge(analysed, 5);
    ck_assert_uint_eq(r.on.hist.analyses, (unsigned)analysed);
    run_free(&r);
}
END_TEST

START_TEST(period_change_within_three_periods)
{
    struct run r;
    run_init(&r, 200, FTIO_DETECTOR_ROBUST);
    double t = 1, change = 0;
    for (int i = 0; i < 10; i++, t += 10)
        phase(&r, t, 1);
    change = t;                        /* the first phase of the new regime */
    for (int i = 0; i < 10; i++, t += 6)
        phase(&r, t, 1);
    struct ftio_online_update u;
    double first_new = NAN;
    bool stale_seen = false;
    for (double e = 1; e <= t; e += 1) {
        if (step(&r, e, &u) != 0)
            continue;
        ck_assert(!u.res.next.valid || u.res.next.start > e);   /* never in the past */
        if (e < change)
            continue;
        stale_seen |= u.stale;
        bool is_new = u.res.has_period && fabs(u.res.dominant.period - 6) <= 0.3;
        if (is_new && isnan(first_new))
            first_new = e;
        if (!isnan(first_new))
            ck_assert_msg(is_new, "at %.0f s the new period was dropped again (%.3f)", e,
                          u.res.dominant.period);
    }
    ck_assert_msg(!isnan(first_new), "the new period was never published");
    ck_assert_msg(first_new - change <= 3 * 6 + 2, "new period published %.0f s after the change",
                  first_new - change);
    /* On the way, the old answer was kept (stale) rather than dropped. */
    ck_assert(stale_seen);
    run_free(&r);
}
END_TEST

/* An established answer survives windows that find nothing (here a 25 s
 * fixed window over a pause in which only background I/O flows): the robust
 * loop republishes it stale, with the window that last confirmed it and its
 * next phase rolled forward; after three periods without confirmation it
 * says none.  Compat publishes what each window says. */
START_TEST(stale_not_none)
{
    for (int det = 0; det < 2; det++) {
        struct run r;
        run_every_10s(&r, 130, det ? FTIO_DETECTOR_COMPAT : FTIO_DETECTOR_ROBUST, 6);
        ftio_online_init(&r.on, &r.on.opts, 1.0, 25, 0);
        ftio_bins_add(&r.b, 60, 120, 6e7);        /* background only */
        struct ftio_online_update u;
        int stale = 0, none_after = 0, none_before = 0;
        double since = NAN, kept = NAN;
        for (double e = 1; e <= 120; e += 1) {
            if (step(&r, e, &u) != 0)
                continue;
            if (u.stale) {
                stale++;
                since = u.since;
                kept = u.res.dominant.period;
                ck_assert(u.res.has_period);
                ck_assert(u.res.next.start > e);
            }
            if (!u.res.has_period && e > 60) {
                if (isnan(since) || e > since + FTIO_ONLINE_NONE_PERIODS * kept)
                    none_after++;
                else
                    none_before++;
            }
        }
        if (det == 0) {
            ck_assert_msg(stale > 0, "robust: nothing published stale");
            ck_assert(since <= 90 && since >= 50);
            ck_assert_msg(none_before == 0, "robust: none %d times before 3 periods", none_before);
            ck_assert_msg(none_after > 0, "robust: the stale answer never expired");
        } else {
            ck_assert_int_eq(stale, 0);
        }
        run_free(&r);
    }
}
END_TEST

/* The previous prediction is scored against the phase that came. */
START_TEST(scores_previous_prediction)
{
    struct run r;
    run_every_10s(&r, 80, FTIO_DETECTOR_ROBUST, 7);
    struct ftio_online_update u;
    for (double e = 1; e <= 70; e += 1)
        step(&r, e, &u);
    ck_assert(u.has_error);
    ck_assert_abs(u.last_error, 0, 0.15);
    ck_assert_uint_ge(r.on.scored, 3);
    ck_assert_uint_eq(r.on.missed, 0);
    run_free(&r);
}
END_TEST

/* A period growing 2 % per phase for 45 phases (10 s to 24 s): the online
 * answer follows the current interval, and the window forgets: it holds the
 * last FTIO_ONLINE_HORIZON_PERIODS periods, not the whole job. */
START_TEST(drift_followed_window_forgets)
{
    struct run r;
    double t = 1, gap = 10, last_gap = gap;
    double starts[64];
    int n = 0;
    for (int i = 0; i < 45; i++, t += gap, gap *= 1.02) {
        starts[n++] = t;
        last_gap = gap;
    }
    (void)last_gap;
    run_init(&r, t + 10, FTIO_DETECTOR_ROBUST);
    for (int i = 0; i < n; i++)
        phase(&r, starts[i], 1);
    struct ftio_online_update u;
    double end = starts[n - 1] + 2;
    int checked = 0;
    for (double e = 1; e <= end; e += 1) {
        if (step(&r, e, &u) != 0)
            continue;
        int seen = 0;
        while (seen < n && starts[seen] <= e)
            seen++;
        if (seen < 20)
            continue;
        /* the interval between the last two phases seen */
        double cur = starts[seen - 1] - starts[seen - 2];
        ck_assert_msg(u.res.has_period && fabs(u.res.dominant.period - cur) <= 0.1 * cur,
                      "at %.0f s: %.3f for a current interval of %.3f", e, u.res.dominant.period, cur);
        checked++;
    }
    ck_assert_int_gt(checked, 20);
    double ws = ftio_online_window_start(&r.on, end);
    ck_assert_msg(end - ws <= FTIO_ONLINE_HORIZON_PERIODS * 1.1 * (starts[n - 1] - starts[n - 2]) + 1,
                  "window %.0f s long at the end", end - ws);
    run_free(&r);
}
END_TEST

/* Ranks writing one after the other (bench/realapps' `stagger`): four equal
 * 0.1 s bursts 0.3 s apart, an output every 3.9 s.  The first output alone
 * may answer the ranks' 0.3 s spacing; from the second output's first burst
 * on, that answer's own prediction (a phase 0.3 s after the last) has failed
 * by more than a period, so it is not kept as stale: every message answers
 * the outputs' 3.9 s, and the 40 s window (horizon) never loses them. */
START_TEST(staggered_ranks_not_their_spacing)
{
    struct run r;
    run_init(&r, 60, FTIO_DETECTOR_ROBUST);
    for (int i = 0; i < 12; i++)
        for (int k = 0; k < 4; k++)
            ftio_bins_add(&r.b, 1 + 3.9 * i + 0.3 * k, 1 + 3.9 * i + 0.3 * k + 0.1, 1.6e7);
    struct ftio_online_update u;
    int checked = 0, late = 0, periodic = 0;
    for (double e = 1; e <= 47; e += 1) {
        if (step(&r, e, &u) != 0 || e < 1 + 3.9 + 0.1)
            continue;
        ck_assert_msg(u.res.has_period && fabs(u.res.dominant.period - 3.9) <= 0.1 * 3.9,
                      "at %.0f s: %.3f s%s for outputs every 3.9 s", e, u.res.dominant.period,
                      u.stale ? " (stale)" : "");
        checked++;
        /* `periodic` from the 4th output's onset on (fewer onsets are too
         * little evidence, robust.c EVIDENCE_ONSETS) */
        if (e >= 1 + 3 * 3.9 + 0.1) {
            late++;
            periodic += u.res.cls == FTIO_CLASS_PERIODIC;
        }
    }
    ck_assert_int_ge(checked, 20);
    ck_assert_int_ge(periodic, late - 1);
    run_free(&r);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-online-loop", "online-loop", NULL,
                      skips_boundaries_without_data, period_change_within_three_periods,
                      drift_followed_window_forgets, stale_not_none, scores_previous_prediction,
                      staggered_ranks_not_their_spacing);
}
