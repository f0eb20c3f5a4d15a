/* SPDX-License-Identifier: BSD-3-Clause */
/* test_parity.c -- conversion parity (issue 10 item 3): one trace through
 * ftiod's path (wire decode -> job_merge(), predictor/daemon/job.c) and
 * through the offline path (spool reader, predictor/readers/spool_read.c) gives
 * the same requests, bit for bit, and the same counts of nested and bad
 * records.  Both paths use common/batch_requests.c; this test is what keeps
 * them from drifting apart again.
 *
 * The trace: 4 processes with different monotonic anchors and skews, batches
 * interleaved as the daemon receives them, reads, writes and metadata ops,
 * MPI-IO records with nested POSIX copies, zero-length requests, and the
 * hostile cases both must reject (absurd bytes, overflowing anchors, wall
 * times before 1970).  The daemon's stream keeps (ftio_stream_logged_record) what
 * it put into its bins; the offline trace holds the requests `ftio` analyses.
 */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/job.h"
#include "daemon/job_clock.h"
#include "trace.h"
#include "wire.h"
#include "batch_requests.h"
#include "../kit/xorshift.h"

#define SEC 1000000000ll
#define EPOCH 1763741234000000000ll
#define NPROC 4
#define NBATCH 6
#define NREC 64

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    return ftio_xorshift64(&rng);
}

static struct ftio_record data(int64_t ts, int64_t len, int64_t bytes, int op, int layer, int flags)
{
    struct ftio_record r;
    memset(&r, 0, sizeof r);
    r.t_start = (uint64_t)ts;
    r.t_end = (uint64_t)(ts + len);
    r.bytes = bytes;
    r.offset = -1;
    r.op = (uint8_t)op;
    r.layer = (uint8_t)layer;
    r.flags = (uint16_t)flags;
    return r;
}

/* Appends the trace to w.  earliest_first: the first batch holds the job's
 * earliest request (the shim's order); else a later batch does. */
static void make_trace(struct ftio_wbuf *w, bool earliest_first)
{
    static const char *const hosts[NPROC] = { "n0", "n0", "n1", "n1" };
    memset(w, 0, sizeof *w);
    struct ftio_record rec[2 * NREC + 4];   /* MPI-IO records come with a nested copy */
    for (int b = 0; b < NBATCH; b++)
        for (int p = 0; p < NPROC; p++) {
            int64_t mono = (int64_t)(p + 1) * 1000 * SEC + p * 12345;
            struct ftio_batch_header h = {
                .version = 1, .job = "par", .host = hosts[p], .pid = 100 + p, .rank = p,
                .nranks = NPROC, .seq = (uint64_t)b, .clock_mono = mono,
                .clock_real = EPOCH + p * (SEC / 3), .skew_ns = (p - 2) * 777777,
                .final = b == NBATCH - 1 };
            size_t n = 0;
            /* ~10 s per batch, from 1 s after the anchor; times within a batch
             * in any order */
            int64_t t0 = mono + SEC + (int64_t)b * 10 * SEC;
            for (int i = 0; i < NREC; i++) {
                int64_t ts = t0 + (int64_t)(next() % (10 * (uint64_t)SEC));
                int64_t len = (int64_t)(next() % (uint64_t)(SEC / 5));
                int64_t bytes = (int64_t)(next() % (64u << 20));
                unsigned kind = (unsigned)(next() % 8);
                if (kind == 0)
                    len = 0;                       /* zero-length: 1 us in the analysis */
                if (kind == 1) {                   /* MPI-IO with its nested POSIX half */
                    rec[n++] = data(ts, len, bytes, FTIO_OP_WRITE, FTIO_LAYER_MPIIO,
                                    FTIO_FLAG_COLLECTIVE);
                    rec[n++] = data(ts, len / 2, bytes / 2, FTIO_OP_WRITE, FTIO_LAYER_POSIX,
                                    FTIO_FLAG_NESTED);
                    continue;
                }
                int op = kind == 2 ? FTIO_OP_OPEN : kind < 5 ? FTIO_OP_READ : FTIO_OP_WRITE;
                rec[n++] = data(ts, len, bytes, op, kind == 3 ? FTIO_LAYER_STDIO : FTIO_LAYER_POSIX, 0);
            }
            if (b == 2)   /* absurd bytes: no call moves 2 PiB */
                rec[n++] = data(t0, SEC, 1ll << 51, FTIO_OP_WRITE, FTIO_LAYER_POSIX, 0);
            if (b == 0 && p == 0) {
                /* the job's earliest request: in this first batch, or moved
                 * to a late rank's last batch below */
                rec[n++] = data(mono + SEC / 2, SEC / 10, 4096, FTIO_OP_READ, FTIO_LAYER_POSIX, 0);
            }
            if (!earliest_first && b == NBATCH - 1 && p == NPROC - 1)
                rec[n++] = data(mono - 2 * SEC, SEC / 10, 4096, FTIO_OP_WRITE, FTIO_LAYER_POSIX, 0);
            ck_assert_int_eq(ftio_wire_encode(w, &h, rec, n), 0);
        }
    /* A process whose anchor overflows, one whose wall times precede 1970:
     * all their data records are bad, on both paths. */
    struct ftio_record r1[] = { data(5 * SEC, SEC, 100, FTIO_OP_WRITE, FTIO_LAYER_POSIX, 0),
                                data(5 * SEC, SEC, 0, FTIO_OP_CLOSE, FTIO_LAYER_POSIX, 0) };
    struct ftio_batch_header h = { .version = 1, .job = "par", .host = "bad", .pid = 1,
                                   .rank = -1, .clock_mono = INT64_MIN + 1,
                                   .clock_real = INT64_MAX - 1 };
    ck_assert_int_eq(ftio_wire_encode(w, &h, r1, 2), 0);
    h.pid = 2;
    h.clock_mono = 100 * SEC;
    h.clock_real = 1 * SEC;
    ck_assert_int_eq(ftio_wire_encode(w, &h, r1, 2), 0);
}

/* The daemon path: every batch decoded and merged, as ingest.c does. */
static struct job *daemon_path(const struct ftio_wbuf *w, struct job_limits *lim)
{
    job_limits_default(lim);
    struct job *j = job_new("par", lim);
    struct ftio_batch b;
    memset(&b, 0, sizeof b);
    char why[256];
    for (size_t off = 0; off < w->len;) {
        size_t used = 0;
        ck_assert_int_eq(ftio_wire_decode(w->data + off, w->len - off, &b, &used, why, sizeof why), 0);
        ck_assert_int_eq(job_merge(j, &b, lim, 1.0, EPOCH + 10000 * SEC), JOB_MERGED);
        off += used;
    }
    job_clock_settle(j, lim);   /* the job's end: batches held for their clock go in */
    ftio_batch_free(&b);
    return j;
}

static void offline_path(const struct ftio_wbuf *w, struct ftio_trace_set *set)
{
    struct ftio_read_options o;
    ftio_read_options_default(&o);
    char err[512] = "", warn[512] = "";
    memset(set, 0, sizeof *set);
    ck_assert_int_eq(ftio_trace_read_buffer(set, w->data, w->len, "parity.msgpack", &o, err,
                                            sizeof err, warn, sizeof warn), 0);
    ftio_trace_set_finish(set, &o);
    ck_assert_uint_eq(set->n, 1);
}

/* shift: offline time of the daemon's time 0 (0 when the origins agree). */
static void compare(const struct job *j, const struct ftio_trace *t, double shift, double tol)
{
    ck_assert_uint_eq(j->data_records, t->records);
    ck_assert_uint_eq(j->nested_records, t->dropped_nested);
    ck_assert_uint_eq(j->bad_records, t->bad_records);
    ck_assert_uint_eq(j->bad_records, 4 + 2);   /* 4 of 2 PiB, 2 with impossible clocks */
    ck_assert(j->nested_records > 0);
    const struct { int mode; const struct ftio_trace_dir *d; } dirs[] = {
        { JOB_WRITE, &t->write }, { JOB_READ, &t->read } };
    for (int k = 0; k < 2; k++) {
        const struct ftio_stream *m = j->mode[dirs[k].mode].stream;
        const struct ftio_requests *q = &dirs[k].d->req;
        ck_assert_int_eq(ftio_stream_logged(m), (long)q->n);
        ck_assert_uint_eq(ftio_stream_totals(m)->records, q->n);
        ck_assert_double_eq(ftio_stream_totals(m)->bytes, dirs[k].d->bytes);
        for (size_t i = 0; i < q->n; i++) {
            double ts, te, bytes;
            ck_assert_int_eq(ftio_stream_logged_record(m, i, &ts, &te, &bytes), 0);
            double rate = bytes / (te - ts);
            ts += shift;
            te += shift;
            if (tol == 0) {
                ck_assert_msg(ts == q->rec[i].t_start && te == q->rec[i].t_end,
                              "mode %d request %zu: daemon [%.17g, %.17g], offline [%.17g, %.17g]",
                              k, i, ts, te, q->rec[i].t_start, q->rec[i].t_end);
                ck_assert_msg(rate == q->rec[i].rate, "mode %d request %zu: rate %.17g vs %.17g", k,
                              i, rate, q->rec[i].rate);
            } else {
                ck_assert_double_eq_tol(ts, q->rec[i].t_start, tol);
                ck_assert_double_eq_tol(te, q->rec[i].t_end, tol);
                ck_assert_double_eq_tol(rate, q->rec[i].rate, fabs(rate) * 1e-6);
            }
        }
    }
}

/* One trace (make_trace) through both paths. */
struct both {
    struct ftio_wbuf w;
    struct job_limits lim;
    struct job *j;                     /* the daemon's */
    struct ftio_trace_set set;
    const struct ftio_trace *t;        /* the offline reader's */
};

static void both_paths(struct both *p, bool earliest_first)
{
    make_trace(&p->w, earliest_first);
    p->j = daemon_path(&p->w, &p->lim);
    offline_path(&p->w, &p->set);
    p->t = &p->set.job[0];
}

static void both_free(struct both *p)
{
    ftio_trace_set_free(&p->set);
    job_free(p->j);
    ftio_wbuf_free(&p->w);
}

START_TEST(test_same_requests_both_paths)
{
    struct both p;
    both_paths(&p, true);
    /* Same time 0 (the earliest start, in the first batch), same epoch. */
    ck_assert_double_eq(p.t->origin, (double)p.j->origin_ns / 1e9);
    compare(p.j, p.t, 0, 0);
    ck_assert_int_eq(p.t->ranks, NPROC + 2);
    both_free(&p);
}
END_TEST

/* The earliest request in a late batch: ftiod fixed time 0 on the first
 * batch, `ftio` moves it to the earliest request; the same requests, 2.5 s
 * (plus the anchors' offsets) apart. */
START_TEST(test_same_requests_late_earliest)
{
    struct both p;
    both_paths(&p, false);
    /* wall ns of the late rank's early write: anchor EPOCH + 3 * (SEC / 3),
     * skew +777777, 2 s before the anchor */
    int64_t earliest = EPOCH + 3 * (SEC / 3) + 777777 - 2 * SEC;
    double shift = ftio_job_seconds(p.j->origin_ns, earliest);
    ck_assert_double_eq_tol(p.t->origin, (double)earliest / 1e9, 1e-6);
    ck_assert(shift > 1.4 && shift < 1.6);
    compare(p.j, p.t, shift, 1e-9);
    both_free(&p);
}
END_TEST

/* The rules themselves, record by record (common/batch_requests.h). */
START_TEST(test_rules)
{
    struct ftio_convert_options o;
    ftio_convert_options_default(&o);
    struct ftio_batch_header h = { .clock_mono = 10 * SEC, .clock_real = EPOCH, .skew_ns = 5 };
    struct ftio_batch_clock c = ftio_batch_clock_of(&h);
    struct ftio_wall_request q;
    struct ftio_record r = data(11 * SEC, SEC, 10, FTIO_OP_WRITE, FTIO_LAYER_POSIX, 0);
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_DATA);
    ck_assert_int_eq(q.start_ns, EPOCH + SEC + 5);
    ck_assert_int_eq(q.end_ns, EPOCH + 2 * SEC + 5);
    ck_assert(q.is_write && q.bytes == 10);
    r.op = FTIO_OP_SYNC;
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_OTHER);
    r.op = FTIO_OP_READ;
    r.bytes = -1;
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    r.bytes = FTIO_MAX_REQUEST_BYTES;
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_DATA);
    r.bytes = FTIO_MAX_REQUEST_BYTES + 1;
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    r.bytes = 1;
    r.t_end = r.t_start - 1;                       /* end before start */
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    r.t_end = UINT64_MAX;                          /* overflows int64 */
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    r.t_end = r.t_start + SEC;
    o.latest_ns = EPOCH + 2 * SEC + 4;             /* ends 1 ns too late */
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    o.latest_ns = INT64_MAX;
    /* nested: counted at MPI-IO by default, at POSIX with keep_nested */
    struct ftio_record mpi = data(11 * SEC, SEC, 10, FTIO_OP_WRITE, FTIO_LAYER_MPIIO, 0);
    struct ftio_record nested = data(11 * SEC, SEC, 10, FTIO_OP_WRITE, FTIO_LAYER_POSIX,
                                     FTIO_FLAG_NESTED);
    ck_assert_int_eq(ftio_record_request(&mpi, c, &o, &q), FTIO_REQ_DATA);
    ck_assert_int_eq(ftio_record_request(&nested, c, &o, &q), FTIO_REQ_NESTED);
    o.keep_nested = true;
    ck_assert_int_eq(ftio_record_request(&mpi, c, &o, &q), FTIO_REQ_NESTED);
    ck_assert_int_eq(ftio_record_request(&nested, c, &o, &q), FTIO_REQ_DATA);
    o.keep_nested = false;
    /* clocks: an anchor that overflows, a wall time before 1970 */
    h.clock_real = INT64_MAX;
    h.clock_mono = -1;
    c = ftio_batch_clock_of(&h);
    ck_assert(!c.ok);
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    h.clock_real = SEC;
    h.clock_mono = 100 * SEC;
    c = ftio_batch_clock_of(&h);
    ck_assert(c.ok);
    ck_assert_int_eq(ftio_record_request(&r, c, &o, &q), FTIO_REQ_BAD);
    /* origin: earliest data start per direction */
    struct ftio_record rs[] = {
        data(30 * SEC, 1, 1, FTIO_OP_WRITE, FTIO_LAYER_POSIX, 0),
        data(20 * SEC, 1, 1, FTIO_OP_OPEN, FTIO_LAYER_POSIX, 0),
        data(21 * SEC, 1, 1, FTIO_OP_WRITE, FTIO_LAYER_POSIX, FTIO_FLAG_NESTED),
        data(25 * SEC, 1, 1, FTIO_OP_READ, FTIO_LAYER_POSIX, 0),
    };
    struct ftio_batch b = { .h = { .clock_mono = 0, .clock_real = EPOCH }, .n = 4, .rec = rs };
    int64_t any, f[2];
    ck_assert(ftio_batch_first_start(&b, &o, &any, f));
    ck_assert_int_eq(any, EPOCH + 25 * SEC);
    ck_assert_int_eq(f[0], EPOCH + 25 * SEC);
    ck_assert_int_eq(f[1], EPOCH + 30 * SEC);
    /* the same pass counts the data requests per direction (ftiod's record logs) */
    size_t count[2] = { 9, 9 };
    ck_assert(ftio_batch_survey(&b, &o, &any, f, count));
    ck_assert_int_eq(any, EPOCH + 25 * SEC);
    ck_assert_uint_eq(count[0], 1);
    ck_assert_uint_eq(count[1], 1);
    b.n = 3;
    rs[0].op = FTIO_OP_CLOSE;
    ck_assert(!ftio_batch_first_start(&b, &o, &any, f));
    ck_assert(!ftio_batch_survey(&b, &o, &any, f, count));
    ck_assert_uint_eq(count[0] + count[1], 0);
    ck_assert(ftio_job_seconds(EPOCH + 1500000000, EPOCH) == 1.5);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("parity", "conversion", NULL,
                      test_rules, test_same_requests_both_paths, test_same_requests_late_earliest);
}
