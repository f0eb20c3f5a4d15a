/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.h -- fleet analysis: `ftio scan` (libftioscan.a).
 *
 * A scan analyses every job of an archive of traces (each file one job; any
 * format the readers take, binary Darshan logs first) and writes one row per
 * job, in CSV and/or JSON Lines, then a summary in the manner of the
 * temporal-I/O-behaviour study (share of periodic jobs and of their volume,
 * the most common temporal classes).  The engine is split by concern:
 *
 *   scan_files.c     the work list: arguments -> sorted regular files
 *                    (directories walked recursively)
 *   scan_job.c       one file -> one row per job: read, signal, analysis
 *                    per mode (analysis library), the row's numbers
 *   scan_temporal.c  the study's temporal class: 4 equal segments of the
 *                    run, each R, W, B or 0
 *   scan_format.c    a row as CSV and as one JSON line
 *   scan_summary.c   the counters of the summary, their merge, its text
 *   scan_engine.c    the threads (one ftio_analyzer each), rows handed to a
 *                    sink in work-list order, progress on stderr
 *   scan_cli.c       `ftio scan` options, output files; hands over to
 *                    ftio-scan-mpi when started by an MPI launcher
 *   scan_mpi.c       ftio-scan-mpi (built with mpicc, never linked into
 *                    `ftio`): ranks split the work list, rank 0 merges rows
 *                    and summaries
 */
#ifndef FTIO_SCAN_H
#define FTIO_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "trace.h"

/* ---- options (scan_cli.c) ---------------------------------------------- */

struct scan_opts {
    struct ftio_options      analysis;  /* -f, --compat */
    struct ftio_read_options read;      /* --lenient, --dxt */
    bool   do_read, do_write;           /* -m read|write|both (default both) */
    double max_samples;                 /* --max-samples: fs lowered for long jobs */
    int    threads;                     /* --threads; 0 = online cores */
    bool   progress;                    /* progress lines on stderr */
    const char *csv, *jsonl;            /* output files, NULL = none, "-" = stdout */
    /* Filters (a job that fails one is no row, counted as filtered out):
     * --user, --exe, --since, --until, --min-bytes. */
    int64_t filter_uid;                 /* -1: any */
    const char *filter_exe;             /* substring of the command line, NULL: any */
    double since, until;                /* job start in [since, until), epoch s; NAN: open */
    double min_bytes;                   /* read + written >= this (0: any) */
    const char *history;                /* --history STORE: record every job there */
    struct scan_history *hist;          /* its store, open during the scan (scan_history.c) */
};

/* `ftio scan` (argv[0] "scan"): the exit status. */
int ftio_cmd_scan(int argc, char **argv);

/* Parse `ftio scan` arguments (argv[0] is "scan").  Returns 0 and sets
 * *first_path to the index of the first path argument, or the exit status
 * (2 usage; -1 for --help, already printed). */
int scan_parse_args(int argc, char **argv, struct scan_opts *o, int *first_path);

/* ---- the work list (scan_files.c) -------------------------------------- */

struct scan_file {
    char *path;
    bool  named;      /* given on the command line (not found in a directory):
                         analysed even when it looks like no trace format */
};
struct scan_files {
    size_t n, cap;
    struct scan_file *file;
};
/* Collect the paths (directories recursively, entries sorted by name).  A
 * path that does not exist is kept: its row carries the error.  -1 on OOM. */
int  scan_files_collect(struct scan_files *f, char *const *paths, int npaths);
/* Append one path as it is (no walk); -1 on OOM. */
int  scan_files_add(struct scan_files *f, const char *path, bool named);
void scan_files_free(struct scan_files *f);

/* ---- one job (scan_job.c, scan_temporal.c) ------------------------------ */

enum { SCAN_READ = 0, SCAN_WRITE = 1 };

struct scan_mode {
    bool   analysed;        /* the analysis ran */
    double fs;              /* sampling frequency used (Hz) */
    bool   has_period;
    double period, confidence;
    enum ftio_class cls;
    size_t phases;          /* I/O phases seen (robust detector) */
    bool   periodic;        /* the study's rule: a period and >= 3 phases */
    double phase_bytes;     /* volume per phase, NAN when unknown */
    double phase_duration;  /* time in I/O per phase, NAN when unknown */
    double first_onset;     /* --history: the first phase of the period's train (s on the
                               trace's axis), NAN when unknown */
    char   note[96];        /* why not analysed ("no I/O", "too short ...") */
    /* Activities (ALGORITHM.md §10): how many, and the two largest by bytes
     * analysed like the mode (pattern "" when absent). */
    size_t nact;
    struct scan_activity {
        char   pattern[160];
        bool   has_period;
        double period, confidence;
    } act[2];
};

#define SCAN_TEMPORAL_MIN_RUN  12.0        /* s: 3 s per segment, as the study */
#define SCAN_TEMPORAL_MIN_BW   1048576.0   /* B/s: a segment's peak below is no I/O */

struct scan_row {
    size_t index;           /* position in the work list */
    const char *file;
    char   job[64];
    int64_t uid, nprocs;    /* -1 when unknown */
    const char *exe;        /* NULL when unknown */
    double run_time;        /* s, 0 when unknown */
    double start, end;      /* the job's start and end, Unix epoch s; NAN when unknown */
    bool   filtered;        /* fails a filter: no row, counted in the summary */
    double bytes[2];        /* read, write */
    const char *format;     /* reader format name */
    const char *source;     /* "dxt", "heatmap", "counters" or "records" */
    struct scan_mode mode[2];
    char   temporal[5];     /* "R00W"...; "" when not classified */
    const char *temporal_note; /* why not classified (static), or NULL */
    const char *error;      /* unreadable: the reason; the rest is empty */
    const char *warning;    /* --lenient recovery */
};

/* The temporal class of a job from the step signals of its reads and writes
 * (either may be empty) over [t0, t0 + run): 4 equal segments, each R, W,
 * B or 0 by the peak bandwidth of each direction in it (>= 1 MiB/s counts).
 * Writes "" and returns a static reason when the run is shorter than 12 s. */
const char *scan_temporal_class(const struct ftio_signal *rd, const struct ftio_signal *wr,
                                double t0, double run, char out[5]);
/* Table II of the study from a class: when direction d (SCAN_READ,
 * SCAN_WRITE) happens.  TYPICAL: only in its typical segment (reads: the
 * first, "beginning"; writes: the last, "end"); THROUGHOUT: in >= 3
 * segments; NONE: in none; else OTHERS. */
enum scan_when { SCAN_WHEN_TYPICAL, SCAN_WHEN_THROUGHOUT, SCAN_WHEN_OTHERS, SCAN_WHEN_NONE };
/* -1 when cls is not a class (the job was not classified). */
int scan_when(const char *cls, int d);
/* The word of `when` for direction d in the rows and the summary
 * ("beginning", "end", "throughout", "others", "none"); NULL for -1. */
const char *scan_when_word(int d, int when);

struct scan_worker;   /* per-thread state: analyzer, scratch */
struct scan_worker *scan_worker_new(void);
void scan_worker_free(struct scan_worker *w);

/* Analyse one file: calls emit once per job of the file (once with the
 * error for an unreadable file; never for a file found in a directory that
 * is no trace, which returns 1).  Returns 0, or 1 when skipped. */
typedef void (*scan_emit_fn)(void *ctx, const struct scan_row *row);
int scan_file(struct scan_worker *w, const struct scan_opts *o, const char *path, bool named,
              size_t index, scan_emit_fn emit, void *ctx);

/* ---- the memory of runs (scan_history.c) -------------------------------- */

/* `--history STORE`: open it (NULL after a line on stderr), record a job's
 * row (any thread), count (recorded, without a key, failed), say, close
 * (-1 when a record failed). */
struct scan_history *scan_history_open(const char *spec);
void scan_history_add(struct scan_history *h, const struct ftio_trace *t, const struct scan_row *r);
void scan_history_counts(const struct scan_history *h, double c[3]);
void scan_history_report(const struct scan_history *h, const double c[3]);
int  scan_history_close(struct scan_history *h);

/* ---- rows as text (scan_format.c) --------------------------------------- */

/* A growable text buffer. */
struct scan_buf { char *s; size_t n, cap; bool oom; };
void scan_buf_add(struct scan_buf *b, const char *s, size_t n);
void scan_buf_printf(struct scan_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void scan_buf_free(struct scan_buf *b);

extern const char scan_csv_header[];   /* with its newline */
void scan_format_csv(struct scan_buf *b, const struct scan_row *r, const struct scan_opts *o);
void scan_format_jsonl(struct scan_buf *b, const struct scan_row *r, const struct scan_opts *o);

/* ---- the summary (scan_summary.c) --------------------------------------- */

#define SCAN_NCLASSES 256   /* 4 segments x {0, R, W, B} */
enum { SCAN_SRC_DXT, SCAN_SRC_HEATMAP, SCAN_SRC_COUNTERS, SCAN_SRC_RECORDS, SCAN_NSRC };

/* Every field a double, so that ranks merge it with one MPI_SUM reduction. */
struct scan_summary {
    double files, skipped, rows, errors, warnings;
    double filtered;                    /* jobs left out by --user/--exe/--since/... */
    double jobs;                        /* rows without error */
    double source[SCAN_NSRC];
    double analysed[2];                 /* jobs whose read / write was analysed */
    double periodic[2], periodic_both, periodic_any;
    double bytes[2], periodic_bytes[2]; /* all / of the jobs periodic in that mode */
    double bytes_both, bytes_any;       /* r+w bytes of jobs periodic in both / either */
    double classified, too_short, no_io;
    double when[2][3];                  /* read/write: TYPICAL, THROUGHOUT, OTHERS (+ NONE) */
    double cls[SCAN_NCLASSES];
    double seconds;                     /* wall time of the scan (max over ranks) */
    double threads;                     /* analysis threads (sum over ranks) */
    double ranks;                       /* processes (1 per scan_run) */
};
#define SCAN_SUMMARY_NFIELDS (sizeof(struct scan_summary) / sizeof(double))

void scan_summary_add(struct scan_summary *s, const struct scan_row *r);
void scan_summary_merge(struct scan_summary *into, const struct scan_summary *from);
void scan_summary_print(FILE *f, const struct scan_summary *s, const struct scan_opts *o);

/* ---- the engine (scan_engine.c) ----------------------------------------- */

/* Receives the rows of work item `index` (text of all its jobs, possibly
 * several lines; empty when skipped), in increasing index order, on the
 * calling thread of scan_run. */
typedef int (*scan_sink_fn)(void *ctx, size_t index, const char *csv, size_t csv_len,
                            const char *jsonl, size_t jsonl_len);

/* Analyse the items `items[0..nitems)` of the work list (all when items is
 * NULL: 0..f->n) with o->threads threads; adds to *sum.  `progress_scale`
 * multiplies counts in progress lines (ranks report for the whole run).
 * Returns 0, or -1 when the sink failed or memory ran out. */
int scan_run(const struct scan_opts *o, const struct scan_files *f, const size_t *items,
             size_t nitems, scan_sink_fn sink, void *ctx, struct scan_summary *sum,
             int progress_scale);

/* Online cores (at least 1). */
int scan_online_cores(void);

/* Output helpers shared by `ftio scan` and ftio-scan-mpi (scan_cli.c). */
struct scan_output {
    FILE *csv, *jsonl;
    bool  csv_stdout, jsonl_stdout;
};
int  scan_output_open(struct scan_output *out, const struct scan_opts *o);
int  scan_output_sink(void *ctx, size_t index, const char *csv, size_t csv_len,
                      const char *jsonl, size_t jsonl_len);
int  scan_output_close(struct scan_output *out);
/* Summary to stdout, or stderr when rows go to stdout; exit status. */
int  scan_finish(const struct scan_summary *s, const struct scan_opts *o,
                 const struct scan_output *out);

#endif
