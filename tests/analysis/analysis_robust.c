/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_robust.c -- the robust detector (ALGORITHM.md §9) on signals whose
 * answer is known exactly: sampled pulse trains built sample by sample, so
 * every expectation below follows from the construction, not from a run.
 */
#include "helpers.h"

#include <string.h>

#define FS 10.0

/* A growable sample buffer with a phase painter: a phase [t, t + d) moving
 * `rate` B/s is spread exactly over the 0.1 s bins it overlaps. */
struct sig {
    struct ftio_samples x;
};

static void sig_init(struct sig *s, double seconds)
{
    memset(s, 0, sizeof *s);
    s->x.n = (size_t)llround(seconds * FS);
    s->x.x = calloc(s->x.n, sizeof *s->x.x);
    s->x.fs = FS;
    s->x.t0 = 0;
    s->x.t1 = seconds;
    s->x.exact_volume = NAN;
    s->x.quiet_before = true;
}

static void paint(struct sig *s, double t, double d, double rate)
{
    for (size_t k = (size_t)floor(t * FS); k < s->x.n && (double)k / FS < t + d; k++) {
        double lo = fmax(t, (double)k / FS), hi = fmin(t + d, (double)(k + 1) / FS);
        if (hi > lo)
            s->x.x[k] += rate * (hi - lo) * FS;
    }
}

static void analyse(struct sig *s, double now, struct ftio_result *r)
{
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    char err[256];
    ck_assert_msg(ftio_analyze(a, &s->x, &o, now, r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r->detector, FTIO_DETECTOR_ROBUST);
    /* phases point into the analyzer: copy what the tests look at first. */
    static struct ftio_phase keep[512];
    size_t n = r->nphases < 512 ? r->nphases : 512;
    if (n > 0)
        memcpy(keep, r->phases, n * sizeof *keep);
    r->phases = keep;
    ftio_analyzer_free(a);
}

/* IOR -d 5: 0.03 s phases every 5 s (duty 0.6 %): FTIO finds nothing (a flat
 * comb); the onsets give the period, the next phase and its bytes. */
START_TEST(short_pulses)
{
    struct sig s;
    sig_init(&s, 120);
    for (int i = 0; i < 23; i++)
        paint(&s, 1.02 + 5.0 * i, 0.03, 1e9);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 5.0, 1e-3);
    ck_assert_int_eq(r.cls, FTIO_CLASS_PERIODIC);
    ck_assert_uint_eq(r.nphases, 23);
    ck_assert_rel(r.metrics.phase_bytes, 0.03e9, 1e-6);
    ck_assert(r.next.valid);
    /* A pulse inside one 0.1 s bin is placed at the bin's start. */
    ck_assert(r.next.start > s.x.t1);
    ck_assert_abs(r.next.start, 1.02 + 5.0 * 24, 0.1);
    ck_assert_rel(r.next.bytes, 0.03e9, 1e-6);
    free(s.x.x);
}
END_TEST

/* Irregular compute: the period is the mean spacing of the onsets, which no
 * spectral line holds. */
START_TEST(irregular_compute)
{
    static const double gap[] = { 3, 17, 6, 14, 9, 2, 19, 8, 11 };
    struct sig s;
    sig_init(&s, 140);
    double t = 2, first = t;
    for (int i = 0; i < 10; i++) {
        paint(&s, t, 1.5, 2e8);
        if (i < 9)
            t += 1.5 + gap[i];
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, (t - first) / 9, 1e-3);
    /* Irregular: a scheduler should not bet on it. */
    ck_assert_int_eq(r.cls, FTIO_CLASS_UNCERTAIN);
    free(s.x.x);
}
END_TEST

/* Background noise is not I/O time: phases over a busy background still
 * carry only their own bytes. */
START_TEST(noise_not_counted)
{
    struct sig s;
    sig_init(&s, 100);
    unsigned seed = 7;
    for (size_t k = 0; k < s.x.n; k++)
        s.x.x[k] = 5e7 + 1e7 * ((double)rand_r(&seed) / RAND_MAX - 0.5);
    for (int i = 0; i < 9; i++)
        paint(&s, 5 + 10.0 * i, 1.0, 3e8);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 10.0, 1e-2);
    ck_assert_rel(r.background, 5e7, 0.05);
    ck_assert_rel(r.metrics.phase_bytes, 3e8, 0.05);
    ck_assert_abs(r.metrics.phase_duration, 1.0, 0.15);
    free(s.x.x);
}
END_TEST

/* A period change: the newest regime answers once it has shown itself. */
START_TEST(period_change)
{
    struct sig s;
    sig_init(&s, 130);
    double t = 1;
    for (int i = 0; i < 8; i++, t += 10)
        paint(&s, t, 1, 1e9);
    for (int i = 0; i < 8; i++, t += 6)
        paint(&s, t, 1, 1e9);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 6.0, 1e-3);
    ck_assert_uint_le(r.fitted_phases, 9);
    free(s.x.x);
}
END_TEST

/* A phase missed (here: absent) is two iterations, not a long one. */
START_TEST(missing_phase)
{
    struct sig s;
    sig_init(&s, 110);
    for (int i = 0; i < 11; i++)
        if (i != 4 && i != 7)
            paint(&s, 2 + 10.0 * i, 1, 1e9);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 10.0, 1e-3);
    free(s.x.x);
}
END_TEST

/* A phase cut into pieces by ranks starting at scattered times is one phase. */
START_TEST(fragments_regrouped)
{
    static const double piece[][2] = { { 0, 0.8 }, { 1.6, 0.5 }, { 3.4, 0.9 } };
    struct sig s;
    sig_init(&s, 200);
    for (int i = 0; i < 10; i++)
        for (int p = 0; p < 3; p++) {
            double jitter = 0.3 * ((i * 7 + p * 3) % 5) / 4.0;
            paint(&s, 3 + 20.0 * i + piece[p][0] + jitter, piece[p][1], 1e9);
        }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 20.0, 0.02);
    ck_assert_uint_eq(r.nphases, 10);
    free(s.x.x);
}
END_TEST

/* The next phase is never in the past, however late `now` is. */
START_TEST(next_never_past)
{
    struct sig s;
    sig_init(&s, 60);
    for (int i = 0; i < 6; i++)
        paint(&s, 1 + 10.0 * i, 1, 1e9);
    struct ftio_result r;
    analyse(&s, 97.3, &r);
    ck_assert(r.next.valid);
    ck_assert(r.next.start > 97.3);
    ck_assert_abs(r.next.start, 101, 0.01);
    free(s.x.x);
}
END_TEST

/* No structure, no period: a constant signal and one lone burst. */
START_TEST(nothing_periodic)
{
    struct sig s;
    sig_init(&s, 60);
    for (size_t k = 0; k < s.x.n; k++)
        s.x.x[k] = 1e6;
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(!r.has_period);
    ck_assert_int_eq(r.cls, FTIO_CLASS_NONE);
    ck_assert_ptr_nonnull(r.reason);
    memset(s.x.x, 0, s.x.n * sizeof *s.x.x);
    paint(&s, 20, 5, 1e8);
    analyse(&s, s.x.t1, &r);
    ck_assert(!r.has_period);
    ck_assert_ptr_nonnull(r.reason);
    free(s.x.x);
}
END_TEST

/* A window that starts inside a phase does not take its start for an onset. */
START_TEST(cut_at_window_start)
{
    struct sig s;
    sig_init(&s, 50);
    s.x.quiet_before = false;
    paint(&s, 0, 0.7, 1e9);           /* the tail of a phase begun earlier */
    for (int i = 1; i < 6; i++)
        paint(&s, -0.3 + 8.0 * i, 1, 1e9);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 8.0, 1e-3);
    ck_assert(r.phases[0].flags & FTIO_PHASE_CUT_START);
    free(s.x.x);
}
END_TEST

/* Small periodic outputs (a simulation's dumps, one bin each, every 1.5-
 * 2.5 s) with a restart file written with every fourth dump (2.5 x the
 * bytes): each dump is a phase; pairs of dumps are never taken for one
 * phase because a restart moves as much as two of them. */
START_TEST(separate_outputs)
{
    static const double gap[] = { 2.2, 2.7, 2.5, 1.4, 1.4, 1.6, 1.8, 2.0, 1.1, 0.9, 1.0, 2.1 };
    struct sig s;
    sig_init(&s, 26);
    double t = 0.52, first = t;
    for (int i = 0; i < 13; i++) {
        paint(&s, t, 0.05, (i % 4 == 0 ? 2.5 : 1.0) * 1e8);
        if (i < 12)
            t += gap[i];
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_uint_eq(r.nphases, 13);
    ck_assert_rel(r.dominant.period, (t - first) / 12, 0.02);
    free(s.x.x);
}
END_TEST

/* Outputs one bin long, one bin apart: the gap is as long as the outputs,
 * so they stay separate phases (0.2 s period), not one long phase. */
START_TEST(outputs_one_bin_apart)
{
    struct sig s;
    sig_init(&s, 12);
    for (int i = 0; i < 20; i++)
        paint(&s, 1.0 + 0.2 * i, 0.1, 1e8);
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_uint_eq(r.nphases, 20);
    ck_assert_rel(r.dominant.period, 0.2, 0.01);
    free(s.x.x);
}
END_TEST

/* Ranks writing nearly all the time (TMIO's trace: 8 ranks flushing in turn
 * for 1.8 s, then nobody for ~0.15 s): no two levels, but the silences mark
 * the iterations. */
START_TEST(phases_between_silences)
{
    struct sig s;
    sig_init(&s, 40);
    unsigned seed = 3;
    for (int i = 0; i < 20; i++) {
        double t0 = 0.5 + 1.95 * i;
        for (double t = t0; t < t0 + 1.8 - 1e-9; t += 0.1)
            paint(&s, t, 0.1, 150 + 100 * ((double)rand_r(&seed) / RAND_MAX));
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 1.95, 0.02);
    ck_assert_uint_ge(r.nphases, 18);
    free(s.x.x);
}
END_TEST

/* A busy signal without phases whose spectrum has one strong line (bursts
 * every 36 s on top of busy I/O) and weaker red-noise lines at its
 * quarters: the line is the answer, not 4 x 36 s; and the next phase
 * from the spectrum begins after the trace, never before. */
START_TEST(spectral_line_not_its_subharmonic)
{
    struct sig s;
    sig_init(&s, 720);
    unsigned seed = 11;
    for (size_t k = 0; k < s.x.n; k++) {
        double t = (double)k / FS;
        s.x.x[k] = 4e8 + 1.5e8 * cos(2 * M_PI * t / 36.0) + 0.4e8 * cos(2 * M_PI * t / 144.0)
                   + 0.1e8 * cos(2 * M_PI * t / 72.0) + 2e7 * ((double)rand_r(&seed) / RAND_MAX);
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 36.0, 0.02);
    ck_assert_int_ne(r.cls, FTIO_CLASS_PERIODIC);
    ck_assert(r.next.valid);
    ck_assert(r.next.start > s.x.t1);
    free(s.x.x);
}
END_TEST

/* The arbiter: outputs of 0.4 s, 0.3 s and 0.4 s apart in turn, with a
 * trickle of other I/O in the shorter gaps, which joins them in pairs: the
 * phases say 1.5 s, the signal repeats about every 0.75 s (the tallest line,
 * the autocorrelation).  A confident 1.5 s would be a confident answer the
 * spectrum contradicts: the answer must not be `periodic`. */
START_TEST(arbiter_contradiction)
{
    struct sig s;
    sig_init(&s, 60);
    for (int i = 0; i < 39; i++) {
        double t = 0.3 + 1.5 * i;
        paint(&s, t, 0.4, 1e9);
        paint(&s, t + 0.4, 0.3, 1e6);
        paint(&s, t + 0.7, 0.4, 1e9);
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    if (fabs(r.dominant.period - 0.75) > 0.075)
        ck_assert_msg(r.cls != FTIO_CLASS_PERIODIC && r.dominant.confidence < 0.8,
                      "period %g (true 0.75) at confidence %g", r.dominant.period,
                      r.dominant.confidence);
    free(s.x.x);
}
END_TEST

/* Phases of two heights in turn (every other output at a quarter of the
 * rate, four times as long): all of them are phases. */
START_TEST(two_heights)
{
    struct sig s;
    sig_init(&s, 150);
    double t = 2;
    for (int i = 0; i < 10; i++) {
        double d = i % 2 ? 4.0 : 1.0;
        paint(&s, t, d, i % 2 ? 0.5e8 : 2e8);
        t += d + 10;
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_uint_eq(r.nphases, 10);
    ck_assert_rel(r.dominant.period, (t - 10 - 4 - 2) / 9, 0.02);
    free(s.x.x);
}
END_TEST

/* A page-cache spike, then a long plateau at the file system's pace that
 * moves most of the bytes and outlasts the compute between phases: the
 * plateau is the phase's, not background. */
START_TEST(plateau_not_background)
{
    struct sig s;
    sig_init(&s, 100);
    for (int i = 0; i < 10; i++) {
        double t = 1 + 9.0 * i;
        paint(&s, t, 0.4, 2e9);          /* 0.8 GB into the page cache */
        paint(&s, t + 0.4, 6.0, 2e8);    /* 1.2 GB at 200 MB/s */
    }
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, 9.0, 0.01);
    ck_assert_abs(r.background, 0, 1e3);
    ck_assert_rel(r.metrics.phase_bytes, 2.0e9, 0.05);
    ck_assert_abs(r.metrics.phase_duration, 6.4, 0.3);
    free(s.x.x);
}
END_TEST

/* A period growing 2 % per phase: the answer is the current interval, not
 * the window's mean. */
START_TEST(drift_current_interval)
{
    struct sig s;
    sig_init(&s, 420);
    double t = 2, gap = 10, last = 0;
    for (int i = 0; i < 25; i++, t += gap, gap *= 1.02) {
        paint(&s, t, 1, 1e9);
        last = gap;
    }
    double cur = last / 1.02;          /* the interval before the last phase */
    struct ftio_result r;
    analyse(&s, s.x.t1, &r);
    ck_assert(r.has_period);
    ck_assert_rel(r.dominant.period, cur, 0.03);
    free(s.x.x);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("analysis-robust", "robust", NULL,
                      short_pulses, irregular_compute, noise_not_counted, period_change,
                      missing_phase, fragments_regrouped, next_never_past, nothing_periodic,
                      cut_at_window_start, separate_outputs, outputs_one_bin_apart,
                      phases_between_silences, spectral_line_not_its_subharmonic,
                      arbiter_contradiction, two_heights, plateau_not_background,
                      drift_current_interval);
}
