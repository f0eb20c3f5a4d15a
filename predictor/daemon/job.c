/* SPDX-License-Identifier: BSD-3-Clause */
/* job.c -- per-job state of ftiod (see job.h): sequence tracking per process,
 * counters, nested de-duplication and each mode's live stream.
 *
 * job_merge() is the hot path of ingest: it runs once per batch under the
 * daemon lock, so per record it does a time conversion, a few checks, the
 * lookup of its activity and one ftio_stream_add(); everything per process is
 * one hash lookup per batch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "job_activities.h"
#include "job_machine.h"
#include "history_glue.h"
#include "job_clock.h"
#include "batch_requests.h"
#include "grow.h"
#include "defaults.h"
#include "hash.h"

const char *job_mode_name(int mode)
{
    return mode == JOB_READ ? "read" : "write";
}

const char *job_drop_name(int why)
{
    static const char *const names[JOB_NDROPS] = {
        "future", "past", "before_grid", "too_long", "bad_size", "bad_clock",
    };
    return why >= 0 && why < JOB_NDROPS ? names[why] : "?";
}

/* A record not counted, for a reason. */
static void drop(struct job *j, enum job_drop why)
{
    j->dropped[why]++;
    j->bad_records++;
}

/* a + b, saturating at JOB_COUNTER_MAX (and saying so). */
static uint64_t add_clamped(struct job *j, uint64_t a, uint64_t b)
{
    if (b > JOB_COUNTER_MAX - a) {
        j->clamped = true;
        return JOB_COUNTER_MAX;
    }
    return a + b;
}

void job_limits_default(struct job_limits *l)
{
    ftio_options_default(&l->opts);
    l->step = 1.0;
    l->window = 0;
    l->horizon = FTIO_DEFAULT_HORIZON;
    l->max_procs = JOB_MAX_PROCS_DEFAULT;
    l->max_future = 3600.0;
    /* A spool file replayed after a long outage is still taken; a clock that
     * says 1970 (or a node a year behind) is not. */
    l->max_past = 30 * 86400.0;
    l->summary_records = JOB_SUMMARY_RECORDS_DEFAULT;
}

struct job *job_new(const char *id, const struct job_limits *lim)
{
    (void)lim;
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->id = strdup(id);
    if (!j->id) {
        free(j);
        return NULL;
    }
    j->uid = -1;
    return j;
}

void job_mode_forget_said(struct job_mode_state *m)
{
    free(m->said);
    m->said = NULL;
    m->said_len = m->said_cap = 0;
    m->said_seq = 0;
}

void job_free(struct job *j)
{
    if (!j)
        return;
    for (int m = 0; m < JOB_NMODES; m++) {
        ftio_stream_free(j->mode[m].stream);
        free(j->mode[m].said);
    }
    for (size_t i = 0; i < j->proc_cap; i++) {
        free(j->procs[i].host);
        free(j->procs[i].missing);
    }
    free(j->procs);
    job_activities_free(j->acts);
    job_machine_free(j->mach);
    job_history_free(j->history);   /* the memory of runs (history_glue.h) */
    job_clock_free(j);
    free(j->id);
    free(j);
}

/* ---- processes ---------------------------------------------------------- */

static size_t proc_slot(const char *host, int64_t pid, size_t cap)
{
    uint64_t h = ftio_hash_bytes(host, strlen(host));
    h ^= (uint64_t)pid * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

/* The process (host, pid, born) in the probe run of (host, pid), or NULL;
 * *other: the run holds (host, pid) with another born. */
static struct job_proc *proc_probe(struct job *j, const char *host, int64_t pid, int64_t born,
                                   bool *other)
{
    *other = false;
    if (!j->proc_cap)
        return NULL;
    for (size_t i = proc_slot(host, pid, j->proc_cap);; i = (i + 1) & (j->proc_cap - 1)) {
        struct job_proc *p = &j->procs[i];
        if (!p->host)
            return NULL;
        if (p->pid != pid || strcmp(p->host, host) != 0)
            continue;
        if (p->born == born || p->born == 0 || born == 0)
            return p;
        *other = true;
    }
}

struct job_proc *job_find_proc(struct job *j, const char *host, int64_t pid, int64_t born)
{
    bool other;
    return proc_probe(j, host, pid, born, &other);
}

bool job_rerun(struct job *j, const struct ftio_batch_header *h)
{
    bool other;
    return job_forgettable(j) && !proc_probe(j, h->host ? h->host : "", h->pid, h->born, &other) &&
           other;
}

/* Keep the load factor under 1/2; the table only grows. */
static int procs_grow(struct job *j)
{
    size_t cap = j->proc_cap ? j->proc_cap * 2 : 4;
    struct job_proc *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < j->proc_cap; i++) {
        struct job_proc *p = &j->procs[i];
        if (!p->host)
            continue;
        size_t k = proc_slot(p->host, p->pid, cap);
        while (n[k].host)
            k = (k + 1) & (cap - 1);
        n[k] = *p;
    }
    free(j->procs);
    j->procs = n;
    j->proc_cap = cap;
    return 0;
}

static struct job_proc *proc_add(struct job *j, const char *host, int64_t pid, int64_t born)
{
    if ((j->nprocs + 1) * 2 > j->proc_cap && procs_grow(j) < 0)
        return NULL;
    size_t k = proc_slot(host, pid, j->proc_cap);
    while (j->procs[k].host)
        k = (k + 1) & (j->proc_cap - 1);
    struct job_proc *p = &j->procs[k];
    p->host = strdup(host);
    if (!p->host)
        return NULL;
    p->pid = pid;
    p->born = born;
    p->rank = -1;
    j->nprocs++;
    return p;
}

/* ---- sequence numbers ----------------------------------------------------- */

static void missing_add(struct job *j, struct job_proc *p, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return;
    /* Most processes never have a gap: the table comes with the first. */
    if (!p->missing) {
        if (!(p->missing = malloc(JOB_MAX_MISSING * sizeof *p->missing))) {
            j->lost_batches += hi - lo;     /* counted lost; a late copy will be a duplicate */
            j->forgotten_ranges++;
            return;
        }
        j->gap_tables++;
    }
    if (p->nmissing == JOB_MAX_MISSING) {
        /* Forget the oldest gap: its batches, should they come late, will be
         * taken for duplicates.  They stay counted as lost. */
        memmove(&p->missing[0], &p->missing[1], (JOB_MAX_MISSING - 1) * sizeof p->missing[0]);
        p->nmissing--;
        j->forgotten_ranges++;
    }
    p->missing[p->nmissing++] = (struct seq_range){lo, hi};
    j->lost_batches += hi - lo;
}

/* A seq below next_seq: fills a gap (true) or is a duplicate (false). */
static bool missing_take(struct job *j, struct job_proc *p, uint64_t seq)
{
    for (size_t i = 0; i < p->nmissing; i++) {
        struct seq_range *r = &p->missing[i];
        if (seq < r->lo || seq >= r->hi)
            continue;
        j->lost_batches--;
        j->recovered_batches++;
        if (seq == r->lo)
            r->lo++;
        else if (seq == r->hi - 1)
            r->hi--;
        else if (p->nmissing < JOB_MAX_MISSING) {
            /* split [lo, hi) into [lo, seq) and [seq+1, hi) */
            memmove(&p->missing[i + 2], &p->missing[i + 1],
                    (p->nmissing - i - 1) * sizeof *r);
            p->missing[i + 1] = (struct seq_range){seq + 1, r->hi};
            r->hi = seq;
            p->nmissing++;
        } else {
            /* No room to split: keep the larger side, forget the other. */
            uint64_t left = seq - r->lo, right = r->hi - seq - 1;
            j->forgotten_ranges++;
            if (left >= right)
                r->hi = seq;
            else
                r->lo = seq + 1;
        }
        if (r->lo >= r->hi) {
            memmove(r, r + 1, (p->nmissing - i - 1) * sizeof *r);
            p->nmissing--;
        }
        return true;
    }
    return false;
}

/* ---- merge ------------------------------------------------------------------ */

/* The mode's stream, its grid laid on its first record t0: bin index 0
 * starts exactly there (so edge 0 is t0 itself, not a rounded sum), and the
 * ring starts JOB_EARLY_MARGIN earlier, at a negative index, for earlier
 * records; it keeps limits.summary_records records to lay the summary's grid
 * again on the earliest one (analysis/stream.h). */
static struct ftio_stream *mode_stream(const struct job_limits *lim, double t0)
{
    struct ftio_stream_config c = {
        .opts = lim->opts, .step = lim->step, .fixed_window = lim->window,
        .horizon = lim->horizon, .early = JOB_EARLY_MARGIN,
        .log_records = lim->summary_records, .keep_bytes = JOB_KEEP_BYTES,
        .max_activities = JOB_MAX_ACTIVITIES,
    };
    return ftio_stream_new(&c, t0);
}

static const struct ftio_stream_totals no_totals = { 0, 0, 0, 0 };

const struct ftio_stream_totals *job_mode_totals(const struct job_mode_state *m)
{
    return m->stream ? ftio_stream_totals(m->stream) : &no_totals;
}

const struct ftio_online_update *job_mode_update(const struct job_mode_state *m)
{
    struct ftio_stream_answer a;
    if (!m->stream || ftio_stream_answers(m->stream, &a, 1) != 1)
        return NULL;
    return a.update;
}

/* The batch's records through the shared conversion (common/batch_requests.h:
 * nested, bytes, clock, order, plausibility, origin), then the daemon's own
 * limits: a request longer than the horizon or before a mode's first bin.
 * The machine view takes each record from the same conversion
 * (job_machine.h): it was converted a second time in a pass of its own,
 * 4 % of a history's merge instructions (bench/README.md "ingest16"). */
static void merge_records(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                          const struct ftio_convert_options *co, const struct job_limits *lim)
{
    struct ftio_batch_clock clk = ftio_batch_clock_of(&b->h);
    double first[JOB_NMODES] = { INFINITY, INFINITY };
    int64_t any, f[2];
    /* Each mode's record log takes room for this batch's records at once
     * (a history: one run instead of 128, 256, 512 records in fresh heap,
     * a third of the ingest's page faults at 10,000 jobs; bench/README.md,
     * issue 27 eighth round), counted in the pass that finds the first starts. */
    size_t n[2], expect[JOB_NMODES] = { 0, 0 };
    if (ftio_batch_survey(b, co, &any, f, n)) {
        /* Each mode's grid is laid on its earliest start in this batch, so
         * that its edges and the online loop's boundaries fall where the
         * offline tool puts them, whatever order the batch lists them in. */
        if (!j->has_origin) {
            j->origin_ns = any;
            j->has_origin = true;
        }
        if (f[1] != INT64_MAX)
            first[JOB_WRITE] = ftio_job_seconds(f[1], j->origin_ns);
        if (f[0] != INT64_MAX)
            first[JOB_READ] = ftio_job_seconds(f[0], j->origin_ns);
        expect[JOB_WRITE] = n[1];
        expect[JOB_READ] = n[0];
    }
    job_activities_files(j, b);
    struct job_machine_batch mb;
    bool mach = job_machine_begin(j, p, b, lim, &mb);   /* phases described, the machine view */
    for (size_t i = 0; i < b->n; i++) {
        const struct ftio_record *r = &b->rec[i];
        struct ftio_wall_request q;
        switch (ftio_record_request(r, clk, co, &q)) {
        case FTIO_REQ_OTHER:
            if (mach)
                job_machine_other(&mb, r, co);
            continue;
        case FTIO_REQ_NESTED:
            j->nested_records++;
            j->nested_bytes += (double)r->bytes;
            continue;
        case FTIO_REQ_BAD:
            drop(j, q.bad == FTIO_BAD_SIZE ? JOB_DROP_BAD_SIZE
                    : q.bad == FTIO_BAD_FUTURE ? JOB_DROP_FUTURE
                    : q.bad == FTIO_BAD_PAST ? JOB_DROP_PAST : JOB_DROP_BAD_CLOCK);
            continue;
        case FTIO_REQ_DATA:
            break;
        }
        int mode = q.is_write ? JOB_WRITE : JOB_READ;
        double ts = ftio_job_seconds(q.start_ns, j->origin_ns);
        double te = ftio_job_seconds(q.end_ns, j->origin_ns);
        if (mach)
            job_machine_data(&mb, r, &q, ts, te);
        if (te - ts > lim->horizon || ts < -JOB_EARLY_MARGIN) {
            /* Longer than the horizon would smear over all of it (and cost as
             * much); earlier than the margin has no bin. */
            drop(j, te - ts > lim->horizon ? JOB_DROP_TOO_LONG : JOB_DROP_BEFORE_GRID);
            continue;
        }
        struct job_mode_state *m = &j->mode[mode];
        if (!m->stream && !(m->stream = mode_stream(lim, fmin(ts, first[mode])))) {
            drop(j, JOB_DROP_BEFORE_GRID);   /* out of memory: no grid to put it on */
            continue;
        }
        /* Earlier data before any analysis (another rank's batch): the grid
         * moves to it, as the offline tool lays it on the first event (the
         * loop starts again from there: nothing was analysed yet). */
        if (ts < ftio_stream_origin(m->stream) &&
            ftio_stream_relay(m->stream, fmin(ts, first[mode])) == 0)
            m->online_init = false;
        if (expect[mode] > 1) {
            ftio_stream_expect(m->stream, expect[mode]);
            expect[mode] = 0;
        }
        int act = job_activity_of(j, mode, r->file_id, ts, te, (double)q.bytes);
        if (ftio_stream_add(m->stream, act, ts, te, (double)q.bytes) != 0) {
            /* Before the mode's early margin: no bin was ever laid there. */
            drop(j, JOB_DROP_BEFORE_GRID);
            continue;
        }
        m->dirty = true;
        j->data_records++;
        j->bytes += (double)q.bytes;
    }
    job_activities_count(j);
    if (mach)
        job_machine_end(&mb, b);
}

void job_merge_data(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    const struct job_limits *lim, int64_t recv_ns)
{
    struct ftio_convert_options co;
    ftio_convert_options_default(&co);
    co.latest_ns = recv_ns + (int64_t)(lim->max_future * 1e9);
    co.earliest_ns = recv_ns - (int64_t)(lim->max_past * 1e9);
    struct ftio_batch fixed = *b;
    if (p->clock == JOB_CLOCK_FIXED) {
        /* The records through the same rules, on ftiod's clock: the anchor
         * moved by the process's offset (a shallow copy, records shared). */
        if (__builtin_add_overflow(fixed.h.skew_ns, p->clock_fix_ns, &fixed.h.skew_ns))
            fixed.h.skew_ns = b->h.skew_ns;
    }
    merge_records(j, p, &fixed, &co, lim);
}

/* Every rank of the declared world called MPI_Finalize. */
static bool mpi_over(const struct job *j)
{
    return j->mpi_nranks > 0 && j->nmpi_fin >= (size_t)j->mpi_nranks;
}

enum job_merge_status job_merge_seq(struct job *j, const struct ftio_batch *b,
                                    const struct job_limits *lim, double now_mono,
                                    struct job_proc **proc)
{
    const struct ftio_batch_header *h = &b->h;
    const char *host = h->host ? h->host : "";
    struct job_proc *p = job_find_proc(j, host, h->pid, h->born);
    uint64_t seq = h->seq;
    *proc = NULL;

    j->last_activity = now_mono;
    /* A sequence number no shim reaches (2^62), or a jump further ahead than
     * a shim flushing every second sends in 12 days: forged, counted, and
     * kept out of the gap counters (lost_batches stays meaningful). */
    uint64_t from = p ? p->next_seq : 0;
    if (seq >= JOB_SEQ_LIMIT || (seq > from && seq - from > JOB_MAX_SEQ_JUMP)) {
        j->bad_seq_batches++;
        return JOB_BAD_SEQ;
    }
    if (!p) {
        if (j->nprocs >= lim->max_procs || !(p = proc_add(j, host, h->pid, h->born))) {
            j->rejected_batches++;
            return JOB_TOO_MANY_PROCS;
        }
        missing_add(j, p, 0, seq);
        p->next_seq = seq == UINT64_MAX ? seq : seq + 1;
    } else if (seq >= p->next_seq) {
        missing_add(j, p, p->next_seq, seq);
        p->next_seq = seq == UINT64_MAX ? seq : seq + 1;
    } else if (!missing_take(j, p, seq)) {
        j->dup_batches++;
        return JOB_DUPLICATE;
    }
    if (p->born == 0)
        p->born = h->born;      /* its earlier batches did not say (an older sender) */
    *proc = p;
    return JOB_MERGED;
}

void job_merge_rest(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    const struct job_limits *lim, int64_t now_real_ns)
{
    const struct ftio_batch_header *h = &b->h;
    /* A process is a rank once any of its batches says so: the stream of a
     * launcher's pre-exec child (rank -1) continues in the exec'd rank with
     * the same pid, and that rank must count towards the job's end. */
    if (h->rank >= 0 && p->rank < 0) {
        p->rank = h->rank;
        j->nmpi++;
    }
    j->batches++;
    j->records += b->n;
    j->lost = add_clamped(j, j->lost, h->lost);
    if (h->has_unseen) {          /* a final batch's kernel cross-check */
        j->unseen[JOB_READ] = add_clamped(j, j->unseen[JOB_READ], h->unseen_read);
        j->unseen[JOB_WRITE] = add_clamped(j, j->unseen[JOB_WRITE], h->unseen_write);
    }
    if (h->nranks > j->nranks)
        j->nranks = h->nranks;
    /* MPI's word: this process is a rank (1), it finalised (2). */
    if (h->mpi > p->mpi) {
        if (p->mpi < FTIO_MPI_INIT)
            j->nmpi_init++;
        if (h->mpi >= FTIO_MPI_FINALIZED)
            j->nmpi_fin++;
        p->mpi = h->mpi;
    }
    if (h->mpi >= FTIO_MPI_INIT && h->nranks > j->mpi_nranks)
        j->mpi_nranks = h->nranks;

    /* The clock (job_clock.c): a batch of a process whose clock is behind
     * and not yet decided waits, so that it never lays the job's time base
     * in the past; the ones its batch decides go in first, in order. */
    job_clock_judge(j, p, h, now_real_ns);
    bool held = job_clock_hold(j, p, b, now_real_ns);
    job_clock_release(j, lim, false);
    if (held) {
        job_activities_files(j, b);    /* its file table names the files now */
        job_machine_files(j, b, lim);
    } else {
        job_merge_data(j, p, b, lim, now_real_ns);
    }

    if (h->mark)
        for (int m = 0; m < JOB_NMODES; m++)
            if (j->mode[m].stream)
                j->mode[m].flush = true;
    if (h->final && !p->final) {
        p->final = true;
        j->nfinal++;
    }
    j->ended = job_all_final(j) && mpi_over(j);
}

enum job_merge_status job_merge(struct job *j, const struct ftio_batch *b,
                                const struct job_limits *lim,
                                double now_mono, int64_t now_real_ns)
{
    struct job_proc *p;
    enum job_merge_status st = job_merge_seq(j, b, lim, now_mono, &p);
    if (st == JOB_MERGED)
        job_merge_rest(j, p, b, lim, now_real_ns);
    return st;
}

bool job_all_final(const struct job *j)
{
    /* The ranks a job must have seen are those MPI declared: rank and size
     * from the launcher's environment alone are also every helper's of a
     * rank's script (and a rank that does no I/O sends nothing unless its
     * shim says it is one). */
    return j->nprocs > 0 && j->nfinal == j->nprocs &&
           (j->mpi_nranks <= 0 || j->nmpi_init >= (size_t)j->mpi_nranks);
}

bool job_due_to_end(const struct job *j, double now_mono, double settle_end)
{
    return j->ended || (job_all_final(j) && now_mono - j->last_activity >= settle_end);
}

bool job_unseen_material(const struct job *j, int mode)
{
    double u = (double)j->unseen[mode];
    double floor = JOB_UNSEEN_FLOOR * (double)(j->nprocs > 0 ? j->nprocs : 1);
    return u > floor && u > JOB_UNSEEN_SHARE * job_mode_totals(&j->mode[mode])->bytes;
}

struct job_verdict job_end_verdict(const struct job *j, const char *why)
{
    struct job_verdict v = { .complete = false, .ended_by = why, .reason = NULL, .dropped = 0 };
    for (int k = 0; k < JOB_NDROPS; k++)
        v.dropped += j->dropped[k];
    bool final = strcmp(why, "final") == 0;
    if (final && !j->ended)
        v.ended_by = "idle";    /* no word from MPI or the batch system: it went quiet */
    /* The first reason that applies, most fundamental first. */
    if (strcmp(why, "timeout") == 0)
        v.reason = "silent for --job-timeout: the job may still run";
    else if (strcmp(why, "shutdown") == 0 && !job_all_final(j))
        v.reason = "ftiod stopped before the job ended";
    else if (j->nfinal < j->nprocs)
        v.reason = "processes without their final batch";
    else if (j->nprocs == 0)
        v.reason = "no process sent anything";
    else if (j->mpi_nranks > 0 && j->nmpi_init < (size_t)j->mpi_nranks)
        v.reason = "MPI ranks never seen";
    else if (j->mpi_nranks > 0 && j->nmpi_fin < j->nmpi_init)
        v.reason = "MPI ranks that did not finalise";
    else if (j->lost_batches > 0)
        v.reason = "batches missing (sequence gaps)";
    else if (v.dropped > 0)
        v.reason = "records dropped by ftiod (dropped_records)";
    else if (j->lost > 0)
        v.reason = "records lost by the shims (lost_records)";
    else if (j->clamped)
        v.reason = "a sender's counters were implausible (clamped)";
    else if (j->clock_flagged > 0)
        v.reason = "a process's clock is off by more than 1 h";
    else if (job_unseen_material(j, JOB_WRITE) || job_unseen_material(j, JOB_READ))
        v.reason = "the kernel counted bytes no record holds (unseen_bytes)";
    v.complete = v.reason == NULL;
    return v;
}

/* ---- table ------------------------------------------------------------------ */

void job_table_init(struct job_table *t, size_t max_jobs)
{
    memset(t, 0, sizeof *t);
    t->max = max_jobs;
}

size_t job_memory(const struct job *j)
{
    size_t m = sizeof *j + strlen(j->id) + 1 + j->proc_cap * sizeof *j->procs + j->nprocs * 32 +
               j->gap_tables * JOB_MAX_MISSING * sizeof(struct seq_range);
    for (int k = 0; k < JOB_NMODES; k++)
        if (j->mode[k].stream)
            m += ftio_stream_memory(j->mode[k].stream) + j->mode[k].said_cap;
    return m + (size_t)job_activities_memory(j) + job_clock_memory(j) + job_machine_memory(j);
}

void job_table_account(struct job_table *t, struct job *j)
{
    size_t m = job_memory(j);
    t->mem += (double)m - (double)j->mem;
    j->mem = m;
}

/* ---- the index: id -> job, linear probing ---- */

static size_t index_slot(const struct job_table *t, const char *id)
{
    return (size_t)ftio_hash_bytes(id, strlen(id)) & (t->index_cap - 1);
}

static void index_put(struct job_table *t, struct job *j)
{
    size_t i = index_slot(t, j->id);
    while (t->index[i])
        i = (i + 1) & (t->index_cap - 1);
    t->index[i] = j;
}

/* Room for one more job at a load under 1/2. */
static int index_room(struct job_table *t)
{
    if ((t->n + 1) * 2 <= t->index_cap)
        return 0;
    size_t cap = t->index_cap ? t->index_cap * 2 : 64;
    struct job **old = t->index;
    size_t old_cap = t->index_cap;
    if (!(t->index = calloc(cap, sizeof *t->index))) {
        t->index = old;
        return -1;
    }
    t->index_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            index_put(t, old[i]);
    free(old);
    return 0;
}

/* Take j out, moving back the entries of its probe run (no tombstones). */
static void index_del(struct job_table *t, const struct job *j)
{
    size_t mask = t->index_cap - 1, i = index_slot(t, j->id);
    while (t->index[i] != j) {
        if (!t->index[i])
            return;
        i = (i + 1) & mask;
    }
    t->index[i] = NULL;
    for (size_t k = (i + 1) & mask; t->index[k]; k = (k + 1) & mask) {
        struct job *x = t->index[k];
        t->index[k] = NULL;
        index_put(t, x);
    }
}

struct job *job_table_find(struct job_table *t, const char *id)
{
    if (!t->index_cap)
        return NULL;
    for (size_t i = index_slot(t, id); t->index[i]; i = (i + 1) & (t->index_cap - 1))
        if (strcmp(t->index[i]->id, id) == 0)
            return t->index[i];
    return NULL;
}

struct job *job_table_add(struct job_table *t, const char *id, const struct job_limits *lim)
{
    if (t->n >= t->max || FTIO_GROW(t->job, t->cap, t->n + 1) < 0)
        return NULL;
    if (index_room(t) < 0)
        return NULL;
    struct job *j = job_new(id, lim);
    if (j) {
        t->job[t->n++] = j;
        index_put(t, j);
        job_table_account(t, j);
    }
    return j;
}

bool job_forgettable(const struct job *j)
{
    return j->closed && !j->reopened && !j->held;
}

struct job *job_table_oldest_closed(struct job_table *t)
{
    struct job *old = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (job_forgettable(t->job[i]) && (!old || t->job[i]->closed_at < old->closed_at))
            old = t->job[i];
    return old;
}

void job_table_remove(struct job_table *t, struct job *j)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->job[i] == j) {
            t->job[i] = t->job[--t->n];
            index_del(t, j);
            t->mem -= (double)j->mem;
            job_free(j);
            return;
        }
}

void job_table_free(struct job_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        job_free(t->job[i]);
    free(t->job);
    free(t->index);
    memset(t, 0, sizeof *t);
}
