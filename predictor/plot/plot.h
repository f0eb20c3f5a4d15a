/* SPDX-License-Identifier: BSD-3-Clause */
/* plot.h -- pictures and exports of an analysis (libftioplot.a, predictor/plot/).
 *
 * `ftio --plot FILE.html` and `ftio report LOG.jsonl` write one self-contained
 * HTML page (inline SVG and CSS, nothing fetched): per analysed (job, mode) a
 * header with the answer in human units, the bandwidth signal with the phases
 * found, the period's reconstruction and the predicted next phase, the
 * spectrum with the detector's threshold and candidates, and the prediction
 * history of online runs (period, confidence, next-phase error, bytes per
 * phase).  `--export-signal` / `--export-spectrum` write CSV.  Everything is
 * written to a temporary file beside the target and renamed over it on
 * success, so a failed run never leaves half a page.
 *
 * Files: svg.c (SVG writer, units), plot_page.c (layout), plot_history.c
 * (online steps), plot_export.c (CSV), plot_output.c (the temporary-then-
 * rename output file), plot_machine.c (the machine forecast's page).
 */
#ifndef FTIO_PLOT_H
#define FTIO_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "publish/report.h"

/* ---- output files --------------------------------------------------------- */

/* A file written beside `path` and renamed over it by commit. */
struct ftio_plot_output {
    FILE *f;
    char *path, *tmp;
};
/* -1 with a one-line reason ("cannot write PATH: ...") in err. */
int  ftio_plot_output_open(struct ftio_plot_output *o, const char *path, char *err, size_t errlen);
/* Flush, check for write errors, rename; -1 (err) and nothing left behind on failure. */
int  ftio_plot_output_commit(struct ftio_plot_output *o, char *err, size_t errlen);
/* Drop what was written (no-op when not open). */
void ftio_plot_output_discard(struct ftio_plot_output *o);

/* ---- prediction history --------------------------------------------------- */

/* What one online analysis published. */
struct ftio_plot_step {
    double t;              /* window end, s (the section's time base) */
    double period;         /* s; NAN: no period */
    double confidence;     /* NAN: unknown */
    enum ftio_class cls;
    bool   stale;          /* the kept answer repeated (PROTOCOL.md §2) */
    double last_error;     /* s, actual - predicted start; NAN: not scored */
    double phase_bytes;    /* B per phase; NAN: unknown */
    double bytes_total;    /* B the job moved so far (ftiod's "bytes"); NAN: unknown */
};
struct ftio_plot_history {
    size_t n, cap;
    struct ftio_plot_step *step;
};
/* -1 when out of memory. */
int  ftio_plot_history_add(struct ftio_plot_history *h, const struct ftio_plot_step *s);
void ftio_plot_history_free(struct ftio_plot_history *h);
/* The step of an online update published for the window ending at t_end. */
void ftio_plot_step_from_update(struct ftio_plot_step *s, const struct ftio_online_update *u,
                                double t_end);

/* ---- the HTML page --------------------------------------------------------- */

/* One activity of a (job, mode) (ALGORITHM.md §10): its phases and its next
 * phase are drawn in a colour of its own. */
struct ftio_plot_activity {
    const char *pattern;
    const struct ftio_result *result;         /* its answer, phases valid */
};
#define FTIO_PLOT_ACTIVITY_COLOURS 6          /* colours cycle after these */

/* What is known of the job itself (every field may be unknown: NULL, -1,
 * NAN): the readers know it for Darshan logs (trace.h job context), spool
 * files carry host/pid/rank, ftiod's messages carry "ranks". */
struct ftio_plot_job {
    const char *exe;          /* command line */
    const char *user;         /* name, or "uid N" */
    const char *hosts;        /* host names, comma separated */
    int64_t nodes, ranks;     /* -1: unknown */
    double start;             /* Unix time the job began; NAN: unknown */
    double run_time;          /* s; NAN: unknown */
    const char *source;       /* where these facts came from (the trace, ftiod's log, ...) */
};

/* Per activity (protocol v3 "activities"): its own series of predictions,
 * drawn in its own colour beside the job's. */
struct ftio_plot_activity_history {
    const char *name;         /* the activity's pattern */
    struct ftio_plot_history hist;
};

/* One analysed (job, mode).  Every part may be missing (NULL): the page
 * shows what there is. */
struct ftio_plot_section {
    const char *job;                          /* NULL or "": unnamed */
    const char *mode;                         /* write, read, all */
    double epoch_origin;                      /* Unix time of t = 0; 0: times are trace-relative */
    const struct ftio_samples *samples;       /* the analysed signal */
    const struct ftio_result *result;         /* the answer (its phases valid) */
    const struct ftio_spectrum_view *spectrum;
    const struct ftio_plot_history *history;  /* online runs */
    const struct ftio_report_totals *totals;
    double p_periodic;                        /* NAN: unknown */
    const struct ftio_plot_job *meta;         /* job metadata, or NULL */
    const struct ftio_plot_activity_history *activity;   /* nactivity activities' histories */
    size_t nactivity;
    const char *history_axis;                 /* what the history's t is ("published"); NULL:
                                                 the window's end */
    const char *note;                         /* one more line for the header, or NULL */
    const struct ftio_plot_activity *activities;   /* two or more: drawn per activity */
    size_t nactivities;
};

struct ftio_plot_page;
/* Opens the output (see ftio_plot_output_open) and writes the head. */
struct ftio_plot_page *ftio_plot_page_open(const char *path, const char *title,
                                           const char *subtitle, char *err, size_t errlen);
int  ftio_plot_page_add(struct ftio_plot_page *p, const struct ftio_plot_section *s);
/* Writes the end and commits the file; frees p. */
int  ftio_plot_page_close(struct ftio_plot_page *p, char *err, size_t errlen);
/* Abandons the page: nothing is left at the path; frees p. */
void ftio_plot_page_discard(struct ftio_plot_page *p);
/* The page's file, for sections of another kind written with the page's
 * head, style and footer (plot_machine.c). */
FILE *ftio_plot_page_file(struct ftio_plot_page *p);

/* ---- the machine (plot_machine.c) -------------------------------------------- */

/* The page of one machine message (PROTOCOL.md §2 `ftio.machine`, one
 * daemon's or `ftio sub --machine`'s sum): per file system and mode the
 * observed and predicted aggregate, each listed job a band, the
 * collisions.  source: where the message came from (for the subtitle). */
int ftio_plot_machine_page(const char *path, const json_t *msg, const char *source, char *err,
                           size_t errlen);

/* ---- CSV exports ------------------------------------------------------------ */

/* Header lines (no newline handling needed by callers). */
void ftio_plot_csv_signal_header(FILE *f);      /* job,mode,time_s,bandwidth_B_per_s */
void ftio_plot_csv_spectrum_header(FILE *f);    /* job,mode,bin,frequency_Hz,period_s,amplitude,
                                                   power,above_threshold,candidate,dominant */
/* One row per sample: its start time and its bandwidth. */
int  ftio_plot_csv_signal(FILE *f, const char *job, const char *mode, const struct ftio_samples *x);
/* One row per bin k = 1 .. N/2 (DC excluded, as the detectors see it);
 * `power` is the normalised value of struct ftio_spectrum_view. */
int  ftio_plot_csv_spectrum(FILE *f, const char *job, const char *mode,
                            const struct ftio_spectrum_view *v, const struct ftio_result *r);

/* ---- what `ftio` writes: the page and the exports together ----------------- */

/* Any of the paths may be NULL (not wanted).  Opened before the analysis,
 * so that an unwritable path is the first thing said. */
struct ftio_plot_files;
struct ftio_plot_files *ftio_plot_files_open(const char *page, const char *signal_csv,
                                             const char *spectrum_csv, const char *title,
                                             const char *subtitle, char *err, size_t errlen);
/* The section on the page, its samples and spectrum in the CSV files. */
int  ftio_plot_files_add(struct ftio_plot_files *p, const struct ftio_plot_section *s,
                         char *err, size_t errlen);
/* The section on the page only (the other mode of a job: the exports hold
 * the mode asked for). */
int  ftio_plot_files_add_page(struct ftio_plot_files *p, const struct ftio_plot_section *s,
                              char *err, size_t errlen);
/* Commits every file that got at least one section and discards the others
 * (a page with nothing on it is no answer); -1 (err) when one could not be
 * written.  Frees p. */
int  ftio_plot_files_close(struct ftio_plot_files *p, char *err, size_t errlen);

#endif
