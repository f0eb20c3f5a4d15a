/* SPDX-License-Identifier: BSD-3-Clause */
/* test_forecast.c -- libftioforecast.a (predictor/forecast/): the phases
 * of a job described exactly from its records in any order (phase_track),
 * the machine forecast's arithmetic (forecast: volumes kept, shapes where
 * they must be, collisions found), and the duration model (duration: it
 * learns the effect of the load, predicts, and reports its own error). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../check_main.h"
#include "../kit/xorshift.h"
#include "forecast/duration.h"
#include "forecast/forecast.h"
#include "forecast/phase_track.h"
#include "record.h"

/* ---- phase_track ---------------------------------------------------------- */

/* A job of 6 processes, 5 phases 10 s apart.  Phase k: the processes
 * 0..(k % 3 + 3) - 1 write, process r 1 MiB x (r + 1) in 4 records over
 * 0.5 s to file 100 + r (and process 0 also to file 7, shared by all in
 * phase 2), each opens its file first and fsyncs it last (the fsync 0.8 s,
 * stretching the phase); process 0 stats a file between phases.  Records
 * of each process come in its order, the processes shuffled per phase. */
struct truth { uint32_t ranks, files, opens, syncs; double bytes, skew, start, end; };

static void feed_job(struct ftio_pt *t, long *proc, struct truth *tr, int phases, uint64_t *rng,
                     int settle_each)
{
    for (int k = 0; k < phases; k++) {
        int nr = k % 3 + 3;
        int order[6] = {0, 1, 2, 3, 4, 5};
        for (int i = 5; i > 0; i--) {
            int j = (int)(ftio_xorshift64(rng) % (uint64_t)(i + 1)), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        double t0 = 10.0 * k;
        struct truth w = { .start = INFINITY, .end = -INFINITY };
        for (int q = 0; q < 6; q++) {
            int r = order[q];
            if (r >= nr)
                continue;
            double s = t0 + 0.01 * r;
            ftio_pt_meta(t, (size_t)proc[r], FTIO_OP_OPEN, s - 0.001, s - 0.0005);
            double b = 1048576.0 * (r + 1);
            for (int i = 0; i < 4; i++)
                ftio_pt_data(t, (size_t)proc[r], FTIO_PT_WRITE, s + 0.125 * i, s + 0.125 * (i + 1),
                             b / 4, (uint32_t)(100 + r), 3);
            if (k == 2 && r == 0)
                ftio_pt_data(t, (size_t)proc[r], FTIO_PT_WRITE, s + 0.5, s + 0.55, 4096, 7, 3);
            ftio_pt_meta(t, (size_t)proc[r], FTIO_OP_SYNC, s + 0.5, s + 1.3);
            w.ranks++;
            w.bytes += b + (k == 2 && r == 0 ? 4096 : 0);
            w.skew = fmax(w.skew, b + (k == 2 && r == 0 ? 4096 : 0));
            w.files += 1 + (k == 2 && r == 0);
            w.opens++;
            w.syncs++;
            w.start = fmin(w.start, s - 0.001);
            w.end = fmax(w.end, s + 1.3);
        }
        ftio_pt_meta(t, (size_t)proc[0], FTIO_OP_STAT, t0 + 5, t0 + 5.001);
        tr[k] = w;
        if (k % settle_each == 0)
            ftio_pt_settle(t, FTIO_PT_WRITE, t0 + 9, ftio_pt_gap(t, 10, 1.3));
    }
    ftio_pt_settle(t, FTIO_PT_WRITE, INFINITY, ftio_pt_gap(t, 10, 1.3));
}

static void check_phases(const struct ftio_pt *t, const struct truth *tr, int phases)
{
    ck_assert_uint_eq(ftio_pt_count(t, FTIO_PT_WRITE), (size_t)phases);
    for (int k = 0; k < phases; k++) {
        const struct ftio_pt_phase *ph = ftio_pt_phase_at(t, FTIO_PT_WRITE, (size_t)k);
        ck_assert_uint_eq(ph->ranks, tr[k].ranks);
        ck_assert_uint_eq(ph->files, tr[k].files);
        ck_assert(ph->files_exact);
        ck_assert_uint_eq(ph->opens, tr[k].opens);
        ck_assert_uint_eq(ph->syncs, tr[k].syncs);
        ck_assert_double_eq_tol(ph->bytes, tr[k].bytes, 1e-6);
        ck_assert_double_eq_tol(ph->skew_bytes, tr[k].skew, 1e-6);
        ck_assert_double_eq_tol(ph->start, tr[k].start, 1e-9);
        ck_assert_double_eq_tol(ph->end, tr[k].end, 1e-9);
        ck_assert_uint_eq(ph->fs, 3);
        ck_assert_double_eq_tol(ph->fs_share, 1.0, 1e-12);
    }
    ck_assert_uint_eq(ftio_pt_count(t, FTIO_PT_READ), 0);
}

START_TEST(phases_exact)
{
    struct truth tr[5];
    uint64_t rng = 7;
    /* ftiod settles at every boundary; here after each phase, or every
     * other phase (two phases' segments pending per process). */
    for (int settle_each = 1; settle_each <= 2; settle_each++) {
        struct ftio_pt t;
        ftio_pt_init(&t, 0.2);
        long proc[6];
        for (int r = 0; r < 6; r++)
            proc[r] = ftio_pt_proc_add(&t);
        feed_job(&t, proc, tr, 5, &rng, settle_each);
        check_phases(&t, tr, 5);
        /* The stats between phases are not in any phase. */
        ck_assert_uint_ge(t.meta_between, 4);
        ftio_pt_free(&t);
    }
}
END_TEST

/* A phase described before its last fsync arrived (the process was still
 * in it): the fsync, arriving late, stretches it; the phase is confirmed
 * once each of its processes moved on. */
START_TEST(phases_late_sync_and_confirmation)
{
    struct ftio_pt t;
    ftio_pt_init(&t, 0.2);
    long a = ftio_pt_proc_add(&t), b = ftio_pt_proc_add(&t);
    ftio_pt_data(&t, (size_t)a, FTIO_PT_WRITE, 0, 1, 100, 1, 0);
    ftio_pt_data(&t, (size_t)b, FTIO_PT_WRITE, 0.1, 0.9, 50, 2, 0);
    ftio_pt_meta(&t, (size_t)b, FTIO_OP_SYNC, 0.9, 1.2);
    ck_assert_int_eq(ftio_pt_settle(&t, FTIO_PT_WRITE, 4, 1.0), 1);
    const struct ftio_pt_phase *ph = ftio_pt_phase_at(&t, FTIO_PT_WRITE, 0);
    ck_assert_double_eq_tol(ph->end, 1.2, 1e-12);
    ck_assert(!ph->confirmed);
    ck_assert_ptr_null(ftio_pt_take_confirmed(&t, FTIO_PT_WRITE, INFINITY));
    /* a's fsync, 3 s long, arrives now */
    ftio_pt_meta(&t, (size_t)a, FTIO_OP_SYNC, 1.0, 4.0);
    ck_assert_double_eq_tol(ph->end, 4.0, 1e-12);
    ck_assert_uint_eq(ph->syncs, 2);
    ck_assert_uint_eq(ph->ranks, 2);
    ck_assert_double_eq_tol(ph->skew_bytes, 100, 1e-12);
    /* both move on: the next phase */
    ftio_pt_data(&t, (size_t)a, FTIO_PT_WRITE, 10, 11, 100, 1, 0);
    ck_assert(!ph->confirmed);
    ftio_pt_data(&t, (size_t)b, FTIO_PT_WRITE, 10, 11, 50, 2, 0);
    ck_assert(ph->confirmed);
    ck_assert_ptr_eq(ftio_pt_take_confirmed(&t, FTIO_PT_WRITE, INFINITY), ph);
    ck_assert_ptr_null(ftio_pt_take_confirmed(&t, FTIO_PT_WRITE, INFINITY));
    /* A late data record of the described phase (a slow rank's batch). */
    long c = ftio_pt_proc_add(&t);
    ftio_pt_data(&t, (size_t)c, FTIO_PT_WRITE, 0.5, 0.7, 300, 3, 0);
    ck_assert_uint_eq(ph->ranks, 3);
    ck_assert_double_eq_tol(ph->skew_bytes, 300, 1e-12);
    ck_assert_double_eq_tol(ph->bytes, 450, 1e-12);
    ftio_pt_free(&t);
}
END_TEST

/* Memory does not grow with the records: a process writing 100,000
 * records in 1,000 phases, described every other phase, keeps room for
 * FTIO_PT_SEGS segments and the ring FTIO_PT_HISTORY phases, each described
 * exactly; 200 phases without a description in between (a replay) take
 * at most FTIO_PT_SEGS_MAX. */
START_TEST(phases_bounded)
{
    struct ftio_pt t;
    ftio_pt_init(&t, 0.2);
    long p = ftio_pt_proc_add(&t);
    size_t before = ftio_pt_memory(&t);
    for (int k = 0; k < 1000; k++) {
        for (int i = 0; i < 100; i++)
            ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 5.0 * k + 0.01 * i,
                         5.0 * k + 0.01 * (i + 1), 10, (uint32_t)(k + 1), 0);
        ck_assert_uint_le(t.proc[p].nseg, FTIO_PT_SEGS_MAX);
        if (k % 2 == 1)
            ftio_pt_settle(&t, FTIO_PT_WRITE, 5.0 * k + 4, 1.0);
    }
    ftio_pt_settle(&t, FTIO_PT_WRITE, INFINITY, 1.0);
    ck_assert_uint_eq(ftio_pt_memory(&t), before + FTIO_PT_SEGS * sizeof(struct ftio_pt_seg));
    for (int k = 1000; k < 1200; k++)
        ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 5.0 * k, 5.0 * k + 1, 10, 1, 0);
    ck_assert_uint_eq(t.proc[p].nseg, FTIO_PT_SEGS_MAX);
    ck_assert_uint_eq(ftio_pt_memory(&t), before + FTIO_PT_SEGS_MAX * sizeof(struct ftio_pt_seg));
    ck_assert_uint_eq(ftio_pt_count(&t, FTIO_PT_WRITE), FTIO_PT_HISTORY);
    const struct ftio_pt_phase *last = ftio_pt_phase_at(&t, FTIO_PT_WRITE, FTIO_PT_HISTORY - 1);
    ck_assert_uint_eq(last->seq, 1000);
    ck_assert_double_eq_tol(last->bytes, 1000, 1e-9);
    ck_assert_uint_eq(last->records, 100);
    ck_assert_uint_eq(last->files, 1);
    struct ftio_pt_phase typ;
    ck_assert(ftio_pt_typical(&t, FTIO_PT_WRITE, 16, NAN, &typ));
    ck_assert_double_eq_tol(typ.end - typ.start, 1.0, 1e-9);
    ftio_pt_free(&t);
}
END_TEST

/* Its write segment that starts at ts, or NULL. */
static const struct ftio_pt_seg *write_at(const struct ftio_pt *t, long p, double ts)
{
    const struct ftio_pt_proc *P = &t->proc[p];
    for (size_t k = 0; k < P->nseg; k++)
        if (P->seg[k].mode == FTIO_PT_WRITE && P->seg[k].ts == ts)
            return &P->seg[k];
    return NULL;
}

/* After a full set's new segment: still full, in start order, holding
 * `bytes` (1 per record: none lost), and its write from ts to te merged of
 * `records` records. */
static const struct ftio_pt_seg *merged(const struct ftio_pt *t, long p, double bytes, double ts,
                                        double te, uint32_t records)
{
    const struct ftio_pt_proc *P = &t->proc[p];
    ck_assert_uint_eq(P->nseg, FTIO_PT_SEGS_MAX);
    double sum = 0;
    for (size_t k = 0; k < P->nseg; k++) {
        if (k > 0)
            ck_assert(P->seg[k - 1].ts <= P->seg[k].ts);
        sum += P->seg[k].bytes;
    }
    ck_assert_double_eq(sum, bytes);
    const struct ftio_pt_seg *s = write_at(t, p, ts);
    ck_assert_ptr_nonnull(s);
    ck_assert_double_eq(s->te, te);
    ck_assert_uint_eq(s->records, records);
    return s;
}

/* A full set's new segment merges the two closest of one mode, whichever
 * they are (two others, the new one into the one before it, the next into
 * the new one), and leaves the set in start order, also after a record
 * moved a start below the one before it; no byte is lost. */
START_TEST(phases_full_set)
{
    struct ftio_pt t;
    ftio_pt_init(&t, 0.2);
    long p = ftio_pt_proc_add(&t);
    /* 64 segments of 1 s every 10 s, writes and reads alternating (a gap of
     * 19 s to the next of one's mode), but the write at 420 s comes at 412. */
    for (int k = 0; k < FTIO_PT_SEGS_MAX; k++) {
        double ts = k == 42 ? 412 : 10.0 * k;
        ftio_pt_data(&t, (size_t)p, k % 2 ? FTIO_PT_READ : FTIO_PT_WRITE, ts, ts + 1, 1,
                     (uint32_t)(k + 1), 0);
    }
    ck_assert_uint_eq(t.proc[p].nseg, FTIO_PT_SEGS_MAX);
    /* Two others: 400-401 and 412-413 (11 s apart). */
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 1000, 1000.5, 1, 100, 0);
    ck_assert_uint_eq(merged(&t, p, 65, 400, 413, 2)->nfid, 2);
    ck_assert_ptr_nonnull(write_at(&t, p, 1000));
    /* A record that joins the write at 200 s moves its start below the
     * read at 190 s; the next new segment merges it with the write at 180 s
     * (now 8 s apart) and the set is in start order again. */
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 189, 199.9, 1, 21, 0);
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 2000, 2001, 1, 101, 0);
    merged(&t, p, 67, 180, 201, 3);
    /* The new one into the one before it: 505 s, 4 s after the write at 500. */
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 505, 505.5, 1, 51, 0);
    ck_assert_uint_eq(merged(&t, p, 68, 500, 505.5, 2)->nfid, 1);
    /* The next into the new one: 517-518.5, 1.5 s before the write at 520;
     * a record of it afterwards joins the merged segment. */
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 517, 518.5, 1, 7, 0);
    const struct ftio_pt_seg *s = merged(&t, p, 69, 517, 521, 2);
    ck_assert_ptr_null(write_at(&t, p, 520));
    ftio_pt_data(&t, (size_t)p, FTIO_PT_WRITE, 519, 519.5, 1, 7, 0);
    ck_assert_uint_eq(s->records, 3);
    ck_assert_uint_eq(t.proc[p].nseg, FTIO_PT_SEGS_MAX);
    /* Every one described, every byte in a phase. */
    ftio_pt_settle(&t, FTIO_PT_WRITE, INFINITY, 1.0);
    ftio_pt_settle(&t, FTIO_PT_READ, INFINITY, 1.0);
    ck_assert_uint_eq(t.proc[p].nseg, 0);
    ftio_pt_free(&t);
}
END_TEST

/* One settle over 20,000 segments (500 processes, 40 phases 3 s apart)
 * whose starts bunch at each phase's start (0.5 s x u^8): the settle's
 * sort spreads crowded buckets again down to its deepest level, over one
 * scratch of counts; every phase comes out whole, as the records say
 * (the ring keeps the newest FTIO_PT_HISTORY). */
START_TEST(phases_many_bunched)
{
    enum { PROCS = 500, PHASES = 40 };
    struct ftio_pt t;
    ftio_pt_init(&t, 0.2);
    long proc[PROCS];
    for (int r = 0; r < PROCS; r++)
        proc[r] = ftio_pt_proc_add(&t);
    double start[PHASES], end[PHASES];
    uint64_t rng = 11;
    for (int k = 0; k < PHASES; k++) {
        start[k] = INFINITY;
        end[k] = -INFINITY;
        for (int r = 0; r < PROCS; r++) {
            double u = (double)(ftio_xorshift64(&rng) >> 11) / 9007199254740992.0;
            double ts = 3.0 * k + 0.5 * pow(u, 8), te = ts + 0.25;
            ftio_pt_data(&t, (size_t)proc[r], FTIO_PT_WRITE, ts, te, 1000 + r, (uint32_t)(r + 1), 0);
            start[k] = fmin(start[k], ts);
            end[k] = fmax(end[k], te);
        }
    }
    ck_assert_int_eq(ftio_pt_settle(&t, FTIO_PT_WRITE, INFINITY, 1.0), PHASES);
    ck_assert_uint_eq(ftio_pt_count(&t, FTIO_PT_WRITE), FTIO_PT_HISTORY);   /* the newest kept */
    for (int k = PHASES - FTIO_PT_HISTORY; k < PHASES; k++) {
        const struct ftio_pt_phase *ph =
            ftio_pt_phase_at(&t, FTIO_PT_WRITE, (size_t)(k - (PHASES - FTIO_PT_HISTORY)));
        ck_assert_uint_eq(ph->seq, (uint64_t)k + 1);
        ck_assert_uint_eq(ph->ranks, PROCS);
        ck_assert_uint_eq(ph->records, PROCS);
        ck_assert_uint_eq(ph->files, PROCS);
        ck_assert_double_eq(ph->bytes, 1000.0 * PROCS + PROCS * (PROCS - 1) / 2.0);
        ck_assert_double_eq(ph->start, start[k]);
        ck_assert_double_eq(ph->end, end[k]);
    }
    for (int r = 0; r < PROCS; r++)
        ck_assert_uint_eq(t.proc[proc[r]].nseg, 0);
    ftio_pt_free(&t);
}
END_TEST

/* ---- forecast ------------------------------------------------------------- */

static double total(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

START_TEST(forecast_shapes)
{
    struct ftio_fc f = { 0 };
    /* One certain phase on whole seconds: exactly its rate there. */
    struct ftio_fc_train one = { .job = 1, .fs = 0, .mode = 0, .start = 1010, .period = 0,
                                 .duration = 4, .bytes = 400 };
    ck_assert_int_eq(ftio_fc_compute(&f, &one, 1, 1, 1000, 30, 8, 0.5), 0);
    const double *w = ftio_fc_rate(&f, 0, 0);
    for (size_t k = 0; k < 30; k++) {
        double want = k >= 10 && k < 14 ? 100 : 0;
        /* the least uncertainty (0.05 s) smears 1/8 of a step at each edge */
        ck_assert_double_eq_tol(w[k], want, 100 * 0.2);
    }
    ck_assert_double_eq_tol(total(w, 30), 400, 1e-6);
    ck_assert_double_eq_tol(ftio_fc_active(&f, 0, 0)[11], 1.0, 1e-9);
    ck_assert_double_eq_tol(total(ftio_fc_rate(&f, 0, 1), 30), 0, 1e-12);

    /* A train with jitter and a confidence below 1 keeps its volume: over a
     * horizon holding n whole periods after the first start, n phases. */
    struct ftio_fc_train tr = { .job = 2, .fs = 0, .mode = 0, .start = 1005.3, .period = 10,
                                .duration = 2, .bytes = 1000, .confidence = 0.7, .jitter = 0.8,
                                .cv = 0.02 };
    ck_assert_int_eq(ftio_fc_compute(&f, &tr, 1, 1, 1000, 600, 8, 0.5), 0);
    w = ftio_fc_rate(&f, 0, 0);
    /* the first 50 periods after the start, well inside the horizon */
    double v = 0;
    for (size_t k = 5; k < 505; k++)
        v += w[k];
    ck_assert_double_eq_tol(v, 50 * 1000, 50 * 1000 * 0.02);
    /* the expected number of jobs in a phase stays within [0, 1] */
    for (size_t k = 0; k < 600; k++)
        ck_assert(ftio_fc_active(&f, 0, 0)[k] >= 0 && ftio_fc_active(&f, 0, 0)[k] <= 1 + 1e-9);
    ftio_fc_free(&f);
}
END_TEST

START_TEST(forecast_collisions)
{
    struct ftio_fc f = { 0 };
    /* Two jobs on fs 0 every 20 s and 30 s: their phases meet every 60 s;
     * a third on fs 1 meets nobody. */
    struct ftio_fc_train tr[3] = {
        { .job = 1, .fs = 0, .mode = 0, .start = 1000, .period = 20, .duration = 3, .bytes = 30,
          .confidence = 0.99 },
        { .job = 2, .fs = 0, .mode = 0, .start = 1001, .period = 30, .duration = 3, .bytes = 30,
          .confidence = 0.99 },
        { .job = 3, .fs = 1, .mode = 0, .start = 1000, .period = 20, .duration = 3, .bytes = 30,
          .confidence = 0.99 },
    };
    ck_assert_int_eq(ftio_fc_compute(&f, tr, 3, 2, 1000, 180, 64, 0.5), 0);
    /* overlaps start at 1001, 1061, 1121 (job 2 starts 1 s after job 1) */
    ck_assert_uint_eq(f.ncoll_total, 3);
    ck_assert_uint_eq(f.ncoll, 3);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(f.coll[i].start, 1001 + 60.0 * (double)i, 1e-9);
        ck_assert_double_eq_tol(f.coll[i].end, 1003 + 60.0 * (double)i, 1e-9);
        ck_assert_uint_eq(f.coll[i].fs, 0);
        ck_assert_double_eq_tol(f.coll[i].bytes[0], 20, 1e-9);
        ck_assert_double_eq_tol(f.coll[i].p, 0.99 * 0.99, 1e-12);
    }
    /* The aggregate of fs 0 is the sum of its two trains. */
    double m = ftio_fc_mean(&f, 0, 1000, 1180);
    ck_assert_double_eq_tol(m, (9 * 30 + 6 * 30) / 180.0, 0.05 * m);
    ck_assert_double_eq_tol(ftio_fc_train_mean(&tr[0], 1000, 1180), 9 * 30 * 0.99 / 180.0, 1e-9);
    ftio_fc_free(&f);
}
END_TEST

/* 10,000 trains over 10 minutes: the forecast is linear in what it sums. */
START_TEST(forecast_many)
{
    uint64_t rng = 3;
    size_t n = 10000;
    struct ftio_fc_train *tr = calloc(n, sizeof *tr);
    double want = 0;
    for (size_t i = 0; i < n; i++) {
        double T = 10 * exp(4 * (double)(ftio_xorshift64(&rng) % 1000) / 1000.0);
        tr[i] = (struct ftio_fc_train){ .job = (uint32_t)i, .fs = (uint16_t)(i % 4), .mode = 0,
                                        .start = 1000 + T * 0.5, .period = T, .duration = T / 8,
                                        .bytes = 1e6, .confidence = 0.9, .jitter = 0.5,
                                        .cv = 0.05 };
        want += 1e6 / T;
    }
    struct ftio_fc f = { 0 };
    ck_assert_int_eq(ftio_fc_compute(&f, tr, n, 4, 1000, 600, 64, 0.5), 0);
    /* Late in the horizon every train contributes its mean rate. */
    double late = 0;
    for (size_t fs = 0; fs < 4; fs++)
        for (size_t k = 500; k < 600; k++)
            late += ftio_fc_rate(&f, fs, 0)[k] / 100;
    ck_assert_double_eq_tol(late, want, 0.15 * want);
    ck_assert_uint_le(f.ncoll, 4 * 64);
    ck_assert_uint_gt(f.ncoll_total, f.ncoll);
    ftio_fc_free(&f);
    free(tr);
}
END_TEST

/* ---- duration model ------------------------------------------------------- */

/* Jobs of different speeds (alone: d0 = bytes / R_j) writing phases on a
 * shared file system; a phase's duration is d0 (1 + L / R_j) times a noise
 * of 5 %, L the others' load while it runs.  The model must learn the
 * effect of the load (its weight near 1), predict a loaded phase far better
 * than the job's median, and say how wrong it has been. */
START_TEST(duration_learns)
{
    struct ftio_dm_fit site;
    ftio_dm_fit_init(&site);
    enum { JOBS = 6, PHASES = 60 };
    struct ftio_dm_job job[JOBS];
    memset(job, 0, sizeof job);
    uint64_t rng = 11;
    double err_model = 0, err_base = 0;
    size_t scored = 0;
    for (int k = 0; k < PHASES; k++)
        for (int j = 0; j < JOBS; j++) {
            double R = 1e8 * (1 + j), bytes = 1e9 * (1 + j % 3);
            /* a third of the phases alone, the rest under a load of 0.5 .. 3 R */
            double u = (double)(ftio_xorshift64(&rng) % 1000) / 1000.0;
            double L = u < 0.33 ? 0 : R * (0.5 + 2.5 * u);
            double noise = 1 + 0.05 * ((double)(ftio_xorshift64(&rng) % 2001) / 1000.0 - 1);
            double d = bytes / R * (1 + L / R) * noise;
            struct ftio_dm_phase p = { .bytes = bytes, .ranks = 4, .skew_bytes = bytes / 4,
                                       .files = 4, .load = L };
            if (k >= 40 && L > 0) {
                struct ftio_dm_prediction pr;
                ftio_dm_predict(&site, NULL, &job[j], &p, &pr);
                ck_assert(pr.valid);
                ftio_dm_expect(&job[j], 100.0 * k, &pr, 5);
                double was;
                ck_assert(ftio_dm_score(&site, NULL, &job[j], 100.0 * k + 0.5, d, 5, &was));
                ck_assert_double_eq_tol(was, L, 1e-9);
                err_model += fabs(pr.median / d - 1);
                /* the baseline: the median of the job's past phases */
                double ys[FTIO_DM_JOB];
                for (size_t q = 0; q < job[j].n; q++)
                    ys[q] = exp(job[j].y[q]);
                for (size_t a = 1; a < job[j].n; a++)
                    for (size_t b = a; b > 0 && ys[b] < ys[b - 1]; b--) {
                        double x = ys[b];
                        ys[b] = ys[b - 1];
                        ys[b - 1] = x;
                    }
                double med = job[j].n % 2 ? ys[job[j].n / 2]
                                          : 0.5 * (ys[job[j].n / 2 - 1] + ys[job[j].n / 2]);
                err_base += fabs(med / d - 1);
                scored++;
            }
            ftio_dm_learn(&site, NULL, &job[j], &p, d);
        }
    ck_assert_uint_gt(scored, 50);
    err_model /= (double)scored;
    err_base /= (double)scored;
    ck_assert_double_eq_tol(site.w[FTIO_DM_LOAD], 1.0, 0.2);
    ck_assert_msg(err_model < 0.1 && err_model < 0.5 * err_base,
                  "model error %.3f, baseline %.3f", err_model, err_base);
    /* Its own report: the error of the scored predictions and the coverage
     * of its interval. */
    struct ftio_dm_phase p = { .bytes = 1e9, .ranks = 4, .skew_bytes = 2.5e8, .files = 4,
                               .load = 1e8 };
    struct ftio_dm_prediction pr;
    ftio_dm_predict(&site, NULL, &job[0], &p, &pr);
    ck_assert(pr.valid && pr.low <= pr.median && pr.median <= pr.high);
    ck_assert_uint_eq(pr.scored, scored);
    ck_assert(pr.error > 0 && pr.error < 0.1);
    ck_assert(pr.coverage >= 0.7 && pr.coverage <= 1.0);
    ck_assert_double_eq_tol(pr.median, 10 * 2 * 1.0, 2);   /* d0 = 10 s, x (1 + 1) */
    /* A job alone: what its own past phases say (no load in sight). */
    struct ftio_dm_job alone;
    memset(&alone, 0, sizeof alone);
    double ds[5] = { 10, 11, 9, 10.5, 9.5 };
    for (int k = 0; k < 5; k++) {
        struct ftio_dm_phase q = { .bytes = 1e9, .ranks = 4, .skew_bytes = 2.5e8, .files = 4 };
        ftio_dm_learn(&site, NULL, &alone, &q, ds[k]);
    }
    struct ftio_dm_phase q = { .bytes = 1e9, .ranks = 4, .skew_bytes = 2.5e8, .files = 4 };
    ftio_dm_predict(&site, NULL, &alone, &q, &pr);
    ck_assert_double_eq_tol(pr.median, 10, 1e-9);
    /* A phase unlike any it had (1,000 times the bytes): no prediction,
     * rather than the bytes' weight extrapolated 7 e-folds. */
    q.bytes = 1e12;
    ftio_dm_predict(&site, NULL, &alone, &q, &pr);
    ck_assert(!pr.valid);
}
END_TEST

Suite *ftio_test_suite(void)
{
    Suite *s = suite_create("forecast");
    FTIO_TCASE(s, "phases", phases_exact, phases_late_sync_and_confirmation, phases_bounded,
               phases_full_set, phases_many_bunched);
    FTIO_TCASE(s, "forecast", forecast_shapes, forecast_collisions, forecast_many);
    FTIO_TCASE(s, "duration", duration_learns);
    return s;
}
