/* SPDX-License-Identifier: BSD-3-Clause */
/* job.h -- per-job state of ftiod: what one job's batches add up to.
 *
 * ingest.c decodes a batch, admit.c hands it to job_merge(); the analysis
 * threads (sched_step.c) analyse each mode's stream and store their results
 * back; status.c and publish.c read the counters.  Nothing here knows about
 * ZeroMQ or threads: the caller (struct ftiod) holds the lock, which keeps
 * this file unit-testable (tests/daemon/test_job.c).
 *
 * Memory per job is bounded: each mode's signal is a live stream
 * (analysis/stream.h: bins of width 1/fs over a horizon, which grow with the
 * data's span up to it, and raw records only while there are at most
 * limits.summary_records of them), processes are capped at
 * limits.max_procs and the missing-sequence ranges of each process at
 * JOB_MAX_MISSING.
 *
 * Time base: a record's monotonic ns becomes wall ns with its batch's anchor
 * (real + (t - mono) + skew), then job-relative seconds from `origin_ns`, the
 * earliest start in the job's first data batch merged (a batch of a process
 * whose clock is behind waits until its clock is decided: job_clock.h).  The analysis works on those
 * small numbers; publish.c adds origin back to give epoch seconds.  Each
 * mode's bins have an edge at that mode's first record (grid_t0), so when it
 * is also the mode's earliest -- the usual case, and `ftio replay` sends the
 * earliest batches first -- its windows start where offline ones do.
 */
#ifndef FTIOD_JOB_H
#define FTIOD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis.h"
#include "analysis/stream.h"
#include "wire.h"

enum job_mode { JOB_WRITE = 0, JOB_READ = 1, JOB_NMODES = 2 };
struct job_activities;
struct job_machine;
struct job_history;
struct job_clock_hold;
const char *job_mode_name(int mode);   /* "write", "read" */

struct job_limits {
    /* the analysis of each mode's stream (ftiod's analysis options, --step,
     * --window); opts.fs is the bins' rate, Hz */
    struct ftio_options opts;
    double   step;        /* data s between analyses (boundaries) */
    double   window;      /* > 0: fixed window length, s */
    double   horizon;     /* seconds of signal kept per mode */
    size_t   max_procs;   /* processes per job; batches of more are dropped */
    double   max_future;  /* records later than the receiver's clock + this are bad */
    double   max_past;    /* records earlier than the receiver's clock - this are bad */
    size_t   summary_records;  /* records kept per mode to re-lay the summary */
};
/* Defaults of job_limits_default() that are ftiod settings too (its option
 * table shows them through CLIOPT_NUM; the horizon is common/defaults.h's). */
#define JOB_MAX_PROCS_DEFAULT       65536
#define JOB_SUMMARY_RECORDS_DEFAULT 4096   /* 100 KB per mode, until the bins forget */
void job_limits_default(struct job_limits *l);

/* A mode (or activity) keeps its whole record while it takes at most this;
 * beyond, its bins follow its analysis window (analysis/stream.h): a job of
 * a few dozen bursts is summarised whole, a day-long job costs what its
 * window holds. */
#define JOB_KEEP_BYTES 24576

/* Records may start up to this long before the job's time 0 (the earliest
 * start of its first batch: other ranks' batches arrive later). */
#define JOB_EARLY_MARGIN 60.0

/* Batches of one process (host, pid) that never arrived: up to
 * JOB_MAX_MISSING ranges [lo, hi) so a late copy (replay of a spool file)
 * fills its gap instead of being taken for a duplicate. */
#define JOB_MAX_MISSING 32
/* Sequence numbers past JOB_SEQ_LIMIT, or more than JOB_MAX_SEQ_JUMP ahead of
 * what a process sent so far (from 0 for a new one), are forged. */
#define JOB_SEQ_LIMIT (1ull << 62)
#define JOB_MAX_SEQ_JUMP (1ull << 20)
struct seq_range { uint64_t lo, hi; };

/* Why ftiod did not count a data record: each is counted, shown in the
 * `.end` (dropped_records) and makes it incomplete (PROTOCOL.md §2). */
enum job_drop {
    JOB_DROP_FUTURE = 0,   /* ends more than max_future after ftiod's clock */
    JOB_DROP_PAST,         /* starts more than max_past before ftiod's clock */
    JOB_DROP_BEFORE_GRID,  /* starts before the job's grid (JOB_EARLY_MARGIN) once laid */
    JOB_DROP_TOO_LONG,     /* lasts longer than the horizon */
    JOB_DROP_BAD_SIZE,     /* negative bytes, or more than one call can move */
    JOB_DROP_BAD_CLOCK,    /* its anchor or times overflow, or precede 1970 */
    JOB_NDROPS
};
const char *job_drop_name(int why);   /* "future", "past", "before_grid", ... */

/* Counters that JSON shows saturate here: exact in a double and in every
 * JSON reader; a sender that claims more is flagged (job.clamped). */
#define JOB_COUNTER_MAX ((1ull << 53) - 1)

/* Node clocks (PROTOCOL.md §1): a process whose realtime anchor disagrees
 * with ftiod's clock by more than JOB_CLOCK_TOLERANCE s while its batches
 * arrive live is corrected to ftiod's clock, up to JOB_CLOCK_MAX_FIX s;
 * beyond it is flagged (its records fall where its clock puts them, and are
 * dropped, counted, when that is out of bounds). */
#define JOB_CLOCK_TOLERANCE 5.0
#define JOB_CLOCK_MAX_FIX   3600.0
enum job_clock { JOB_CLOCK_UNKNOWN = 0, JOB_CLOCK_OK, JOB_CLOCK_FIXED, JOB_CLOCK_FLAGGED };
/* The other ranks' word (job_clock.h): a process whose clock agrees with
 * ftiod's sent a batch this close (s) to one of a process whose clock is
 * behind: the job runs now, so that batch was made now and its clock is
 * behind.  Until its clock is decided, the data batches of a process whose
 * first batch is behind are held, at most JOB_CLOCK_HOLD_RECORDS records per
 * job (beyond: merged as they are). */
#define JOB_CLOCK_LIVE_WINDOW  30.0
#define JOB_CLOCK_HOLD_RECORDS (1u << 18)

/* A process is (host, pid, born): `born` (PROTOCOL.md §1) tells apart two
 * processes that had the same pid one after the other (pid wrap, a pid
 * namespace per container, thousands of commands of one batch script).  A
 * born of 0 (a sender older than the key) matches any. */
struct job_proc {
    char    *host;         /* NULL = empty slot */
    int64_t  pid;
    int64_t  born;         /* 0 until one of its batches says */
    int32_t  rank;
    uint64_t next_seq;     /* one past the highest seq seen */
    size_t   nmissing;
    struct seq_range *missing;   /* JOB_MAX_MISSING of them, from its first gap on */
    bool     final;
    int32_t  mpi;          /* highest enum ftio_mpi_state it sent */
    /* its clock against ftiod's (job_merge) */
    uint8_t  clock;        /* enum job_clock */
    int64_t  clock_fix_ns; /* added to its anchor once FIXED */
    bool     has_last;     /* last_*: its previous batch, for the live test */
    int64_t  last_recv_ns, last_mono_ns;
    uint32_t mach;         /* job_machine.c: its index in the phase tracker + 1, 0 before */
    bool     replayed;     /* its batches came back to back: old, not behind */
    uint32_t nheld;        /* its batches held until its clock is decided */
};

/* One mode of a job: its live stream (analysis/stream.h: bins, online loop,
 * activities, what the summary needs), and when the analysis threads take
 * its next boundary (sched_queue.c, sched_step.c). */
struct job_mode_state {
    struct ftio_stream *stream;   /* NULL until the mode's first record; its grid's
                                     edges at that record, grid_t0 + k/fs */

    /* the online loop (the analysis thread holding the job) */
    bool     dirty;            /* data arrived since the last analysis */
    bool     flush;            /* a `mark` arrived: the data up to t_max is all there */
    double   last_run;         /* daemon monotonic s of the last analysis */
    uint64_t pub_seq;          /* publications of this (job, mode) */
    bool     online_init;      /* boundary laid */
    double   boundary;         /* job-relative end of the next analysis window */

    bool     restored;         /* rebuilt from --state-dir: predict from the data's end on */

    /* The text of the latest prediction published (sched_step.c), publication
     * said_seq: a stopping daemon's `.end` says it as it is (end_message.c). */
    char    *said;
    size_t   said_len, said_cap;
    uint64_t said_seq;
};
/* The kept text no longer says m's latest answer (a prior came since, or a
 * new text could not be kept): dropped, the `.end` builds it again. */
void job_mode_forget_said(struct job_mode_state *m);

/* The mode's totals (zero before its first record) and its latest answer
 * (NULL before the first analysis): what the stream says. */
const struct ftio_stream_totals *job_mode_totals(const struct job_mode_state *m);
const struct ftio_online_update *job_mode_update(const struct job_mode_state *m);

struct job {
    char    *id;
    int64_t  uid;              /* owner: the uid of its first batch (-1: --auth none) */
    int64_t  origin_ns;        /* wall ns of relative time 0 */
    bool     has_origin;

    struct job_mode_state mode[JOB_NMODES];

    /* processes, open addressing on (host, pid); those of one (host, pid)
     * and another born share the probe run */
    struct job_proc *procs;
    size_t   proc_cap, nprocs, nfinal, nmpi;
    size_t   gap_tables;       /* processes with a table of missing ranges */
    int32_t  nranks;           /* largest world size declared */
    /* MPI's word (batch key `mpi`): processes that called MPI_Init, those
     * that called MPI_Finalize, and the world size they declared. */
    size_t   nmpi_init, nmpi_fin;
    int32_t  mpi_nranks;
    size_t   clock_fixed, clock_flagged;   /* processes (enum job_clock) */
    bool     has_live;         /* live_ns: the last batch of a process whose clock agrees */
    int64_t  live_ns;          /* with ftiod's (the other ranks' word, job_clock.c) */
    bool     replay;           /* a process's batches came back to back: old batches */
    struct job_clock_hold *hold;   /* batches held until their clock is decided */

    /* counters */
    uint64_t batches, records;     /* everything received (all ops) */
    uint64_t data_records;         /* read/write records counted */
    double   bytes;                /* bytes of counted data records */
    uint64_t nested_records;       /* POSIX records inside MPI-IO: not counted */
    double   nested_bytes;
    uint64_t bad_records;          /* data records dropped: the sum of dropped[] */
    uint64_t dropped[JOB_NDROPS];  /* by reason */
    uint64_t lost;                 /* records the shims reported dropped (<= JOB_COUNTER_MAX) */
    /* The kernel cross-check (PROTOCOL.md §1 `unseen`): bytes the processes'
     * kernels counted that no record holds, by mode (<= JOB_COUNTER_MAX). */
    uint64_t unseen[JOB_NMODES];
    bool     clamped;              /* a sender claimed more than JOB_COUNTER_MAX */
    uint64_t lost_batches;         /* sequence gaps still open */
    uint64_t recovered_batches;    /* gaps later filled (replay) */
    uint64_t dup_batches;          /* seen twice: dropped */
    uint64_t rejected_batches;     /* over limits (too many processes) */
    uint64_t forgotten_ranges;     /* missing-range table overflow */
    uint64_t bad_seq_batches;      /* absurd sequence numbers: dropped */
    uint64_t foreign_batches;      /* sent by another uid than the owner: dropped */

    double   last_activity;        /* daemon monotonic s of the last batch */
    bool     ended;                /* MPI says it is over: every declared rank
                                      finalised, every process sent `final` */
    bool     told;                 /* `ftio end JOB`: end it now */
    /* Every process sent `final`: the end's summaries are made at once, the
     * `.end` once --settle-end passes (sched_step.c); valid while no batch
     * came after the one at last_activity == summarised_at. */
    bool     summarised;
    double   summarised_at;

    /* After its `.end` a job is kept --keep-ended seconds (PROTOCOL.md §2):
     * batches that arrive then (a replayed spool file) are merged into it
     * and a corrected `.end` with the next revision follows. */
    bool     closed;               /* an `.end` was published */
    bool     reopened;             /* data merged since that `.end` */
    unsigned revision;             /* `.end` messages published so far */
    double   closed_at;            /* daemon monotonic s of the last `.end` */
    char     ended_by[16];         /* final, timeout, told, shutdown */
    struct job_journal *journal;   /* --state-dir (state.c), NULL without */
    /* The analysis threads (sched_queue.c, under the lock): queued or in a
     * turn, so not removed by anyone (daemon.h); to be removed by the scan. */
    bool     held;
    bool     forget;
    struct job_history *history;   /* the memory of runs (history_glue.h), NULL without */
    struct job_activities *acts;   /* per-activity streams (job_activities.c), NULL until
                                      the first batch */
    struct job_machine *mach;      /* phases described, file systems, duration model
                                      (job_machine.c), NULL until the first batch */
    size_t   mem;                  /* bytes it held when last accounted (job_table_account) */
};

/* What a merge did, for the caller's log lines and scheduling. */
enum job_merge_status {
    JOB_MERGED        = 0,
    JOB_DUPLICATE     = 1,   /* batch seen before: dropped */
    JOB_TOO_MANY_PROCS = 2,  /* a new process over limits.max_procs: dropped */
    JOB_BAD_SEQ       = 3,   /* an absurd sequence number (forged): dropped */
};

struct job *job_new(const char *id, const struct job_limits *lim);
void        job_free(struct job *j);

/* Merge one decoded batch: sequence tracking, counters, bins.  now_mono is the
 * daemon's monotonic time (s), now_real_ns its wall clock (for sanity checks
 * of record times).  Never fails on content: bad records are counted. */
enum job_merge_status job_merge(struct job *j, const struct ftio_batch *b,
                                const struct job_limits *lim,
                                double now_mono, int64_t now_real_ns);
/* job_merge() in its two steps (admit.c acknowledges between them,
 * PROTOCOL.md §1.4): job_merge_seq() decides the status from the sequence
 * number and the process (a new one is added, its seq recorded) and gives
 * the process; only for JOB_MERGED, job_merge_rest() then merges the batch
 * into it, which never fails on content. */
enum job_merge_status job_merge_seq(struct job *j, const struct ftio_batch *b,
                                    const struct job_limits *lim, double now_mono,
                                    struct job_proc **proc);
void job_merge_rest(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    const struct job_limits *lim, int64_t now_real_ns);

/* The process of a batch from (host, pid, born), or NULL when it is new. */
struct job_proc *job_find_proc(struct job *j, const char *host, int64_t pid, int64_t born);

/* Is the batch h a new run under the id of j, an ended job: j's `.end` is out,
 * nothing reopened it, no analysis thread holds it (job_forgettable), and a
 * process of j had h's (host, pid) with another born?  Then j is forgotten
 * and a new job takes the id (admit.c), rather than the new run being
 * merged into the old one (its first batches dropped as duplicates, the
 * rest as late batches of a "corrected" `.end` of two runs). */
bool job_rerun(struct job *j, const struct ftio_batch_header *h);

/* Has every process seen so far sent `final` (and, when a process said it
 * is an MPI rank, every rank of the declared world been seen)? */
bool job_all_final(const struct job *j);

/* Is it time to end j (the analysis thread's test, besides `ftio end`,
 * --job-timeout and shutdown)?  When MPI says it is over (j->ended), or
 * when every process seen sent `final` and none sent anything for
 * settle_end s (ftiod --settle-end): a job of processes that come one after
 * another (`cp a b && cp b c`) is not over in between. */
bool job_due_to_end(const struct job *j, double now_mono, double settle_end);

/* What a job's `.end` says (PROTOCOL.md §2), decided in this one place. */
struct job_verdict {
    bool        complete;   /* the summary covers every record of the job */
    const char *ended_by;   /* `why` as given, but "idle" for "final" when
                               only the processes' quiet says it is over */
    const char *reason;     /* why it is not complete (one phrase), NULL if it is */
    uint64_t    dropped;    /* data records not counted (sum of j->dropped) */
};
/* why: final (job_due_to_end said so), told, timeout, shutdown. */
struct job_verdict job_end_verdict(const struct job *j, const char *why);
/* Are a mode's unseen bytes material: more than JOB_UNSEEN_FLOOR per process
 * and more than JOB_UNSEEN_SHARE of the mode's counted bytes?  (Below: what
 * glibc reads on a program's behalf, ~75 KB per Open MPI rank: the loader's
 * reads of the components it dlopens, stdio's read-ahead of /proc files.) */
#define JOB_UNSEEN_FLOOR (1024.0 * 1024.0)
#define JOB_UNSEEN_SHARE 0.01
bool job_unseen_material(const struct job *j, int mode);

/* ---- the set of jobs ------------------------------------------------- */
struct job_journal;

struct job_table {
    struct job **job;
    size_t n, cap, max;
    double mem;              /* bytes the jobs hold, as last accounted */
    struct job **index;      /* open addressing on the id: job_table_find in O(1) */
    size_t index_cap;        /* a power of two, at least twice n */
};
/* Bytes job j holds now: its state, processes, bins and record logs (what
 * --max-memory bounds: what a job uses, which grows with what it sent). */
size_t      job_memory(const struct job *j);
/* j changed (a batch merged): count its memory again in t->mem. */
void        job_table_account(struct job_table *t, struct job *j);
void        job_table_init(struct job_table *t, size_t max_jobs);
struct job *job_table_find(struct job_table *t, const char *id);
/* NULL when the table is full (max jobs) and no ended job can make room
 * (the caller forgets the oldest ended job first: job_table_oldest_closed). */
struct job *job_table_add(struct job_table *t, const char *id, const struct job_limits *lim);
/* The ended job (closed) that ended first among those no late batch
 * reopened and no analysis thread holds, or NULL: the only kind of job the
 * analysis threads never use with the lock dropped, so the ingest thread
 * may forget it. */
struct job *job_table_oldest_closed(struct job_table *t);
/* That kind of job: closed, not reopened, not held. */
bool        job_forgettable(const struct job *j);
/* Remove (and free) job j. */
void        job_table_remove(struct job_table *t, struct job *j);
void        job_table_free(struct job_table *t);

#endif
