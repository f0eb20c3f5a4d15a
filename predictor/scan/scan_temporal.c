/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_temporal.c -- the temporal class of the temporal-I/O-behaviour study
 * (§III, "When do applications perform I/O?"): the run is cut into four
 * equal segments, each labelled W (writes), R (reads), B (both) or 0 (no
 * I/O); a direction counts in a segment only when its peak bandwidth there
 * reaches 1 MiB/s (the study's noise filter), and jobs shorter than 12 s
 * (3 s per segment) are not classified.  Table II then groups the classes:
 * reads "at the beginning" (only in the first segment), "throughout" (in at
 * least three segments, R or B) or "others"; writes "at the end" (only in
 * the last), "throughout" or "others".
 *
 * The peaks come from the step signals scan_job.c builds for the analysis
 * (the aggregated bandwidth of all ranks), so a class says the same thing
 * as the period next to it.
 */
#include <math.h>
#include <string.h>
#include "scan/scan.h"

/* Peak of a step signal over each of the 4 segments of [t0, t0 + run). */
static void peaks(const struct ftio_signal *s, double t0, double run, double pk[4])
{
    for (int k = 0; k < 4; k++)
        pk[k] = 0;
    if (!s || s->n < 2)
        return;
    double w = run / 4;
    for (size_t i = 0; i + 1 < s->n; i++) {
        double a = s->t[i], b = s->t[i + 1], v = s->b[i];
        if (!(b > a) || !(v > 0))
            continue;
        /* segments this step overlaps (clamped to the run: I/O Darshan
         * timestamps a little past the end still belongs to the last) */
        int k0 = (int)floor((a - t0) / w), k1 = (int)floor((b - t0) / w);
        if (b - t0 == k1 * w)
            k1--;   /* a step ending on an edge does not enter the next */
        if (k0 < 0)
            k0 = 0;
        if (k1 > 3)
            k1 = 3;
        if (k1 < 0 || k0 > 3)
            continue;
        for (int k = k0; k <= k1; k++)
            if (v > pk[k])
                pk[k] = v;
    }
}

const char *scan_temporal_class(const struct ftio_signal *rd, const struct ftio_signal *wr,
                                double t0, double run, char out[5])
{
    out[0] = 0;
    if (!(run >= SCAN_TEMPORAL_MIN_RUN))
        return "run shorter than 12 s";
    double pr[4], pw[4];
    peaks(rd, t0, run, pr);
    peaks(wr, t0, run, pw);
    for (int k = 0; k < 4; k++) {
        int r = pr[k] >= SCAN_TEMPORAL_MIN_BW, w = pw[k] >= SCAN_TEMPORAL_MIN_BW;
        out[k] = r && w ? 'B' : r ? 'R' : w ? 'W' : '0';
    }
    out[4] = 0;
    return NULL;
}

/* Segments where direction `d` ('R' or 'W') happens: bit k for segment k. */
static unsigned segs(const char *cls, char d)
{
    unsigned m = 0;
    for (int k = 0; k < 4 && cls[k]; k++)
        if (cls[k] == d || cls[k] == 'B')
            m |= 1u << k;
    return m;
}

int scan_when(const char *cls, int d)
{
    if (!cls || strlen(cls) != 4)
        return -1;
    unsigned m = segs(cls, d == SCAN_READ ? 'R' : 'W');
    if (m == 0)
        return SCAN_WHEN_NONE;
    if (m == (d == SCAN_READ ? 1u : 8u))       /* the first segment, the last */
        return SCAN_WHEN_TYPICAL;
    return __builtin_popcount(m) >= 3 ? SCAN_WHEN_THROUGHOUT : SCAN_WHEN_OTHERS;
}

const char *scan_when_word(int d, int when)
{
    static const char *const word[] = { NULL, "throughout", "others", "none" };
    if (when < 0)
        return NULL;
    return when == SCAN_WHEN_TYPICAL ? (d == SCAN_READ ? "beginning" : "end") : word[when];
}
