/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_page.c -- the HTML page of predictor/plot/ (plot.h): one section per
 * analysed (job, mode) with a header of facts in human units and up to three
 * kinds of chart drawn with svg.c:
 *   bandwidth  the sampled signal, the phases the detector found (shaded),
 *              the period's reconstruction (robust: the phase train that
 *              predicts the next phase; compat: the dominant cosine) and the
 *              predicted next phase; with two or more activities (ALGORITHM.md
 *              §10) also each activity's phases (a band each, over the signal)
 *              and its next phase, in a colour of its own;
 *   spectrum   the detector's normalised spectrum, its threshold and the
 *              candidates, the dominant one labelled with its period;
 *   history    period, confidence, next-phase error and bytes per phase of
 *              every online analysis (ftio --window, ftiod's --log).
 * Charts are 960 px wide; signals and spectra longer than that are drawn as
 * their per-pixel envelope, so a page stays small whatever the trace.  Every
 * element carries a class (signal, phase, reconstruction, next, spectrum,
 * threshold, candidate, history-*) for the style sheet and the tests, and a
 * <title> that browsers show on hover.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plot/plot.h"
#include "plot/svg.h"

#ifndef FTIO_VERSION
#define FTIO_VERSION "unknown"
#endif

#define CHART_W 960.0
#define SIGNAL_H 300.0
#define SPECTRUM_H 260.0
#define HISTORY_H 170.0

struct ftio_plot_page {
    struct ftio_plot_output out;
    unsigned sections;
};

static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1f2937;background:#f3f4f6;margin:0}\n"
    "main{max-width:1000px;margin:0 auto;padding:16px}\n"
    "h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:0 0 10px}"
    "h3{font-size:15px;margin:18px 0 4px;color:#374151}\n"
    ".sub{color:#6b7280;margin:0 0 12px}\n"
    "section.run{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:16px 18px;"
    "margin:0 0 18px}\n"
    ".facts{display:grid;grid-template-columns:repeat(4,1fr);gap:8px}\n"
    ".fact{background:#f9fafb;border:1px solid #e5e7eb;border-radius:6px;padding:6px 10px}\n"
    ".fact .k{font-size:12px;color:#6b7280}.fact .v{font-size:17px;font-weight:600}"
    ".fact .d{font-size:12px;color:#4b5563}\n"
    ".note{color:#92400e;background:#fffbeb;border:1px solid #fde68a;border-radius:6px;"
    "padding:6px 10px;margin:10px 0 0}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:#374151;margin:2px 0 4px}\n"
    ".legend i{display:inline-block;width:18px;height:10px;margin-right:5px;vertical-align:-1px;"
    "border-radius:2px}\n"
    ".hint{font-size:12px;color:#6b7280;margin:0}\n"
    "footer{color:#9ca3af;font-size:12px;text-align:center;margin:8px 0 24px}\n"
    "svg.chart{display:block;background:#fff}\n"
    "svg .grid{stroke:#eceef1;stroke-width:1}svg .frame{fill:none;stroke:#9ca3af;stroke-width:1}\n"
    "svg text{font-size:11.5px;fill:#4b5563}svg .axis-title{font-size:12.5px;fill:#374151}\n"
    "svg .signal{fill:none;stroke:#1d4ed8;stroke-width:1.3}\n"
    "svg .signal-area{fill:#bfdbfe;fill-opacity:.55;stroke:none}\n"
    "svg .phase{fill:#f59e0b;fill-opacity:.22;stroke:none}\n"
    "svg .reconstruction{fill:none;stroke:#dc2626;stroke-width:1.6;stroke-dasharray:6 3}\n"
    "svg .next{fill:#16a34a;fill-opacity:.25;stroke:#15803d;stroke-width:1.5;stroke-dasharray:4 2}\n"
    "svg .next-label{fill:#15803d;font-weight:600}\n"
    "svg .spectrum{fill:none;stroke:#64748b;stroke-width:1.2}\n"
    "svg .threshold{stroke:#dc2626;stroke-width:1.3;stroke-dasharray:5 3}\n"
    "svg .threshold-label{fill:#dc2626}\n"
    "svg .candidate{fill:#fff;stroke:#ea580c;stroke-width:2}\n"
    "svg .candidate.dominant{fill:#ea580c}\n"
    "svg .candidate-label{fill:#9a3412;font-weight:600}\n"
    "svg .history-line{fill:none;stroke:#9ca3af;stroke-width:1.2}\n"
    "svg .history-point{stroke-width:1.5}\n"
    "svg .periodic{fill:#16a34a;stroke:#16a34a}svg .uncertain{fill:#d97706;stroke:#d97706}"
    "svg .none{fill:#9ca3af;stroke:#9ca3af}\n"
    "svg .history-point.stale{fill:#fff}\n"
    "svg .history-error{stroke:#7c3aed;stroke-width:2}svg .history-error-point{fill:#7c3aed}\n"
    "svg .history-error-line{fill:none;stroke:#c4b5fd;stroke-width:1.2}\n"
    "svg .history-total{fill:none;stroke:#1d4ed8;stroke-width:1.6}\n"
    "svg .zero{stroke:#6b7280;stroke-width:1}svg .level{stroke:#16a34a;stroke-width:1;"
    "stroke-dasharray:4 3}\n"
    /* activities: a colour each (phases filled, next phase dashed) */
    "svg .act-phase{fill-opacity:.6;stroke:none}svg .act-next{fill-opacity:.12;stroke-width:1.6;"
    "stroke-dasharray:4 2}svg .act-label{font-weight:600}\n"
    "svg .a0{fill:#f59e0b;stroke:#b45309}svg .a1{fill:#8b5cf6;stroke:#6d28d9}"
    "svg .a2{fill:#10b981;stroke:#047857}svg .a3{fill:#ef4444;stroke:#b91c1c}"
    "svg .a4{fill:#06b6d4;stroke:#0e7490}svg .a5{fill:#ec4899;stroke:#be185d}\n"
    "i.a0{background:#f59e0b}i.a1{background:#8b5cf6}i.a2{background:#10b981}i.a3{background:#ef4444}"
    "i.a4{background:#06b6d4}i.a5{background:#ec4899}\n"
    "i.signal{background:#1d4ed8}i.phase{background:#fcd9a0}"
    "i.reconstruction{background:repeating-linear-gradient(90deg,#dc2626 0 6px,transparent 6px 9px);"
    "height:3px!important}"
    "i.next{background:#bbe5c8;border:1.5px dashed #15803d;box-sizing:border-box}"
    "i.spectrum{background:#64748b;height:3px!important}"
    "i.threshold{background:repeating-linear-gradient(90deg,#dc2626 0 5px,transparent 5px 8px);"
    "height:3px!important}i.candidate{background:#ea580c;border-radius:50%!important;width:10px!important}"
    "i.periodic{background:#16a34a}i.uncertain{background:#d97706}i.none{background:#9ca3af}"
    "i.stale{background:#fff;border:2px solid #16a34a;box-sizing:border-box;border-radius:50%!important;"
    "width:10px!important}i.error{background:#7c3aed}\n"
    ".facts.meta{grid-template-columns:repeat(3,1fr);margin:0 0 10px}\n"
    ".fact.exe{grid-column:1/-1}.fact.exe .v{font:13px/1.3 ui-monospace,monospace;word-break:break-all}\n"
    ".note.disagree{color:#7c2d12;background:#fff7ed;border-color:#fdba74}\n"
    "svg .disagree-line{fill:#fff;stroke:#7c2d12;stroke-width:2.5;stroke-dasharray:3 2}\n"
    "svg .disagree-label{fill:#7c2d12;font-weight:600}\n"
    "i.disagree{background:#fff;border:2px dashed #7c2d12;box-sizing:border-box;border-radius:50%!important;"
    "width:10px!important}\n"
    "svg .act-0{fill:#db2777;stroke:#db2777}svg .act-1{fill:#0891b2;stroke:#0891b2}"
    "svg .act-2{fill:#65a30d;stroke:#65a30d}svg .act-3{fill:#9333ea;stroke:#9333ea}"
    "svg .act-4{fill:#ca8a04;stroke:#ca8a04}svg .act-5{fill:#475569;stroke:#475569}\n"
    "svg .activity-line{fill:none!important;stroke-width:1.2;stroke-opacity:.6}\n"
    "svg .activity-point{fill:none!important;stroke-width:1.8}\n"
    "i.act-0{background:#db2777}i.act-1{background:#0891b2}i.act-2{background:#65a30d}"
    "i.act-3{background:#9333ea}i.act-4{background:#ca8a04}i.act-5{background:#475569}\n";

#define NACT_COLOURS 6

/* ---- small helpers ---------------------------------------------------------- */

static void iso_time(char *buf, size_t len, double epoch)
{
    time_t t = (time_t)floor(epoch);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(buf, len, "%.0f", epoch);
}

/* Times this large are Unix epoch seconds (ftio --absolute-time, ftiod). */
static bool is_epoch(double t)
{
    return t > 1e8;
}

static void legend(FILE *f, const char *const items[][2], size_t n)
{
    fputs("<div class=\"legend\">", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "<span><i class=\"%s\"></i>", items[i][0]);
        svg_escape(f, items[i][1]);
        fputs("</span>", f);
    }
    fputs("</div>\n", f);
}

static void fact(FILE *f, const char *key, const char *value, const char *detail)
{
    fputs("<div class=\"fact\"><div class=\"k\">", f);
    svg_escape(f, key);
    fputs("</div><div class=\"v\">", f);
    svg_escape(f, value);
    fputs("</div>", f);
    if (detail && *detail) {
        fputs("<div class=\"d\">", f);
        svg_escape(f, detail);
        fputs("</div>", f);
    }
    fputs("</div>\n", f);
}

/* The time axis of a section: where ticks count from, and its title. */
struct time_axis {
    double offset;
    char title[96];
};

static void time_axis(struct time_axis *ta, double t0, double epoch_origin)
{
    char when[48];
    ta->offset = 0;
    snprintf(ta->title, sizeof ta->title, "time");
    if (is_epoch(t0)) {
        ta->offset = floor(t0);
        iso_time(when, sizeof when, ta->offset);
        snprintf(ta->title, sizeof ta->title, "time since %s", when);
    } else if (epoch_origin > 0) {
        iso_time(when, sizeof when, epoch_origin);
        snprintf(ta->title, sizeof ta->title, "time since the trace began, %s", when);
    }
}

/* ---- header ------------------------------------------------------------------ */

/* What is known of the job: who ran what, where, when, for how long. */
static void job_facts(FILE *f, const struct ftio_plot_job *m)
{
    char v[96], d[160];
    if (!m)
        return;
    bool any = m->exe || m->user || m->hosts || m->nodes >= 0 || m->ranks >= 0 ||
               isfinite(m->start) || isfinite(m->run_time);
    if (!any)
        return;
    fputs("<div class=\"facts meta\">\n", f);
    if (m->exe) {
        fputs("<div class=\"fact exe\"><div class=\"k\">executable</div><div class=\"v\">", f);
        svg_escape(f, m->exe);
        fputs("</div></div>\n", f);
    }
    if (m->user)
        fact(f, "user", m->user, m->source);
    if (m->nodes >= 0 || m->ranks >= 0 || m->hosts) {
        v[0] = 0;
        if (m->nodes >= 0)
            snprintf(v, sizeof v, "%lld node%s", (long long)m->nodes, m->nodes == 1 ? "" : "s");
        if (m->ranks >= 0)
            snprintf(v + strlen(v), sizeof v - strlen(v), "%s%lld rank%s", v[0] ? ", " : "",
                     (long long)m->ranks, m->ranks == 1 ? "" : "s");
        if (!v[0])
            snprintf(v, sizeof v, "?");
        snprintf(d, sizeof d, "%s", m->hosts ? m->hosts : "");
        fact(f, "nodes, ranks", v, d);
    }
    if (isfinite(m->start) && m->start > 0) {
        iso_time(v, sizeof v, m->start);
        fact(f, "start", v, NULL);
    }
    if (isfinite(m->run_time) && m->run_time > 0) {
        svg_human(v, sizeof v, m->run_time, SVG_SECONDS);
        fact(f, "run time", v, isfinite(m->start) ? NULL : m->source);
    }
    fputs("</div>\n", f);
}

/* The tallest line of the spectrum (bin > 0), else the tallest candidate:
 * its bin (0 when there is none) and period. */
static size_t tallest_line(const struct ftio_plot_section *s, double *period)
{
    const struct ftio_spectrum_view *v = s->spectrum;
    const struct ftio_result *r = s->result;
    size_t best = 0;
    double hi = -1;
    if (v && v->half >= 1) {
        for (size_t k = 1; k <= v->half; k++) {
            double y = ftio_spectrum_value(v, k);
            if (y > hi) {
                hi = y;
                best = k;
            }
        }
        if (best)
            *period = (double)v->n / (v->fs * (double)best);
        return best;
    }
    for (size_t i = 0; r && i < r->ncand && i < FTIO_RESULT_CANDIDATES; i++)
        if (r->cand[i].amplitude > hi) {
            hi = r->cand[i].amplitude;
            best = r->cand[i].bin;
            *period = r->cand[i].period;
        }
    return best;
}

/* The tallest spectral line when it is not the answer (more than 10 % off
 * its period): its bin, 0 when it agrees or is unknown. */
static size_t disagreeing_line(const struct ftio_plot_section *s, double *period)
{
    const struct ftio_result *r = s->result;
    if (!r || !r->has_period || !(r->dominant.period > 0))
        return 0;
    size_t k = tallest_line(s, period);
    if (!k || !(*period > 0) || fabs(*period - r->dominant.period) <= 0.1 * r->dominant.period)
        return 0;
    return k;
}

/* Why the tallest line is not the answer, from the result's own fields. */
static void disagreement_note(FILE *f, const struct ftio_plot_section *s)
{
    const struct ftio_result *r = s->result;
    double line = 0;
    if (!disagreeing_line(s, &line))
        return;
    char a[48], b[48], why[400];
    svg_human(a, sizeof a, line, SVG_SECONDS);
    svg_human(b, sizeof b, r->dominant.period, SVG_SECONDS);
    double ratio = r->dominant.period / line, inv = line / r->dominant.period;
    char rel[160] = "";
    if (ratio > 1.5 && fabs(ratio - round(ratio)) < 0.08 * ratio)
        snprintf(rel, sizeof rel, "; the line is the answer's harmonic %.0f (a train of short "
                 "phases has lines at T/2, T/3, ...)", round(ratio));
    else if (inv > 1.5 && fabs(inv - round(inv)) < 0.08 * inv)
        snprintf(rel, sizeof rel, "; the line spans %.0f periods (phases that alternate in size)",
                 round(inv));
    if (r->detector == FTIO_DETECTOR_ROBUST && r->fitted_phases > 0)
        snprintf(why, sizeof why, "the robust detector measures the period from the onsets of the "
                 "last %zu of %zu phases it found (their intervals vary by %.0f %%; confidence "
                 "%.2f), not from the tallest line%s", r->fitted_phases, r->nphases,
                 100 * r->interval_cv, r->dominant.confidence, rel);
    else if (r->detector == FTIO_DETECTOR_ROBUST)
        snprintf(why, sizeof why, "the robust detector found no phases to fit here, and its "
                 "spectral arbiter kept %s from %zu candidate%s (confidence %.2f)%s", b, r->ncand,
                 r->ncand == 1 ? "" : "s", r->dominant.confidence, rel);
    else
        snprintf(why, sizeof why, "the %s detector took %s from its %zu candidate%s "
                 "(confidence %.2f)%s", ftio_detector_name(r->detector), b, r->ncand,
                 r->ncand == 1 ? "" : "s", r->dominant.confidence, rel);
    fprintf(f, "<p class=\"note disagree\">Tallest spectral line at %s: not the answer (%s) "
            "because ", a, b);
    svg_escape(f, why);
    fputs(".</p>\n", f);
}

static void header_facts(FILE *f, const struct ftio_plot_section *s)
{
    const struct ftio_result *r = s->result;
    char v[96], d[160], a[48], b[48];
    fputs("<div class=\"facts\">\n", f);
    if (r && r->has_period) {
        svg_human(v, sizeof v, r->dominant.period, SVG_SECONDS);
        snprintf(d, sizeof d, "frequency %.4g Hz", r->dominant.frequency);
        fact(f, "period", v, d);
        snprintf(v, sizeof v, "%.3f", r->dominant.confidence);
        snprintf(d, sizeof d, "class %s, %s detector", ftio_class_name(r->cls),
                 ftio_detector_name(r->detector));
        fact(f, "confidence", v, d);
    } else if (r) {
        fact(f, "period", "none", "class none");
        fact(f, "confidence", "-", ftio_detector_name(r->detector));
    }
    if (r && r->has_period && isfinite(r->metrics.phase_bytes)) {
        svg_human(v, sizeof v, r->metrics.phase_bytes, SVG_BYTES);
        svg_human(a, sizeof a, r->metrics.phase_duration, SVG_SECONDS);
        snprintf(d, sizeof d, "in %s of I/O", a);
        fact(f, "bytes per phase", v, d);
    }
    if (r && r->next.valid) {
        svg_human(a, sizeof a, r->next.start - r->t1, SVG_SECONDS);
        snprintf(v, sizeof v, "in %s", a);
        if (is_epoch(r->next.start)) {
            iso_time(b, sizeof b, r->next.start);
            snprintf(d, sizeof d, "after the window's end: %s", b);
        } else {
            snprintf(d, sizeof d, "after the window's end: t = %.3f s", r->next.start);
        }
        fact(f, "next phase", v, d);
    }
    if (r) {
        svg_human(v, sizeof v, r->t1 - r->t0, SVG_SECONDS);
        snprintf(d, sizeof d, "%zu samples at %g Hz", r->samples, r->fs);
        fact(f, "window", v, d);
        if (r->detector == FTIO_DETECTOR_ROBUST && s->samples) {
            snprintf(v, sizeof v, "%zu", r->nphases);
            svg_human(a, sizeof a, r->background, SVG_BYTES_PER_S);
            if (r->fitted_phases)
                snprintf(d, sizeof d, "%zu onsets fitted, background %s", r->fitted_phases, a);
            else
                snprintf(d, sizeof d, "background %s", a);
            fact(f, "phases found", v, d);
        }
    }
    const struct ftio_report_totals *t = s->totals;
    if (t && isfinite(t->bytes)) {
        svg_human(v, sizeof v, t->bytes, SVG_BYTES);
        d[0] = 0;
        if (t->ranks >= 0)
            snprintf(d, sizeof d, "%lld ranks", (long long)t->ranks);
        if (t->records >= 0)
            snprintf(d + strlen(d), sizeof d - strlen(d), "%s%lld requests", d[0] ? ", " : "",
                     (long long)t->records);
        if (t->lost)
            snprintf(d + strlen(d), sizeof d - strlen(d), ", %llu lost",
                     (unsigned long long)t->lost);
        fact(f, "bytes moved", v, d);
    }
    if (isfinite(s->p_periodic) && s->history) {
        snprintf(v, sizeof v, "%.0f %%", 100 * s->p_periodic);
        snprintf(d, sizeof d, "of %zu analyses found a period", s->history->n);
        fact(f, "P(periodic)", v, d);
    }
    fputs("</div>\n", f);
    if (r && !r->has_period && r->reason) {
        fputs("<p class=\"note\">No period: ", f);
        svg_escape(f, r->reason);
        fputs(".</p>\n", f);
    }
    disagreement_note(f, s);
    if (s->note) {
        fputs("<p class=\"note\">", f);
        svg_escape(f, s->note);
        fputs("</p>\n", f);
    }
}

/* ---- bandwidth chart ------------------------------------------------------------ */

/* The signal's points: the step function itself when it has at most two
 * samples per pixel, else per pixel column its maximum and minimum. */
static void signal_points(struct svg_path *p, const struct svg_chart *c,
                          const struct ftio_samples *x, bool area)
{
    double dt = 1.0 / x->fs, w = c->width - c->left - c->right;
    double t_end = x->t0 + (double)x->n * dt;
    if (area)
        svg_path_to(p, x->t0, 0);
    if ((double)x->n <= 2 * w) {
        for (size_t k = 0; k < x->n; k++) {
            svg_path_to(p, x->t0 + (double)k * dt, x->x[k]);
            svg_path_to(p, x->t0 + (double)(k + 1) * dt, x->x[k]);
        }
    } else {
        size_t cols = (size_t)w, k = 0;
        for (size_t col = 0; col < cols && k < x->n; col++) {
            size_t end = (size_t)((double)x->n * (double)(col + 1) / (double)cols);
            double lo = x->x[k], hi = x->x[k];
            for (; k < end && k < x->n; k++) {
                lo = fmin(lo, x->x[k]);
                hi = fmax(hi, x->x[k]);
            }
            double tc = x->t0 + (double)k * dt;
            svg_path_to(p, tc, hi);
            svg_path_to(p, tc, lo);
        }
    }
    if (area)
        svg_path_to(p, t_end, 0);
}

/* The phases, adjacent ones merged when less than a pixel apart. */
static void phase_rects(const struct svg_chart *c, const struct ftio_result *r)
{
    char tip[160], a[48];
    double px = (c->x1 - c->x0) / (c->width - c->left - c->right);
    for (size_t i = 0; i < r->nphases;) {
        double s = r->phases[i].start, e = r->phases[i].end, bytes = r->phases[i].bytes;
        if (e < c->x0 || s > c->x1) {      /* outside this chart (a zoom) */
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < r->nphases && r->phases[j].start - e < px) {
            e = fmax(e, r->phases[j].end);
            bytes += r->phases[j].bytes;
            j++;
        }
        svg_human(a, sizeof a, bytes, SVG_BYTES);
        if (j == i + 1)
            snprintf(tip, sizeof tip, "phase %zu: %.3f to %.3f s, %s above the background", i + 1,
                     s, e, a);
        else
            snprintf(tip, sizeof tip, "phases %zu-%zu: %.3f to %.3f s, %s", i + 1, j, s, e, a);
        svg_rect(c, "phase", s, e, c->y0, c->y1, tip);
        i = j;
    }
}

/* Two or more activities: each one's phases (thin rectangles, a band of the
 * chart's height each, stacked from the bottom) and its next phase (dashed,
 * full height, labelled with its number), in its own colour. */
static void activity_marks(const struct svg_chart *c, const struct ftio_plot_section *s,
                           double to)
{
    size_t n = s->nactivities;
    double band = (c->y1 - c->y0) / (double)(n + 1);
    for (size_t k = 0; k < n; k++) {
        const struct ftio_result *r = s->activities[k].result;
        char cls[48], tip[FTIO_PATTERN_MAX + 96], num[24];
        if (!r)
            continue;
        for (size_t i = 0; r->phases && i < r->nphases; i++) {
            const struct ftio_phase *ph = &r->phases[i];
            if (ph->end < c->x0 || ph->start > c->x1)
                continue;
            snprintf(cls, sizeof cls, "act-phase a%zu", k % FTIO_PLOT_ACTIVITY_COLOURS);
            snprintf(tip, sizeof tip, "activity %zu (%s): phase %.3f to %.3f s", k + 1,
                     s->activities[k].pattern, ph->start, ph->end);
            svg_rect(c, cls, ph->start, fmax(ph->end, ph->start + 1e-9), c->y0 + band * (double)k,
                     c->y0 + band * (double)(k + 1), tip);
        }
        if (r->next.valid && r->next.end > r->next.start && r->next.start < to) {
            snprintf(cls, sizeof cls, "act-next a%zu", k % FTIO_PLOT_ACTIVITY_COLOURS);
            snprintf(tip, sizeof tip, "activity %zu (%s): next phase %.3f to %.3f s", k + 1,
                     s->activities[k].pattern, r->next.start, r->next.end);
            svg_rect(c, cls, r->next.start, r->next.end, c->y0, c->y1, tip);
            snprintf(cls, sizeof cls, "act-label a%zu", k % FTIO_PLOT_ACTIVITY_COLOURS);
            snprintf(num, sizeof num, "%zu", k + 1);
            svg_text(c, cls, (r->next.start + r->next.end) / 2, c->y1, 0, 14 + 12 * (double)(k % 3),
                     "middle", num);
        }
    }
}

/* Robust: the phase train that predicts the next phase (background, then
 * bytes / duration above it during each phase, onsets every period back
 * from the predicted one).  Compat or no phases: the dominant cosine, from
 * the DFT of all the samples x (the chart may show a part of them). */
static void reconstruction(const struct svg_chart *c, const struct ftio_samples *x,
                           const struct ftio_result *r, char *label, size_t len)
{
    double T = r->dominant.period, dur = r->metrics.phase_duration;
    char a[48];
    svg_human(a, sizeof a, T, SVG_SECONDS);
    struct svg_path p;
    if (r->detector == FTIO_DETECTOR_ROBUST && r->nphases > 0 && r->next.valid && dur > 0 &&
        r->metrics.phase_bytes > 0) {
        snprintf(label, len, "phase train, period %s", a);
        double lo = r->background, hi = lo + r->metrics.phase_bytes / dur;
        double on = r->next.start;
        /* The first onset whose phase ends inside the chart. */
        double back = floor((on - c->x0 + dur) / T);
        if (back > 100000)        /* more periods than pixels: nothing to see */
            return;
        on -= back * T;
        svg_path_begin(&p, c, "reconstruction");
        svg_path_to(&p, c->x0, on < c->x0 ? hi : lo);
        for (; on < r->next.start - 0.5 * T; on += T) {
            if (on >= c->x0) {
                svg_path_to(&p, on, lo);
                svg_path_to(&p, on, hi);
            }
            svg_path_to(&p, on + dur, hi);
            svg_path_to(&p, on + dur, lo);
        }
        svg_path_to(&p, fmin(c->x1, r->next.start), lo);
        svg_path_end(&p);
        return;
    }
    snprintf(label, len, "dominant cosine, period %s", a);
    double mean = 0;
    for (size_t k = 0; k < x->n; k++)
        mean += x->x[k];
    mean /= (double)x->n;
    double amp = 2.0 * r->dominant.amplitude / (double)x->n, f = r->dominant.frequency;
    double w = c->width - c->left - c->right, t_end = x->t0 + (double)x->n / x->fs;
    double from = fmax(x->t0, c->x0), to = fmin(t_end, c->x1);
    size_t steps = (size_t)(3 * w);
    svg_path_begin(&p, c, "reconstruction");
    for (size_t i = 0; i <= steps; i++) {
        double t = from + (to - from) * (double)i / (double)steps;
        svg_path_to(&p, t, mean + amp * cos(2 * M_PI * f * t + r->dominant.phase));
    }
    svg_path_end(&p);
}

/* A period narrower than this many pixels makes the reconstruction a solid
 * block: it is left out of such a chart. */
#define MIN_PERIOD_PX 8.0
/* Over this many periods, a second chart shows the last ones in detail. */
#define ZOOM_PERIODS 20.0
#define ZOOM_SHOWN 6.0

/* The samples of x inside [from, to] (a view into x's buffer). */
static struct ftio_samples samples_between(const struct ftio_samples *x, double from, double to)
{
    double k0 = floor((from - x->t0) * x->fs), k1 = ceil((to - x->t0) * x->fs);
    size_t a = k0 > 0 ? (size_t)k0 : 0, b = k1 > 0 ? (size_t)k1 : 0;
    if (b > x->n)
        b = x->n;
    if (a > b)
        a = b;
    struct ftio_samples v = *x;
    v.x = x->x + a;
    v.n = b - a;
    v.t0 = x->t0 + (double)a / x->fs;
    v.t1 = v.t0 + (double)v.n / x->fs;
    return v;
}

/* One bandwidth chart over [from, to]: signal, phases, reconstruction (when
 * a period spans enough pixels to be seen) and the next phase. */
static void signal_chart(FILE *f, const struct ftio_plot_section *s, double from, double to,
                         const char *heading, const char *cls)
{
    const struct ftio_result *r = s->result;
    struct ftio_samples x = samples_between(s->samples, from, to);
    if (x.n == 0)
        return;
    double ymax = 0;
    for (size_t k = 0; k < x.n; k++)
        ymax = fmax(ymax, x.x[k]);
    bool next = r && r->next.valid && r->next.end > r->next.start && r->next.start < to;
    bool train = r && r->has_period &&
                 r->dominant.period / (to - from) * (CHART_W - 94) >= MIN_PERIOD_PX;
    if (train && r->detector == FTIO_DETECTOR_ROBUST && r->metrics.phase_duration > 0)
        ymax = fmax(ymax, r->background + r->metrics.phase_bytes / r->metrics.phase_duration);
    if (!(ymax > 0))
        ymax = 1;
    struct time_axis ta;
    time_axis(&ta, s->samples->t0, s->epoch_origin);

    char recon[96] = "";
    fprintf(f, "<h3>%s</h3>\n", heading);
    struct svg_chart c;
    /* The legend names what is drawn; it is written after the chart's
     * content is known, so the chart goes to a buffer first. */
    char *buf = NULL;
    size_t blen = 0;
    FILE *mem = open_memstream(&buf, &blen);
    if (!mem)
        return;
    svg_begin(&c, mem, cls, heading, CHART_W, SIGNAL_H, from, to, 0, ymax * 1.08);
    svg_axes(&c, SVG_SECONDS, ta.title, ta.offset, SVG_BYTES_PER_S, "bandwidth");
    bool acts = s->activities && s->nactivities > 1;
    if (r && r->phases)
        phase_rects(&c, r);
    struct svg_path p;
    svg_path_begin(&p, &c, "signal-area");
    signal_points(&p, &c, &x, true);
    svg_path_end(&p);
    svg_path_begin(&p, &c, "signal");
    signal_points(&p, &c, &x, false);
    svg_path_end(&p);
    if (acts)                       /* over the signal: a band each, seen through */
        activity_marks(&c, s, to);
    if (train)
        reconstruction(&c, s->samples, r, recon, sizeof recon);
    if (next) {
        char tip[160], a[48];
        svg_human(a, sizeof a, r->next.bytes, SVG_BYTES);
        snprintf(tip, sizeof tip, "predicted next phase: %.3f to %.3f s, %s", r->next.start,
                 r->next.end, a);
        svg_rect(&c, "next", r->next.start, r->next.end, 0, c.y1, tip);
        svg_text(&c, "next-label", (r->next.start + r->next.end) / 2, c.y1, 0, 14,
                 svg_x(&c, r->next.end) > c.width - c.right - 30 ? "end" : "middle", "next");
    }
    svg_end(&c);
    fclose(mem);

    const char *items[4 + 2 * FTIO_PLOT_ACTIVITY_COLOURS][2];
    char act_label[FTIO_PLOT_ACTIVITY_COLOURS][FTIO_PATTERN_MAX + 32];
    size_t n = 0;
    items[n][0] = "signal"; items[n++][1] = "bandwidth (sampled)";
    if (r && r->phases && r->nphases) {
        items[n][0] = "phase"; items[n++][1] = "I/O phases found";
    }
    if (recon[0]) {
        items[n][0] = "reconstruction"; items[n++][1] = recon;
    }
    if (next) {
        items[n][0] = "next"; items[n++][1] = "predicted next phase";
    }
    static const char *const act_cls[FTIO_PLOT_ACTIVITY_COLOURS] = { "a0", "a1", "a2", "a3", "a4", "a5" };
    for (size_t k = 0; acts && k < s->nactivities && k < FTIO_PLOT_ACTIVITY_COLOURS; k++) {
        const struct ftio_result *ar = s->activities[k].result;
        char per[48] = "no period";
        if (ar && ar->has_period)
            svg_human(per, sizeof per, ar->dominant.period, SVG_SECONDS);
        snprintf(act_label[k], sizeof act_label[k], "%zu. %s (%s%s): phases, next phase", k + 1,
                 s->activities[k].pattern, ar && ar->has_period ? "period " : "", per);
        items[n][0] = act_cls[k];
        items[n++][1] = act_label[k];
    }
    legend(f, items, n);
    if (strcmp(cls, "bandwidth") == 0) {     /* the volume the picture holds */
        double vol = 0;
        for (size_t k = 0; k < x.n; k++)
            vol += x.x[k] / x.fs;
        char v[48], d[48];
        svg_human(v, sizeof v, vol, SVG_BYTES);
        svg_human(d, sizeof d, (double)x.n / x.fs, SVG_SECONDS);
        fprintf(f, "<p class=\"hint signal-volume\">%s drawn in %s</p>\n", v, d);
    }
    fwrite(buf, 1, blen, f);
    free(buf);
}

/* The whole signal, and when it holds many periods the last few of them
 * with the next phase, where the prediction can be judged by eye. */
static void signal_charts(FILE *f, const struct ftio_plot_section *s)
{
    const struct ftio_samples *x = s->samples;
    const struct ftio_result *r = s->result;
    double t_end = x->t0 + (double)x->n / x->fs, x1 = t_end;
    bool next = r && r->next.valid && r->next.end > r->next.start &&
                r->next.start < t_end + 0.5 * (t_end - x->t0) + 2 * r->dominant.period;
    if (next)
        x1 = fmax(x1, r->next.end + 0.02 * (r->next.end - x->t0));
    signal_chart(f, s, x->t0, x1, "Bandwidth", "bandwidth");
    double T = r && r->has_period ? r->dominant.period : 0;
    if (T > 0 && (t_end - x->t0) / T > ZOOM_PERIODS) {
        double end = next ? r->next.end + 0.3 * T : t_end;
        char heading[96], a[48];
        svg_human(a, sizeof a, T, SVG_SECONDS);
        snprintf(heading, sizeof heading, "The last periods (T = %s) and the next phase", a);
        signal_chart(f, s, fmax(x->t0, end - (ZOOM_SHOWN + 0.3) * T), end, heading,
                     "bandwidth-zoom");
    }
}

/* ---- spectrum chart --------------------------------------------------------------- */

static bool candidate_bin(const struct ftio_result *r, size_t k)
{
    for (size_t i = 0; r && i < r->ncand && i < FTIO_RESULT_CANDIDATES; i++)
        if (r->cand[i].bin == k)
            return true;
    return false;
}

static void spectrum_chart(FILE *f, const struct ftio_plot_section *s)
{
    const struct ftio_spectrum_view *v = s->spectrum;
    const struct ftio_result *r = s->result;
    if (v->half < 1)
        return;
    double fmax_all = v->fs * (double)v->half / (double)v->n, xmax = fmax_all;
    /* A period of seconds sits in the first percent of a 5 Hz axis: show
     * up to 12 times the dominant frequency (or the farthest candidate). */
    if (r && r->has_period) {
        double want = 12 * r->dominant.frequency;
        for (size_t i = 0; i < r->ncand && i < FTIO_RESULT_CANDIDATES; i++)
            want = fmax(want, 1.3 * r->cand[i].frequency);
        xmax = fmin(fmax_all, want);
    }
    size_t kmax = (size_t)floor(xmax * (double)v->n / v->fs);
    if (kmax > v->half)
        kmax = v->half;
    if (kmax < 1)
        kmax = 1;
    double ymax = 0;
    for (size_t k = 1; k <= kmax; k++)
        ymax = fmax(ymax, ftio_spectrum_value(v, k));
    bool thr = isfinite(v->threshold) && v->threshold > 0;
    if (thr && v->threshold < 3 * ymax)
        ymax = fmax(ymax, v->threshold);
    if (!(ymax > 0))
        ymax = 1;

    fputs("<h3>Spectrum</h3>\n", f);
    const char *items[4][2] = {
        { "spectrum", v->power ? "share of the AC power per frequency" : "share of the amplitude" },
        { "threshold", r && r->detector == FTIO_DETECTOR_COMPAT
                           ? "candidate threshold (z-score test)"
                           : "line threshold (spectral arbiter)" },
        { "candidate", "candidates (filled: dominant)" },
    };
    legend(f, items, thr ? 3 : 1);
    double dT = 0;
    if (disagreeing_line(s, &dT)) {
        const char *more[1][2] = { { "disagree", "tallest line, not the answer (see the note above)" } };
        legend(f, more, 1);
    }
    if (xmax < fmax_all) {
        char a[48], b[48];
        svg_human(a, sizeof a, xmax, SVG_HERTZ);
        svg_human(b, sizeof b, fmax_all, SVG_HERTZ);
        fprintf(f, "<p class=\"hint\">0 to %s shown of 0 to %s; all bins: ftio --export-spectrum</p>\n",
                a, b);
    }
    struct svg_chart c;
    svg_begin(&c, f, "spectrum-chart", "spectrum", CHART_W, SPECTRUM_H, 0, xmax, 0, ymax * 1.12);
    svg_axes(&c, SVG_HERTZ, "frequency", 0, SVG_PLAIN, v->power ? "power share" : "amplitude share");
    /* Stems from 0 to each bin, or per pixel column the tallest. */
    struct svg_path p;
    svg_path_begin(&p, &c, "spectrum");
    double w = c.width - c.left - c.right;
    if ((double)kmax <= w) {
        for (size_t k = 1; k <= kmax; k++) {
            double fr = v->fs * (double)k / (double)v->n;
            svg_path_break(&p);
            svg_path_to(&p, fr, 0);
            svg_path_to(&p, fr, ftio_spectrum_value(v, k));
        }
    } else {
        size_t cols = (size_t)w, k = 1;
        for (size_t col = 0; col < cols && k <= kmax; col++) {
            size_t end = 1 + (size_t)((double)kmax * (double)(col + 1) / (double)cols);
            double hi = 0, fr = v->fs * (double)k / (double)v->n;
            for (; k < end && k <= kmax; k++)
                hi = fmax(hi, ftio_spectrum_value(v, k));
            svg_path_break(&p);
            svg_path_to(&p, fr, 0);
            svg_path_to(&p, fr, hi);
        }
    }
    svg_path_end(&p);
    if (thr && v->threshold <= c.y1) {
        svg_hline(&c, "threshold", v->threshold, "a bin above this line stands out");
        svg_text(&c, "threshold-label", xmax, v->threshold, -4, -5, "end", "threshold");
    }
    double last_lx = -1e9, last_ly = -1e9;
    for (size_t k = 1; r && k <= kmax; k++) {
        if (!candidate_bin(r, k))
            continue;
        bool dom = r->has_period && r->dominant.bin == k;
        double fr = v->fs * (double)k / (double)v->n, val = ftio_spectrum_value(v, k);
        char tip[160], a[48], label[64];
        svg_human(a, sizeof a, 1 / fr, SVG_SECONDS);
        snprintf(tip, sizeof tip, "bin %zu: %.4g Hz (T = %s), share %.3g", k, fr, a, val);
        svg_circle(&c, dom ? "candidate dominant" : "candidate", fr, val, dom ? 5 : 4, tip);
        /* The robust period comes from the phases, not from this bin. */
        if (dom)
            svg_human(a, sizeof a, r->dominant.period, SVG_SECONDS);
        snprintf(label, sizeof label, "T = %s", a);
        bool right = svg_x(&c, fr) < c.width - c.right - 90;
        double dy = val > 0.85 * c.y1 ? 16 : -6;
        /* Two candidates in neighbouring bins: the second label goes below. */
        double lx = svg_x(&c, fr), ly = svg_y(&c, val) + dy;
        if (fabs(lx - last_lx) < 90 && fabs(ly - last_ly) < 14)
            dy += ly >= last_ly ? 14 : -14;
        last_lx = lx;
        last_ly = svg_y(&c, val) + dy;
        svg_text(&c, "candidate-label", fr, val, right ? 9 : -9, dy, right ? "start" : "end", label);
    }
    double dis_T = 0;
    size_t dis = disagreeing_line(s, &dis_T);
    if (dis && dis <= kmax && !(r->dominant.bin == dis)) {
        double fr = v->fs * (double)dis / (double)v->n, val = ftio_spectrum_value(v, dis);
        char tip[160], a[48], label[80];
        svg_human(a, sizeof a, dis_T, SVG_SECONDS);
        snprintf(tip, sizeof tip, "tallest line, bin %zu: T = %s, share %.3g: not the answer", dis,
                 a, val);
        svg_circle(&c, "disagree-line", fr, val, 6, tip);
        snprintf(label, sizeof label, "tallest: T = %s (not the answer)", a);
        bool right = svg_x(&c, fr) < c.width - c.right - 190;
        svg_text(&c, "disagree-label", fr, val, right ? 10 : -10, val > 0.85 * c.y1 ? 30 : -20,
                 right ? "start" : "end", label);
    }
    svg_end(&c);
}

/* ---- history charts ------------------------------------------------------------------ */

enum hist_kind { HIST_TOTAL, HIST_PERIOD, HIST_CONFIDENCE, HIST_ERROR, HIST_BYTES };

static double hist_value(const struct ftio_plot_step *s, enum hist_kind k)
{
    switch (k) {
    case HIST_TOTAL:      return s->bytes_total;
    case HIST_PERIOD:     return s->period;
    case HIST_CONFIDENCE: return s->confidence;
    case HIST_ERROR:      return s->last_error;
    default:              return s->phase_bytes;
    }
}

/* The values of `kind` in h as one line of class cls, broken where one is
 * unknown (the job's history and each activity's). */
static void history_line(const struct svg_chart *c, const char *cls, const struct ftio_plot_history *h,
                         enum hist_kind kind)
{
    struct svg_path p;
    svg_path_begin(&p, c, cls);
    for (size_t i = 0; i < h->n; i++) {
        double v = hist_value(&h->step[i], kind);
        if (isfinite(v))
            svg_path_to(&p, h->step[i].t, v);
        else
            svg_path_break(&p);
    }
    svg_path_end(&p);
}

/* The charts share their time axis: only the last (with_title) names it. */
static void history_chart(FILE *f, const struct ftio_plot_history *h, enum hist_kind kind,
                          const struct time_axis *ta, double x0, double x1, bool with_title,
                          const struct ftio_plot_activity_history *act, size_t nact)
{
    static const char *const names[] = { "history-total", "history-period", "history-confidence",
                                         "history-error", "history-bytes" };
    static const char *const titles[] = { "bytes moved", "period", "confidence", "next-phase error",
                                          "per phase" };
    static const enum svg_unit units[] = { SVG_BYTES, SVG_SECONDS, SVG_PLAIN, SVG_SECONDS,
                                           SVG_BYTES };
    double lo = 0, hi = 0;
    size_t have = 0;
    for (size_t i = 0; i < h->n; i++) {
        double v = hist_value(&h->step[i], kind);
        if (!isfinite(v))
            continue;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        have++;
    }
    for (size_t a = 0; a < nact && (kind == HIST_PERIOD || kind == HIST_CONFIDENCE); a++)
        for (size_t i = 0; i < act[a].hist.n; i++) {
            double v = hist_value(&act[a].hist.step[i], kind);
            if (isfinite(v)) {
                hi = fmax(hi, v);
                have++;
            }
        }
    if (kind == HIST_CONFIDENCE) {
        lo = 0;
        hi = 1;
    } else if (kind == HIST_ERROR) {
        double m = fmax(fabs(lo), fabs(hi));
        lo = -1.15 * m;
        hi = 1.15 * m;
    } else {
        hi *= 1.15;
    }
    struct svg_chart c;
    double height = with_title ? HISTORY_H : HISTORY_H - 20;
    svg_begin(&c, f, names[kind], titles[kind], CHART_W, height, x0, x1, lo, hi);
    if (!with_title)
        c.bottom -= 20;
    svg_axes(&c, SVG_SECONDS, with_title ? ta->title : NULL, ta->offset, units[kind], titles[kind]);
    if (have == 0)
        svg_text(&c, "empty", (c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2, 0, 4, "middle",
                 kind == HIST_ERROR ? "no prediction scored yet" : "no value in any analysis");
    if (kind == HIST_CONFIDENCE)
        svg_hline(&c, "level", 0.8, "periodic from 0.8 on (robust detector)");
    if (kind == HIST_ERROR)
        svg_hline(&c, "zero", 0, NULL);
    if (kind != HIST_ERROR && kind != HIST_TOTAL) {
        history_line(&c, "history-line", h, kind);
    } else {
        /* An online loop repeats its latest error until it scores the next
         * prediction: a held line, with a point where a new score came.
         * The bytes moved so far rise in steps, one per phase. */
        struct svg_path p;
        svg_path_begin(&p, &c, kind == HIST_TOTAL ? "history-total" : "history-error-line");
        double held = NAN;
        for (size_t i = 0; i < h->n; i++) {
            double v = hist_value(&h->step[i], kind);
            if (!isfinite(v))
                continue;
            if (isfinite(held))
                svg_path_to(&p, h->step[i].t, held);
            svg_path_to(&p, h->step[i].t, v);
            held = v;
        }
        svg_path_end(&p);
    }
    double prev_error = NAN;
    char cls[96], tip[192], a[48], last_cls[96] = "";
    double r = h->n > 400 ? 1.6 : h->n > 100 ? 2.4 : 3.4, last_px = -1e9, last_py = -1e9;
    for (size_t i = 0; i < h->n && kind != HIST_TOTAL; i++) {
        const struct ftio_plot_step *s = &h->step[i];
        double v = hist_value(s, kind);
        /* An analysis without a period is a grey mark at 0 (period and
         * confidence), so that every analysis shows. */
        bool none = !isfinite(s->period) && (kind == HIST_PERIOD || kind == HIST_CONFIDENCE);
        if (none)
            v = 0;
        if (!isfinite(v) || (kind == HIST_ERROR && v == prev_error))
            continue;
        if (kind == HIST_ERROR)
            prev_error = v;
        /* A day of analyses every second is 86,400 points on 870 pixels:
         * a point that would cover the previous one of its kind is left out. */
        snprintf(cls, sizeof cls, "history-point %s%s", none ? "none" : ftio_class_name(s->cls),
                 s->stale ? " stale" : "");
        double px = svg_x(&c, s->t), py = svg_y(&c, v);
        if (fabs(px - last_px) < 1.5 && fabs(py - last_py) < 1.5 && strcmp(cls, last_cls) == 0)
            continue;
        last_px = px;
        last_py = py;
        snprintf(last_cls, sizeof last_cls, "%s", cls);
        svg_human(a, sizeof a, v, units[kind]);
        if (kind == HIST_CONFIDENCE)
            snprintf(a, sizeof a, "%.3f", v);
        if (none)
            snprintf(tip, sizeof tip, "t = %.3f s: no period", s->t - ta->offset);
        else
            snprintf(tip, sizeof tip, "t = %.3f s: %s %s (%s%s)", s->t - ta->offset, titles[kind],
                     a, ftio_class_name(s->cls), s->stale ? ", stale" : "");
        if (kind == HIST_ERROR) {
            struct svg_path stem;
            svg_path_begin(&stem, &c, "history-error");
            svg_path_to(&stem, s->t, 0);
            svg_path_to(&stem, s->t, v);
            svg_path_end(&stem);
            svg_circle(&c, "history-error-point", s->t, v, r * 0.8, tip);
            continue;
        }
        svg_circle(&c, cls, s->t, v, r, tip);
    }
    /* Each activity's own predictions, in its colour (period and confidence). */
    for (size_t a = 0; a < nact && (kind == HIST_PERIOD || kind == HIST_CONFIDENCE); a++) {
        const struct ftio_plot_history *ah = &act[a].hist;
        snprintf(cls, sizeof cls, "activity-line act-%zu", a % NACT_COLOURS);
        history_line(&c, cls, ah, kind);
        for (size_t i = 0; i < ah->n; i++) {
            const struct ftio_plot_step *st = &ah->step[i];
            double v = hist_value(st, kind);
            if (!isfinite(v))
                continue;
            char a_buf[48];
            snprintf(cls, sizeof cls, "activity-point act-%zu", a % NACT_COLOURS);
            svg_human(a_buf, sizeof a_buf, v, units[kind]);
            snprintf(tip, sizeof tip, "t = %.3f s: activity %s: %s %s (%s)", st->t - ta->offset,
                     act[a].name ? act[a].name : "?", titles[kind], a_buf, ftio_class_name(st->cls));
            /* A ring around the job's point: an activity that is the
             * whole job repeats its answer and must not hide it. */
            svg_circle(&c, cls, st->t, v, r + 2.5, tip);
        }
    }
    svg_end(&c);
}

static void history_charts(FILE *f, const struct ftio_plot_section *s, const struct time_axis *ta)
{
    const struct ftio_plot_history *h = s->history;
    double x0 = h->step[0].t, x1 = x0;
    for (size_t i = 1; i < h->n; i++) {   /* ftiod may publish a boundary late */
        x0 = fmin(x0, h->step[i].t);
        x1 = fmax(x1, h->step[i].t);
    }
    if (s->samples) {                 /* the bandwidth chart's span */
        double s0 = s->samples->t0, s1 = s0 + (double)s->samples->n / s->samples->fs;
        /* ... unless the history is on another clock: publish times of a
         * replayed trace come long after its requests' times. */
        double overlap = fmin(x1, s1) - fmax(x0, s0);
        if (overlap >= 0.5 * (x1 - x0) || x1 - x0 <= 0) {
            x0 = fmin(x0, s0);
            x1 = fmax(x1, s1);
        }
    }
    double pad = 0.02 * (x1 - x0);
    x0 -= pad;
    x1 += pad;
    fprintf(f, "<h3>Prediction history</h3>\n<p class=\"hint\">%zu analyses; each point is one "
            "published prediction at %s</p>\n", h->n,
            s->history_axis ? s->history_axis : "the end of its window");
    const char *items[][2] = { { "periodic", "periodic" }, { "uncertain", "uncertain" },
                               { "none", "no period" }, { "stale", "stale (kept answer)" },
                               { "error", "next-phase error: actual - predicted start, "
                                          "a point per scored prediction" } };
    legend(f, items, 5);
    if (s->nactivity) {
        fputs("<div class=\"legend activities\">", f);
        for (size_t a = 0; a < s->nactivity; a++) {
            fprintf(f, "<span><i class=\"act-%zu\"></i>activity ", a % NACT_COLOURS);
            svg_escape(f, s->activity[a].name ? s->activity[a].name : "?");
            fputs("</span>", f);
        }
        fputs("</div>\n", f);
    }
    /* ftiod says how many bytes the job moved so far: its I/O over time. */
    bool totals = false;
    for (size_t i = 0; i < h->n && !totals; i++)
        totals = isfinite(h->step[i].bytes_total);
    for (int k = totals ? HIST_TOTAL : HIST_PERIOD; k <= HIST_BYTES; k++)
        history_chart(f, h, (enum hist_kind)k, ta, x0, x1, k == HIST_BYTES, s->activity,
                      s->nactivity);
}

/* ---- the page ---------------------------------------------------------------------------- */

struct ftio_plot_page *ftio_plot_page_open(const char *path, const char *title,
                                           const char *subtitle, char *err, size_t errlen)
{
    struct ftio_plot_page *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (ftio_plot_output_open(&p->out, path, err, errlen) != 0) {
        free(p);
        return NULL;
    }
    FILE *f = p->out.f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"ftio " FTIO_VERSION "\">\n<title>", f);
    svg_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head><body><main>\n<h1>", style);
    svg_escape(f, title);
    fputs("</h1>\n", f);
    if (subtitle && *subtitle) {
        fputs("<p class=\"sub\">", f);
        svg_escape(f, subtitle);
        fputs("</p>\n", f);
    }
    return p;
}

int ftio_plot_page_add(struct ftio_plot_page *p, const struct ftio_plot_section *s)
{
    FILE *f = p->out.f;
    p->sections++;
    fprintf(f, "<section class=\"run\" id=\"run-%u\" data-mode=\"", p->sections);
    svg_escape(f, s->mode);
    fputs("\"><h2>", f);
    if (s->job && *s->job) {
        fputs("job ", f);
        svg_escape(f, s->job);
        fputs(" &middot; ", f);
    }
    svg_escape(f, s->mode);
    fputs("</h2>\n", f);
    job_facts(f, s->meta);
    header_facts(f, s);
    struct time_axis ta;
    double t0 = s->samples ? s->samples->t0
              : s->history && s->history->n ? s->history->step[0].t : 0;
    time_axis(&ta, t0, s->epoch_origin);
    if (s->samples && s->samples->n > 0)
        signal_charts(f, s);
    if (s->spectrum)
        spectrum_chart(f, s);
    if (s->history && s->history->n > 0)
        history_charts(f, s, &ta);
    fputs("</section>\n", f);
    return ferror(f) ? -1 : 0;
}

int ftio_plot_page_close(struct ftio_plot_page *p, char *err, size_t errlen)
{
    fputs("<footer>ftio " FTIO_VERSION " &middot; hover a phase, a candidate or a point for its "
          "numbers</footer>\n</main></body></html>\n", p->out.f);
    int rc = ftio_plot_output_commit(&p->out, err, errlen);
    free(p);
    return rc;
}

FILE *ftio_plot_page_file(struct ftio_plot_page *p)
{
    return p->out.f;
}

void ftio_plot_page_discard(struct ftio_plot_page *p)
{
    if (!p)
        return;
    ftio_plot_output_discard(&p->out);
    free(p);
}
