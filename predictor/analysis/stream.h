/* SPDX-License-Identifier: BSD-3-Clause */
/* stream.h -- one live stream: a (job, mode) followed as its data arrives
 * (ALGORITHM.md §6, §9 step 11, §10).  The one implementation that ftiod
 * (predictor/daemon/) and `ftio --window` (predictor/cli/offline.c) drive,
 * so that a trace replayed into the daemon gives the messages the offline
 * tool prints because both run this code, not because two copies agree.
 *
 * A stream owns, for its mode and for each of its activities (the records
 * grouped by what they write, ALGORITHM.md §10; named by the caller):
 *   - the binned signal (struct ftio_bins, exact bytes per bin) on one grid,
 *     bin 0 starting at the origin the caller lays it on;
 *   - the online loop (struct ftio_online: window, scoring, stability) and
 *     the latest answer;
 *   - what the final summary needs (the records, while few, to lay the
 *     summary's grid again on the earliest one).
 * A mode with one activity keeps no bins for it (its answer is the mode's);
 * when a second appears, the first takes a copy of the mode's bins and loop.
 *
 * The caller owns time, locks and I/O: which boundary is due and when the
 * job ends, the lock around the stream, the records' conversion.  Each
 * analysis is three calls so that a caller holding a lock copies under it
 * and analyses outside it: ftio_stream_prepare() (lock held: copies of the
 * windows and loops into a work object), ftio_stream_run() (no lock: the
 * analyses), ftio_stream_commit() (lock held: the results back).
 * ftio_stream_step() makes the three at once for a caller without a lock.
 *
 * Times are the caller's (seconds); bytes, B.  Not thread-safe: one lock
 * per stream (ftiod's), one work object per analysing thread.
 */
#ifndef FTIO_STREAM_H
#define FTIO_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis.h"

/* fmin and fmax, inlined: what glibc's x86-64 functions return (minsd,
 * maxsd: the second operand when the two compare equal; a NaN gives the
 * other operand) without a call through the PLT for each.  The merge keeps
 * running bounds per record (a stream's and an activity's first and last
 * times): 2-3 % of a history's merge instructions (bench/README.md
 * "ingest16"). */
static inline double ftio_fmin(double a, double b)
{
    return a < b || b != b ? a : b;
}

static inline double ftio_fmax(double a, double b)
{
    return a > b || b != b ? a : b;
}

struct ftio_stream_config {
    struct ftio_options opts;   /* the analysis: detector, fs, sampling... */
    double step;                /* s of data between analyses (--step) */
    double fixed_window;        /* > 0: a fixed window length in s (--window S) */
    double horizon;             /* s of signal kept behind the newest data */
    double early;               /* s of bins before the origin, for records that start
                                   earlier (ftiod: other ranks' batches arrive later) */
    size_t log_records;         /* records kept to lay the summary's grid again on the
                                   earliest one (0: none) */
    size_t keep_bytes;          /* a mode or activity keeps its whole record (bins,
                                   records) while it takes at most this; beyond, the
                                   bins before its window are forgotten (0: never:
                                   the horizon bounds them) */
    size_t max_activities;      /* activities at most; later names share "other" */
};

struct ftio_stream;

/* A stream whose grid has bin 0 at `origin` (the first record), or NULL out
 * of memory / with a bad configuration (fs, step, horizon). */
struct ftio_stream *ftio_stream_new(const struct ftio_stream_config *c, double origin);
void ftio_stream_free(struct ftio_stream *s);

/* ---- data ----------------------------------------------------------------- */

/* The activity named `name` (found, or created: beyond max_activities the
 * last one is "other" for every later name); -1 out of memory. */
int  ftio_stream_activity(struct ftio_stream *s, const char *name);
/* Activity act is called `name` from now on (a series of directories that
 * became one pattern); 0, or -1 (out of memory, or no such activity). */
int  ftio_stream_rename_activity(struct ftio_stream *s, int act, const char *name);
/* How many files activity act has written (the caller counts them). */
void ftio_stream_set_files(struct ftio_stream *s, int act, size_t nfiles);

/* A request of activity act: into the mode's bins and the activity's own
 * (act < 0: the mode's alone).  Returns 0, or -1 when it starts before the
 * grid's first bin (not taken; the caller counts it).  Zero-length requests
 * last 1 us; a part before the horizon is counted as dropped. */
int  ftio_stream_add(struct ftio_stream *s, int act, double ts, double te, double bytes);
/* About n more requests are coming (a batch): the record log takes room for
 * them at once, the size doubling would reach, instead of each size on the
 * way (a history's 128, 256, 512: fresh memory each).  Nothing else changes. */
void ftio_stream_expect(struct ftio_stream *s, size_t n);
/* A request into activity act's bins alone: `ftio --window` feeds the
 * mode's signal with ftio_stream_add(s, -1, ...) and each activity's own
 * signal here (their steps are not the mode's). */
void ftio_stream_add_activity(struct ftio_stream *s, int act, double ts, double te, double bytes);
/* Lay the grid again on t0, earlier than the origin, and put back the
 * records so far: only before any analysis, with every record kept (the
 * offline tool lays its grid on the earliest event).  0 when done. */
int  ftio_stream_relay(struct ftio_stream *s, double t0);

/* What the mode received: its span (job time) and totals. */
struct ftio_stream_totals {
    double   t_min, t_max;
    uint64_t records;
    double   bytes;
};
const struct ftio_stream_totals *ftio_stream_totals(const struct ftio_stream *s);
/* The grid's origin (bin 0's start) and the first time it holds. */
double ftio_stream_origin(const struct ftio_stream *s);
double ftio_stream_first_time(const struct ftio_stream *s);
/* The mode's online loop (step, boundaries, history), for the caller's
 * scheduling. */
const struct ftio_online *ftio_stream_online(const struct ftio_stream *s);
/* Bytes in the whole bins inside [ts, te] of activity act's bins (act < 0,
 * or an activity without bins of its own: the mode's); the start of the
 * last bin of the mode inside [ts, te) that holds any, or NAN
 * (ftio_bins_bytes and ftio_bins_last_data). */
double ftio_stream_bytes(const struct ftio_stream *s, int act, double ts, double te);
double ftio_stream_last_data(const struct ftio_stream *s, double ts, double te);
/* The mode's bins, read-only (ftiod's memory of runs samples the job's signal
 * since the phase it last judged: daemon/history_job.c). */
const struct ftio_bins *ftio_stream_mode_bins(const struct ftio_stream *s);
/* Records kept to lay the grid again (ftio_stream_relay, the summary), or
 * -1 once they are forgotten (more than log_records). */
long   ftio_stream_logged(const struct ftio_stream *s);
/* Kept record i (< ftio_stream_logged()): what went into the bins, as the
 * caller converted it (tests/daemon/test_parity.c).  0, or -1 out of range. */
int    ftio_stream_logged_record(const struct ftio_stream *s, size_t i, double *ts, double *te,
                                 double *bytes);
/* Bytes the stream holds (for the caller's memory bound). */
size_t ftio_stream_memory(const struct ftio_stream *s);
/* The bins' pages that the streams' windows forgot go back to the system
 * (bin_pool.c): once this was called, only through it; call it every second
 * or so, holding no lock the streams need (it makes the madvise calls).  It
 * gives back the empty pages no bin was laid in since the previous call (a
 * backlog of jobs reuses them at once), but for a few spares, at most 64 MiB
 * a call.  Without a call, past a few MiB of empty pages they go at once.
 * Returns the bytes given back. */
size_t ftio_bin_pool_trim(void);
/* A run of whole pages of that memory for a copy the caller holds a while
 * (ftiod: batches held for their process's clock): freed, its pages serve
 * the bins' next blocks instead of leaving a hole in malloc's heap.  Not
 * zeroed.  NULL past 1 MiB or out of memory: malloc it then. */
void *ftio_bin_pool_run(size_t bytes);
void  ftio_bin_pool_run_free(void *run, size_t bytes);

/* ---- analysis ------------------------------------------------------------- */

/* One analysis's copies and results, reused across calls and streams. */
struct ftio_stream_work;
struct ftio_stream_work *ftio_stream_work_new(void);
void ftio_stream_work_free(struct ftio_stream_work *w);

/* Copy what the analysis of the window ending at t_end needs: the mode's
 * window and loop, and every activity's that has bins (each its own window:
 * its loop forgets by its own period).  final: the summary instead, the
 * whole job (what the offline tool analyses: every kept bin, on a grid laid
 * on the earliest record when the records were kept), predicting after its
 * end.  Returns 0, 1 when there is nothing to analyse (no data in the last
 * step since the previous analysis: online.c), -1 out of memory. */
int  ftio_stream_prepare(struct ftio_stream *s, double t_end, bool final,
                         struct ftio_stream_work *w);
/* The analyses of w, next phases predicted after `now` (NAN: the window's
 * end).  Returns the mode's: 0 an answer, 1 nothing new, -1 an error (err). */
int  ftio_stream_run(struct ftio_stream_work *w, struct ftio_analyzer *a, double now,
                     char *err, size_t errlen);
/* The results of w into s (the stream w was prepared from); returns what
 * ftio_stream_run() returned. */
int  ftio_stream_commit(struct ftio_stream *s, struct ftio_stream_work *w);
/* Samples in the mode's window of w (for measurements). */
size_t ftio_stream_samples(const struct ftio_stream_work *w);
/* prepare, run and commit (no lock to drop). */
int  ftio_stream_step(struct ftio_stream *s, struct ftio_analyzer *a, struct ftio_stream_work *w,
                      double t_end, double now, char *err, size_t errlen);
/* The first boundary after t: the mode's first record + k step. */
double ftio_stream_next_boundary(const struct ftio_stream *s, double t);

/* ---- answers -------------------------------------------------------------- */

/* One answer: the mode's own (name NULL) or an activity's. */
struct ftio_stream_answer {
    int act;                 /* the activity's index (ftio_stream_activity), -1: the mode */
    const char *name;
    double   bytes;
    uint64_t records;
    size_t   nfiles;
    const struct ftio_online_update *update;   /* the latest; NULL before the first */
};
/* out[0] the mode's own answer, then the activities largest bytes first (a
 * mode with one activity: that one, whose answer is the mode's); how many,
 * at most max.  Valid until the stream changes. */
size_t ftio_stream_answers(const struct ftio_stream *s, struct ftio_stream_answer *out, size_t max);
/* The number of activities, and activity act's answer (the mode's when it
 * is the only one). */
size_t ftio_stream_nactivities(const struct ftio_stream *s);
struct ftio_stream_answer ftio_stream_activity_answer(const struct ftio_stream *s, int act);

#endif
