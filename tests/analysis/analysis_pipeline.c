/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_pipeline.c -- ftio_analyze_signal(), the one signal -> samples ->
 * analysis call of `ftio`, `ftio report`, `ftio scan` and the activities:
 * for both detectors, whole trace or a -ts/-te window, its samples and its
 * answer are those of ftio_sample() then ftio_analyze() written out (with
 * another analyzer); without a samples buffer it answers the same; a buffer
 * from a previous call is reused; its errors are the sampling's.
 * ftio_analyze_requests() answers what it answers on the requests' signal.
 */
#include "helpers.h"

#include <string.h>

/* Bursts of 8 MB over 1.5 s every 7 s, and a little background I/O. */
static void bursts(struct ftio_requests *r, int n)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < n; k++) {
        double t = 2.0 + 7.0 * k;
        ck_assert_int_eq(ftio_requests_push_bytes(r, t, t + 1.5, 8e6), 0);
        ck_assert_int_eq(ftio_requests_push_bytes(r, t + 4.0, t + 4.3, 1e4), 0);
    }
}

/* The same samples: every field but the buffer and its capacity, then
 * the values. */
static void same_samples(const struct ftio_samples *a, const struct ftio_samples *b)
{
    struct ftio_samples x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x.x = y.x = NULL;
    x.cap = y.cap = 0;
    ck_assert(memcmp(&x, &y, sizeof x) == 0);
    ck_assert(memcmp(a->x, b->x, a->n * sizeof *a->x) == 0);
}

/* The same answer, byte for byte (ftio_analyze zeroes it first), but for
 * where the phases are: each analyzer owns its own, compared by content. */
static void same_result(const struct ftio_result *a, const struct ftio_result *b)
{
    struct ftio_result x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x.phases = y.phases = NULL;
    ck_assert(memcmp(&x, &y, sizeof x) == 0);
    for (size_t i = 0; i < a->nphases; i++)      /* field by field: not the padding */
        ck_assert(a->phases[i].start == b->phases[i].start && a->phases[i].end == b->phases[i].end &&
                  a->phases[i].bytes == b->phases[i].bytes && a->phases[i].flags == b->phases[i].flags);
}

/* What every case works on: a trace, its signal, two analyzers. */
struct bench {
    struct ftio_requests r;
    struct ftio_signal sig;
    struct ftio_analyzer *one, *two;
};

static void bench_open(struct bench *b, int bursts_n)
{
    bursts(&b->r, bursts_n);
    ck_assert_int_eq(ftio_signal_build(&b->r, &b->sig), 0);
    b->one = ftio_analyzer_new();
    b->two = ftio_analyzer_new();
    ck_assert(b->one && b->two);
}

static void bench_close(struct bench *b)
{
    ftio_analyzer_free(b->one);
    ftio_analyzer_free(b->two);
    ftio_signal_free(&b->sig);
    ftio_requests_free(&b->r);
}

START_TEST(written_out)
{
    struct bench b;
    bench_open(&b, 12);
    char err[256];
    for (int v = 0; v < 4; v++) {
        struct ftio_options o;
        if (v % 2)
            ftio_options_compat(&o);
        else
            ftio_options_default(&o);
        if (v >= 2) {                  /* a window, the -n list and the ACF */
            o.t_start = 10.3;
            o.t_end = 71.0;
            o.top_n = 3;
            o.autocorrelation = true;
        }
        struct ftio_samples x = { 0 }, y = { 0 };
        struct ftio_result want, got, bare;
        ck_assert_msg(ftio_sample(&b.sig, o.fs, o.t_start, o.t_end, o.sampling, &x, err, sizeof err) == 0,
                      "%s", err);
        ck_assert_msg(ftio_analyze(b.one, &x, &o, x.t1, &want, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(ftio_analyze_signal(b.two, &b.sig, &o, &y, &got, err, sizeof err) == 0, "%s", err);
        same_samples(&x, &y);
        same_result(&want, &got);
        ck_assert_msg(ftio_analyze_signal(b.two, &b.sig, &o, NULL, &bare, err, sizeof err) == 0, "%s", err);
        same_result(&want, &bare);
        ck_assert(want.has_period);
        ck_assert_rel(want.dominant.period, 7.0, 0.05);
        ftio_samples_free(&x);
        ftio_samples_free(&y);
    }
    bench_close(&b);
}
END_TEST

/* The samples of a previous call are overwritten, a longer window's by a
 * shorter one's: what a scan worker does job after job. */
START_TEST(reused_samples)
{
    struct bench b;
    bench_open(&b, 10);
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_samples x = { 0 }, fresh = { 0 };
    struct ftio_result res;
    char err[256];
    ck_assert_int_eq(ftio_analyze_signal(b.one, &b.sig, &o, &x, &res, err, sizeof err), 0);
    size_t whole = x.n;
    o.t_end = 40;
    ck_assert_int_eq(ftio_analyze_signal(b.one, &b.sig, &o, &x, &res, err, sizeof err), 0);
    ck_assert_int_eq(ftio_sample(&b.sig, o.fs, o.t_start, o.t_end, o.sampling, &fresh, err, sizeof err), 0);
    ck_assert_uint_lt(x.n, whole);
    same_samples(&x, &fresh);
    ck_assert_uint_eq(res.samples, x.n);
    ftio_samples_free(&x);
    ftio_samples_free(&fresh);
    bench_close(&b);
}
END_TEST

/* The sampling's errors, word for word, and from the requests the same;
 * a trace shorter than one sample is no error of the pipeline but an answer
 * (class none, "too short": issue 28), though ftio_sample says why. */
START_TEST(errors)
{
    static const struct { double fs, ts; const char *why; } bad[] = {
        { 100, 5, "no I/O in the analysis window" },
    };
    struct ftio_requests r = { 0 };
    ck_assert_int_eq(ftio_requests_push_bytes(&r, 1.0, 1.05, 5), 0);
    struct ftio_signal sig;
    ck_assert_int_eq(ftio_signal_build(&r, &sig), 0);
    struct ftio_analyzer *a = ftio_analyzer_new();
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        struct ftio_options o;
        ftio_options_default(&o);
        o.fs = bad[k].fs;
        o.t_start = bad[k].ts;
        struct ftio_result res;
        char err[256] = "", err2[256] = "";
        ck_assert_int_eq(ftio_analyze_signal(a, &sig, &o, NULL, &res, err, sizeof err), -1);
        ck_assert_str_eq(err, bad[k].why);
        ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err2, sizeof err2), -1);
        ck_assert_str_eq(err2, bad[k].why);
    }
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_result res;
    char err[256] = "";
    ck_assert_int_eq(ftio_analyze_signal(a, &sig, &o, NULL, &res, err, sizeof err), 0);
    ck_assert(!res.has_period);
    ck_assert_int_eq(res.cls, FTIO_CLASS_NONE);
    ck_assert_str_eq(res.reason, FTIO_REASON_TOO_SHORT);
    ck_assert_double_eq_tol(res.t1 - res.t0, 0.05, 1e-9);
    ck_assert_int_eq(ftio_analyze_requests(a, &r, &o, &res, err, sizeof err), 0);
    ck_assert_str_eq(res.reason, FTIO_REASON_TOO_SHORT);
    struct ftio_samples x = { 0 };
    ck_assert_int_eq(ftio_sample(&sig, 10, NAN, NAN, FTIO_SAMPLING_AVERAGE, &x, err, sizeof err), -1);
    ck_assert_str_eq(err, "trace shorter than one sample at fs=10 Hz; raise -f");
    ftio_samples_free(&x);
    ftio_analyzer_free(a);
    ftio_signal_free(&sig);
    ftio_requests_free(&r);
}
END_TEST

START_TEST(from_requests)
{
    struct bench b;
    bench_open(&b, 9);
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_result want, got;
    char err[256];
    ck_assert_int_eq(ftio_analyze_signal(b.one, &b.sig, &o, NULL, &want, err, sizeof err), 0);
    ck_assert_int_eq(ftio_analyze_requests(b.two, &b.r, &o, &got, err, sizeof err), 0);
    same_result(&want, &got);
    bench_close(&b);
}
END_TEST

Suite *ftio_test_suite(void)
{
    const TTest *cases[] = { written_out, reused_samples, errors, from_requests };
    Suite *s = suite_create("analysis-pipeline");
    TCase *tc = tcase_create("analyze-signal");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        tcase_add_test(tc, cases[k]);
    suite_add_tcase(s, tc);
    return s;
}
