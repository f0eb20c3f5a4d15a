/* SPDX-License-Identifier: BSD-3-Clause */
/* test_job.c -- Check unit tests of ftiod's per-job state (predictor/daemon/job.c):
 * sequence gaps and their late filling, duplicates, nested de-duplication,
 * the time base, each mode's grid and record log, and the bounds
 * (processes, horizon, hostile times); ranks declared after the first batch;
 * step-qualified job ids (common/jobid.c). */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/job.h"
#include "daemon/job_clock.h"
#include "jobid.h"

#define MONO 1000000000ll
#define REAL 1700000000000000000ll
#define NOW_REAL (REAL + 100ll * 1000000000ll)

static struct job_limits lim;
static struct ftio_record rec[8];
static size_t nrec;

static bool settle_each;

static void setup(void)
{
    settle_each = true;
    job_limits_default(&lim);
    lim.horizon = 100;
    nrec = 0;
}

/* A write of `bytes` over [ts, te] seconds after the anchor. */
static void add_rec(int op, double ts, double te, int64_t bytes, int flags)
{
    rec[nrec++] = (struct ftio_record){
        .t_start = (uint64_t)(MONO + (int64_t)llround(ts * 1e9)),
        .t_end = (uint64_t)(MONO + (int64_t)llround(te * 1e9)),
        .offset = -1, .bytes = bytes, .op = (uint8_t)op, .flags = (uint16_t)flags};
}

/* The header fields a test varies, and the receive time; merge() sends the
 * pending records (rec[0..nrec)) in one batch of job j with them. */
struct hdr {
    const char *host;
    int64_t pid, born;
    uint64_t seq;
    int32_t rank, nranks;
    int mpi;
    bool final;
    int64_t mono, real, recv, skew;
    uint64_t lost;
    bool has_unseen;
    uint64_t unseen_read, unseen_write;
};

/* Batches whose anchors are behind the receive time (most tests here send
 * old batches) wait for their clock to be decided (job_clock.c); the tests
 * that are not about clocks merge them at once (settle_each), as a job's end
 * does. */

static enum job_merge_status merge(struct job *j, struct hdr h)
{
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = j->id, .host = h.host, .pid = h.pid,
                                     .born = h.born, .rank = h.rank, .nranks = h.nranks, .seq = h.seq,
                                     .clock_mono = h.mono, .clock_real = h.real, .skew_ns = h.skew,
                                     .final = h.final, .mpi = h.mpi, .lost = h.lost,
                                     .has_unseen = h.has_unseen, .unseen_read = h.unseen_read,
                                     .unseen_write = h.unseen_write};
    b.n = nrec;
    b.rec = rec;
    enum job_merge_status st = job_merge(j, &b, &lim, 1.0, h.recv);
    if (settle_each)
        job_clock_settle(j, &lim);
    nrec = 0;
    return st;
}

/* A batch of a process without MPI, anchored at (MONO, REAL), received now. */
static enum job_merge_status send(struct job *j, const char *host, int64_t pid, uint64_t seq,
                                  bool final)
{
    return merge(j, (struct hdr){.host = host, .pid = pid, .seq = seq, .rank = -1, .final = final,
                                 .mono = MONO, .real = REAL, .recv = NOW_REAL});
}

/* The records no job counts: one longer than the horizon, one far in the
 * future, one whose times overflow (after one good record at [0, 1]). */
static void add_hostile_recs(void)
{
    add_rec(FTIO_OP_WRITE, 0.0, 1.0, 100, 0);
    add_rec(FTIO_OP_WRITE, 1.0, 500.0, 100, 0);         /* longer than the horizon */
    add_rec(FTIO_OP_WRITE, 1e6, 1e6 + 1, 100, 0);        /* far in the future */
    rec[nrec++] = (struct ftio_record){.t_start = UINT64_MAX - 5, .t_end = UINT64_MAX,
                                       .bytes = 1, .op = FTIO_OP_WRITE};   /* overflow */
}

static double bins_total(const struct job_mode_state *m)
{
    return ftio_stream_bytes(m->stream, -1, -INFINITY, INFINITY);
}

static const struct ftio_stream_totals *tot(const struct job *j, int mode)
{
    return job_mode_totals(&j->mode[mode]);
}

/* The bins of a mode hold `bytes`: every counted byte, and no other. */
static void assert_binned(const struct job_mode_state *m, double bytes)
{
    ck_assert_double_eq_tol(bins_total(m), bytes, 1e-6);
}

START_TEST(test_sequence_gaps_and_late_fill)
{
    struct job *j = job_new("j", &lim);
    ck_assert_int_eq(send(j, "a", 1, 0, false), JOB_MERGED);
    ck_assert_int_eq(send(j, "a", 1, 1, false), JOB_MERGED);
    ck_assert_uint_eq(j->lost_batches, 0);
    ck_assert_int_eq(send(j, "a", 1, 5, false), JOB_MERGED);   /* 2,3,4 missing */
    ck_assert_uint_eq(j->lost_batches, 3);
    ck_assert_int_eq(send(j, "a", 1, 3, false), JOB_MERGED);   /* late: fills a gap */
    ck_assert_uint_eq(j->lost_batches, 2);
    ck_assert_uint_eq(j->recovered_batches, 1);
    ck_assert_int_eq(send(j, "a", 1, 3, false), JOB_DUPLICATE);
    ck_assert_int_eq(send(j, "a", 1, 1, false), JOB_DUPLICATE);
    ck_assert_uint_eq(j->dup_batches, 2);
    ck_assert_int_eq(send(j, "a", 1, 2, false), JOB_MERGED);
    ck_assert_int_eq(send(j, "a", 1, 4, false), JOB_MERGED);
    ck_assert_uint_eq(j->lost_batches, 0);
    /* Sequences are per process: another pid on the same host starts at 0. */
    ck_assert_int_eq(send(j, "a", 2, 0, false), JOB_MERGED);
    ck_assert_int_eq(send(j, "b", 1, 0, false), JOB_MERGED);
    ck_assert_uint_eq(j->nprocs, 3);
    ck_assert_uint_eq(j->lost_batches, 0);
    job_free(j);
}
END_TEST

/* A batch of one written byte per seq from (host "h", pid 7, born), received now. */
static enum job_merge_status send_born(struct job *j, int64_t born, uint64_t seq, bool final)
{
    add_rec(FTIO_OP_WRITE, (double)seq, (double)seq + 0.5, 1, 0);
    return merge(j, (struct hdr){.host = "h", .pid = 7, .born = born, .seq = seq, .rank = -1,
                                 .final = final, .mono = MONO, .real = REAL, .recv = NOW_REAL});
}

/* Two processes with one pid, one after the other (pid wrap, a batch
 * script's thousandth command): the second is another process, its batches
 * from seq 0 merged, not dropped as duplicates of the first's. */
START_TEST(test_reused_pid_is_another_process)
{
    struct job *j = job_new("j", &lim);
    for (uint64_t s = 0; s < 3; s++)
        ck_assert_int_eq(send_born(j, 1000, s, s == 2), JOB_MERGED);
    ck_assert_uint_eq(j->nfinal, 1);
    for (uint64_t s = 0; s < 3; s++)
        ck_assert_int_eq(send_born(j, 2000, s, false), JOB_MERGED);
    ck_assert_uint_eq(j->nprocs, 2);
    ck_assert_uint_eq(j->dup_batches, 0);
    ck_assert_uint_eq(j->lost_batches, 0);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->bytes, 6, 1e-9);
    ck_assert(!job_all_final(j));                       /* the second one runs */
    /* Each process keeps its own sequence: a copy is still a duplicate. */
    ck_assert_int_eq(send_born(j, 2000, 1, false), JOB_DUPLICATE);
    ck_assert_int_eq(send_born(j, 1000, 1, false), JOB_DUPLICATE);
    ck_assert_int_eq(send_born(j, 2000, 3, true), JOB_MERGED);
    ck_assert(job_all_final(j));
    ck_assert_ptr_nonnull(job_find_proc(j, "h", 7, 1000));
    ck_assert_ptr_nonnull(job_find_proc(j, "h", 7, 2000));
    ck_assert_ptr_null(job_find_proc(j, "h", 7, 3000));
    ck_assert_ptr_null(job_find_proc(j, "h", 8, 2000));
    /* A sender without `born` (0): the pid alone, as before. */
    ck_assert_ptr_nonnull(job_find_proc(j, "h", 7, 0));
    ck_assert_uint_eq(j->dup_batches, 2);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->bytes, 7, 1e-9);
    job_free(j);
}
END_TEST

/* An older sender's process (born 0) takes the born of its first batch that
 * has one; a process with another born is new. */
START_TEST(test_born_from_older_sender)
{
    struct job *j = job_new("j", &lim);
    ck_assert_int_eq(send_born(j, 0, 0, false), JOB_MERGED);
    ck_assert_int_eq(send_born(j, 500, 1, false), JOB_MERGED);   /* the same stream */
    ck_assert_uint_eq(j->nprocs, 1);
    ck_assert_int_eq(send_born(j, 600, 0, false), JOB_MERGED);   /* another process */
    ck_assert_uint_eq(j->nprocs, 2);
    ck_assert_uint_eq(j->dup_batches, 0);
    job_free(j);
}
END_TEST

/* job_rerun: an ended job whose (host, pid) comes back with another born is
 * a new run under its id; the same process's late batch, or one of a job
 * still being revised or held, is not. */
START_TEST(test_rerun_of_an_ended_job)
{
    struct job *j = job_new("h-7", &lim);
    ck_assert_int_eq(send_born(j, 1000, 0, true), JOB_MERGED);
    struct ftio_batch_header again = {.version = 1, .job = "h-7", .host = "h", .pid = 7,
                                      .born = 2000, .rank = -1};
    struct ftio_batch_header late = again, other = again, old = again;
    late.born = 1000;
    other.pid = 8;
    old.born = 0;
    ck_assert(!job_rerun(j, &again));                   /* not ended yet: a new process */
    j->closed = true;
    ck_assert(job_rerun(j, &again));
    ck_assert(!job_rerun(j, &late));                    /* its own late batch */
    ck_assert(!job_rerun(j, &other));                   /* another pid: a late process */
    ck_assert(!job_rerun(j, &old));                     /* no born: as before */
    j->reopened = true;
    ck_assert(!job_rerun(j, &again));
    j->reopened = false;
    j->held = true;
    ck_assert(!job_rerun(j, &again));
    job_free(j);
}
END_TEST

/* Forged sequence numbers are dropped and counted; they never reach the
 * gap counters (no lost_batches of 10^12, no wrap-around). */
START_TEST(test_forged_sequence)
{
    struct job *j = job_new("j", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 1.0, 10, 0);
    ck_assert_int_eq(send(j, "h", 1, 0, false), JOB_MERGED);
    ck_assert_int_eq(send(j, "h", 1, 1000000000000ull, false), JOB_BAD_SEQ);
    ck_assert_int_eq(send(j, "h", 1, UINT64_MAX - 5, false), JOB_BAD_SEQ);
    ck_assert_int_eq(send(j, "x", 2, 1ull << 40, false), JOB_BAD_SEQ);    /* a new process */
    ck_assert_uint_eq(j->bad_seq_batches, 3);
    ck_assert_uint_eq(j->lost_batches, 0);
    ck_assert_int_eq(send(j, "h", 1, 5, false), JOB_MERGED);             /* a real gap */
    ck_assert_uint_eq(j->lost_batches, 4);
    job_free(j);
}
END_TEST

START_TEST(test_first_batch_late_is_a_gap)
{
    /* A daemon started mid-job: batches 0..9 went elsewhere (or to the spool). */
    struct job *j = job_new("j", &lim);
    ck_assert_int_eq(send(j, "a", 1, 10, false), JOB_MERGED);
    ck_assert_uint_eq(j->lost_batches, 10);
    for (uint64_t s = 0; s < 10; s++)
        ck_assert_int_eq(send(j, "a", 1, s, false), JOB_MERGED);
    ck_assert_uint_eq(j->lost_batches, 0);
    ck_assert_uint_eq(j->recovered_batches, 10);
    ck_assert_int_eq(send(j, "a", 1, 0, false), JOB_DUPLICATE);
    job_free(j);
}
END_TEST

START_TEST(test_many_gaps_bounded)
{
    struct job *j = job_new("j", &lim);
    for (uint64_t s = 0; s < 200; s += 2)
        send(j, "a", 1, s, false);
    /* 99 gaps of one batch each; only JOB_MAX_MISSING ranges are remembered. */
    ck_assert_uint_eq(j->lost_batches, 99);
    struct job_proc *p = job_find_proc(j, "a", 1, 0);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_le(p->nmissing, JOB_MAX_MISSING);
    ck_assert_uint_gt(j->forgotten_ranges, 0);
    /* The newest gap can still be filled. */
    ck_assert_int_eq(send(j, "a", 1, 197, false), JOB_MERGED);
    ck_assert_uint_eq(j->lost_batches, 98);
    job_free(j);
}
END_TEST

START_TEST(test_nested_counted_once)
{
    struct job *j = job_new("j", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 1.0, 1000, 0);                   /* MPI-IO write */
    add_rec(FTIO_OP_WRITE, 0.1, 0.9, 1000, FTIO_FLAG_NESTED);    /* its POSIX part */
    add_rec(FTIO_OP_READ, 2.0, 2.5, 300, 0);
    add_rec(FTIO_OP_OPEN, 0.0, 0.0, 0, 0);                        /* metadata */
    send(j, "a", 1, 0, false);
    ck_assert_uint_eq(j->records, 4);
    ck_assert_uint_eq(j->data_records, 2);
    ck_assert_uint_eq(j->nested_records, 1);
    ck_assert_double_eq_tol(j->bytes, 1300, 1e-9);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->bytes, 1000, 1e-9);
    ck_assert_double_eq_tol(tot(j, JOB_READ)->bytes, 300, 1e-9);
    /* The bins conserve the counted volume, nested bytes excluded. */
    assert_binned(&j->mode[JOB_WRITE], 1000);
    assert_binned(&j->mode[JOB_READ], 300);
    job_free(j);
}
END_TEST

START_TEST(test_time_base)
{
    struct job *j = job_new("j", &lim);
    add_rec(FTIO_OP_WRITE, 5.0, 6.0, 10, 0);
    add_rec(FTIO_OP_WRITE, 3.0, 4.0, 10, 0);
    send(j, "a", 1, 0, false);
    /* Time 0 is the earliest start of the first data batch, in wall ns. */
    ck_assert(j->has_origin);
    ck_assert_int_eq(j->origin_ns, REAL + 3000000000ll);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_min, 0.0, 1e-9);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_max, 3.0, 1e-9);

    /* Another process with a different anchor: its clock started 10 s later,
     * and it has a skew correction of +0.5 s. */
    add_rec(FTIO_OP_WRITE, 1.0, 2.0, 10, 0);
    merge(j, (struct hdr){.host = "b", .pid = 9, .rank = -1, .mono = MONO - 10000000000ll,
                          .real = REAL, .recv = NOW_REAL, .skew = 500000000});
    /* wall = REAL + 11 s + 0.5 s = origin + 8.5 s .. 9.5 s */
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_max, 9.5, 1e-9);

    /* An earlier record from a late rank (before time 0) is kept. */
    add_rec(FTIO_OP_WRITE, 1.0, 1.5, 10, 0);
    send(j, "c", 3, 0, false);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_min, -2.0, 1e-9);
    assert_binned(&j->mode[JOB_WRITE], 40);
    job_free(j);
}
END_TEST

/* Each mode's grid has an edge exactly at its first record received; the
 * stream keeps the records the summary needs to re-lay it on an earlier one
 * (analysis/stream.h), up to limits.summary_records. */
START_TEST(test_mode_grid_and_record_log)
{
    lim.summary_records = 3;
    struct job *j = job_new("j", &lim);
    add_rec(FTIO_OP_WRITE, 100.0, 101.0, 10, 0);
    add_rec(FTIO_OP_READ, 102.2, 102.3, 5, 0);
    send(j, "a", 1, 0, false);
    const struct job_mode_state *w = &j->mode[JOB_WRITE], *r = &j->mode[JOB_READ];
    ck_assert(ftio_stream_origin(w->stream) == 0.0);
    ck_assert(ftio_stream_origin(r->stream) == tot(j, JOB_READ)->t_min);
    ck_assert_double_eq_tol(ftio_stream_origin(r->stream), 2.2, 1e-9);
    ck_assert_int_eq(ftio_stream_logged(r->stream), 1);

    /* A later batch with an earlier read before any analysis: the grid
     * moves to it (as offline, on the first event), the bins keep it all. */
    add_rec(FTIO_OP_READ, 102.15, 102.25, 5, 0);
    send(j, "b", 2, 0, false);
    ck_assert_double_eq_tol(tot(j, JOB_READ)->t_min, 2.15, 1e-9);
    ck_assert(ftio_stream_origin(r->stream) == tot(j, JOB_READ)->t_min);
    ck_assert_int_eq(ftio_stream_logged(r->stream), 2);
    ck_assert_double_eq_tol(bins_total(r), 10, 1e-9);

    /* Once analysed, an earlier record is kept and logged, the grid stays. */
    struct ftio_analyzer *an = ftio_analyzer_new();
    struct ftio_stream_work *wk = ftio_stream_work_new();
    char err[256];
    double origin = ftio_stream_origin(r->stream);
    ck_assert_int_eq(ftio_stream_step(r->stream, an, wk, origin + 1, origin + 1, err, sizeof err), 0);
    add_rec(FTIO_OP_READ, 102.1, 102.12, 5, 0);
    send(j, "b", 2, 1, false);
    ck_assert_double_eq_tol(tot(j, JOB_READ)->t_min, 2.1, 1e-9);
    ck_assert(ftio_stream_origin(r->stream) == origin && origin > tot(j, JOB_READ)->t_min);
    ck_assert_int_eq(ftio_stream_logged(r->stream), 3);
    ck_assert_double_eq_tol(bins_total(r), 15, 1e-9);

    /* Within 60 s of the job's start but more than 60 s before the read
     * grid's edge: no bin there, a bad record (not silently dropped bytes). */
    add_rec(FTIO_OP_READ, 41.0, 41.5, 5, 0);
    send(j, "b", 2, 2, false);
    ck_assert_uint_eq(j->bad_records, 1);
    ck_assert_int_eq(ftio_stream_logged(r->stream), 3);

    /* Past summary_records the log is dropped for good. */
    add_rec(FTIO_OP_READ, 103.0, 103.1, 5, 0);
    add_rec(FTIO_OP_READ, 104.0, 104.1, 5, 0);
    send(j, "b", 2, 3, false);
    ck_assert_int_eq(ftio_stream_logged(r->stream), -1);
    ck_assert_int_eq(ftio_stream_logged(w->stream), 1);
    ck_assert_double_eq_tol(bins_total(r), 25, 1e-9);
    ftio_stream_work_free(wk);
    ftio_analyzer_free(an);
    job_free(j);
}
END_TEST

START_TEST(test_bad_records_and_horizon)
{
    struct job *j = job_new("j", &lim);
    add_hostile_recs();
    send(j, "a", 1, 0, false);
    ck_assert_uint_eq(j->bad_records, 3);
    ck_assert_uint_eq(j->data_records, 1);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_max, 1.0, 1e-9);

    /* Memory follows the data, not the horizon (blocks of bins where data
     * is), and data 10 horizons later drops the old bins (counted). */
    size_t small = ftio_stream_memory(j->mode[JOB_WRITE].stream);
    add_rec(FTIO_OP_WRITE, 50.0, 51.0, 100, 0);
    send(j, "a", 1, 1, false);
    add_rec(FTIO_OP_WRITE, 1000.0, 1001.0, 100, 0);
    send(j, "a", 1, 2, false);
    ck_assert_uint_le(ftio_stream_memory(j->mode[JOB_WRITE].stream),
                      small + 2 * FTIO_BIN_BLOCK * sizeof(double) + 256);
    assert_binned(&j->mode[JOB_WRITE], 100);
    job_free(j);
}
END_TEST

START_TEST(test_max_procs_and_final)
{
    lim.max_procs = 2;
    struct job *j = job_new("j", &lim);
    ck_assert_int_eq(send(j, "a", 1, 0, false), JOB_MERGED);
    ck_assert_int_eq(send(j, "a", 2, 0, true), JOB_MERGED);
    ck_assert_int_eq(send(j, "a", 3, 0, false), JOB_TOO_MANY_PROCS);
    ck_assert_uint_eq(j->rejected_batches, 1);
    ck_assert_uint_eq(j->nprocs, 2);
    ck_assert(!job_all_final(j));
    ck_assert(!j->ended);
    ck_assert_int_eq(send(j, "a", 1, 1, true), JOB_MERGED);
    ck_assert(job_all_final(j));
    /* Not MPI: the processes' quiet says it is over, after --settle-end. */
    ck_assert(!j->ended);
    ck_assert(!job_due_to_end(j, 1.0 + 1.9, 2.0));
    ck_assert(job_due_to_end(j, 1.0 + 2.0, 2.0));
    job_free(j);
}
END_TEST

START_TEST(test_mpi_job_waits_for_all_ranks)
{
    struct job *j = job_new("j", &lim);
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = "j", .host = "h", .pid = 1,
                                     .rank = 0, .nranks = 2, .seq = 0, .final = true,
                                     .mpi = FTIO_MPI_FINALIZED};
    job_merge(j, &b, &lim, 1.0, NOW_REAL);
    ck_assert(!j->ended);   /* rank 1 not seen yet */
    ck_assert(!job_all_final(j));
    ck_assert(!job_due_to_end(j, 100.0, 2.0));
    b.h.pid = 2;
    b.h.rank = 1;
    job_merge(j, &b, &lim, 1.0, NOW_REAL);
    ck_assert(j->ended);
    job_free(j);
}
END_TEST

/* A launcher's pre-exec child streams with rank -1, then the exec'd rank
 * (same pid) continues with its rank: it counts as a rank from then on. */
START_TEST(test_rank_from_a_later_batch)
{
    struct job *j = job_new("j", &lim);
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = "j", .host = "h", .pid = 1,
                                     .rank = -1, .seq = 0};
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    ck_assert_uint_eq(j->nmpi, 0);
    b.h.seq = 1;
    b.h.rank = 0;
    b.h.nranks = 2;
    b.h.final = true;
    b.h.mpi = FTIO_MPI_FINALIZED;
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    ck_assert_uint_eq(j->nmpi, 1);
    ck_assert(!j->ended);          /* rank 1 not seen yet */
    b.h.pid = 2;                   /* rank 1: pre-exec batch, then its own */
    b.h.rank = -1;
    b.h.nranks = 0;
    b.h.seq = 0;
    b.h.final = false;
    b.h.mpi = FTIO_MPI_NONE;
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    ck_assert(!j->ended);
    b.h.rank = 1;
    b.h.nranks = 2;
    b.h.seq = 1;
    b.h.final = true;
    b.h.mpi = FTIO_MPI_FINALIZED;
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    ck_assert_uint_eq(j->nmpi, 2);
    ck_assert(j->ended);
    /* a later batch saying rank -1 (a fork child's image) does not undo it */
    b.h.seq = 2;
    b.h.rank = -1;
    ck_assert_int_eq(job_merge(j, &b, &lim, 1.0, NOW_REAL), JOB_MERGED);
    ck_assert_uint_eq(j->nmpi, 2);
    job_free(j);
}
END_TEST

/* One process's batch on host "h" with a chosen anchor, MPI state, lost
 * count and receive time (for the verdict and the clock tests). */
static enum job_merge_status send_at(struct job *j, int64_t pid, uint64_t seq, int32_t rank,
                                     int32_t nranks, int mpi, bool final, int64_t mono,
                                     int64_t real, int64_t recv, uint64_t lost)
{
    return merge(j, (struct hdr){.host = "h", .pid = pid, .seq = seq, .rank = rank, .nranks = nranks,
                                 .mpi = mpi, .final = final, .mono = mono, .real = real,
                                 .recv = recv, .lost = lost});
}

/* MPI says it is over when every declared rank finalised (a rank 0 that
 * alone does I/O, ranks 1..3 with nothing but their MPI_Init and
 * MPI_Finalize batches): ended at once, complete, ended_by final. */
START_TEST(test_verdict_mpi_over)
{
    struct job *j = job_new("j", &lim);
    for (int r = 0; r < 4; r++)
        send_at(j, 10 + r, 0, r, 4, FTIO_MPI_INIT, false, MONO, NOW_REAL, NOW_REAL, 0);
    add_rec(FTIO_OP_WRITE, 0.1, 0.2, 1000, 0);
    send_at(j, 10, 1, 0, 4, FTIO_MPI_INIT, false, MONO, NOW_REAL, NOW_REAL, 0);
    for (int r = 0; r < 4; r++) {
        ck_assert(!j->ended);
        send_at(j, 10 + r, r == 0 ? 2 : 1, r, 4, FTIO_MPI_FINALIZED, true, MONO, NOW_REAL,
                NOW_REAL, 0);
    }
    ck_assert(j->ended);
    ck_assert(job_due_to_end(j, 1.0, 2.0));          /* no settle: MPI said so */
    struct job_verdict v = job_end_verdict(j, "final");
    ck_assert(v.complete);
    ck_assert_str_eq(v.ended_by, "final");
    ck_assert_ptr_null(v.reason);
    ck_assert_double_eq(j->bytes, 1000);
    job_free(j);
}
END_TEST

/* Without MPI's word the end is the processes' quiet: `idle` after the
 * settle; a rank that never finalised (killed, aborted) is not complete; a
 * process without `final` is not, whoever ends the job. */
START_TEST(test_verdict_idle_and_incomplete)
{
    struct job *j = job_new("j", &lim);
    send_at(j, 1, 0, -1, 0, 0, true, MONO, NOW_REAL, NOW_REAL, 0);   /* cp a b */
    ck_assert(!j->ended);
    ck_assert(!job_due_to_end(j, 2.0, 2.0));
    send_at(j, 2, 0, -1, 0, 0, false, MONO, NOW_REAL, NOW_REAL, 0);  /* cp b c starts */
    ck_assert(!job_due_to_end(j, 10.0, 2.0));
    struct job_verdict v = job_end_verdict(j, "told");
    ck_assert(!v.complete);
    ck_assert_str_eq(v.ended_by, "told");
    ck_assert_str_eq(v.reason, "processes without their final batch");
    send_at(j, 2, 1, -1, 0, 0, true, MONO, NOW_REAL, NOW_REAL, 0);
    ck_assert(job_due_to_end(j, 3.0, 2.0));
    v = job_end_verdict(j, "final");
    ck_assert(v.complete);
    ck_assert_str_eq(v.ended_by, "idle");
    v = job_end_verdict(j, "timeout");
    ck_assert(!v.complete);
    job_free(j);

    j = job_new("k", &lim);
    send_at(j, 1, 0, 0, 2, FTIO_MPI_FINALIZED, true, MONO, NOW_REAL, NOW_REAL, 0);
    send_at(j, 2, 0, 1, 2, FTIO_MPI_INIT, true, MONO, NOW_REAL, NOW_REAL, 0);  /* aborted */
    ck_assert(job_all_final(j));
    ck_assert(!j->ended);
    v = job_end_verdict(j, "final");
    ck_assert(!v.complete);
    ck_assert_str_eq(v.ended_by, "idle");
    ck_assert_str_eq(v.reason, "MPI ranks that did not finalise");
    job_free(j);
}
END_TEST

/* The kernel cross-check (`unseen` in the final batches): summed per mode
 * and process once (a resent final batch is a duplicate); a few kilobytes
 * are not material, 8 MiB that no record holds make the job incomplete. */
START_TEST(test_verdict_unseen)
{
    struct job *j = job_new("u", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 1.0, 1000, 0);
    merge(j, (struct hdr){.host = "h", .pid = 1, .rank = -1, .final = true, .mono = MONO,
                          .real = REAL, .recv = NOW_REAL, .has_unseen = true, .unseen_read = 2996,
                          .unseen_write = 110});
    ck_assert_uint_eq(j->unseen[JOB_READ], 2996);
    ck_assert_uint_eq(j->unseen[JOB_WRITE], 110);
    ck_assert(job_end_verdict(j, "final").complete);
    merge(j, (struct hdr){.host = "h", .pid = 2, .rank = -1, .final = true, .mono = MONO,
                          .real = REAL, .recv = NOW_REAL, .has_unseen = true,
                          .unseen_write = 8u << 20});
    /* the same final batch again (a resend): counted once */
    ck_assert_int_eq(merge(j, (struct hdr){.host = "h", .pid = 2, .rank = -1, .final = true,
                                           .mono = MONO, .real = REAL, .recv = NOW_REAL,
                                           .has_unseen = true, .unseen_write = 8u << 20}),
                     JOB_DUPLICATE);
    ck_assert_uint_eq(j->unseen[JOB_WRITE], (8u << 20) + 110);
    struct job_verdict v = job_end_verdict(j, "final");
    ck_assert(!v.complete);
    ck_assert_str_eq(v.reason, "the kernel counted bytes no record holds (unseen_bytes)");
    job_free(j);
}
END_TEST

/* Every record ftiod does not count is counted by reason and makes the job
 * incomplete; hostile counters saturate (no wrap, nothing negative). */
START_TEST(test_verdict_dropped_and_clamped)
{
    struct job *j = job_new("j", &lim);
    add_hostile_recs();                                    /* too long, future, bad clock */
    add_rec(FTIO_OP_WRITE, 2.0, 3.0, INT64_MAX, 0);        /* bad size */
    add_rec(FTIO_OP_WRITE, 2.0, 3.0, INT64_MAX, 0);
    send(j, "a", 1, 0, false);
    add_rec(FTIO_OP_WRITE, 0.0, 1.0, 100, 0);              /* before the grid: */
    send_at(j, 2, 0, -1, 0, 0, true, MONO, REAL - 200 * 1000000000ll, NOW_REAL, 0);  /* 200 s */
    send(j, "a", 1, 1, true);
    ck_assert_uint_eq(j->dropped[JOB_DROP_TOO_LONG], 1);
    ck_assert_uint_eq(j->dropped[JOB_DROP_FUTURE], 1);
    ck_assert_uint_eq(j->dropped[JOB_DROP_BAD_SIZE], 2);
    ck_assert_uint_eq(j->dropped[JOB_DROP_BAD_CLOCK], 1);
    ck_assert_uint_eq(j->dropped[JOB_DROP_BEFORE_GRID], 1);
    ck_assert_uint_eq(j->bad_records, 6);
    ck_assert_double_eq(j->bytes, 100);
    struct job_verdict v = job_end_verdict(j, "told");
    ck_assert(!v.complete);
    ck_assert_uint_eq(v.dropped, 6);
    ck_assert_str_eq(job_drop_name(JOB_DROP_BEFORE_GRID), "before_grid");
    job_free(j);

    j = job_new("k", &lim);
    send_at(j, 1, 0, -1, 0, 0, false, MONO, NOW_REAL, NOW_REAL, UINT64_MAX);
    send_at(j, 1, 1, -1, 0, 0, true, MONO, NOW_REAL, NOW_REAL, UINT64_MAX);
    ck_assert_uint_eq(j->lost, JOB_COUNTER_MAX);
    ck_assert(j->clamped);
    v = job_end_verdict(j, "told");
    ck_assert(!v.complete);
    ck_assert_str_eq(v.reason, "records lost by the shims (lost_records)");
    job_free(j);
}
END_TEST

/* Node clocks: ahead is corrected at once (no batch arrives before it was
 * made); behind only once batches come live (as far apart as the process's
 * clock says they were made); a replay (old batches back to back) is left
 * alone; beyond 1 h the process is flagged and its records, out of bounds,
 * dropped and counted. */
START_TEST(test_clock_correction)
{
    const int64_t S = 1000000000ll;
    settle_each = false;
    /* 1000 s ahead: its record at its 0.5 s lands at ftiod's 0.5 s. */
    struct job *j = job_new("j", &lim);
    add_rec(FTIO_OP_WRITE, 0.5, 0.6, 100, 0);
    send_at(j, 1, 0, -1, 0, 0, false, MONO, NOW_REAL, NOW_REAL, 0);
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 2, 0, -1, 0, 0, false, MONO, NOW_REAL + 1000 * S, NOW_REAL, 0);
    ck_assert_uint_eq(j->clock_fixed, 1);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_min, -0.5, 1e-6);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_max, 0.1, 1e-6);
    ck_assert_uint_eq(j->data_records, 2);
    job_free(j);

    /* 120 s behind, joining late while the other rank runs: its MPI_Init
     * batch is judged against that rank (live 4 s before), so its data is
     * corrected from its first record on. */
    j = job_new("k", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 1, 0, 0, 2, FTIO_MPI_INIT, false, MONO, NOW_REAL, NOW_REAL, 0);
    send_at(j, 2, 0, 1, 2, FTIO_MPI_INIT, false, MONO + 4 * S, NOW_REAL + 4 * S - 120 * S,
            NOW_REAL + 4 * S, 0);
    ck_assert_uint_eq(j->clock_fixed, 1);
    add_rec(FTIO_OP_WRITE, 4.5, 5.0, 100, 0);
    send_at(j, 2, 1, 1, 2, FTIO_MPI_INIT, false, MONO + 5 * S, NOW_REAL + 5 * S - 120 * S,
            NOW_REAL + 5 * S, 0);
    ck_assert_uint_eq(j->clock_fixed, 1);
    ck_assert_uint_eq(j->bad_records, 0);
    ck_assert_double_eq_tol(tot(j, JOB_WRITE)->t_max, 5.0, 1e-6);
    job_free(j);

    /* A spool file replayed a day later: batches made 1 s apart arrive 1 ms
     * apart; nothing is moved. */
    j = job_new("r", &lim);
    for (int k = 0; k < 3; k++) {
        add_rec(FTIO_OP_WRITE, k, k + 0.1, 100, 0);
        send_at(j, 1, (uint64_t)k, -1, 0, 0, false, MONO + k * S, NOW_REAL - 86400 * S + k * S,
                NOW_REAL + k * 1000000ll, 0);
    }
    ck_assert_uint_eq(j->clock_fixed, 0);
    ck_assert_uint_eq(j->clock_flagged, 0);
    ck_assert_uint_eq(j->data_records, 3);
    job_free(j);

    /* 5000 s ahead: flagged, its records from the future dropped. */
    j = job_new("f", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 1, 0, -1, 0, 0, true, MONO, NOW_REAL + 5000 * S, NOW_REAL, 0);
    ck_assert_uint_eq(j->clock_flagged, 1);
    ck_assert_uint_eq(j->dropped[JOB_DROP_FUTURE], 1);
    struct job_verdict v = job_end_verdict(j, "final");
    ck_assert(!v.complete);
    job_free(j);
}
END_TEST

/* A live 1-s job of two ranks, k = 0..n-1: rank `late` (pid 2) sends its
 * batch k at k s, anchored `behind` s in the past; the other (pid 1, a good
 * clock) 0.05 s later.  Each batch holds one 0.1-s write of 100 bytes at k s
 * (k + 0.05 s) of the job.  first: which rank's batch comes first. */
static void live_job(struct job *j, int n, double behind, int first)
{
    const int64_t S = 1000000000ll;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) {
            int pid = i == 0 ? first : 3 - first;
            double t = k + (pid == 1 ? 0.05 : 0);
            int64_t at = NOW_REAL + (int64_t)llround(t * 1e9);
            add_rec(FTIO_OP_WRITE, t, t + 0.1, 100, 0);
            send_at(j, pid, (uint64_t)k, -1, 0, 0, false, MONO + (int64_t)llround(t * 1e9),
                    at - (pid == 2 ? (int64_t)llround(behind * 1e9) : 0), at, 0);
        }
    (void)S;
}

/* Issue 28: a rank whose clock is behind and whose first batch comes first
 * placed the whole job in the past (its time 0 laid 120 s or 3000 s early:
 * a 1-s job read 121 s, or the others' records fell off the horizon); one
 * whose first batch came later had its records dropped before the grid.
 * Whichever comes first, the behind rank is judged against ftiod's clock
 * and the other rank: the job's time 0 is its first record on ftiod's
 * clock, every byte is there, nothing dropped. */
START_TEST(test_clock_behind_rank_first)
{
    settle_each = false;
    lim.horizon = 7200;
    const double behinds[] = { 120, 3000 };
    for (int b = 0; b < 2; b++)
        for (int first = 1; first <= 2; first++) {
            struct job *j = job_new("j", &lim);
            live_job(j, 10, behinds[b], first);
            ck_assert_uint_eq(j->clock_fixed, 1);
            ck_assert_uint_eq(j->bad_records, 0);
            ck_assert_uint_eq(j->data_records, 20);
            ck_assert_double_eq_tol(j->bytes, 2000, 1e-9);
            /* time 0: the first record merged (either rank's: 0 or 0.05 s) */
            ck_assert(j->origin_ns >= NOW_REAL && j->origin_ns <= NOW_REAL + 50000000ll);
            const struct job_mode_state *w = &j->mode[JOB_WRITE];
            double base = (double)(j->origin_ns - NOW_REAL) * 1e-9;
            ck_assert_double_eq_tol(job_mode_totals(w)->t_min + base, 0.0, 1e-6);
            ck_assert_double_eq_tol(job_mode_totals(w)->t_max + base, 9.15, 1e-6);
            assert_binned(w, 2000);
            job_free(j);
        }

    /* Alone: its first batch waits for its second, which came as long after
     * it as its clock says: live, corrected, time 0 on ftiod's clock. */
    const int64_t S = 1000000000ll;
    struct job *j = job_new("a", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 2, 0, -1, 0, 0, false, MONO, NOW_REAL - 120 * S, NOW_REAL, 0);
    ck_assert(!j->has_origin);
    ck_assert_uint_eq(j->data_records, 0);
    add_rec(FTIO_OP_WRITE, 1.0, 1.1, 100, 0);
    send_at(j, 2, 1, -1, 0, 0, false, MONO + S, NOW_REAL - 119 * S, NOW_REAL + S, 0);
    ck_assert_uint_eq(j->clock_fixed, 1);
    ck_assert_int_eq(j->origin_ns, NOW_REAL);
    ck_assert_uint_eq(j->data_records, 2);
    ck_assert_double_eq_tol(job_mode_totals(&j->mode[JOB_WRITE])->t_max, 1.1, 1e-6);
    job_free(j);

    /* A replay (two processes' old batches back to back): each first batch
     * held only until its process's next says it is old, then merged as it
     * is, before that one. */
    j = job_new("r", &lim);
    for (int k = 0; k < 3; k++)
        for (int pid = 1; pid <= 2; pid++) {
            add_rec(FTIO_OP_WRITE, k + 0.01 * pid, k + 0.1, 100, 0);
            send_at(j, pid, (uint64_t)k, -1, 0, 0, false, MONO + k * S, NOW_REAL - 86400 * S + k * S,
                    NOW_REAL + (k * 2 + pid) * 1000000ll, 0);
        }
    ck_assert_uint_eq(j->clock_fixed, 0);
    ck_assert_int_eq(j->origin_ns, NOW_REAL - 86400 * S + 10000000ll);
    ck_assert_uint_eq(j->data_records, 6);
    ck_assert_double_eq_tol(job_mode_totals(&j->mode[JOB_WRITE])->t_max + 0.01, 2.1, 1e-6);
    job_free(j);

    /* An old batch alone (a replayed short process) waits for the job's
     * end, then counts as it is. */
    j = job_new("o", &lim);
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 1, 0, -1, 0, 0, true, MONO, NOW_REAL - 86400 * S, NOW_REAL, 0);
    ck_assert_uint_eq(j->data_records, 0);
    ck_assert_uint_gt(job_memory(j), 48);
    job_clock_settle(j, &lim);
    ck_assert_uint_eq(j->data_records, 1);
    ck_assert_int_eq(j->origin_ns, NOW_REAL - 86400 * S);
    ck_assert_uint_eq(j->clock_fixed + j->clock_flagged, 0);
    job_free(j);
}
END_TEST

/* Issue 27: behind a backlog (the socket not found empty for 20 s) a batch
 * anchored 12 s ago came when it was made as far as ftiod can tell: taken
 * as received at its anchor, its clock right, merged at once; a day-old
 * replay in the same backlog is still old (held, as the other tests show);
 * without a backlog nothing changes. */
START_TEST(test_clock_behind_a_backlog)
{
    const int64_t S = 1000000000ll;
    settle_each = false;
    struct ftio_batch_header h = {.clock_real = NOW_REAL - 12 * S};
    ck_assert_int_eq(job_clock_received(&h, NOW_REAL, NOW_REAL - 20 * S), NOW_REAL - 12 * S);
    ck_assert_int_eq(job_clock_received(&h, NOW_REAL, NOW_REAL - 1 * S), NOW_REAL);   /* no backlog */
    ck_assert_int_eq(job_clock_received(&h, NOW_REAL, 0), NOW_REAL);                  /* unknown */
    h.clock_real = NOW_REAL - 86400 * S;                                               /* old */
    ck_assert_int_eq(job_clock_received(&h, NOW_REAL, NOW_REAL - 20 * S), NOW_REAL - 20 * S);
    h.clock_real = NOW_REAL + 60 * S;                                                  /* ahead */
    ck_assert_int_eq(job_clock_received(&h, NOW_REAL, NOW_REAL - 20 * S), NOW_REAL);

    struct job *j = job_new("b", &lim);
    h.clock_real = NOW_REAL - 12 * S;
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 1, 0, -1, 0, 0, false, MONO, h.clock_real, job_clock_received(&h, NOW_REAL,
            NOW_REAL - 20 * S), 0);
    ck_assert_uint_eq(j->data_records, 1);
    ck_assert(!job_clock_holding(j));
    ck_assert_uint_eq(j->clock_fixed + j->clock_flagged, 0);
    job_free(j);

    j = job_new("q", &lim);    /* the same batch read from a quiet socket: held */
    add_rec(FTIO_OP_WRITE, 0.0, 0.1, 100, 0);
    send_at(j, 1, 0, -1, 0, 0, false, MONO, h.clock_real, job_clock_received(&h, NOW_REAL,
            NOW_REAL - S), 0);
    ck_assert_uint_eq(j->data_records, 0);
    ck_assert(job_clock_holding(j));
    job_free(j);
}
END_TEST

/* Step-qualified job ids (common/jobid.c): what ftiod's jobid/step fields
 * and the shim's Slurm ids are made of. */
START_TEST(test_job_ids_with_steps)
{
    char job[64], step[64], buf[24];
    ck_assert_str_eq(ftio_slurm_step_name(0, buf), "0");
    ck_assert_str_eq(ftio_slurm_step_name(17, buf), "17");
    ck_assert_str_eq(ftio_slurm_step_name(0xfffffffbull, buf), "batch");
    ck_assert_str_eq(ftio_slurm_step_name(0xfffffffcull, buf), "extern");
    ck_assert_str_eq(ftio_slurm_step_name(0xfffffffaull, buf), "interactive");
    ck_assert_str_eq(ftio_slurm_step_env("3", buf), "3");
    ck_assert_str_eq(ftio_slurm_step_env(NULL, buf), "batch");     /* the batch script */
    ck_assert_str_eq(ftio_slurm_step_env("", buf), "batch");
    ck_assert_str_eq(ftio_slurm_step_env("4294967291", buf), "batch");
    ck_assert_str_eq(ftio_slurm_step_env("x1", buf), "batch");
    ck_assert_str_eq(ftio_slurm_step_env("-1", buf), "batch");

    ck_assert_int_eq(ftio_job_with_step(job, sizeof job, "4711", "0"), 0);
    ck_assert_str_eq(job, "4711.0");
    ck_assert_int_eq(ftio_job_with_step(job, 6, "4711", "batch"), -1);
    ck_assert_str_eq(job, "");

    ck_assert_int_eq(ftio_job_split("4711.0", job, sizeof job, step, sizeof step), 1);
    ck_assert_str_eq(job, "4711");
    ck_assert_str_eq(step, "0");
    ck_assert_int_eq(ftio_job_split("4711.batch", job, sizeof job, step, sizeof step), 1);
    ck_assert_str_eq(step, "batch");
    ck_assert_int_eq(ftio_job_split("12.extern", NULL, 0, step, sizeof step), 1);
    ck_assert_str_eq(step, "extern");
    /* a step in a user's namespace (ftiod's claims.c): the job keeps it */
    ck_assert_int_eq(ftio_job_split("u1000:4711.0", job, sizeof job, step, sizeof step), 1);
    ck_assert_str_eq(job, "u1000:4711");
    ck_assert_str_eq(step, "0");
    /* not steps: a whole id */
    const char *whole[] = { "4711", "myrun", "run.1", "4711.", ".0", "4711.0.1", "4711.server",
                            "4711.-1", "47a1.0", "", "u:4711.0", "ux:4711.0", "u1000:run.1",
                            "u1000:4711" };
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        ck_assert_int_eq(ftio_job_split(whole[i], job, sizeof job, step, sizeof step), 0);
        ck_assert_str_eq(job, whole[i]);
        ck_assert_str_eq(step, "");
    }
    /* a short buffer truncates, never overflows */
    ck_assert_int_eq(ftio_job_split("123456.7", job, 4, step, 2), 1);
    ck_assert_str_eq(job, "123");
    ck_assert_str_eq(step, "7");
}
END_TEST

START_TEST(test_table_bounds)
{
    struct job_table t;
    job_table_init(&t, 3);
    ck_assert_ptr_nonnull(job_table_add(&t, "a", &lim));
    ck_assert_ptr_nonnull(job_table_add(&t, "b", &lim));
    struct job *c = job_table_add(&t, "c", &lim);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(job_table_add(&t, "d", &lim));
    ck_assert_ptr_eq(job_table_find(&t, "c"), c);
    job_table_remove(&t, c);
    ck_assert_ptr_null(job_table_find(&t, "c"));
    ck_assert_ptr_nonnull(job_table_add(&t, "d", &lim));
    ck_assert_uint_eq(t.n, 3);
    job_table_free(&t);
}
END_TEST

/* A full table makes room with the ended job that ended first, but never
 * with one a late batch reopened (the analysis thread is revising it). */
START_TEST(test_table_oldest_closed)
{
    struct job_table t;
    job_table_init(&t, 4);
    struct job *a = job_table_add(&t, "a", &lim), *b = job_table_add(&t, "b", &lim);
    struct job *c = job_table_add(&t, "c", &lim);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(job_table_oldest_closed(&t));        /* none ended */
    a->closed = b->closed = c->closed = true;
    a->closed_at = 1.0;
    b->closed_at = 2.0;
    c->closed_at = 3.0;
    ck_assert_ptr_eq(job_table_oldest_closed(&t), a);
    a->reopened = true;                                    /* being revised */
    ck_assert_ptr_eq(job_table_oldest_closed(&t), b);
    b->reopened = c->reopened = true;
    ck_assert_ptr_null(job_table_oldest_closed(&t));
    job_table_free(&t);
}
END_TEST

Suite *ftio_test_suite(void)
{
    TCase *tc;
    Suite *s = FTIO_SUITE("daemon_job", "job", &tc,
                          test_sequence_gaps_and_late_fill, test_first_batch_late_is_a_gap,
                          test_reused_pid_is_another_process, test_born_from_older_sender,
                          test_rerun_of_an_ended_job,
                          test_forged_sequence, test_many_gaps_bounded, test_nested_counted_once,
                          test_time_base, test_mode_grid_and_record_log,
                          test_bad_records_and_horizon, test_max_procs_and_final,
                          test_mpi_job_waits_for_all_ranks, test_rank_from_a_later_batch,
                          test_verdict_mpi_over, test_verdict_idle_and_incomplete, test_verdict_unseen,
                          test_verdict_dropped_and_clamped, test_clock_correction, test_clock_behind_rank_first,
                          test_clock_behind_a_backlog,
                          test_job_ids_with_steps, test_table_bounds, test_table_oldest_closed);
    tcase_add_checked_fixture(tc, setup, NULL);
    return s;
}
