/* SPDX-License-Identifier: BSD-3-Clause */
/* duration.c -- how long the next phase will take (see duration.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "forecast/duration.h"

/* Prior variance of each weight (in log-log units): wide enough to learn a
 * slope of 1 from a few dozen phases, narrow enough that a handful of
 * phases alike do not make up a slope from noise. */
#define PRIOR_VAR 1.0

void ftio_dm_fit_init(struct ftio_dm_fit *f)
{
    memset(f, 0, sizeof *f);
    f->w[FTIO_DM_BYTES] = 1.0;
    f->w[FTIO_DM_LOAD] = 1.0;
    for (int i = 0; i < FTIO_DM_NX; i++)
        f->P[i][i] = PRIOR_VAR;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorted copy, linear interpolation). */
static double quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double s[FTIO_DM_RESIDUALS > FTIO_DM_JOB ? FTIO_DM_RESIDUALS : FTIO_DM_JOB];
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double pos = q * (double)(n - 1);
    size_t i = (size_t)floor(pos);
    double f = pos - (double)i;
    return i + 1 < n ? s[i] * (1 - f) + s[i + 1] * f : s[n - 1];
}

double ftio_dm_job_rate(const struct ftio_dm_job *j)
{
    return j->n ? quantile(j->rate, j->n, 0.9) : NAN;
}

static double safe_log(double v)
{
    return log(v > 1e-9 ? v : 1e-9);
}

void ftio_dm_features(const struct ftio_dm_job *j, const struct ftio_dm_phase *p,
                      double x[FTIO_DM_NX])
{
    double rate = ftio_dm_job_rate(j);
    x[FTIO_DM_BYTES] = safe_log(p->bytes);
    x[FTIO_DM_RANKS] = safe_log(p->ranks > 0 ? p->ranks : 1);
    x[FTIO_DM_SKEW] = safe_log(p->skew_bytes > 0 ? p->skew_bytes : p->bytes);
    x[FTIO_DM_FILES] = log1p(p->files > 0 ? p->files : 0);
    x[FTIO_DM_LOAD] = rate > 0 && p->load > 0 ? log1p(p->load / rate) : 0;
}

/* The slot of a new entry of a ring of cap entries (n of them kept, the
 * oldest at *head): the next free one, or the oldest, which it replaces. */
static size_t ring_slot(size_t *head, size_t *n, size_t cap)
{
    if (*n < cap)
        return (*head + (*n)++) % cap;
    size_t k = *head;
    *head = (*head + 1) % cap;
    return k;
}

static double dot(const double *w, const double *x)
{
    double s = 0;
    for (int i = 0; i < FTIO_DM_NX; i++)
        s += w[i] * x[i];
    return s;
}

/* Recursive least squares: one observation (x, y). */
static void rls(struct ftio_dm_fit *f, const double x[FTIO_DM_NX], double y)
{
    double Px[FTIO_DM_NX], den = 1.0;
    for (int i = 0; i < FTIO_DM_NX; i++) {
        Px[i] = 0;
        for (int k = 0; k < FTIO_DM_NX; k++)
            Px[i] += f->P[i][k] * x[k];
        den += x[i] * Px[i];
    }
    double e = y - dot(f->w, x);
    for (int i = 0; i < FTIO_DM_NX; i++)
        f->w[i] += Px[i] / den * e;
    for (int i = 0; i < FTIO_DM_NX; i++)
        for (int k = 0; k < FTIO_DM_NX; k++)
            f->P[i][k] -= Px[i] * Px[k] / den;
    f->samples++;
}

void ftio_dm_learn(struct ftio_dm_fit *site, struct ftio_dm_fit *app, struct ftio_dm_job *j,
                   const struct ftio_dm_phase *p, double duration)
{
    if (!(duration > 0) || !isfinite(duration) || !(p->bytes > 0))
        return;
    double x[FTIO_DM_NX], y = log(duration);
    ftio_dm_features(j, p, x);
    /* Its deviation from the job's own means so far (scaled as the
     * within-group scatter of a running mean is): what a job's phases
     * differ by, not what jobs differ by. */
    if (j->count > 0) {
        double c = (double)j->count, scale = sqrt(c / (c + 1)), dx[FTIO_DM_NX];
        for (int i = 0; i < FTIO_DM_NX; i++)
            dx[i] = scale * (x[i] - j->sx[i] / c);
        double dy = scale * (y - j->sy / c);
        rls(site, dx, dy);
        if (app)
            rls(app, dx, dy);
    }
    for (int i = 0; i < FTIO_DM_NX; i++)
        j->sx[i] += x[i];
    j->sy += y;
    j->count++;
    size_t k = ring_slot(&j->head, &j->n, FTIO_DM_JOB);
    memcpy(j->x[k], x, sizeof x);
    j->y[k] = y;
    j->rate[k] = p->bytes / duration;
}

static void push_residual(struct ftio_dm_fit *f, double r, double abserr, bool inside)
{
    size_t k = ring_slot(&f->rhead, &f->nres, FTIO_DM_RESIDUALS);
    f->resid[k] = r;
    f->abserr[k] = abserr;
    f->scored++;
    f->inside += inside;
    f->resid_lo = quantile(f->resid, f->nres, 0.05);
    f->resid_hi = quantile(f->resid, f->nres, 0.95);
    f->err_median = quantile(f->abserr, f->nres, 0.5);
}

bool ftio_dm_score(struct ftio_dm_fit *site, struct ftio_dm_fit *app, struct ftio_dm_job *j,
                   double start, double duration, double tolerance, double *load)
{
    if (load)
        *load = NAN;
    if (!(duration > 0))
        return false;
    bool scored = false;
    for (size_t k = 0; k < FTIO_DM_PENDING; k++) {
        struct ftio_dm_pending *q = &j->pending[k];
        if (!q->used)
            continue;
        if (!scored && fabs(start - q->start) <= tolerance) {
            double r = log(duration / q->median), err = fabs(duration / q->median - 1);
            bool inside = duration >= q->low && duration <= q->high;
            if (q->app && app)
                push_residual(app, r, err, inside);
            push_residual(site, r, err, inside);
            j->resid[ring_slot(&j->rhead, &j->nres, FTIO_DM_JOB)] = r;
            if (load)
                *load = q->load;
            q->used = false;
            scored = true;
        } else if (q->start < start - tolerance) {
            q->used = false;            /* its phase never came (or was missed) */
        }
    }
    return scored;
}

void ftio_dm_predict(const struct ftio_dm_fit *site, const struct ftio_dm_fit *app,
                     const struct ftio_dm_job *j, const struct ftio_dm_phase *p,
                     struct ftio_dm_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->error = out->coverage = NAN;
    if (j->n == 0 || !(p->bytes > 0))
        return;
    bool use_app = app && app->samples >= FTIO_DM_MIN_FIT;
    const struct ftio_dm_fit *f = use_app ? app : site;
    double x[FTIO_DM_NX], lvl[FTIO_DM_JOB];
    ftio_dm_features(j, p, x);
    /* The job's level from its phases like this one (bytes within a factor
     * 2): a job's small and large phases (a log beside its checkpoints) are
     * not one line, and no weight extrapolates from one to the other. */
    size_t n = 0;
    for (size_t k = 0; k < j->n; k++)
        if (fabs(j->x[k][FTIO_DM_BYTES] - x[FTIO_DM_BYTES]) <= M_LN2)
            lvl[n++] = j->y[k] - dot(f->w, j->x[k]);
    if (n == 0)
        return;
    double a = quantile(lvl, n, 0.5), yhat = a + dot(f->w, x);
    /* The interval: the scope's scored residuals once it has enough,
     * else the spread of the job's own levels (1.645 sd either side). */
    const struct ftio_dm_fit *rs = f->nres >= FTIO_DM_MIN_RESID ? f
                                   : site->nres >= FTIO_DM_MIN_RESID ? site : NULL;
    double lo, hi;
    if (rs) {
        lo = rs->resid_lo;
        hi = rs->resid_hi;
        if (j->nres >= FTIO_DM_MIN_JOB_RESID) {
            lo = fmin(lo, quantile(j->resid, j->nres, 0.05));
            hi = fmax(hi, quantile(j->resid, j->nres, 0.95));
        }
    } else {
        double s = 0;
        for (size_t k = 0; k < n; k++)
            s += (lvl[k] - a) * (lvl[k] - a);
        double sd = n > 1 ? sqrt(s / (double)(n - 1)) : 0;
        sd = fmax(sd, 0.05);
        lo = -1.645 * sd;
        hi = 1.645 * sd;
    }
    out->valid = true;
    out->load = p->load;
    out->median = exp(yhat);
    out->low = exp(yhat + fmin(lo, 0));
    out->high = exp(yhat + fmax(hi, 0));
    out->app = use_app;
    out->phases = f->samples;
    const struct ftio_dm_fit *es = use_app && app->nres > 0 ? app : site;
    out->scored = es->scored;
    if (es->nres > 0) {
        out->error = es->err_median;
        out->coverage = (double)es->inside / (double)es->scored;
    }
}

void ftio_dm_expect(struct ftio_dm_job *j, double start, const struct ftio_dm_prediction *out,
                    double tolerance)
{
    if (!out->valid)
        return;
    struct ftio_dm_pending *slot = NULL;
    for (size_t k = 0; k < FTIO_DM_PENDING && !slot; k++)
        if (j->pending[k].used && fabs(j->pending[k].start - start) <= tolerance)
            slot = &j->pending[k];
    for (size_t k = 0; k < FTIO_DM_PENDING && !slot; k++)
        if (!j->pending[k].used)
            slot = &j->pending[k];
    if (!slot) {                        /* the one of the earliest phase goes */
        slot = &j->pending[0];
        for (size_t k = 1; k < FTIO_DM_PENDING; k++)
            if (j->pending[k].start < slot->start)
                slot = &j->pending[k];
    }
    *slot = (struct ftio_dm_pending){ .used = true, .app = out->app, .start = start,
                                      .median = out->median, .low = out->low, .high = out->high,
                                      .load = out->load };
}
