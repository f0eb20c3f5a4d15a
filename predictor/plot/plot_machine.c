/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_machine.c -- the picture of a machine message (PROTOCOL.md §2
 * Version 4, topic `ftio.machine`; `ftio report --machine`): per file
 * system and mode, one chart on one time axis (0 = the message's
 * publication): the observed aggregate bandwidth of the last minutes as a
 * filled area, the predicted aggregate of the horizon as a line, under it
 * each listed job's expected bandwidth as a band of its own colour,
 * stacked (its phases times their probability), the predicted collisions
 * as red spans, and below it the expected number of jobs in a phase.  The
 * page is plot_page.c's (head, style, footer); hovering a band or a span
 * gives its numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plot/plot.h"
#include "plot/svg.h"
#include "units.h"

#define CHART_W 960
#define CHART_H 300
#define ACTIVE_H 120
#define BANDS 8            /* colours; the jobs beyond share the last one ("others") */

static const char machine_style[] =
    "<style>\n"
    "svg .observed{fill:#bfdbfe;stroke:#1d4ed8;stroke-width:1}\n"
    "svg .forecast{fill:none;stroke:#111827;stroke-width:1.6}\n"
    "svg .now{stroke:#111827;stroke-width:1;stroke-dasharray:3 3}\n"
    "svg .collision{fill:#dc2626;fill-opacity:.16;stroke:#dc2626;stroke-width:.8}\n"
    "svg .active{fill:none;stroke:#7c3aed;stroke-width:1.5}\n"
    "svg .band{stroke:none}\n"
    "svg .b0{fill:#f59e0b}svg .b1{fill:#10b981}svg .b2{fill:#8b5cf6}svg .b3{fill:#06b6d4}"
    "svg .b4{fill:#ec4899}svg .b5{fill:#84cc16}svg .b6{fill:#f97316}svg .b7{fill:#9ca3af}\n"
    "i.b0{background:#f59e0b}i.b1{background:#10b981}i.b2{background:#8b5cf6}"
    "i.b3{background:#06b6d4}i.b4{background:#ec4899}i.b5{background:#84cc16}"
    "i.b6{background:#f97316}i.b7{background:#9ca3af}i.observed{background:#bfdbfe}"
    "i.forecast{background:#111827;height:3px!important}i.collision{background:#fca5a5}\n"
    "</style>\n";

static double num(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double at(const json_t *a, size_t k)
{
    return json_number_value(json_array_get(a, k));
}

/* A series of 1-s steps from `start` as a step path (x relative to t0). */
static void step_path(const struct svg_chart *c, const char *cls, const json_t *a, double start,
                      double t0, bool area)
{
    size_t n = json_array_size(a);
    if (n == 0)
        return;
    struct svg_path p;
    svg_path_begin(&p, c, cls);
    double x0 = start - t0;
    if (area)
        svg_path_to(&p, x0, 0);
    for (size_t k = 0; k < n; k++) {
        svg_path_to(&p, x0 + (double)k, at(a, k));
        svg_path_to(&p, x0 + (double)k + 1, at(a, k));
    }
    if (area)
        svg_path_to(&p, x0 + (double)n, 0);
    svg_path_end(&p);
}

/* The expected bandwidth of one listed job at 1-s steps over the forecast. */
static void job_series(const json_t *job, double start, size_t n, double *out)
{
    size_t i;
    json_t *ph;
    json_array_foreach(json_object_get(job, "phases"), i, ph) {
        double s = at(ph, 0), e = at(ph, 1), b = at(ph, 2), p = at(ph, 3);
        if (!(e > s))
            continue;
        for (long k = (long)floor(s - start); k <= (long)floor(e - start); k++) {
            if (k < 0 || (size_t)k >= n)
                continue;
            double o = fmin(e, start + (double)k + 1) - fmax(s, start + (double)k);
            if (o > 0)
                out[k] += p * b / (e - s) * o;
        }
    }
}

/* Is a listed job one of (file system, mode)? */
static bool job_here(const json_t *job, const char *fs, const char *mode)
{
    const char *jf = json_string_value(json_object_get(job, "fs"));
    const char *jm = json_string_value(json_object_get(job, "mode"));
    return jf && jm && fs && !strcmp(jf, fs) && !strcmp(jm, mode);
}

/* One (file system, mode) chart; 0, or -1 out of memory. */
static int chart(FILE *f, const json_t *msg, const json_t *fsent, const char *mode, const char *who)
{
    const char *fs = json_string_value(json_object_get(fsent, "fs"));
    const json_t *ob = json_object_get(fsent, "observed"), *fc = json_object_get(fsent, "forecast");
    const json_t *oa = json_object_get(ob, mode), *fa = json_object_get(fc, mode);
    const json_t *act = json_object_get(fc, who);
    double t0 = num(msg, "published"), os = num(ob, "start"), fs0 = num(fc, "start");
    size_t no = json_array_size(oa), nf = json_array_size(fa);
    double ymax = 0;
    for (size_t k = 0; k < no; k++)
        ymax = fmax(ymax, at(oa, k));
    for (size_t k = 0; k < nf; k++)
        ymax = fmax(ymax, at(fa, k));
    /* the jobs of this file system and mode, stacked */
    size_t nj = 0, i;
    json_t *job;
    json_array_foreach(json_object_get(msg, "jobs"), i, job)
        nj += job_here(job, fs, mode);
    if (!(ymax > 0) && nj == 0)
        return 0;                      /* nothing happens there */
    double *stack = calloc((nf ? nf : 1) * (nj + 1), sizeof *stack);
    if (!stack)
        return -1;
    size_t b = 0;
    json_array_foreach(json_object_get(msg, "jobs"), i, job) {
        if (!job_here(job, fs, mode))
            continue;
        b++;
        memcpy(stack + b * nf, stack + (b - 1) * nf, nf * sizeof *stack);
        job_series(job, fs0, nf, stack + b * nf);
    }
    for (size_t k = 0; k < nf; k++)
        ymax = fmax(ymax, stack[nj * nf + k]);
    double x0 = no ? os - t0 : 0, x1 = nf ? fs0 + (double)nf - t0 : 1, y1 = ymax * 1.1;
    svg_range(&x0, &x1);
    if (!(y1 > 0))
        y1 = 1;
    char title[512];
    snprintf(title, sizeof title, "%s, %s: observed and predicted aggregate bandwidth", fs ? fs : "?",
             mode);
    fprintf(f, "<h3>");
    svg_escape(f, title);
    fprintf(f, "</h3>\n");
    struct svg_chart c;
    svg_begin(&c, f, "machine-chart", title, CHART_W, CHART_H, x0, x1, 0, y1);
    svg_axes(&c, SVG_SECONDS, "time from the forecast", 0, SVG_BYTES_PER_S, "bandwidth");
    /* collisions first, under everything */
    json_t *col;
    json_array_foreach(json_object_get(msg, "collisions"), i, col) {
        const char *cf = json_string_value(json_object_get(col, "fs"));
        if (!cf || !fs || strcmp(cf, fs))
            continue;
        const json_t *jobs = json_object_get(col, "jobs");
        char tip[512], d[FTIO_UNITS_LEN];
        svg_human(d, sizeof d, num(col, "end") - num(col, "start"), SVG_SECONDS);
        snprintf(tip, sizeof tip, "collision in %.0f s for %s: %s and %s (P %.2f)",
                 num(col, "start") - t0, d,
                 json_string_value(json_array_get(jobs, 0)) ?: "another job",
                 json_string_value(json_array_get(jobs, 1)) ?: "another job", num(col, "p"));
        svg_rect(&c, "collision", num(col, "start") - t0, num(col, "end") - t0, 0, y1, tip);
    }
    step_path(&c, "observed", oa, os, t0, true);
    /* the jobs' bands: the area between consecutive sums */
    b = 0;
    json_array_foreach(json_object_get(msg, "jobs"), i, job) {
        if (!job_here(job, fs, mode))
            continue;
        b++;
        char cls[32], tip[600], p[FTIO_UNITS_LEN], e[FTIO_UNITS_LEN];
        snprintf(cls, sizeof cls, "band b%zu", b - 1 < BANDS ? b - 1 : BANDS - 1);
        svg_human(p, sizeof p, num(job, "period"), SVG_SECONDS);
        svg_human(e, sizeof e, num(job, "expected_bytes"), SVG_BYTES);
        snprintf(tip, sizeof tip, "job %s: period %s (confidence %.2f), %s expected in the horizon",
                 json_string_value(json_object_get(job, "job")) ?: "?", p,
                 num(job, "confidence"), e);
        fprintf(f, "<g><title>");
        svg_escape(f, tip);
        fprintf(f, "</title>\n");
        struct svg_path pa;
        svg_path_begin(&pa, &c, cls);
        for (size_t k = 0; k < nf; k++) {
            svg_path_to(&pa, fs0 - t0 + (double)k, stack[b * nf + k]);
            svg_path_to(&pa, fs0 - t0 + (double)k + 1, stack[b * nf + k]);
        }
        for (size_t k = nf; k-- > 0;) {
            svg_path_to(&pa, fs0 - t0 + (double)k + 1, stack[(b - 1) * nf + k]);
            svg_path_to(&pa, fs0 - t0 + (double)k, stack[(b - 1) * nf + k]);
        }
        svg_path_end(&pa);
        fprintf(f, "</g>\n");
    }
    step_path(&c, "forecast", fa, fs0, t0, false);
    svg_vline(&c, "now", 0, "now: the forecast's publication");
    svg_end(&c);
    fprintf(f, "<div class=\"legend\"><span><i class=\"observed\"></i>observed</span>"
               "<span><i class=\"forecast\"></i>predicted (all jobs)</span>");
    b = 0;
    json_array_foreach(json_object_get(msg, "jobs"), i, job) {
        if (!job_here(job, fs, mode))
            continue;
        if (b == BANDS - 1 && nj > BANDS) {
            fprintf(f, "<span><i class=\"b%d\"></i>%zu more jobs</span>", BANDS - 1, nj - b);
            break;
        }
        fprintf(f, "<span><i class=\"b%zu\"></i>", b++);
        svg_escape(f, json_string_value(json_object_get(job, "job")) ?: "?");
        fprintf(f, "</span>");
    }
    fprintf(f, "<span><i class=\"collision\"></i>predicted collision</span></div>\n");
    free(stack);
    /* the expected jobs in a phase */
    size_t na = json_array_size(act);
    if (na) {
        double amax = 1;
        for (size_t k = 0; k < na; k++)
            amax = fmax(amax, at(act, k));
        snprintf(title, sizeof title, "%s, %s: expected jobs in a phase", fs ? fs : "?", mode);
        svg_begin(&c, f, "machine-active", title, CHART_W, ACTIVE_H, x0, x1, 0, amax * 1.1);
        svg_axes(&c, SVG_SECONDS, NULL, 0, SVG_PLAIN, "jobs");
        step_path(&c, "active", act, fs0, t0, false);
        svg_vline(&c, "now", 0, "now");
        svg_end(&c);
    }
    return 0;
}

int ftio_plot_machine_page(const char *path, const json_t *msg, const char *source, char *err,
                           size_t errlen)
{
    double t0 = num(msg, "published");
    char sub[512], when[64] = "?";
    if (isfinite(t0)) {
        time_t s = (time_t)floor(t0);
        struct tm tm;
        gmtime_r(&s, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    }
    snprintf(sub, sizeof sub, "published %s by %.0f daemon%s (%s): %.0f live jobs, %.0f collisions "
             "predicted", when, json_is_number(json_object_get(msg, "daemons")) ? num(msg, "daemons") : 1,
             num(msg, "daemons") > 1 ? "s" : "", source, num(msg, "jobs_live"),
             num(msg, "collisions_total"));
    struct ftio_plot_page *p = ftio_plot_page_open(path, "ftio: the machine's I/O", sub, err, errlen);
    if (!p)
        return -1;
    FILE *f = ftio_plot_page_file(p);
    fputs(machine_style, f);
    size_t i, drawn = 0;
    json_t *fsent;
    json_array_foreach(json_object_get(msg, "fs"), i, fsent) {
        fputs("<section class=\"run machine\">\n<h2>", f);
        svg_escape(f, json_string_value(json_object_get(fsent, "fs")) ?: "?");
        fputs("</h2>\n", f);
        if (chart(f, msg, fsent, "write", "writers") != 0 ||
            chart(f, msg, fsent, "read", "readers") != 0) {
            ftio_plot_page_discard(p);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        fputs("<p class=\"hint\">Each band is one job's expected bandwidth: its predicted phases "
              "times the probability that its period is right (the jobs with the most bytes "
              "expected; the line sums every job).</p>\n</section>\n", f);
        drawn++;
    }
    if (!drawn)
        fputs("<p class=\"note\">No file system yet: no job has written or read.</p>\n", f);
    return ftio_plot_page_close(p, err, errlen);
}
