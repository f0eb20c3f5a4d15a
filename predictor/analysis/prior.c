/* SPDX-License-Identifier: BSD-3-Clause */
/* prior.c -- the prior of earlier runs and its check against the job's own
 * phases (prior.h, docs/ALGORITHM.md §11). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis_internal.h"
#include "analysis/prior.h"

/* What one agreeing phase says: P(agree | the prior is right) / P(agree |
 * it is wrong), a wrong train matching an onset within its tolerance by
 * chance about one time in four.  The first phase tests when the job starts
 * its outputs, not their period: it says less. */
#define AGREE_ODDS 4.0
#define FIRST_AGREE_ODDS 1.5
#define CONF_MAX 0.99
/* Spreads the runs cannot measure (one or two runs), and floors. */
#define PERIOD_SD_MIN 0.01      /* x period */
#define PERIOD_SD_FEW 0.03      /* x period, fewer than 3 agreeing runs */
#define OFFSET_SD_MIN 0.25      /* s */
#define OFFSET_SD_FEW 0.10      /* x offset, fewer than 3 runs */
#define OFFSET_SD_MAX 0.25      /* x period: beyond, the runs' first phase is no prediction */
#define BYTES_SD_MIN 0.10       /* relative */
/* A phase of this train: its bytes within this factor of the prior's. */
#define SIZE_FACTOR 4.0
/* The tolerance of an onset: 3 sigma, at least this share of the period
 * (the jitter of one run) and two samples. */
#define TOL_SIGMAS 3.0
#define TOL_PERIOD 0.05

const char *ftio_prior_level_name(enum ftio_prior_level l)
{
    static const char *const names[] = { "none", "args", "args_norm", "exe", "name" };
    return (unsigned)l < sizeof names / sizeof *names ? names[l] : "?";
}

double ftio_prior_level_trust(enum ftio_prior_level l)
{
    switch (l) {
    case FTIO_PRIOR_ARGS: return 1.0;
    case FTIO_PRIOR_ARGS_NORM: return 0.95;
    case FTIO_PRIOR_NAME: return 0.9;
    case FTIO_PRIOR_EXE: return 0.8;
    default: return 0;
    }
}

const char *ftio_prior_state_name(enum ftio_prior_state s)
{
    static const char *const names[] = { "leads", "confirmed", "handed_over" };
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/* Median and robust standard deviation (1.4826 MAD) of v[0..n) (sorted in
 * place); *sd 0 for fewer than 2 values. */
static double median_sd(double *v, size_t n, double *sd)
{
    qsort(v, n, sizeof *v, ftio_cmp_double);
    double med = ftio_median_sorted(v, n);
    double *dev = malloc(n * sizeof *dev);
    *sd = 0;
    if (dev && n >= 2) {
        for (size_t i = 0; i < n; i++)
            dev[i] = fabs(v[i] - med);
        qsort(dev, n, sizeof *dev, ftio_cmp_double);
        *sd = 1.4826 * ftio_median_sorted(dev, n);
    }
    free(dev);
    return med;
}

static bool agree(double a, double b)
{
    return a > 0 && b > 0 && fabs(a - b) <= FTIO_PRIOR_AGREE * fmax(a, b);
}

bool ftio_prior_from_runs(const struct ftio_prior_run *runs, size_t n, enum ftio_prior_level level,
                          struct ftio_prior *out)
{
    memset(out, 0, sizeof *out);
    /* periods of every run, then of the agreeing ones: bytes, durations, offsets */
    double *v = malloc(5 * (n ? n : 1) * sizeof *v);
    if (!v)
        return false;
    double *pv = v + n, *bv = v + 2 * n, *dv = v + 3 * n, *ov = v + 4 * n, sd;
    size_t k = 0, m = 0, nb = 0, nd = 0, no = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].period > 0)
            v[k++] = runs[i].period;
    double median = k ? median_sd(v, k, &sd) : NAN;
    for (size_t i = 0; i < n && k; i++) {
        const struct ftio_prior_run *r = &runs[i];
        if (!agree(r->period, median))
            continue;
        pv[m++] = r->period;
        if (r->bytes > 0)
            bv[nb++] = r->bytes;
        if (r->duration >= 0)
            dv[nd++] = r->duration;
        if (r->offset >= 0)
            ov[no++] = r->offset;
    }
    bool ok = k > 0 && 2 * m >= k;
    if (ok) {
        out->level = level;
        out->runs = (unsigned)n;
        out->agreeing = (unsigned)m;
        out->period = median_sd(pv, m, &sd);
        out->period_sd = fmax(sd, out->period * (m < 3 ? PERIOD_SD_FEW : PERIOD_SD_MIN));
        out->bytes = nb ? median_sd(bv, nb, &sd) : NAN;
        out->bytes_sd = nb ? fmax(sd / out->bytes, BYTES_SD_MIN) : NAN;
        out->duration = nd ? median_sd(dv, nd, &sd) : NAN;
        out->offset = no ? median_sd(ov, no, &sd) : NAN;
        out->offset_sd = no ? fmax(fmax(sd, OFFSET_SD_MIN), no < 3 ? OFFSET_SD_FEW * out->offset : 0)
                            : NAN;
        /* runs that began their outputs at such different times say nothing
         * of this one's first: the job's own first phase anchors the train */
        if (out->offset_sd > OFFSET_SD_MAX * out->period)
            out->offset = out->offset_sd = NAN;
        out->confidence = ftio_prior_level_trust(level) * ((double)m + 1) / ((double)n + 2);
        out->cls = out->confidence >= FTIO_PRIOR_PERIODIC_CONF ? FTIO_CLASS_PERIODIC
                                                                : FTIO_CLASS_UNCERTAIN;
    }
    free(v);
    return ok;
}

/* ---- the check -------------------------------------------------------------------- */

void ftio_prior_check_start(struct ftio_prior_check *c, const struct ftio_prior *p, double job_start)
{
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->state = FTIO_PRIOR_LEADS;
    c->job_start = job_start;
    c->confidence = p->confidence;
    c->anchor = p->offset >= 0 ? job_start + p->offset : NAN;
    c->anchor_sd = p->offset_sd;
    c->checked = -INFINITY;
}

double ftio_prior_check_from(const struct ftio_prior_check *c)
{
    /* half a period after the last onset judged (no phase of this train
     * starts before; that phase's rest is cut at the window's start); before
     * the first, from before the job's start: the job's first batch may be
     * the first phase's own records, made when they ended */
    if (isfinite(c->checked))
        return c->checked + c->p.period / 2;
    double early = isfinite(c->anchor) ? c->anchor - TOL_SIGMAS * c->anchor_sd - TOL_PERIOD * c->p.period
                                       : c->job_start;
    return fmin(c->job_start, early) - 1.0;
}

static void hand_over(struct ftio_prior_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void hand_over(struct ftio_prior_check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    c->state = FTIO_PRIOR_HANDED_OVER;
}

/* The tolerance of the k-th onset after the anchor. */
static double tolerance(const struct ftio_prior_check *c, double k, double fs)
{
    double sd = hypot(c->anchor_sd, k * c->p.period_sd);
    return fmax(TOL_SIGMAS * sd, fmax(TOL_PERIOD * c->p.period, 2.0 / fs));
}

/* A phase of this train's size (bytes so far, for one still going: it may
 * grow into one). */
static bool this_size(const struct ftio_prior_check *c, const struct ftio_phase *ph)
{
    if (!(c->p.bytes > 0))
        return true;
    if (ph->bytes < c->p.bytes / SIZE_FACTOR)
        return false;
    return (ph->flags & FTIO_PHASE_CUT_END) || ph->bytes <= c->p.bytes * SIZE_FACTOR;
}

bool ftio_prior_check_phases(struct ftio_prior_check *c, struct ftio_analyzer *a,
                             const struct ftio_samples *x)
{
    if (c->state != FTIO_PRIOR_LEADS || x->n < 3)
        return false;
    struct ftio_phase_scan scan;
    if (ftio_phases_find(a, x, &scan) != 0)
        return false;
    double T = c->p.period, fs = x->fs;
    for (size_t i = 0; i < scan.n; i++) {
        const struct ftio_phase *ph = &scan.phase[i];
        double onset = ph->start;
        /* a phase of this train starts no sooner than half a period after
         * the last one (a phase of bursts may be seen in pieces) */
        if ((ph->flags & FTIO_PHASE_CUT_START) || onset < c->checked + T / 2 || !this_size(c, ph))
            continue;
        c->checked = onset;
        if (!isfinite(c->anchor)) {
            /* no first phase known: the first one anchors the train */
            c->anchor = onset;
            c->anchor_sd = 1.0 / fs;
            c->anchored = true;
            continue;
        }
        /* the phase expected next: the first one (the anchor itself, k = 0),
         * then one period after the last that agreed */
        double k = c->anchored ? 1 : 0;
        double want = c->anchor + k * T, tol = tolerance(c, k, fs);
        if (fabs(onset - want) > tol) {
            hand_over(c, "a phase at +%.2f s where the prior predicted one at +%.2f s (tolerance "
                      "%.2f s)", onset - c->job_start, want - c->job_start, tol);
            return true;
        }
        c->agreed++;
        /* an agreement is worth what a phase at a random place would not
         * do: land within the tolerance, 2 tol / T of the times (runs that
         * varied widely give a wide tolerance, and little evidence) */
        double worth = fmax(1.0, fmin(k > 0 ? AGREE_ODDS : FIRST_AGREE_ODDS, T / (2 * tol)));
        double odds = c->confidence / (1 - c->confidence) * worth;
        c->confidence = fmin(odds / (1 + odds), CONF_MAX);
        c->anchor = onset;
        c->anchor_sd = 1.0 / fs;
        c->anchored = true;
    }
    /* the phase expected next, not there in time */
    if (isfinite(c->anchor)) {
        double k = c->anchored ? 1 : 0, want = c->anchor + k * T, tol = tolerance(c, k, fs);
        if (x->t1 > want + tol && c->checked < want - tol) {
            hand_over(c, "no phase by +%.2f s (predicted at +%.2f s)", x->t1 - c->job_start,
                      want - c->job_start);
            return true;
        }
    }
    return false;
}

bool ftio_prior_check_answer(struct ftio_prior_check *c, const struct ftio_result *observed,
                             bool stale)
{
    if (c->state != FTIO_PRIOR_LEADS || stale || !observed->has_period ||
        observed->cls != FTIO_CLASS_PERIODIC)
        return false;
    if (agree(observed->dominant.period, c->p.period)) {
        c->state = FTIO_PRIOR_CONFIRMED;
    } else {
        hand_over(c, "the job's own analysis found a period of %.3g s", observed->dominant.period);
    }
    return true;
}

void ftio_prior_result(const struct ftio_prior_check *c, double now, struct ftio_result *out)
{
    memset(out, 0, sizeof *out);
    const struct ftio_prior *p = &c->p;
    out->detector = FTIO_DETECTOR_ROBUST;
    out->abstraction_error = NAN;
    out->cls = c->confidence >= FTIO_PRIOR_PERIODIC_CONF ? FTIO_CLASS_PERIODIC : FTIO_CLASS_UNCERTAIN;
    out->has_period = true;
    out->dominant.period = p->period;
    out->dominant.frequency = 1.0 / p->period;
    out->dominant.confidence = c->confidence;
    out->dominant.phase = NAN;
    out->dominant.amplitude = NAN;
    out->metrics.valid = true;
    out->metrics.r_io = out->metrics.b_io = NAN;
    out->metrics.phase_bytes = p->bytes;
    out->metrics.phase_duration = p->duration;
    out->interval_cv = NAN;
    if (isfinite(c->anchor)) {
        double t = c->anchor;
        if (t <= now)
            t += ceil((now - t) / p->period + 1e-9) * p->period;
        out->next.valid = true;
        out->next.start = t;
        out->next.end = t + (p->duration > 0 ? p->duration : 0);
        out->next.bytes = p->bytes;
    }
}

/* A phase of a train of bytes per phase (NAN: any size). */
static bool of_size(const struct ftio_phase *ph, double bytes)
{
    return !(bytes > 0) || (ph->bytes >= bytes / SIZE_FACTOR && ph->bytes <= bytes * SIZE_FACTOR);
}

double ftio_prior_first_onset(struct ftio_analyzer *a, const struct ftio_samples *x, double period,
                              double bytes)
{
    struct ftio_phase_scan scan;
    if (!(period > 0) || x->n < 3 || ftio_phases_find(a, x, &scan) != 0)
        return NAN;
    double tol = fmax(FTIO_PRIOR_AGREE * period, 2.0 / x->fs);
    for (size_t i = 0; i < scan.n; i++) {
        const struct ftio_phase *p = &scan.phase[i];
        if ((p->flags & FTIO_PHASE_CUT_START) || !of_size(p, bytes))
            continue;
        for (size_t j = i + 1; j < scan.n; j++) {
            double gap = scan.phase[j].start - p->start;
            if (gap > period + tol)
                break;
            if (fabs(gap - period) <= tol && of_size(&scan.phase[j], bytes))
                return p->start;
        }
    }
    return NAN;
}
