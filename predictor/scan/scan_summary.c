/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_summary.c -- the closing summary of a scan, in the manner of the
 * temporal-I/O-behaviour study: its Table III (share of jobs with periodic
 * reads, writes, both, either -- a period and >= 3 phases -- and the share
 * of the I/O volume those jobs move) and its Table II (when reads and
 * writes happen, from the 4-segment temporal classes, jobs shorter than
 * 12 s and "0000" jobs left out as the study does), then the most common
 * temporal classes.  Counters are plain doubles so that threads and MPI
 * ranks merge them by summing.  The study: F. Boito, L. Teylo, M. Popov et
 * al., "A Deep Look Into the Temporal I/O Behavior of HPC Applications", 2025
 * (extended version: Inria research report RR-9577, March 2025).
 */

/* Named once in the summary, which then says "the study's Table N". */
#define STUDY "Boito et al., \"A Deep Look Into the Temporal I/O Behavior of HPC Applications\", 2025"
#include <math.h>
#include <string.h>
#include "scan/scan.h"

static int class_index(const char *c)
{
    int k = 0;
    for (int i = 0; i < 4; i++)
        k = 4 * k + (c[i] == 'R' ? 1 : c[i] == 'W' ? 2 : c[i] == 'B' ? 3 : 0);
    return k;
}

static void class_name(int k, char out[5])
{
    static const char sym[4] = { '0', 'R', 'W', 'B' };
    for (int i = 3; i >= 0; i--, k /= 4)
        out[i] = sym[k % 4];
    out[4] = 0;
}

void scan_summary_add(struct scan_summary *s, const struct scan_row *r)
{
    if (r->filtered) {
        s->filtered++;
        return;
    }
    s->rows++;
    if (r->error) {
        s->errors++;
        return;
    }
    s->jobs++;
    if (r->warning)
        s->warnings++;
    int src = strcmp(r->source, "dxt") == 0       ? SCAN_SRC_DXT
            : strcmp(r->source, "heatmap") == 0   ? SCAN_SRC_HEATMAP
            : strcmp(r->source, "counters") == 0  ? SCAN_SRC_COUNTERS
                                                  : SCAN_SRC_RECORDS;
    s->source[src]++;
    bool per[2];
    for (int d = 0; d < 2; d++) {
        per[d] = r->mode[d].analysed && r->mode[d].periodic;
        s->analysed[d] += r->mode[d].analysed;
        s->bytes[d] += r->bytes[d];
        if (per[d]) {
            s->periodic[d]++;
            s->periodic_bytes[d] += r->bytes[d];
        }
    }
    double all = r->bytes[0] + r->bytes[1];
    if (per[0] && per[1]) {
        s->periodic_both++;
        s->bytes_both += all;
    }
    if (per[0] || per[1]) {
        s->periodic_any++;
        s->bytes_any += all;
    }
    if (!r->temporal[0]) {
        s->too_short++;
        return;
    }
    if (strcmp(r->temporal, "0000") == 0) {
        s->no_io++;
        return;
    }
    s->classified++;
    s->cls[class_index(r->temporal)]++;
    for (int d = 0; d < 2; d++) {          /* the study counts "none" with the others */
        int w = scan_when(r->temporal, d);
        s->when[d][w == SCAN_WHEN_NONE ? SCAN_WHEN_OTHERS : w]++;
    }
}

void scan_summary_merge(struct scan_summary *into, const struct scan_summary *from)
{
    double *a = (double *)into;
    const double *b = (const double *)from;
    double seconds = fmax(into->seconds, from->seconds);
    for (size_t i = 0; i < SCAN_SUMMARY_NFIELDS; i++)
        a[i] += b[i];
    into->seconds = seconds;
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

static void table3_line(FILE *f, const char *name, double jobs, double of, double bytes, double of_bytes)
{
    fprintf(f, "  %-22s %8.0f %7.1f%% %9.1f%%\n", name, jobs, pct(jobs, of), pct(bytes, of_bytes));
}

void scan_summary_print(FILE *f, const struct scan_summary *s, const struct scan_opts *o)
{
    fprintf(f, "ftio scan: %.0f files, %.0f jobs analysed, %.0f unreadable", s->files - s->skipped,
            s->jobs, s->errors);
    if (s->skipped)
        fprintf(f, ", %.0f other files skipped (no trace format)", s->skipped);
    if (s->filtered)
        fprintf(f, ", %.0f jobs filtered out", s->filtered);
    double rate = s->seconds > 0 ? (s->files - s->skipped) / s->seconds : 0.0;
    fprintf(f, "\n  %.2f s, %.1f files/s with %.0f threads", s->seconds, rate, s->threads);
    if (s->ranks > 1)
        fprintf(f, " in %.0f MPI ranks", s->ranks);
    fprintf(f, " (%.1f files/s per thread)\n", s->threads > 0 ? rate / s->threads : 0.0);
    fprintf(f, "  signal source: %.0f DXT, %.0f HEATMAP, %.0f per-file counters, %.0f trace records\n",
            s->source[SCAN_SRC_DXT], s->source[SCAN_SRC_HEATMAP], s->source[SCAN_SRC_COUNTERS],
            s->source[SCAN_SRC_RECORDS]);
    if (s->warnings)
        fprintf(f, "  %.0f jobs read from damaged files (--lenient)\n", s->warnings);

    fprintf(f, "\nCompared with the study " STUDY ":\n");
    fprintf(f, "\nPeriodic I/O (a period and >= 3 phases; the study's Table III), of %.0f jobs\n", s->jobs);
    fprintf(f, "  %-22s %8s %8s %10s\n", "", "jobs", "share", "of volume");
    if (o->do_read)
        table3_line(f, "periodic read", s->periodic[0], s->jobs, s->periodic_bytes[0], s->bytes[0]);
    if (o->do_write)
        table3_line(f, "periodic write", s->periodic[1], s->jobs, s->periodic_bytes[1], s->bytes[1]);
    if (o->do_read && o->do_write)
        table3_line(f, "periodic read AND write", s->periodic_both, s->jobs, s->bytes_both,
                    s->bytes[0] + s->bytes[1]);
    table3_line(f, "total periodic", s->periodic_any, s->jobs, s->bytes_any, s->bytes[0] + s->bytes[1]);

    fprintf(f, "\nWhen is I/O done (4 equal segments, R/W/B/0 at >= 1 MiB/s; the study's Table II),"
               " of %.0f jobs\n", s->classified);
    fprintf(f, "  (not classified: %.0f shorter than 12 s, %.0f with no segment of I/O: \"0000\")\n",
            s->too_short, s->no_io);
    static const char *const dir[2] = { "read:", "write:" };
    for (int d = 0; d < 2; d++)
        fprintf(f, "  %-6s %-9s %5.1f%%  throughout %5.1f%%  others %5.1f%%\n", dir[d],
                scan_when_word(d, SCAN_WHEN_TYPICAL),
                pct(s->when[d][SCAN_WHEN_TYPICAL], s->classified),
                pct(s->when[d][SCAN_WHEN_THROUGHOUT], s->classified),
                pct(s->when[d][SCAN_WHEN_OTHERS], s->classified));

    /* the ten most common classes, ties in class order */
    bool used[SCAN_NCLASSES] = { false };
    int shown = 0;
    for (; shown < 10; shown++) {
        int best = -1;
        for (int k = 0; k < SCAN_NCLASSES; k++)
            if (!used[k] && s->cls[k] > 0 && (best < 0 || s->cls[k] > s->cls[best]))
                best = k;
        if (best < 0)
            break;
        used[best] = true;
        char name[5];
        class_name(best, name);
        if (shown == 0)
            fprintf(f, "  most common classes:");
        fprintf(f, " %s %.1f%% (%.0f)", name, pct(s->cls[best], s->classified), s->cls[best]);
    }
    if (shown)
        fputc('\n', f);
}
