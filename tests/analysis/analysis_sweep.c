/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_sweep.c -- the bucketed sweep (signal.c) against the definition
 * of the signal, bit for bit: starts and ends each sorted stably by time,
 * merged with the start first on equal times, the level summed in that
 * order (a plain qsort by (time, index) here); and ftio_sample_requests()
 * (the sweep sampled as it goes, no signal kept) against ftio_sample() on
 * the whole signal, both samplers, with and without a window, on inputs
 * with ties, zero-length requests, far outliers and one time only. */
#include <errno.h>
#include <string.h>

#include "helpers.h"

struct ref_event { double t, rate; size_t i; };

static int cmp_ref(const void *a, const void *b)
{
    const struct ref_event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The signal by its definition (§1). */
static void reference_signal(const struct ftio_requests *r, struct ftio_signal *s)
{
    size_t n = r->n;
    struct ref_event *st = malloc(n * sizeof *st), *en = malloc(n * sizeof *en);
    ck_assert(st && en);
    for (size_t i = 0; i < n; i++) {
        st[i] = (struct ref_event){ r->rec[i].t_start, r->rec[i].rate, i };
        en[i] = (struct ref_event){ r->rec[i].t_end, r->rec[i].rate, i };
    }
    qsort(st, n, sizeof *st, cmp_ref);
    qsort(en, n, sizeof *en, cmp_ref);
    s->t = malloc(2 * n * sizeof *s->t);
    s->b = malloc(2 * n * sizeof *s->b);
    ck_assert(s->t && s->b);
    size_t i = 0, j = 0, o = 0;
    double level = 0;
    while (i < n || j < n) {
        if (i < n && (j == n || st[i].t <= en[j].t)) {
            level += st[i].rate;
            s->t[o] = st[i++].t;
        } else {
            level -= en[j].rate;
            s->t[o] = en[j++].t;
        }
        s->b[o++] = level;
    }
    s->n = o;
    free(st);
    free(en);
}

/* Requests of several shapes: kind 0 uniform, 1 on a coarse grid (many
 * equal times, back-to-back requests), 2 uniform with a far outlier (one
 * crowded bucket), 3 every request at one time span. */
static void make_requests(struct ftio_requests *r, size_t n, int kind, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        double ts, te;
        switch (kind) {
        case 1:
            ts = (double)(rand_r(&seed) % 50) * 0.25;
            te = ts + (double)(rand_r(&seed) % 4) * 0.25;
            break;
        case 2:
            ts = i == n / 2 ? 1e4 : (double)rand_r(&seed) / RAND_MAX * 10;
            te = ts + (double)rand_r(&seed) / RAND_MAX;
            break;
        case 3:
            ts = 5;
            te = 7;
            break;
        default:
            ts = (double)rand_r(&seed) / RAND_MAX * 100;
            te = ts + (double)rand_r(&seed) / RAND_MAX * 3;
        }
        FTIO_CHECK(ftio_requests_push_bytes(r, ts, te, 1 + rand_r(&seed) % 100000) == 0);
    }
}

static void same_signal(const struct ftio_signal *a, const struct ftio_signal *b)
{
    ck_assert_uint_eq(a->n, b->n);
    ck_assert(memcmp(a->t, b->t, a->n * sizeof *a->t) == 0);
    ck_assert(memcmp(a->b, b->b, a->n * sizeof *a->b) == 0);
}

START_TEST(sweep_is_the_definition)
{
    const size_t sizes[] = { 1, 2, 33, 1000, 70000 };
    for (int kind = 0; kind < 4; kind++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            struct ftio_requests r = { 0 };
            make_requests(&r, sizes[k], kind, 11u * (unsigned)k + (unsigned)kind);
            struct ftio_signal got, want;
            ck_assert_int_eq(ftio_signal_build(&r, &got), 0);
            reference_signal(&r, &want);
            same_signal(&got, &want);
            ftio_signal_free(&got);
            ftio_signal_free(&want);
            ftio_requests_free(&r);
        }
}
END_TEST

static void same_samples(const struct ftio_samples *a, const struct ftio_samples *b)
{
    ck_assert_uint_eq(a->n, b->n);
    ck_assert(memcmp(a->x, b->x, a->n * sizeof *a->x) == 0);
    ck_assert(memcmp(&a->t0, &b->t0, sizeof a->t0) == 0);
    ck_assert(memcmp(&a->t1, &b->t1, sizeof a->t1) == 0);
    ck_assert(memcmp(&a->exact_volume, &b->exact_volume, sizeof a->exact_volume) == 0);
    ck_assert_int_eq(a->quiet_before, b->quiet_before);
}

START_TEST(streamed_samples_are_the_signals)
{
    const double win[][2] = { { NAN, NAN }, { 2.5, NAN }, { NAN, 61.3 }, { 10, 40 }, { 5, 5.05 },
                              { 200, 300 }, { 6.5, 6.5 } };
    for (int kind = 0; kind < 4; kind++) {
        struct ftio_requests r = { 0 };
        make_requests(&r, kind == 3 ? 50 : 5000, kind, 5u + (unsigned)kind);
        struct ftio_signal s;
        ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
        for (int mode = 0; mode < 2; mode++)
            for (size_t w = 0; w < sizeof win / sizeof win[0]; w++)
                for (double fs = 0.5; fs < 200; fs *= 14) {
                    struct ftio_samples a = { 0 }, b = { 0 };
                    char ea[256] = "", eb[256] = "";
                    errno = 0;
                    int ra = ftio_sample(&s, fs, win[w][0], win[w][1], (enum ftio_sampling)mode, &a,
                                         ea, sizeof ea);
                    int erra = errno;
                    double volume;
                    errno = 0;
                    int rb = ftio_sample_requests(&r, fs, win[w][0], win[w][1],
                                                  (enum ftio_sampling)mode, &b, &volume, eb, sizeof eb);
                    ck_assert_int_eq(ra, rb);
                    ck_assert_str_eq(ea, eb);
                    if (ra == 0)
                        same_samples(&a, &b);
                    else
                        ck_assert_int_eq(erra == ERANGE, errno == ERANGE);
                    if (ra == 0 || erra == ERANGE) {
                        double v = ftio_signal_volume(&s);
                        ck_assert(memcmp(&v, &volume, sizeof v) == 0);
                    }
                    ftio_samples_free(&a);
                    ftio_samples_free(&b);
                }
        ftio_signal_free(&s);
        ftio_requests_free(&r);
    }
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("analysis_sweep", "core", &tc, sweep_is_the_definition,
                          streamed_samples_are_the_signals);
    tcase_set_timeout(tc, 120);
    return s;
}
