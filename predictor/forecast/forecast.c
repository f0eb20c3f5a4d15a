/* SPDX-License-Identifier: BSD-3-Clause */
/* forecast.c -- the machine's aggregate I/O, predicted (see forecast.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "forecast/forecast.h"
#include "grow.h"

/* Beyond this the phases of a train run into one another: its mean rate. */
#define SMEAR_FRACTION (1.0 / 3.0)
/* At most this many phases of one train (a period of 0.06 s over 10 min). */
#define MAX_PHASES 10000
/* Phases of a train drawn one by one; the rest is its mean rate (a job whose
 * period is a second would cost 600 trapezoids over 10 min, for a detail
 * its uncertainty blurs anyway). */
#define MAX_SHAPED 32
/* Phases of a train that take part in collisions (the near ones: where a
 * collision is worth acting on, and known). */
#define MAX_COLLIDING 16

void ftio_fc_free(struct ftio_fc *f)
{
    free(f->rate);
    free(f->active);
    free(f->coll);
    memset(f, 0, sizeof *f);
}

/* ---- ramps in a second-difference array of n + 2 entries ------------------ */

static inline void d2_add(double *d, size_t n, long i, double v)
{
    if (i >= 0 && (size_t)i < n + 2)
        d[i] += v;
}

/* s x max(0, t - u), t and u in steps from the forecast's start, averaged
 * over each step [k, k + 1): 0 before u, (k + 1 - u)^2 / 2 in the step
 * holding u, k + 0.5 - u after. */
static void ramp(double *d, size_t n, double u, double s)
{
    if (!(u < (double)n) || s == 0)
        return;
    double f = floor(u), fr = u - f;
    long m = (long)f;
    if (fr > 0) {
        if (m >= 0) {
            double v = s * (1 - fr) * (1 - fr) / 2;
            d2_add(d, n, m, v);
            d2_add(d, n, m + 1, -2 * v);
            d2_add(d, n, m + 2, v);
        }
        m++;
    }
    if (m < 0)
        m = 0;
    double c = (double)m + 0.5 - u;
    d2_add(d, n, m, s * c);
    d2_add(d, n, m + 1, s * (1 - c));
}

/* Height h from u0 (ramping up over w steps) to u1 (ramping down over w). */
static void plateau(double *d, size_t n, double u0, double u1, double w, double h)
{
    if (!(h != 0) || !(u1 > u0))
        return;
    w = fmax(w, 1e-6);
    ramp(d, n, u0 - w / 2, h / w);
    ramp(d, n, u0 + w / 2, -h / w);
    ramp(d, n, u1 - w / 2, -h / w);
    ramp(d, n, u1 + w / 2, h / w);
}

/* A phase of duration dur whose start is uniform over s +- a: the expected
 * height h times P(in the phase at t), a trapezoid of four ramps. */
static void phase_shape(double *d, size_t n, double s, double a, double dur, double h)
{
    a = fmax(a, FTIO_FC_MIN_HALFWIDTH);
    double sl = h / (2 * a);
    ramp(d, n, s - a, sl);
    ramp(d, n, s + a, -sl);
    ramp(d, n, s - a + dur, -sl);
    ramp(d, n, s + a + dur, sl);
}

static void integrate(double *d, size_t n)
{
    double a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        a += d[i];
        b += a;
        d[i] = fabs(b) < 1e-12 * (fabs(a) + 1) ? 0 : b;
    }
}

/* ---- a train's phases ---------------------------------------------------- */

static bool has_period(const struct ftio_fc_train *t)
{
    return t->period > 0 && isfinite(t->period);
}

/* sd of the k-th phase's start. */
static double phase_sd(const struct ftio_fc_train *t, size_t k)
{
    double j = isfinite(t->jitter) ? t->jitter : 0;
    double cv = isfinite(t->cv) ? t->cv : 0;
    double step = has_period(t) ? t->period * cv : 0;
    return sqrt(j * j + (double)k * step * step);
}

static double clamp01(double p)
{
    return !(p > 0) ? 0 : p > 1 ? 1 : p;
}

/* Add train t to the (rate, active) difference arrays of its series. */
static void add_train(const struct ftio_fc_train *t, double t0, double *rate, double *act,
                      size_t n)
{
    if (!(t->duration > 0) || !(t->bytes >= 0) || !isfinite(t->start))
        return;
    double p = has_period(t) ? clamp01(t->confidence) : 1.0;
    double h = t->bytes / t->duration, end = t0 + (double)n;
    if (!has_period(t)) {
        double a = sqrt(3.0) * phase_sd(t, 0);
        phase_shape(rate, n, t->start - t0, a, t->duration, h);
        phase_shape(act, n, t->start - t0, a, t->duration, 1.0);
        return;
    }
    double T = t->period;
    /* Wrong period (1 - p): the bytes spread evenly from the next phase on. */
    double u0 = t->start - t0;
    plateau(rate, n, u0, (double)n + T + 1, T, (1 - p) * t->bytes / T);
    plateau(act, n, u0, (double)n + T + 1, T, (1 - p) * fmin(t->duration / T, 1));
    for (size_t k = 0; k < MAX_PHASES; k++) {
        double s = t->start + (double)k * T, sd = phase_sd(t, k), a = sqrt(3.0) * sd;
        if (s - a >= end)
            break;
        if (sd > SMEAR_FRACTION * T || k >= MAX_SHAPED) {
            /* From here on the phases overlap: the train's mean. */
            double u = s - t0;
            plateau(rate, n, u - T / 2, (double)n + T + 1, T, p * t->bytes / T);
            plateau(act, n, u - T / 2, (double)n + T + 1, T, p * fmin(t->duration / T, 1));
            break;
        }
        phase_shape(rate, n, s - t0, a, t->duration, p * h);
        phase_shape(act, n, s - t0, a, t->duration, p);
    }
}

size_t ftio_fc_train_phases(const struct ftio_fc_train *t, double t0, double t1,
                            struct ftio_fc_phase *out, size_t max)
{
    size_t m = 0;
    if (!(t->duration > 0) || !isfinite(t->start))
        return 0;
    double p = has_period(t) ? clamp01(t->confidence) : 1.0;
    for (size_t k = 0; k < MAX_PHASES && m < max; k++) {
        double s = t->start + (double)k * (has_period(t) ? t->period : 0);
        if (s >= t1 || (k > 0 && !has_period(t)))
            break;
        if (has_period(t) && phase_sd(t, k) > SMEAR_FRACTION * t->period)
            break;
        if (s + t->duration > t0)
            out[m++] = (struct ftio_fc_phase){ s, s + t->duration, t->bytes, p };
    }
    return m;
}

/* ---- collisions -------------------------------------------------------------- */

/* A phase that may collide: only phases whose start is known to within half
 * of them (or 0.5 s); the sd grows with k, so the first too uncertain one
 * ends its train's part in the collisions. */
struct item {
    double start, end, bytes, p;
    uint32_t train;
};

/* The next candidate phase of each train, in a min-heap by start: the
 * trains' phases come out in time order (a k-way merge: O(n log trains),
 * and the heap, a few hundred KB for 10^4 jobs, stays in cache, where a
 * sort of every phase of the horizon took most of the forecast). */
struct cursor {
    double   start;
    uint32_t train;
    uint32_t k;
};

static bool cursor_at(const struct ftio_fc_train *t, uint32_t idx, uint32_t k, double t0, double t1,
                      struct cursor *c)
{
    double limit = fmax(0.5 * t->duration, 0.5);
    for (; k < MAX_COLLIDING; k++) {
        double s = t->start + (double)k * (has_period(t) ? t->period : 0);
        if (s >= t1 || (k > 0 && !has_period(t)) || phase_sd(t, k) > limit)
            return false;
        if (s + t->duration > t0) {
            *c = (struct cursor){ s, idx, k };
            return true;
        }
    }
    return false;
}

static void cursor_down(struct cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].start < h[m].start)
            m = l;
        if (r < n && h[r].start < h[m].start)
            m = r;
        if (m == i)
            return;
        struct cursor x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

/* The running phases, in a min-heap by end. */
static void active_push(struct item *h, size_t *n, const struct item *v)
{
    size_t i = (*n)++;
    h[i] = *v;
    while (i > 0 && h[(i - 1) / 2].end > h[i].end) {
        struct item x = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
}

static void active_pop(struct item *h, size_t *n)
{
    h[0] = h[--*n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l].end < h[m].end)
            m = l;
        if (r < *n && h[r].end < h[m].end)
            m = r;
        if (m == i)
            return;
        struct item x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

static int collisions(struct ftio_fc *f, const struct ftio_fc_train *tr, size_t n, double t1,
                      size_t max, double min_p)
{
    f->ncoll = 0;
    f->ncoll_total = 0;
    struct cursor *cur = malloc((n ? n : 1) * sizeof *cur);
    struct item *act = malloc((n ? n : 1) * sizeof *act);   /* a train has one phase running */
    if (!cur || !act) {
        free(cur);
        free(act);
        return -1;
    }
    int rc = 0;
    for (size_t fs = 0; fs < f->nfs && rc == 0; fs++) {
        size_t nc = 0, na = 0, kept = 0;
        for (size_t i = 0; i < n; i++) {
            const struct ftio_fc_train *t = &tr[i];
            double p = has_period(t) ? clamp01(t->confidence) : 1.0;
            if (t->fs == fs && p >= min_p && t->duration > 0 && isfinite(t->start) &&
                cursor_at(t, (uint32_t)i, 0, f->t0, t1, &cur[nc]))
                nc++;
        }
        for (size_t i = nc / 2; i-- > 0;)
            cursor_down(cur, nc, i);
        while (nc > 0) {
            const struct ftio_fc_train *t = &tr[cur[0].train];
            struct item c = { cur[0].start, cur[0].start + t->duration, t->bytes,
                              has_period(t) ? clamp01(t->confidence) : 1.0, cur[0].train };
            if (!cursor_at(t, cur[0].train, cur[0].k + 1, f->t0, t1, &cur[0]))
                cur[0] = cur[--nc];
            cursor_down(cur, nc, 0);
            while (na > 0 && act[0].end <= c.start)
                active_pop(act, &na);
            /* Every running phase of another job collides with this one;
             * the first `max` per file system are listed, the rest only
             * counted (the size of the heap). */
            if (kept >= max) {
                f->ncoll_total += na;
            } else {
                for (size_t k = 0; k < na; k++) {
                    const struct item *a = &act[k];
                    if (tr[a->train].job == t->job)
                        continue;
                    f->ncoll_total++;
                    if (kept >= max)
                        continue;
                    kept++;
                    if (FTIO_GROW(f->coll, f->coll_cap, f->ncoll + 1) < 0) {
                        rc = -1;
                        break;
                    }
                    double s = c.start, e = fmin(a->end, c.end);
                    f->coll[f->ncoll++] = (struct ftio_fc_collision){
                        .job = { tr[a->train].job, t->job }, .train = { a->train, c.train },
                        .fs = (uint16_t)fs, .start = s, .end = e,
                        .bytes = { a->bytes * (e - s) / (a->end - a->start),
                                   c.bytes * (e - s) / (c.end - c.start) },
                        .p = a->p * c.p,
                    };
                }
            }
            if (na < n)
                active_push(act, &na, &c);
        }
    }
    free(cur);
    free(act);
    return rc;
}

/* ---- the forecast ----------------------------------------------------------- */

int ftio_fc_compute(struct ftio_fc *f, const struct ftio_fc_train *tr, size_t n, size_t nfs,
                    double t0, size_t steps, size_t max_collisions, double min_p)
{
    size_t series = nfs * FTIO_FC_MODES, need = series * steps + 2;
    if (need > f->cap) {
        double *r = realloc(f->rate, need * sizeof *r), *a = r ? realloc(f->active, need * sizeof *a) : NULL;
        if (r)
            f->rate = r;
        if (a)
            f->active = a;
        if (!r || !a)
            return -1;
        f->cap = need;
    }
    f->t0 = t0;
    f->step = 1.0;
    f->steps = steps;
    f->nfs = nfs;
    /* Each series is integrated in place: its difference array is its own
     * steps + 2 entries, the last two spilling into the next series', which
     * is cleared after. */
    memset(f->rate, 0, need * sizeof *f->rate);
    memset(f->active, 0, need * sizeof *f->active);
    double *dr = calloc(series * (steps + 2) + 1, sizeof *dr);
    double *da = calloc(series * (steps + 2) + 1, sizeof *da);
    if (!dr || !da) {
        free(dr);
        free(da);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ftio_fc_train *t = &tr[i];
        if (t->fs >= nfs || t->mode >= FTIO_FC_MODES)
            continue;
        size_t s = (size_t)t->fs * FTIO_FC_MODES + t->mode;
        add_train(t, t0, dr + s * (steps + 2), da + s * (steps + 2), steps);
    }
    for (size_t s = 0; s < series; s++) {
        integrate(dr + s * (steps + 2), steps);
        integrate(da + s * (steps + 2), steps);
        for (size_t k = 0; k < steps; k++) {
            f->rate[s * steps + k] = fmax(0, dr[s * (steps + 2) + k]);
            f->active[s * steps + k] = fmax(0, da[s * (steps + 2) + k]);
        }
    }
    free(dr);
    free(da);
    return collisions(f, tr, n, t0 + (double)steps, max_collisions, min_p);
}

double ftio_fc_mean(const struct ftio_fc *f, size_t fs, double a, double b)
{
    if (fs >= f->nfs || !(b > a))
        return 0;
    double sum = 0;
    for (int m = 0; m < FTIO_FC_MODES; m++) {
        const double *r = ftio_fc_rate(f, fs, m);
        for (size_t k = 0; k < f->steps; k++) {
            double s = f->t0 + (double)k, e = s + 1;
            double o = fmin(e, b) - fmax(s, a);
            if (o > 0)
                sum += r[k] * o;
        }
    }
    return sum / (b - a);
}

double ftio_fc_train_mean(const struct ftio_fc_train *t, double a, double b)
{
    if (!(b > a))
        return 0;
    struct ftio_fc_phase ph[64];
    size_t m = ftio_fc_train_phases(t, a, b, ph, 64);
    double v = 0;
    for (size_t k = 0; k < m; k++) {
        double o = fmin(ph[k].end, b) - fmax(ph[k].start, a);
        if (o > 0)
            v += ph[k].p * ph[k].bytes * o / (ph[k].end - ph[k].start);
    }
    return v / (b - a);
}
