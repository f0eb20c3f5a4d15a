/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_bins_hold.c -- the hold (point) sampling of the streaming bins.
 *
 * The daemon's default must detect what the offline default (the [compat]
 * zero-order hold, ALGORITHM.md §2) detects on the reference traces (§1):
 * requests fed to ftio_bins in a shuffled order and sampled with
 * FTIO_SAMPLING_HOLD reproduce the §8 rows and the offline samples, also
 * when events lie exactly on the bin edges; and the ring forgets old points
 * exactly as it forgets old volume.  The AVERAGE
 * form against the sweep is tested in analysis_online.c. */
#include <string.h>

#include "helpers.h"

#define TMIO "tests/data/tmio-8ranks.jsonl"

/* ---- a minimal reader for the write requests of a TMIO JSONL trace ---- */

/* Parses the number array that follows "key": in [p, end); appends to v. */
static size_t parse_array(const char *p, const char *end, const char *key,
                          double **v, size_t *n, size_t *cap)
{
    const char *k = strstr(p, key);
    ck_assert_msg(k != NULL && k < end, "%s: %s missing", TMIO, key);
    const char *c = strchr(k, '[');
    ck_assert_msg(c != NULL && c < end, "%s: %s is not an array", TMIO, key);
    c++;
    size_t added = 0;
    for (;;) {
        while (*c == ' ' || *c == ',' || *c == '\n' || *c == '\t')
            c++;
        if (*c == ']')
            break;
        char *e;
        double x = strtod(c, &e);
        ck_assert_msg(e != c, "%s: %s: bad number", TMIO, key);
        ck_assert_msg(ftio_grow((void **)v, cap, *n + 1, sizeof **v) == 0, "out of memory");
        (*v)[(*n)++] = x;
        added++;
        c = e;
    }
    return added;
}

/* Each line of the trace is one object; the "write_sync" ones hold one
 * rank's write requests as b_rank_avr (B/s), t_rank_s, t_rank_e. */
static void load_tmio_writes(struct ftio_requests *r)
{
    FILE *f = fopen(TMIO, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run tests from the repo root)", TMIO);
    double *b = NULL, *ts = NULL, *te = NULL;
    size_t nb = 0, nts = 0, nte = 0, cb = 0, cts = 0, cte = 0, lines = 0;
    char *line = NULL;
    size_t linecap = 0;
    ssize_t len;
    while ((len = getline(&line, &linecap, f)) > 0) {
        const char *p = strstr(line, "\"write_sync\"");
        if (!p)
            continue;
        const char *end = line + len;
        size_t a = parse_array(p, end, "\"b_rank_avr\"", &b, &nb, &cb);
        size_t s = parse_array(p, end, "\"t_rank_s\"", &ts, &nts, &cts);
        size_t e = parse_array(p, end, "\"t_rank_e\"", &te, &nte, &cte);
        ck_assert_msg(a == s && s == e, "%s: arrays of different lengths", TMIO);
        lines++;
    }
    free(line);
    fclose(f);
    ck_assert_uint_eq(lines, 16);      /* 15 periodic flushes of 73 requests, 1 empty */
    for (size_t i = 0; i < nb; i++)
        ck_assert_int_eq(ftio_requests_push_rate(r, ts[i], te[i], b[i]), 0);
    free(b);
    free(ts);
    free(te);
}

/* ---- helpers ---------------------------------------------------------- */

/* Fisher-Yates permutation of 0..n-1: the order ranks' batches arrive in. */
static size_t *shuffled_order(size_t n, unsigned seed)
{
    size_t *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rand_r(&seed) % i;
        size_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return p;
}

static double requests_first_start(const struct ftio_requests *r)
{
    double t = INFINITY;
    for (size_t i = 0; i < r->n; i++)
        t = fmin(t, r->rec[i].t_start);
    return t;
}

static double requests_last_end(const struct ftio_requests *r)
{
    double t = -INFINITY;
    for (size_t i = 0; i < r->n; i++)
        t = fmax(t, r->rec[i].t_end);
    return t;
}

/* Volume of the step signal s over [a, b). */
static double sweep_volume(const struct ftio_signal *s, double a, double b)
{
    double v = 0;
    for (size_t i = 0; i + 1 < s->n; i++) {
        double lo = fmax(a, s->t[i]), hi = fmin(b, s->t[i + 1]);
        if (hi > lo)
            v += s->b[i] * (hi - lo);
    }
    return v;
}

/* Bins at fs = 10 from the window's t_0 (first start), fed in a shuffled
 * order as the daemon receives them. */
static void fill_bins(const struct ftio_requests *r, unsigned seed, struct ftio_bins *bins)
{
    ck_assert_int_eq(ftio_bins_init(bins, 10, requests_first_start(r), 4096), 0);
    size_t *order = shuffled_order(r->n, seed);
    for (size_t i = 0; i < r->n; i++) {
        size_t q = order[i];
        ftio_bins_add(bins, r->rec[q].t_start, r->rec[q].t_end,
                      r->rec[q].rate * (r->rec[q].t_end - r->rec[q].t_start));
    }
    ck_assert_double_eq(bins->dropped_bytes, 0);
    free(order);
}

/* Those bins sampled over [t_0, t_last] like the offline path. */
static void bins_samples_of(const struct ftio_requests *r, enum ftio_sampling mode,
                            unsigned seed, struct ftio_samples *x)
{
    struct ftio_bins bins;
    fill_bins(r, seed, &bins);
    ck_assert_int_eq(ftio_bins_samples_mode(&bins, NAN, requests_last_end(r), mode, x), 0);
    ftio_bins_free(&bins);
}

static void analyze_samples(const struct ftio_samples *x, struct ftio_result *res)
{
    struct ftio_options o;
    ftio_options_compat(&o);
    struct ftio_analyzer *a = ftio_analyzer_new();
    char err[256];
    ck_assert_msg(ftio_analyze(a, x, &o, x->t1, res, err, sizeof err) == 0, "%s", err);
    ftio_analyzer_free(a);
}

/* ---- tests ------------------------------------------------------------ */

/* §8 row 1 through the bins: the same samples as the offline hold (the grid
 * origin + k/fs and the accumulated t_step differ by ~1e-14 s, and no event
 * of this trace is that close to a sample instant), the same result. */
START_TEST(tmio_hold_matches_offline)
{
    struct ftio_requests r = { 0 };
    load_tmio_writes(&r);
    ck_assert_uint_eq(r.n, 1095);

    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    struct ftio_samples off = { 0 };
    char err[256];
    ck_assert_int_eq(ftio_sample(&s, 10, NAN, NAN, FTIO_SAMPLING_HOLD, &off, err, sizeof err), 0);

    for (unsigned seed = 1; seed <= 3; seed++) {
        struct ftio_samples x = { 0 };
        bins_samples_of(&r, FTIO_SAMPLING_HOLD, seed, &x);
        ck_assert_uint_eq(x.n, 289);
        ck_assert_uint_eq(x.n, off.n);
        ck_assert_double_eq(x.t0, 0.05309);
        ck_assert_double_eq_tol(x.t1, off.t0 + 289 / 10.0, 1e-12);
        double peak = 0;
        for (size_t i = 0; i < s.n; i++)
            peak = fmax(peak, fabs(s.b[i]));
        for (size_t k = 0; k < x.n; k++)
            ck_assert_msg(fabs(x.x[k] - off.x[k]) <= 1e-12 * peak,
                          "sample %zu: bins %.12g, offline %.12g", k, x.x[k], off.x[k]);
        /* V_0 of whole bins: the sweep's volume up to the last bin's end
         * (offline counts the partial tail up to t_last too). */
        ck_assert_rel(x.exact_volume, sweep_volume(&s, x.t0, x.t1), 1e-12);
        ck_assert_rel(off.exact_volume, sweep_volume(&s, off.t0, off.t1), 1e-12);
        ck_assert(ftio_abstraction_error(&x) >= 0);

        struct ftio_result res;
        analyze_samples(&x, &res);
        ck_assert_uint_eq(res.samples, 289);
        ck_assert_uint_eq(res.ncand, 1);
        ck_assert(res.has_period);
        ck_assert_int_eq(res.cls, FTIO_CLASS_PERIODIC);
        ck_assert_uint_eq(res.dominant.bin, 15);
        ck_assert_rel(res.dominant.frequency, 0.519031142, 1e-6);
        ck_assert_abs(res.dominant.confidence, 0.677441493, 1e-6);
        ck_assert_rel(res.dominant.amplitude, 4259.3646, 1e-6);
        ftio_samples_free(&x);
    }
    ftio_samples_free(&off);
    ftio_signal_free(&s);
    ftio_requests_free(&r);
}
END_TEST

/* The two modes really differ on this trace (that is why the daemon needs
 * hold), and ftio_bins_samples stays the AVERAGE form, bit for bit. */
START_TEST(tmio_average_form)
{
    struct ftio_requests r = { 0 };
    load_tmio_writes(&r);
    struct ftio_samples avg = { 0 }, compat = { 0 };
    bins_samples_of(&r, FTIO_SAMPLING_AVERAGE, 7, &avg);

    struct ftio_bins bins;
    fill_bins(&r, 7, &bins);
    ck_assert_int_eq(ftio_bins_samples(&bins, NAN, requests_last_end(&r), &compat), 0);
    ck_assert_uint_eq(compat.n, avg.n);
    ck_assert_double_eq(compat.t0, avg.t0);
    ck_assert_double_eq(compat.exact_volume, avg.exact_volume);
    ck_assert(memcmp(compat.x, avg.x, avg.n * sizeof *avg.x) == 0);

    struct ftio_result res;
    analyze_samples(&avg, &res);
    ck_assert(res.has_period);
    ck_assert_uint_eq(res.dominant.bin, 31);
    ck_assert_rel(res.dominant.frequency, 31 / 28.9, 1e-9);    /* 1.0727 Hz */
    /* Averaging conserves volume, hold does not. */
    ck_assert_double_eq_tol(ftio_abstraction_error(&avg), 0, 1e-9);

    /* An unknown mode is refused. */
    ck_assert_int_eq(ftio_bins_samples_mode(&bins, NAN, NAN, (enum ftio_sampling)7, &avg), -1);
    ftio_bins_free(&bins);
    ftio_samples_free(&avg);
    ftio_samples_free(&compat);
    ftio_requests_free(&r);
}
END_TEST

/* A row's requests through the bins in hold mode (fed in a shuffled
 * order): the row's window, then its analysis. */
static void hold_path(const struct reference_row *row, const struct ftio_requests *r,
                      struct ftio_result *res)
{
    struct ftio_samples x = { 0 };
    bins_samples_of(r, FTIO_SAMPLING_HOLD, 11, &x);
    analyze_samples(&x, res);
    ck_assert_double_eq(x.t0, row->t0);
    ck_assert_double_eq(x.t1, row->t1);
    ftio_samples_free(&x);
}

/* The §8 rows through the bins in hold mode.  In synthetic-14, events on
 * sample instants (0.5, 4.5, 10 ... are exact multiples of 0.1 from t_0 =
 * 0) are where the grid and the accumulated t_step could disagree; the row
 * must still come out. */
START_TEST(reference_rows_hold)
{
    check_reference_row(reference_rows[_i], hold_path);
}
END_TEST

/* Value of the sweep s at time t: the last event with T <= t (0 before). */
static double sweep_at(const struct ftio_signal *s, double t)
{
    size_t l = 0, h = s->n;
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (s->t[m] <= t) l = m + 1; else h = m;
    }
    return l ? s->b[l - 1] : 0;
}

/* Requests on and off the grid edges (back to back, zero-length, one-bin),
 * fed in reverse order, against the offline hold over the same window.  At
 * fs = 10 the accumulated t_step falls just below or above the edges, so
 * exact coincidences take B from either side of the edge: both are kept. */
START_TEST(hold_matches_offline_on_edges)
{
    enum { N = 3000 };
    const double fs = 10, origin = 0.3;
    struct ftio_requests r = { 0 };
    unsigned seed = 99;
    ck_assert_int_eq(ftio_requests_push_bytes(&r, origin, origin + 1, 10), 0);
    ck_assert_int_eq(ftio_requests_push_bytes(&r, origin + 100 / fs, origin + 101 / fs, 10), 0);
    for (int i = 0; i < N; i++) {
        double ts, te;
        int k = 1 + rand_r(&seed) % 1500;
        if (i % 2) {                       /* on the grid */
            ts = origin + k / fs;
            te = origin + (k + rand_r(&seed) % 6) / fs;
        } else {
            ts = origin + (double)rand_r(&seed) / RAND_MAX * 150;
            te = ts + (double)rand_r(&seed) / RAND_MAX * 2;
        }
        ck_assert_int_eq(ftio_requests_push_bytes(&r, ts, te, 1 + rand_r(&seed) % 1000), 0);
    }
    struct ftio_bins bins;
    ck_assert_int_eq(ftio_bins_init(&bins, fs, origin, 2048), 0);
    for (size_t i = r.n; i-- > 0;)
        ftio_bins_add(&bins, r.rec[i].t_start, r.rec[i].t_end, r.rec[i].rate * (r.rec[i].t_end - r.rec[i].t_start));
    struct ftio_signal s;
    ck_assert_int_eq(ftio_signal_build(&r, &s), 0);
    double peak = 0;
    for (size_t i = 0; i < s.n; i++)
        peak = fmax(peak, fabs(s.b[i]));

    /* The whole trace, then a window starting on an edge with an event. */
    const double starts[] = { NAN, origin + 100 / fs };
    for (int w = 0; w < 2; w++) {
        struct ftio_samples off = { 0 }, x = { 0 };
        char err[128];
        ck_assert_int_eq(ftio_sample(&s, fs, starts[w], NAN, FTIO_SAMPLING_HOLD, &off,
                                     err, sizeof err), 0);
        ck_assert_int_eq(ftio_bins_samples_mode(&bins, starts[w], off.t1, FTIO_SAMPLING_HOLD,
                                                &x), 0);
        ck_assert_double_eq(x.t0, off.t0);
        ck_assert_uint_eq(x.n, off.n);
        size_t off_grid = 0;
        for (size_t k = 0; k < x.n; k++) {
            /* The sweep's running sum cancels (zero-length requests are
             * ~1e9 B/s): compare relative to the peak. */
            ck_assert_msg(fabs(x.x[k] - off.x[k]) <= 1e-12 * peak,
                          "window %d sample %zu: bins %.12g, offline %.12g",
                          w, k, x.x[k], off.x[k]);
            double grid = sweep_at(&s, x.t0 + (double)k / fs);
            off_grid += fabs(grid - off.x[k]) > 1e-12 * peak;
        }
        /* Where t_step fell below an edge with an event on it. */
        ck_assert_msg(off_grid > 10, "window %d: only %zu samples off the grid value",
                      w, off_grid);
        ftio_samples_free(&off);
        ftio_samples_free(&x);
    }

    /* The definition, brute force, on both sides of every 7th edge. */
    for (int64_t k = 1; k < bins.last; k += 7) {
        double e = origin + (double)k / fs, at = 0, before = 0;
        for (size_t q = 0; q < r.n; q++) {
            if (r.rec[q].t_start <= e && e < r.rec[q].t_end)
                at += r.rec[q].rate;
            if (r.rec[q].t_start < e && e <= r.rec[q].t_end)
                before += r.rec[q].rate;
        }
        double got_at, got_before, unused;
        ftio_bins_points_at(&bins, k, &got_at, &unused);
        ftio_bins_points_at(&bins, k - 1, &unused, &got_before);
        ck_assert_msg(fabs(got_at - at) <= 1e-9 * at, "B(edge %ld) = %.12g, want %.12g",
                      (long)k, got_at, at);
        ck_assert_msg(fabs(got_before - before) <= 1e-9 * before,
                      "B(edge %ld -) = %.12g, want %.12g", (long)k, got_before, before);
    }
    ftio_signal_free(&s);
    ftio_bins_free(&bins);
    ftio_requests_free(&r);
}
END_TEST

/* Same ring as analysis_online.c's bins_ring_horizon (10 bins of 1 s), for
 * the points: ends on an edge do not count there, starts do; points before
 * the horizon are gone and their slots cleared. */
START_TEST(points_ring_horizon)
{
    struct ftio_bins b;
    struct ftio_samples x = { 0 };
    ck_assert_int_eq(ftio_bins_init(&b, 1, 0, 10), 0);
    ftio_bins_add(&b, 0, 5, 500);                 /* 100 B/s at 0 .. 4 */
    ftio_bins_add(&b, 2.5, 3, 5);                 /* 10 B/s, no instant inside */
    ck_assert_int_eq(ftio_bins_samples_mode(&b, NAN, NAN, FTIO_SAMPLING_HOLD, &x), 0);
    ck_assert_uint_eq(x.n, 5);
    for (size_t k = 0; k < 5; k++)
        ck_assert_double_eq(x.x[k], 100);
    ck_assert_double_eq(x.exact_volume, 505);

    ftio_bins_add(&b, 20, 21, 7);                 /* horizon moves to 11 */
    ck_assert_int_eq(b.first, 11);
    ftio_bins_add(&b, 9, 13, 40);                 /* 10 B/s; points 9, 10 dropped */
    ftio_bins_add(&b, 14, 16, 2);                 /* 1 B/s at 14, 15, not 16 */
    ftio_bins_add(&b, 16, 17, 3);                 /* back to back: 3 B/s at 16 */
    ftio_bins_add(&b, 18, 18, 8);                 /* zero-length on an instant: 8e6 B/s */
    ftio_bins_add(&b, 19.5, 19.5, 8);             /* zero-length between instants */
    ck_assert_int_eq(ftio_bins_samples_mode(&b, NAN, NAN, FTIO_SAMPLING_HOLD, &x), 0);
    ck_assert_uint_eq(x.n, 10);
    ck_assert_double_eq(x.t0, 11);
    ck_assert_double_eq(x.t1, 21);
    const double want[10] = { 10, 10, 0, 1, 1, 3, 0, 8e6, 0, 7 };
    for (size_t k = 0; k < 10; k++)
        ck_assert_msg(fabs(x.x[k] - want[k]) <= 1e-6 * want[k],
                      "point %zu: %.12g, expected %.12g", k + 11, x.x[k], want[k]);
    /* Old point 3 (100 B/s) shared a slot with 13: it was cleared. */
    ck_assert_double_eq(x.x[2], 0);
    ck_assert_double_eq_tol(x.exact_volume, 10 + 10 + 2 + 3 + 8 + 8 + 7, 1e-9);

    /* A window inside the ring. */
    ck_assert_int_eq(ftio_bins_samples_mode(&b, 14, 16.5, FTIO_SAMPLING_HOLD, &x), 0);
    ck_assert_uint_eq(x.n, 2);
    ck_assert_double_eq(x.t0, 14);
    ck_assert_double_eq(x.x[0], 1);
    ck_assert_double_eq(x.x[1], 1);
    ck_assert_int_eq(ftio_bins_samples_mode(&b, 30, 40, FTIO_SAMPLING_HOLD, &x), -1);

    /* Far in the future: the ring slides past everything. */
    ftio_bins_add(&b, 1000, 1001, 1);
    ck_assert_int_eq(ftio_bins_samples_mode(&b, NAN, NAN, FTIO_SAMPLING_HOLD, &x), 0);
    ck_assert_uint_eq(x.n, 10);
    ck_assert_double_eq(x.t0, 991);
    for (size_t k = 0; k < 10; k++)
        ck_assert_double_eq(x.x[k], k == 9 ? 1 : 0);

    /* A partly wrapped slide keeps the newer points. */
    ftio_bins_add(&b, 1003, 1004.5, 3);           /* 2 B/s at 1003, 1004 */
    ck_assert_int_eq(b.first, 995);
    ck_assert_int_eq(ftio_bins_samples_mode(&b, NAN, NAN, FTIO_SAMPLING_HOLD, &x), 0);
    ck_assert_uint_eq(x.n, 10);
    for (size_t k = 0; k < 10; k++)
        ck_assert_double_eq(x.x[k], k == 5 ? 1 : (k == 8 || k == 9) ? 2 : 0);
    ftio_samples_free(&x);
    ftio_bins_free(&b);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("analysis-bins-hold", "bins-hold", &tc, tmio_hold_matches_offline,
                          tmio_average_form, hold_matches_offline_on_edges, points_ring_horizon);
    tcase_add_loop_test(tc, reference_rows_hold, 0, N_REFERENCE_ROWS);
    return s;
}
