/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_prior.c -- the prior of earlier runs and its check (analysis/
 * prior.h, ALGORITHM.md §11): the prior's period, spread and confidence from
 * the runs (Laplace's rule times the key's trust); a job that does what the
 * runs did raises the confidence with each phase and keeps the lead; one
 * with a changed output interval hands over at its second phase; a
 * predicted phase that does not come hands over; phases of another size
 * are not judged; the job's own periodic answer confirms or hands over; the
 * first phase of an answer's train for the memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../check_main.h"
#include "analysis/prior.h"

#define FS 10.0

/* Samples over [t0, t1] at FS: a background of bg B/s and bursts of
 * duration d at rate r starting at each onset. */
static void bursts(struct ftio_samples *x, double t0, double t1, const double *onset, size_t n,
                   double d, double r, double bg)
{
    size_t ns = (size_t)llround((t1 - t0) * FS);
    x->x = realloc(x->x, ns * sizeof *x->x);
    x->n = x->cap = ns;
    x->fs = FS;
    x->t0 = t0;
    x->t1 = t0 + (double)ns / FS;
    x->exact_volume = NAN;
    x->quiet_before = true;
    for (size_t k = 0; k < ns; k++) {
        double t = t0 + ((double)k + 0.5) / FS;
        x->x[k] = bg;
        for (size_t i = 0; i < n; i++)
            if (t >= onset[i] && t < onset[i] + d)
                x->x[k] = r;
    }
}

/* The window of the next check ending at b, when it holds a few samples. */
static bool window(const struct ftio_prior_check *c, double b, double *from)
{
    *from = fmax(0, ftio_prior_check_from(c));
    return *from + 0.5 <= b;
}

/* A train of phases (onsets, each 1 s at 1e8 B/s), and a second of small
 * bursts (0.1 s at 1e7 B/s; NULL for none). */
struct job_signal { const double *on; size_t n; const double *small; size_t nsmall; };

/* The check after each boundary b = 3, 4, ... until (the window of each
 * check, as ftiod copies it), until the prior no longer leads.  Returns the
 * last boundary judged. */
static double follow(struct ftio_prior_check *c, struct ftio_analyzer *a, struct ftio_samples *x,
                     const struct job_signal *j, double until)
{
    double b = 3, from;
    for (; b <= until && c->state == FTIO_PRIOR_LEADS; b += 1) {
        if (!window(c, b, &from))
            continue;
        bursts(x, from, b, j->on, j->n, 1.0, 1e8, 0);
        if (j->small) {
            struct ftio_samples y = { 0 };
            bursts(&y, from, b, j->small, j->nsmall, 0.1, 1e7, 0);
            for (size_t k = 0; k < x->n; k++)
                x->x[k] = fmax(x->x[k], y.x[k]);
            ftio_samples_free(&y);
        }
        ftio_prior_check_phases(c, a, x);
    }
    return b - 1;
}

static struct ftio_prior prior_10s(void)
{
    struct ftio_prior_run runs[3] = {
        { 10.0, 0.95, FTIO_CLASS_PERIODIC, 1e8, 1.0, 5.0 },
        { 10.1, 0.93, FTIO_CLASS_PERIODIC, 1.1e8, 1.0, 5.2 },
        { 9.9, 0.90, FTIO_CLASS_PERIODIC, 0.9e8, 1.1, 4.9 },
    };
    struct ftio_prior p;
    ck_assert(ftio_prior_from_runs(runs, 3, FTIO_PRIOR_ARGS, &p));
    return p;
}

START_TEST(from_runs)
{
    struct ftio_prior p = prior_10s();
    ck_assert_double_eq_tol(p.period, 10.0, 1e-9);
    ck_assert_uint_eq(p.runs, 3);
    ck_assert_uint_eq(p.agreeing, 3);
    ck_assert_double_eq_tol(p.confidence, 0.8, 1e-9);        /* (3 + 1) / (3 + 2) */
    ck_assert_int_eq(p.cls, FTIO_CLASS_PERIODIC);
    ck_assert_double_eq_tol(p.bytes, 1e8, 1);
    ck_assert_double_eq_tol(p.offset, 5.0, 1e-9);
    ck_assert(p.period_sd >= 0.01 * 10 && p.period_sd < 0.5);
    ck_assert(p.offset_sd >= 0.25);

    /* one run: 2/3, uncertain; the program alone: less trust */
    struct ftio_prior_run one = { 12.0, 0.9, FTIO_CLASS_PERIODIC, 5e6, 0.5, NAN };
    ck_assert(ftio_prior_from_runs(&one, 1, FTIO_PRIOR_EXE, &p));
    ck_assert_double_eq_tol(p.confidence, 0.8 * 2.0 / 3.0, 1e-9);
    ck_assert_int_eq(p.cls, FTIO_CLASS_UNCERTAIN);
    ck_assert(isnan(p.offset));
    ck_assert_double_eq_tol(p.period_sd, 0.03 * 12, 1e-9);  /* one run: an assumed spread */

    /* a run without a period counts against it; two agreeing of three */
    struct ftio_prior_run mixed[3] = {
        { 10, 0.9, FTIO_CLASS_PERIODIC, 1e6, 1, 1 }, { 10.2, 0.9, FTIO_CLASS_PERIODIC, 1e6, 1, 1 },
        { NAN, NAN, FTIO_CLASS_NONE, NAN, NAN, NAN },
    };
    ck_assert(ftio_prior_from_runs(mixed, 3, FTIO_PRIOR_ARGS_NORM, &p));
    ck_assert_uint_eq(p.agreeing, 2);
    ck_assert_double_eq_tol(p.confidence, 0.95 * 3.0 / 5.0, 1e-9);
    /* runs that disagree make no prior; nor do runs without a period */
    struct ftio_prior_run split[2] = { { 10, 0.9, FTIO_CLASS_PERIODIC, 1, 1, 1 },
                                       { 30, 0.9, FTIO_CLASS_PERIODIC, 1, 1, 1 } };
    ck_assert(!ftio_prior_from_runs(split, 2, FTIO_PRIOR_ARGS, &p));
    ck_assert(!ftio_prior_from_runs(&mixed[2], 1, FTIO_PRIOR_ARGS, &p));
    ck_assert(!ftio_prior_from_runs(NULL, 0, FTIO_PRIOR_ARGS, &p));
    ck_assert_str_eq(ftio_prior_level_name(FTIO_PRIOR_ARGS_NORM), "args_norm");
}
END_TEST

START_TEST(same_run_keeps_the_lead)
{
    struct ftio_prior p = prior_10s();
    struct ftio_prior_check c;
    ftio_prior_check_start(&c, &p, 0.0);
    struct ftio_result r;
    ftio_prior_result(&c, 0.0, &r);                 /* at the first batch */
    ck_assert(r.next.valid);
    ck_assert_double_eq_tol(r.next.start, 5.0, 1e-9);
    ck_assert_double_eq_tol(r.dominant.period, 10.0, 1e-9);
    ck_assert_int_eq(r.cls, FTIO_CLASS_PERIODIC);

    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    double on[] = { 5.1, 15.05, 24.9, 35.0 };
    double conf = c.confidence;
    /* the job's signal as the boundaries pass: the first phase, then the second */
    follow(&c, a, &x, &(struct job_signal){ on, 4, NULL, 0 }, 36);
    ck_assert_msg(c.state == FTIO_PRIOR_LEADS, "handed over: %s", c.why);
    ck_assert_uint_eq(c.agreed, 4);            /* the fourth by its onset: still going at 36 */
    ck_assert(c.confidence > conf && c.confidence > 0.95);
    ftio_prior_result(&c, 36.0, &r);
    ck_assert_double_eq_tol(r.next.start, 45.0, 1e-6);   /* anchored on the phase at 35 */
    /* the job's own analysis, periodic and agreeing: confirmed */
    struct ftio_result obs = { 0 };
    obs.has_period = true;
    obs.cls = FTIO_CLASS_PERIODIC;
    obs.dominant.period = 10.05;
    ck_assert(!ftio_prior_check_answer(&c, &obs, true));          /* stale: not news */
    ck_assert(ftio_prior_check_answer(&c, &obs, false));
    ck_assert_int_eq(c.state, FTIO_PRIOR_CONFIRMED);
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

/* Runs that varied widely (a program paced by the machine's load): a wide
 * tolerance, and an agreeing phase is little evidence. */
START_TEST(wide_spread_little_evidence)
{
    struct ftio_prior tight = prior_10s(), wide = prior_10s();
    wide.period_sd = 2.0;                 /* 3 sigma: 6 s of a 10 s period */
    wide.offset_sd = 2.0;                 /* and the first phase as loose */
    struct ftio_prior_check ct, cw;
    ftio_prior_check_start(&ct, &tight, 0.0);
    ftio_prior_check_start(&cw, &wide, 0.0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    double on[] = { 5.0, 15.0, 25.0 };
    follow(&ct, a, &x, &(struct job_signal){ on, 3, NULL, 0 }, 27);
    follow(&cw, a, &x, &(struct job_signal){ on, 3, NULL, 0 }, 27);
    ck_assert_msg(cw.state == FTIO_PRIOR_LEADS, "handed over: %s", cw.why);
    ck_assert_uint_eq(cw.agreed, ct.agreed);
    ck_assert(ct.confidence > 0.95);
    ck_assert_msg(cw.confidence <= tight.confidence + 0.05, "%.3f", cw.confidence);
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(changed_interval_hands_over)
{
    struct ftio_prior p = prior_10s();
    struct ftio_prior_check c;
    ftio_prior_check_start(&c, &p, 0.0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    double on[] = { 5.0, 20.0, 35.0 };                /* every 15 s now */
    double b = follow(&c, a, &x, &(struct job_signal){ on, 3, NULL, 0 }, 40);
    ck_assert_int_eq(c.state, FTIO_PRIOR_HANDED_OVER);
    /* by the second phase's time: predicted at 15 (+ tolerance), not later than 20 */
    ck_assert(b <= 21);
    ck_assert(strstr(c.why, "+15") != NULL);
    ck_assert_uint_eq(c.agreed, 1);
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(other_sizes_are_not_judged)
{
    struct ftio_prior p = prior_10s();
    struct ftio_prior_check c;
    ftio_prior_check_start(&c, &p, 0.0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    /* log writes (1 MB, every 1 s, off the train) and the phases of the train */
    double small[40], on[] = { 5.0, 15.0, 25.0 };
    for (int i = 0; i < 40; i++)
        small[i] = 0.5 + i;
    follow(&c, a, &x, &(struct job_signal){ on, 3, small, 40 }, 27);
    ck_assert_msg(c.state == FTIO_PRIOR_LEADS, "handed over: %s", c.why);
    ck_assert_uint_eq(c.agreed, 3);            /* 5, 15 and 25 (going at 27) */
    /* the job's own analysis says another period: it answers */
    struct ftio_result obs = { 0 };
    obs.has_period = true;
    obs.cls = FTIO_CLASS_PERIODIC;
    obs.dominant.period = 1.0;
    ck_assert(ftio_prior_check_answer(&c, &obs, false));
    ck_assert_int_eq(c.state, FTIO_PRIOR_HANDED_OVER);
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(missing_phase_hands_over)
{
    struct ftio_prior p = prior_10s();
    struct ftio_prior_check c;
    ftio_prior_check_start(&c, &p, 0.0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    double on[] = { 5.0 };                        /* then nothing */
    double b = follow(&c, a, &x, &(struct job_signal){ on, 1, NULL, 0 }, 30);
    ck_assert_int_eq(c.state, FTIO_PRIOR_HANDED_OVER);
    ck_assert(b <= 17);
    ck_assert_msg(strstr(c.why, "no phase") != NULL, "%s", c.why);
    /* a prior without a first phase: the job's first phase anchors the train */
    struct ftio_prior q = p;
    q.offset = q.offset_sd = NAN;
    ftio_prior_check_start(&c, &q, 0.0);
    struct ftio_result r;
    ftio_prior_result(&c, 0.0, &r);
    ck_assert(!r.next.valid);
    bursts(&x, 0, 7, on, 1, 1.0, 1e8, 0);
    ftio_prior_check_phases(&c, a, &x);
    ck_assert(c.anchored && c.agreed == 0);
    ftio_prior_result(&c, 7.0, &r);
    ck_assert_double_eq_tol(r.next.start, 15.0, 1e-6);
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

START_TEST(first_onset)
{
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_samples x = { 0 };
    double on[] = { 3.0, 10.0, 20.0, 30.0 };       /* an input phase, then the train */
    bursts(&x, 0, 35, on, 4, 1.0, 1e8, 0);
    ck_assert_double_eq_tol(ftio_prior_first_onset(a, &x, 10.0, 1e8), 10.0, 1e-9);
    ck_assert_double_eq_tol(ftio_prior_first_onset(a, &x, 10.0, NAN), 10.0, 1e-9);
    ck_assert_double_eq_tol(ftio_prior_first_onset(a, &x, 7.0, NAN), 3.0, 1e-9);  /* 3 -> 10 */
    ck_assert(isnan(ftio_prior_first_onset(a, &x, 10.0, 1e10)));   /* no phase of that size */
    ck_assert(isnan(ftio_prior_first_onset(a, &x, 4.0, NAN)));     /* none followed 4 s later */
    ck_assert(isnan(ftio_prior_first_onset(a, &x, NAN, NAN)));
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
}
END_TEST

Suite *ftio_test_suite(void)
{
    Suite *s = suite_create("prior");
    FTIO_TCASE(s, "prior", from_runs, same_run_keeps_the_lead, wide_spread_little_evidence,
               changed_interval_hands_over,
               other_sizes_are_not_judged, missing_phase_hands_over, first_onset);
    return s;
}
