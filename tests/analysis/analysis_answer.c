/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_answer.c -- the job-level answer (predictor/answer.h, ALGORITHM.md
 * §10): with several activities the heaviest one's answer, never the whole
 * signal's mixture as `periodic`; a mixture line capped; --compat and one
 * activity unchanged.  The first case builds the issue-28 job (8 x 16 MiB
 * every 10 s beside 8 x 64 MiB every 60 s) and runs the offline pipeline:
 * requests -> activities -> answers -> the rule.
 */
#include "helpers.h"

#include <string.h>
#include "activities.h"
#include "answer.h"

#define MIB 1048576.0

struct job {
    struct ftio_requests r;
    uint32_t fid[8192];
    const char *path[4];
};

static const char *path_of(void *ctx, uint32_t id)
{
    struct job *j = ctx;
    return id < 4 ? j->path[id] : NULL;
}

/* 8 ranks write `mib` MiB each to file id from t (64 MiB/s per rank). */
static void phase(struct job *j, double t, uint32_t id, double mib)
{
    for (int r = 0; r < 8; r++) {
        double ts = t + 0.002 * r, te = ts + mib / 64.0;
        ck_assert_int_eq(ftio_requests_push_bytes(&j->r, ts, te, mib * MIB), 0);
        j->fid[j->r.n - 1] = id;
    }
}

START_TEST(heaviest_activity_not_the_mixture)
{
    struct job *j = calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    j->path[1] = "/scratch/frames.dat";
    j->path[2] = "/scratch/ckpt.dat";
    for (int s = 0; s < 36; s++) {
        phase(j, 10.0 * s + 1, 1, 16);
        if (s % 6 == 5)
            phase(j, 10.0 * s + 6, 2, 64);
    }
    struct ftio_activity_set set;
    ck_assert_int_eq(ftio_activities_group(&j->r, j->fid, j->r.n, path_of, j, NULL, NULL, &set), 0);
    ck_assert_uint_eq(set.n, 2);
    struct ftio_analyzer *an = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    char err[256];
    struct ftio_result job, act[2], top;
    ck_assert_msg(ftio_analyze_requests(an, &j->r, &o, &job, err, sizeof err) == 0, "%s", err);
    struct ftio_answer_part part[2];
    for (size_t k = 0; k < 2; k++) {
        ck_assert_msg(ftio_activity_analyze(an, &set.a[k], &o, &act[k], err, sizeof err) == 0, "%s", err);
        part[k] = (struct ftio_answer_part){ set.a[k].pattern, set.a[k].bytes, &act[k] };
    }
    int k = ftio_job_answer(&job, part, 2, NAN, &top);
    ck_assert_int_ge(k, 0);
    /* the frames move 36 x 128 MiB, the checkpoints 6 x 512 MiB */
    ck_assert_str_eq(set.a[k].pattern, "/scratch/frames.dat");
    ck_assert(top.has_period);
    ck_assert_rel(top.dominant.period, 10.0, 0.02);
    ck_assert_int_eq(top.cls, FTIO_CLASS_PERIODIC);
    ck_assert_int_eq(top.cls, act[k].cls);
    fprintf(stderr, "whole signal %.3f s (%s %.3f); job-level %.3f s (%s %.3f)\n",
            job.has_period ? job.dominant.period : NAN, ftio_class_name(job.cls),
            job.dominant.confidence, top.dominant.period, ftio_class_name(top.cls),
            top.dominant.confidence);
    ftio_analyzer_free(an);
    ftio_activities_free(&set);
    ftio_requests_free(&j->r);
    free(j);
}
END_TEST

/* A result of period p (s), confidence c, phase bytes b. */
static struct ftio_result answer(double p, double c, double b)
{
    struct ftio_result r;
    memset(&r, 0, sizeof r);
    r.detector = FTIO_DETECTOR_ROBUST;
    if (p > 0) {
        r.has_period = true;
        r.dominant.period = p;
        r.dominant.frequency = 1 / p;
        r.dominant.confidence = c;
        r.cand[0] = r.dominant;
        r.ncand = 1;
        r.cls = c >= 0.8 ? FTIO_CLASS_PERIODIC : FTIO_CLASS_UNCERTAIN;
        r.metrics.valid = true;
        r.metrics.phase_bytes = b;
        r.metrics.phase_duration = 1;
        r.next = (struct ftio_next_phase){ true, 100, 101, b };
    }
    return r;
}

START_TEST(rule_cases)
{
    struct ftio_result job = answer(19.6, 0.956, 300), a = answer(10, 0.99, 100), b = answer(60, 1, 500),
                       none = answer(0, 0, 0), top;
    struct ftio_answer_part part[3] = { { "b", 3000, &b }, { "a", 6000, &a }, { "c", 10, NULL } };
    /* the heaviest is a: its answer */
    ck_assert_int_eq(ftio_job_answer(&job, part, 3, NAN, &top), 1);
    ck_assert_double_eq(top.dominant.period, 10);
    ck_assert_double_eq(top.metrics.phase_bytes, 100);
    /* the whole signal agrees with it: its phases (what the job moves then) */
    struct ftio_result agree = answer(10.3, 0.9, 180);
    ck_assert_int_eq(ftio_job_answer(&agree, part, 3, NAN, &top), 1);
    ck_assert_double_eq(top.dominant.period, 10);
    ck_assert_double_eq(top.dominant.confidence, 0.99);
    ck_assert_double_eq(top.metrics.phase_bytes, 180);
    ck_assert_double_eq(top.next.bytes, 180);
    ck_assert_double_eq(top.next.end, 101);
    /* the heaviest without a period: the whole signal, capped when its line
     * is no activity's, named when it is one's */
    part[1].res = &none;
    ck_assert_int_eq(ftio_job_answer(&job, part, 3, NAN, &top), -1);
    ck_assert_double_eq(top.dominant.period, 19.6);
    ck_assert_double_eq(top.dominant.confidence, FTIO_MIXTURE_CONF);
    ck_assert_int_eq(top.cls, FTIO_CLASS_UNCERTAIN);
    struct ftio_result sixty = answer(61, 0.97, 500);
    ck_assert_int_eq(ftio_job_answer(&sixty, part, 3, NAN, &top), 0);
    ck_assert_double_eq(top.dominant.confidence, FTIO_NOT_HEAVIEST_CONF);   /* not the heaviest's */
    ck_assert_int_eq(top.cls, FTIO_CLASS_UNCERTAIN);
    /* the heaviest `uncertain` while the whole signal is `periodic` at another
     * period: the whole signal, capped as a mixture, or named when it is
     * another activity's */
    struct ftio_result unsure = answer(14, 0.5, 50), whole = answer(19, 0.99, 300);
    part[1].res = &unsure;
    ck_assert_int_eq(ftio_job_answer(&whole, part, 3, NAN, &top), -1);
    ck_assert_double_eq(top.dominant.period, 19);
    ck_assert_int_eq(top.cls, FTIO_CLASS_UNCERTAIN);
    ck_assert_int_eq(ftio_job_answer(&sixty, part, 3, NAN, &top), 0);
    ck_assert_int_eq(top.cls, FTIO_CLASS_UNCERTAIN);
    /* ... but its own answer when the whole signal is not periodic either */
    struct ftio_result weak = answer(19, 0.6, 300);
    ck_assert_int_eq(ftio_job_answer(&weak, part, 3, NAN, &top), 1);
    ck_assert_double_eq(top.dominant.period, 14);
    /* no activity with a period: the whole signal, not a mixture of any */
    part[0].res = &none;
    part[1].res = &none;
    ck_assert_int_eq(ftio_job_answer(&whole, part, 3, NAN, &top), -1);
    ck_assert_double_eq(top.dominant.confidence, 0.99);
    part[0].res = &b;
    part[1].res = &a;
    /* ties: the first pattern */
    part[1].res = &a;
    part[1].bytes = 3000;
    ck_assert_int_eq(ftio_job_answer(&job, part, 3, NAN, &top), 1);
    /* one activity: the whole signal is its answer */
    ck_assert_int_eq(ftio_job_answer(&job, part, 1, NAN, &top), 0);
    ck_assert_double_eq(top.dominant.period, 19.6);
    ck_assert_int_eq(ftio_job_answer(&job, part, 0, NAN, &top), -1);
    /* --compat: the published FTIO's answer, untouched */
    job.detector = FTIO_DETECTOR_COMPAT;
    ck_assert_int_eq(ftio_job_answer(&job, part, 3, NAN, &top), -1);
    ck_assert(memcmp(&top, &job, sizeof top) == 0);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-answer", "answer", NULL, heaviest_activity_not_the_mixture, rule_cases);
}
