/* SPDX-License-Identifier: BSD-3-Clause */
/* test_admit.c -- Check unit tests of ftiod's admission of a decoded batch
 * (predictor/daemon/admit.c): each verdict, produced the way ftiod meets it
 * (a fresh job, a batch seen before, an absurd sequence number, --max-procs,
 * a full job table and the room an ended job makes, another uid's job under
 * a reused id, each quota, a journal that cannot be written), with the
 * counters it moves and the acknowledgement the sender gets, which leaves
 * before the merge and survives a daemon killed right then. */
#include <check.h>
#include "../check_main.h"
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "auth.h"
#include "daemon/admit.h"
#include "timeutil.h"
#include "wire.h"
#include "transport.h"

static struct ftiod d;
static struct ftio_record rec[4];

static void setup(void)
{
    memset(&d, 0, sizeof d);
    job_limits_default(&d.cfg.limits);
    d.cfg.auth = FTIO_AUTH_NONE;
    job_table_init(&d.jobs, 8);
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.wake, NULL);
    d.quota = ftiod_quota_new();
    d.claims = ftiod_claims_new();
    ck_assert(d.quota && d.claims);
}

static void teardown(void)
{
    job_table_free(&d.jobs);
    ftiod_quota_free(d.quota);
    ftiod_claims_free(d.claims);
    pthread_cond_destroy(&d.wake);
    pthread_mutex_destroy(&d.lock);
}

/* A batch of job `job` from (host "h", pid, born) with sequence number seq
 * and n records, sent by uid, through admission; the verdict's
 * acknowledgement must be what the sender would get. */
static enum admit_verdict admit_born(const char *job, int64_t pid, int64_t born, uint64_t seq,
                                     size_t n, int64_t uid, struct admission *a)
{
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = job, .host = "h", .pid = pid,
                                     .born = born, .rank = -1, .seq = seq};
    b.rec = rec;
    b.n = n;
    static const char raw[] = "batch";
    enum admit_verdict v = ftiod_admit(&d, &b, uid, raw, sizeof raw, a);
    ck_assert_int_eq(v, a->verdict);
    ck_assert_int_eq(ftiod_admit_ack(v), v == ADMIT_MERGED || v == ADMIT_DUPLICATE
                                             ? FTIO_ACK_MERGED : FTIO_ACK_REFUSED);
    return v;
}

/* The same from a sender that does not say `born` (0). */
static enum admit_verdict admit(const char *job, int64_t pid, uint64_t seq, size_t n,
                                int64_t uid, struct admission *a)
{
    return admit_born(job, pid, 0, seq, n, uid, a);
}

START_TEST(merged_then_duplicate)
{
    struct admission a;
    ck_assert_int_eq(admit("j", 1, 0, 2, -1, &a), ADMIT_MERGED);
    ck_assert(a.new_job);
    ck_assert_str_eq(a.id, "j");
    ck_assert_int_eq(ftiod_admit_ack(a.verdict), FTIO_ACK_MERGED);
    ck_assert_uint_eq(d.stats.batches, 1);
    ck_assert_uint_eq(d.stats.records, 2);
    ck_assert_int_eq(admit("j", 1, 0, 2, -1, &a), ADMIT_DUPLICATE);
    ck_assert(!a.new_job);
    ck_assert_int_eq(ftiod_admit_ack(a.verdict), FTIO_ACK_MERGED);
    ck_assert_uint_eq(d.stats.duplicates, 1);
    ck_assert_uint_eq(d.stats.batches, 1);
    ck_assert_uint_eq(d.stats.messages, 2);
    ck_assert_uint_eq(d.jobs.n, 1);
}
END_TEST

START_TEST(bad_sequence_and_too_many_procs)
{
    struct admission a;
    d.cfg.limits.max_procs = 1;
    ck_assert_int_eq(admit("j", 1, 1ull << 62, 0, -1, &a), ADMIT_BAD_SEQ);
    ck_assert_uint_eq(d.stats.bad_seq, 1);
    ck_assert_int_eq(ftiod_admit_ack(a.verdict), FTIO_ACK_REFUSED);
    ck_assert_int_eq(admit("j", 1, 0, 0, -1, &a), ADMIT_MERGED);
    ck_assert_int_eq(admit("j", 2, 0, 0, -1, &a), ADMIT_TOO_MANY_PROCS);
    ck_assert_uint_eq(d.stats.over_procs, 1);
    ck_assert_uint_eq(d.stats.batches, 1);
}
END_TEST

START_TEST(table_full_until_a_job_ends)
{
    struct admission a;
    job_table_free(&d.jobs);
    job_table_init(&d.jobs, 1);
    ck_assert_int_eq(admit("a", 1, 0, 0, -1, &a), ADMIT_MERGED);
    ck_assert_int_eq(admit("b", 1, 0, 0, -1, &a), ADMIT_TABLE_FULL);
    ck_assert_uint_eq(a.max_jobs, 1);
    ck_assert_str_eq(a.id, "b");
    ck_assert(!a.new_job);
    ck_assert_uint_eq(d.stats.over_jobs, 1);
    /* An ended job makes room: it is forgotten for the new one. */
    job_table_find(&d.jobs, "a")->closed = true;
    ck_assert_int_eq(admit("b", 1, 0, 0, -1, &a), ADMIT_MERGED);
    ck_assert(a.new_job);
    ck_assert_ptr_null(job_table_find(&d.jobs, "a"));
    ck_assert_ptr_nonnull(job_table_find(&d.jobs, "b"));
}
END_TEST

/* Under MUNGE: an unclaimed id lives in its sender's namespace; an ended
 * job whose id Slurm gave to another user is that user's only once it is
 * forgotten: until then their batches are foreign. */
START_TEST(namespace_and_foreign)
{
    struct admission a;
    d.cfg.auth = FTIO_AUTH_MUNGE;
    ck_assert_int_eq(admit("x", 1, 0, 0, 1000, &a), ADMIT_MERGED);
    ck_assert_str_eq(a.id, "u1000:x");
    ck_assert_int_eq(admit("y", 1, 0, 0, 0, &a), ADMIT_MERGED);   /* root: the bare id */
    ck_assert_str_eq(a.id, "y");
    struct job *y = job_table_find(&d.jobs, "y");
    y->closed = true;
    const char *why = NULL;
    ck_assert_int_eq(ftiod_claim(&d, "y", 1000, &why), 0);
    ck_assert_int_eq(admit("y", 7, 0, 0, 1000, &a), ADMIT_FOREIGN);
    ck_assert_str_eq(a.id, "y");
    ck_assert_int_eq(a.owner, 0);
    ck_assert_uint_eq(y->foreign_batches, 1);
    ck_assert_uint_eq(d.stats.foreign, 1);
    ck_assert_uint_eq(y->batches, 1);
}
END_TEST

START_TEST(quotas)
{
    struct admission a;
    d.cfg.auth = FTIO_AUTH_MUNGE;
    d.cfg.user_jobs = 1;
    d.cfg.user_procs = 1;
    ck_assert_int_eq(admit("a", 1, 0, 0, 1000, &a), ADMIT_MERGED);
    ck_assert_int_eq(admit("b", 1, 0, 0, 1000, &a), ADMIT_OVER_QUOTA);
    ck_assert_int_eq(a.quota, QUOTA_JOBS);
    ck_assert_uint_eq(d.stats.over_user_jobs, 1);
    ck_assert_int_eq(admit("a", 2, 0, 0, 1000, &a), ADMIT_OVER_QUOTA);
    ck_assert_int_eq(a.quota, QUOTA_PROCS);
    ck_assert_uint_eq(d.stats.over_user_procs, 1);
    ck_assert_uint_eq(job_table_find(&d.jobs, "u1000:a")->rejected_batches, 1);
    /* Another user is not held back by this one. */
    ck_assert_int_eq(admit("b", 1, 0, 0, 1001, &a), ADMIT_MERGED);

    /* --user-rate: a bucket of two seconds' worth, overdrawn by one batch. */
    d.cfg.user_rate = 1;
    ck_assert_int_eq(admit("a", 1, 1, 4, 1000, &a), ADMIT_MERGED);
    ck_assert_int_eq(admit("a", 1, 2, 4, 1000, &a), ADMIT_OVER_QUOTA);
    ck_assert_int_eq(a.quota, QUOTA_RATE);
    ck_assert_uint_eq(d.stats.over_user_rate, 1);

    /* --max-memory refuses new jobs (said by quota.c, once). */
    d.cfg.max_memory = 1;
    ck_assert_int_eq(admit("c", 1, 0, 0, 1002, &a), ADMIT_OVER_QUOTA);
    ck_assert_int_eq(a.quota, QUOTA_MEMORY);
    ck_assert_uint_eq(d.stats.over_memory, 1);
    ck_assert_ptr_null(job_table_find(&d.jobs, "u1002:c"));
}
END_TEST

/* A pid another process had: in a live job another process (not a
 * duplicate; the quota counts it); under an ended job's id a new run, a job
 * of its own in place of the ended one, whose own late batch still reopens
 * it. */
START_TEST(reused_pid)
{
    struct admission a;
    d.cfg.auth = FTIO_AUTH_MUNGE;
    for (uint64_t s = 0; s < 3; s++)
        ck_assert_int_eq(admit_born("j", 5, 100, s, 1, 1000, &a), ADMIT_MERGED);
    ck_assert_int_eq(admit_born("j", 5, 200, 0, 1, 1000, &a), ADMIT_MERGED);
    ck_assert(!a.new_job && !a.rerun);
    struct job *j = job_table_find(&d.jobs, "u1000:j");
    ck_assert_ptr_nonnull(j);
    ck_assert_uint_eq(j->nprocs, 2);
    ck_assert_uint_eq(d.stats.duplicates, 0);
    ck_assert_int_eq(admit_born("j", 5, 200, 0, 1, 1000, &a), ADMIT_DUPLICATE);
    d.cfg.user_procs = 2;
    ck_assert_int_eq(admit_born("j", 5, 300, 0, 1, 1000, &a), ADMIT_OVER_QUOTA);
    ck_assert_int_eq(a.quota, QUOTA_PROCS);
    d.cfg.user_procs = 0;

    /* Ended: its late batch reopens it (a corrected .end), a rerun replaces it. */
    j->closed = true;
    ck_assert_int_eq(admit_born("j", 5, 100, 3, 1, 1000, &a), ADMIT_MERGED);
    ck_assert(!a.rerun && j->reopened);
    j->reopened = false;
    uint64_t batches = d.stats.batches;
    ck_assert_int_eq(admit_born("j", 5, 400, 0, 1, 1000, &a), ADMIT_MERGED);
    ck_assert(a.new_job && a.rerun);
    ck_assert_str_eq(a.id, "u1000:j");
    j = job_table_find(&d.jobs, "u1000:j");
    ck_assert_ptr_nonnull(j);
    ck_assert(!j->closed);
    ck_assert_uint_eq(j->nprocs, 1);
    ck_assert_uint_eq(j->batches, 1);
    ck_assert_uint_eq(d.jobs.n, 1);
    ck_assert_uint_eq(d.stats.batches, batches + 1);
    ck_assert_uint_eq(d.stats.duplicates, 1);
}
END_TEST

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(path);
}

/* A batch merged that the journal cannot keep is refused, so that the
 * sender keeps it; a file size limit of 0 makes every write fail, even as
 * root. */
START_TEST(unjournaled)
{
    char dir[] = "/tmp/test_admit.XXXXXX", err[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    d.state = ftiod_state_open(dir, err, sizeof err);
    ck_assert_msg(d.state != NULL, "%s", err);
    struct admission a;
    ck_assert_int_eq(admit("j", 1, 0, 0, -1, &a), ADMIT_MERGED);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, none = {0, 0};
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    none.rlim_max = old.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &none), 0);
    enum admit_verdict v = admit("j", 1, 1, 0, -1, &a);
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_int_eq(v, ADMIT_UNJOURNALED);
    ck_assert_int_eq(ftiod_admit_ack(v), FTIO_ACK_REFUSED);
    ck_assert_uint_eq(d.stats.batches, 2);   /* merged all the same */
    ftiod_state_release_all(d.state, &d.jobs);
    ftiod_state_close(d.state);
    d.state = NULL;
    ck_assert_int_eq(nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}
END_TEST

/* The acknowledgement of a batch that goes into its job leaves once the
 * batch is journaled and before the merge proper (PROTOCOL.md §1.4): at
 * that moment the journal holds it and the job does not yet.  A daemon
 * killed right then (its journal copied at the acknowledgement: what a
 * SIGKILL leaves) restores the batch from the journal: nothing the sender
 * forgets is lost.  A duplicate is acknowledged by the caller, not here. */
struct at_ack {
    const char *dir, *copy;
    int calls, status;
    uint64_t records_then;
};

static void on_ack(void *ctx, int status)
{
    struct at_ack *x = ctx;
    x->calls++;
    x->status = status;
    struct job *j = job_table_find(&d.jobs, "k");
    ck_assert_ptr_nonnull(j);
    x->records_then = j->records;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -p %s/*.journal %s/", x->dir, x->copy);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(acknowledged_before_the_merge)
{
    char dir[] = "/tmp/test_admit.XXXXXX", copy[] = "/tmp/test_admit.XXXXXX", err[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(copy));
    d.state = ftiod_state_open(dir, err, sizeof err);
    ck_assert_msg(d.state != NULL, "%s", err);
    for (int i = 0; i < 4; i++)
        rec[i] = (struct ftio_record){.t_start = 1000000000ull + i * 1000, .t_end = 1000000500ull + i * 1000,
                                      .bytes = 4096, .offset = 4096 * i, .op = FTIO_OP_WRITE,
                                      .layer = FTIO_LAYER_POSIX, .file_id = 7};
    struct ftio_batch b = {0};
    b.h = (struct ftio_batch_header){.version = 1, .job = "k", .host = "h", .pid = 9, .rank = -1,
                                     .seq = 0, .final = true, .clock_mono = 1000000000,
                                     .clock_real = ftio_real_ns()};
    b.rec = rec;
    b.n = 4;
    struct ftio_wbuf w = {0};
    ck_assert_int_eq(ftio_wire_encode(&w, &b.h, rec, 4), 0);
    struct at_ack x = {dir, copy, 0, -1, 99};
    struct admission a;
    ck_assert_int_eq(ftiod_admit_acking(&d, &b, -1, w.data, w.len, &a, on_ack, &x), ADMIT_MERGED);
    ck_assert_int_eq(x.calls, 1);
    ck_assert_int_eq(x.status, FTIO_ACK_MERGED);
    ck_assert_uint_eq(x.records_then, 0);                          /* not merged at the ack */
    ck_assert_uint_eq(job_table_find(&d.jobs, "k")->records, 4);  /* merged after it */
    ck_assert_int_eq(ftiod_admit_acking(&d, &b, -1, w.data, w.len, &a, on_ack, &x), ADMIT_DUPLICATE);
    ck_assert_int_eq(x.calls, 1);

    /* The daemon "killed" at the acknowledgement, restarted on its journal. */
    ftiod_state_release_all(d.state, &d.jobs);
    ftiod_state_close(d.state);
    d.state = NULL;
    teardown();
    setup();
    d.state = ftiod_state_open(copy, err, sizeof err);
    ck_assert_msg(d.state != NULL, "%s", err);
    ck_assert_int_eq(ftiod_state_restore(d.state, &d), 0);
    struct job *j = job_table_find(&d.jobs, "k");
    ck_assert_ptr_nonnull(j);
    ck_assert_uint_eq(j->records, 4);
    ck_assert_uint_eq(j->batches, 1);
    ck_assert_uint_eq(j->nfinal, 1);
    ftiod_state_release_all(d.state, &d.jobs);
    ftiod_state_close(d.state);
    d.state = NULL;
    ftio_wbuf_free(&w);
    ck_assert_int_eq(nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS), 0);
    ck_assert_int_eq(nftw(copy, remove_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}
END_TEST

Suite *ftio_test_suite(void)
{
    const TTest *const verdicts[] = {
        merged_then_duplicate, bad_sequence_and_too_many_procs, table_full_until_a_job_ends,
        namespace_and_foreign, quotas, reused_pid, unjournaled, acknowledged_before_the_merge,
    };
    Suite *s = suite_create("admit");
    TCase *tc = tcase_create("verdicts");
    tcase_add_checked_fixture(tc, setup, teardown);
    for (size_t i = 0; i < sizeof verdicts / sizeof *verdicts; i++)
        tcase_add_test(tc, verdicts[i]);
    suite_add_tcase(s, tc);
    return s;
}
