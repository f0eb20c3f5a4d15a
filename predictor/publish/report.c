/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c -- analysis result -> human summary and -> the JSON prediction
 * object of PROTOCOL.md §2 (see report.h).  Used by `ftio` and ftiod, so the
 * JSON shape lives in exactly one place.
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "publish/report.h"
#include "units.h"

json_t *ftio_json_number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *candidate_json(const struct ftio_candidate *c)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}",
                     "frequency", ftio_json_number(c->frequency),
                     "period", ftio_json_number(c->frequency > 0 ? 1.0 / c->frequency : NAN),
                     "confidence", ftio_json_number(c->confidence),
                     "amplitude", ftio_json_number(c->amplitude),
                     "phase", ftio_json_number(c->phase));
}

static json_t *candidates_json(const struct ftio_candidate *c, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n && i < FTIO_MAX_CANDIDATES; i++)
        json_array_append_new(a, candidate_json(&c[i]));
    return a;
}

json_t *ftio_report_json(const struct ftio_result *r, const char *mode)
{
    int p = r->has_period;
    const struct ftio_metrics *m = &r->metrics;
    int mv = p && m->valid, sv = mv && m->sigma_valid;
    json_t *o = json_pack(
        "{s:i, s:s, s:{s:o, s:o, s:o, s:I}, s:o, s:o, s:o, s:s, s:o,"
        " s:{s:o, s:o, s:o, s:o, s:o, s:o}, s:{s:o, s:o}, s:{s:o, s:o, s:o}}",
        "v", FTIO_PREDICTION_VERSION, "mode", mode,
        "window", "start", ftio_json_number(r->t0), "end", ftio_json_number(r->t1),
                  "fs", ftio_json_number(r->fs), "samples", (json_int_t)r->samples,
        "period", ftio_json_number(p ? r->dominant.period : NAN),
        "frequency", ftio_json_number(p ? r->dominant.frequency : NAN),
        "confidence", ftio_json_number(p ? r->dominant.confidence : NAN),
        "class", ftio_class_name(r->cls),
        "candidates", candidates_json(r->cand, r->ncand),
        "metrics", "r_io", ftio_json_number(mv ? m->r_io : NAN),
                   "b_io", ftio_json_number(mv ? m->b_io : NAN),
                   "sigma_vol", ftio_json_number(sv ? m->sigma_vol : NAN),
                   "sigma_time", ftio_json_number(sv ? m->sigma_time : NAN),
                   "periodicity", ftio_json_number(sv ? m->periodicity : NAN),
                   "abstraction_error", ftio_json_number(r->abstraction_error),
        "phase", "bytes", ftio_json_number(mv ? m->phase_bytes : NAN),
                 "duration", ftio_json_number(mv ? m->phase_duration : NAN),
        "next", "start", ftio_json_number(r->next.valid ? r->next.start : NAN),
                "end", ftio_json_number(r->next.valid ? r->next.end : NAN),
                "bytes", ftio_json_number(r->next.valid ? r->next.bytes : NAN));
    if (!o)
        return NULL;
    json_object_set_new(o, "detector", json_string(ftio_detector_name(r->detector)));
    json_object_set_new(o, "reason", r->has_period || !r->reason ? json_null() : json_string(r->reason));
    /* What backs the confidence (robust): the phase onsets the period was
     * fitted on and their intervals' spread; null for the spectrum alone. */
    bool ev = p && r->detector == FTIO_DETECTOR_ROBUST && r->fitted_phases >= 2;
    json_object_set_new(o, "evidence",
                        ev ? json_pack("{s:I, s:o}", "onsets", (json_int_t)r->fitted_phases,
                                       "interval_cv", ftio_json_number(r->interval_cv))
                           : json_null());
    if (r->ntop > 0)
        json_object_set_new(o, "top", candidates_json(r->top, r->ntop));
    if (r->acf.valid)
        json_object_set_new(o, "autocorrelation",
                            json_pack("{s:o, s:o, s:b}", "period", ftio_json_number(r->acf.period),
                                      "confidence", ftio_json_number(r->acf.confidence),
                                      "agrees", r->acf.agrees));
    return o;
}

void ftio_report_json_online(json_t *obj, const struct ftio_online_update *u)
{
    json_object_set_new(obj, "stale", json_boolean(u->stale));
    json_object_set_new(obj, "since", u->stale ? ftio_json_number(u->since) : json_null());
    json_object_set_new(obj, "last_error",
                        u->has_error ? json_pack("{s:o}", "start", ftio_json_number(u->last_error))
                                     : json_null());
    json_object_set_new(obj, "p_periodic", ftio_json_number(u->p_periodic));
}

void ftio_report_json_totals(json_t *obj, const struct ftio_report_totals *t)
{
    json_object_set_new(obj, "ranks", t->ranks >= 0 ? json_integer(t->ranks) : json_null());
    json_object_set_new(obj, "bytes", ftio_json_number(t->bytes));
    json_object_set_new(obj, "records", t->records >= 0 ? json_integer(t->records) : json_null());
    json_object_set_new(obj, "lost", json_integer((json_int_t)t->lost));
}

/* Bytes (or B/s with unit_suffix "/s") with a binary-prefix unit, for people:
 * "4935 B", "1.565 GiB (1680000000 B)". */
static void fmt_bytes_unit(char *buf, size_t len, double b, const char *suffix)
{
    double div;
    const char *unit = ftio_byte_unit(b, &div);
    if (div == 1)
        snprintf(buf, len, "%.6g B%s", b, suffix);
    else
        snprintf(buf, len, "%.3f %s%s (%.0f B%s)", b / div, unit, suffix, b, suffix);
}

static void fmt_bytes(char *buf, size_t len, double b)
{
    fmt_bytes_unit(buf, len, b, "");
}

static void candidate_text(FILE *out, const struct ftio_candidate *c, int star)
{
    fprintf(out, "  %c f %.9g Hz  T %.6g s  conf %.4f  amplitude %.6g  phase %.4f rad\n",
            star ? '*' : ' ', c->frequency, c->frequency > 0 ? 1.0 / c->frequency : INFINITY,
            c->confidence, c->amplitude, c->phase);
}

void ftio_report_text(FILE *out, const struct ftio_result *r, const char *mode,
                      const struct ftio_report_totals *t)
{
    char b1[64], b2[64];
    fprintf(out, "mode          %s\n", mode);
    fprintf(out, "window        [%.9g, %.9g] s, fs %g Hz, %zu samples\n",
            r->t0, r->t1, r->fs, r->samples);
    if (r->has_period) {
        fprintf(out, "period        %.6g s (frequency %.9g Hz)\n",
                r->dominant.period, r->dominant.frequency);
        if (r->detector == FTIO_DETECTOR_ROBUST && r->fitted_phases > 0)
            fprintf(out, "confidence    %.4f (class %s: P(within 10 %%), from %zu phase onsets)\n",
                    r->dominant.confidence, ftio_class_name(r->cls), r->fitted_phases);
        else if (r->detector == FTIO_DETECTOR_ROBUST)
            fprintf(out, "confidence    %.4f (class %s: from the spectrum alone)\n",
                    r->dominant.confidence, ftio_class_name(r->cls));
        else
            fprintf(out, "confidence    %.4f (class %s: %s)\n", r->dominant.confidence,
                    ftio_class_name(r->cls), r->ncand == 1 ? "one dominant frequency"
                                                           : "two candidate frequencies");
    } else {
        fprintf(out, "period        none (class %s: %s)\n", ftio_class_name(r->cls),
                r->reason ? r->reason : "no dominant frequency");
    }
    if (r->ncand == 0 && r->nsurvivors > 0)
        fprintf(out, "candidates    0 (%zu frequencies passed the tolerance)\n", r->nsurvivors);
    else
        fprintf(out, "candidates    %zu\n", r->ncand);
    for (size_t i = 0; i < r->ncand && i < FTIO_RESULT_CANDIDATES; i++)
        candidate_text(out, &r->cand[i], r->has_period && r->cand[i].bin == r->dominant.bin);
    if (r->ntop > 0) {
        fprintf(out, "top %zu bins by amplitude\n", r->ntop);
        for (size_t i = 0; i < r->ntop && i < FTIO_MAX_CANDIDATES; i++)
            candidate_text(out, &r->top[i], 0);
    }
    const struct ftio_metrics *m = &r->metrics;
    if (r->has_period && m->valid) {
        fmt_bytes_unit(b1, sizeof b1, m->b_io, "/s");
        fprintf(out, "metrics       R_IO %.4f, B_IO %s", m->r_io, b1);
        if (m->sigma_valid)
            fprintf(out, ", sigma_vol %.4f, sigma_time %.4f, periodicity %.4f\n",
                    m->sigma_vol, m->sigma_time, m->periodicity);
        else
            fprintf(out, ", sigma/periodicity n/a (fewer than 2 whole periods)\n");
        fmt_bytes(b1, sizeof b1, m->phase_bytes);
        fprintf(out, "per phase     %s in %.6g s of I/O\n", b1, m->phase_duration);
    }
    if (r->next.valid) {
        fmt_bytes(b1, sizeof b1, r->next.bytes);
        fprintf(out, "next phase    [%.6f, %.6f] s, %s\n", r->next.start, r->next.end, b1);
    }
    if (r->acf.valid)
        fprintf(out, "autocorr.     period %.6g s, conf %.4f, %s the DFT\n", r->acf.period,
                r->acf.confidence, r->acf.agrees ? "agrees with" : "disagrees with");
    fmt_bytes(b1, sizeof b1, r->volume);
    if (isfinite(r->abstraction_error))
        fprintf(out, "volume        %s sampled, abstraction error %.4g\n", b1, r->abstraction_error);
    else
        fprintf(out, "volume        %s sampled\n", b1);
    if (t) {
        fmt_bytes(b2, sizeof b2, t->bytes);
        fprintf(out, "trace         ");
        if (t->ranks >= 0)
            fprintf(out, "%lld ranks, ", (long long)t->ranks);
        fprintf(out, "%s total", isfinite(t->bytes) ? b2 : "unknown bytes");
        if (t->records >= 0)
            fprintf(out, ", %lld requests", (long long)t->records);
        if (t->lost)
            fprintf(out, ", %llu records lost by the tracer", (unsigned long long)t->lost);
        fputc('\n', out);
    }
}

json_t *ftio_report_json_activity(const struct ftio_activity *a, const struct ftio_result *r,
                                  bool matches_job)
{
    int p = r->has_period;
    int mv = p && r->metrics.valid;
    return json_pack(
        "{s:s, s:o, s:s, s:s, s:I, s:o, s:o, s:I, s:o, s:o, s:o, s:s, s:{s:o, s:o},"
        " s:{s:o, s:o, s:o}, s:b}",
        "pattern", a->pattern,
        "example", a->example[0] ? json_string(a->example) : json_null(),
        "rule", ftio_activity_rule_name(a->rule),
        "shape", ftio_activity_shape_name(a->shape), "files", (json_int_t)a->nfiles,
        "bytes", ftio_json_number(a->bytes), "share", ftio_json_number(a->share),
        "requests", (json_int_t)a->nreq,
        "period", ftio_json_number(p ? r->dominant.period : NAN),
        "frequency", ftio_json_number(p ? r->dominant.frequency : NAN),
        "confidence", ftio_json_number(p ? r->dominant.confidence : NAN),
        "class", ftio_class_name(r->cls),
        "phase", "bytes", ftio_json_number(mv ? r->metrics.phase_bytes : NAN),
                 "duration", ftio_json_number(mv ? r->metrics.phase_duration : NAN),
        "next", "start", ftio_json_number(r->next.valid ? r->next.start : NAN),
                "end", ftio_json_number(r->next.valid ? r->next.end : NAN),
                "bytes", ftio_json_number(r->next.valid ? r->next.bytes : NAN),
        "matches_job", matches_job);
}

void ftio_report_activity_text(FILE *out, size_t k, const struct ftio_activity *a,
                               const struct ftio_result *r, bool matches_job)
{
    char b1[64];
    bool ex = a->example[0] && strcmp(a->example, a->pattern) != 0;
    fprintf(out, " %c%zu. %s%s%s (%s, %zu file%s%s%s, %.1f %% of the bytes): ", matches_job ? '*' : ' ',
            k + 1, a->pattern, a->shape ? " " : "", a->shape ? ftio_activity_shape_name(a->shape) : "",
            ftio_activity_rule_name(a->rule), a->nfiles, a->nfiles == 1 ? "" : "s",
            ex ? ", e.g. " : "", ex ? a->example : "", 100.0 * a->share);
    if (!r->has_period) {
        fprintf(out, "no period (class %s)\n", ftio_class_name(r->cls));
        return;
    }
    fprintf(out, "period %.6g s, conf %.3f %s", r->dominant.period, r->dominant.confidence,
            ftio_class_name(r->cls));
    if (r->metrics.valid) {
        fmt_bytes(b1, sizeof b1, r->metrics.phase_bytes);
        fprintf(out, ", %s per phase in %.4g s", b1, r->metrics.phase_duration);
    }
    fputc('\n', out);
    if (r->next.valid)
        fprintf(out, "      next phase [%.6f, %.6f] s\n", r->next.start, r->next.end);
}

void ftio_report_line(FILE *out, const struct ftio_result *r, const char *mode)
{
    fprintf(out, "[%.3f, %.3f] %s: ", r->t0, r->t1, mode);
    if (r->has_period)
        fprintf(out, "period %.4g s (f %.6g Hz) conf %.3f %s\n", r->dominant.period,
                r->dominant.frequency, r->dominant.confidence, ftio_class_name(r->cls));
    else
        fprintf(out, "no period (class %s, %zu candidates)\n", ftio_class_name(r->cls), r->nsurvivors);
}
