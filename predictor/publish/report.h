/* SPDX-License-Identifier: BSD-3-Clause */
/* report.h -- turn an analysis result into text for humans and into the JSON
 * prediction object of PROTOCOL.md §2 (libftiopublish.a, predictor/publish/:
 * the last stage of the pipeline, after the analysis; it needs the analysis
 * library's types and jansson, not the readers).
 *
 * Shared by the offline `ftio` command and by ftiod: both build the common
 * part of the prediction with ftio_report_json() and then add the fields only
 * they know (ftiod: job, seq, published, last_error, p_periodic, records,
 * lost; ftio: ranks, bytes, records from the trace).  Numbers that are unknown
 * (NAN, or no period) are JSON null, never NaN, so the output always parses.
 */
#ifndef FTIO_REPORT_H
#define FTIO_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "analysis.h"
#include "activities.h"

/* A JSON real, or null when v is NAN or infinite. */
json_t *ftio_json_number(double v);

/* The common part of the §2 prediction object:
 *   "v", "mode", "window" {start, end, fs, samples}, "period", "frequency",
 *   "confidence", "class", "candidates" [...], "metrics" {...},
 *   "phase" {bytes, duration}, "next" {start, end, bytes}
 * plus "top" [...] (the -n list) when r->ntop > 0 and "autocorrelation"
 * {period, confidence, agrees} when r->acf.valid.  Times are as in r (the
 * caller decides whether they are epoch or trace-relative seconds).
 * Returns a new reference (caller json_decref's), NULL on allocation failure. */
/* Version of the prediction object (PROTOCOL.md §2).  2: classes
 * periodic/uncertain/none, a calibrated confidence, detector, reason, stale,
 * since. */
#define FTIO_PREDICTION_VERSION 4   /* 3: "activities" (ALGORITHM.md §10); 4: PROTOCOL.md §2 "Version 4" */
json_t *ftio_report_json(const struct ftio_result *r, const char *mode);

/* Totals of the trace an analysis was made on, for the human summary and the
 * offline JSON ("ranks", "bytes", "records").  Unknown: -1 / NAN. */
struct ftio_report_totals {
    int64_t  ranks;
    double   bytes;        /* total bytes of the analysed mode */
    int64_t  records;      /* requests analysed */
    uint64_t lost;         /* records the tracer reported lost */
};

/* Adds "ranks", "bytes", "records", "lost" to obj (null when unknown). */
void ftio_report_json_totals(json_t *obj, const struct ftio_report_totals *t);

/* The online fields of one step (PROTOCOL.md §2): `stale`, `since`,
 * `last_error`, `p_periodic`, added to a prediction object.  `since` and the
 * error are as given (the caller shifts times to its time base first). */
void ftio_report_json_online(json_t *obj, const struct ftio_online_update *u);

/* One activity's entry of the "activities" array (PROTOCOL.md §2, v3):
 * pattern, rule, shape, files, bytes, share, requests, period, frequency,
 * confidence, class, phase {bytes, duration}, next {start, end, bytes},
 * matches_job.  Times as in r.  New reference, NULL on allocation failure. */
json_t *ftio_report_json_activity(const struct ftio_activity *a, const struct ftio_result *r,
                                  bool matches_job);
/* The same for people: one line (and its next phase), "*" marks the activity
 * whose period is the job's. */
void ftio_report_activity_text(FILE *out, size_t k, const struct ftio_activity *a,
                               const struct ftio_result *r, bool matches_job);

/* Multi-line human summary: period, frequency, confidence and class,
 * candidates, metrics, volume per phase, next phase, abstraction error,
 * ranks and total bytes (t may be NULL). */
void ftio_report_text(FILE *out, const struct ftio_result *r, const char *mode,
                      const struct ftio_report_totals *t);

/* One line per analysis, for sliding windows (`ftio --window`) and daemon logs:
 *   "[t0, t1] mode: period 1.927 s (f 0.519 Hz) conf 0.68 high"
 * or "... no period (class none)". */
void ftio_report_line(FILE *out, const struct ftio_result *r, const char *mode);

#endif
