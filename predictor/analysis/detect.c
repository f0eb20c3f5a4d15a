/* SPDX-License-Identifier: BSD-3-Clause */
/* detect.c -- dominant frequency by z-score outlier detection (§3, steps 2-9).
 *
 * Input is the amplitude spectrum of spectrum.c; output the candidates, their
 * confidences, the confidence class and the dominant frequency in a
 * struct ftio_result.  Every step marked [compat] follows the published
 * implementation so that the confidences match it to 1e-6.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Harmonic test of the reference: f_k is a multiple of f_j when the float
 * remainder is below this (ALGORITHM.md §3 step 5). */
#define HARMONIC_EPS 1e-5
/* Candidates must also be this many standard deviations out. */
#define Z_MIN 3.0

const char *ftio_class_name(enum ftio_class c)
{
    switch (c) {
    case FTIO_CLASS_PERIODIC:  return "periodic";
    case FTIO_CLASS_UNCERTAIN: return "uncertain";
    default:                  return "none";
    }
}

static struct ftio_candidate make_candidate(const struct ftio_spectrum *s, size_t k)
{
    double f = ftio_bin_frequency(s->fs, k, s->n);
    return (struct ftio_candidate){
        .bin = k,
        .frequency = f,
        .period = f > 0 ? 1.0 / f : 0,
        .confidence = s->has_conf ? s->conf[k] : 0,
        .amplitude = s->amp[k],      /* the callers filled amp */
        .phase = ftio_spectrum_phase(s, k),
    };
}

/* Steps 2-3 into z[1..half]: the single-sided power (or amplitude), DC
 * excluded, normalised to sum 1, then z-scores with the population standard
 * deviation; *mean and *sd of the normalised values, *z_max of the scores.
 * One description for the detector and for the threshold a picture draws. */
static void zscores(const struct ftio_spectrum *s, const struct ftio_options *o, double *z,
                    double *mean_out, double *sd_out, double *z_max_out)
{
    size_t half = s->half;
    /* Step 2: single-sided power (or amplitude), DC excluded, normalised. */
    double total = 0;
    for (size_t k = 1; k <= half; k++) {
        double a = s->amp[k];
        z[k] = o->psd ? 2.0 * (a * a / (double)s->n) : 2.0 * a;
        total += z[k];
    }
    if (total > 0)
        for (size_t k = 1; k <= half; k++)
            z[k] /= total;

    /* Step 3: z-scores with the population standard deviation. */
    double mean = 0, var = 0, z_max = 0;
    if (half > 0) {
        for (size_t k = 1; k <= half; k++)
            mean += z[k];
        mean /= (double)half;
        for (size_t k = 1; k <= half; k++)
            var += (z[k] - mean) * (z[k] - mean);
        var /= (double)half;
    }
    double sd = sqrt(var);
    for (size_t k = 1; k <= half; k++) {
        z[k] = sd > 0 ? fabs(z[k] - mean) / sd : 0;
        if (z[k] > z_max)
            z_max = z[k];
    }
    *mean_out = mean;
    *sd_out = sd;
    *z_max_out = z_max;
}

/* -n K: the K bins of largest amplitude, DC included, by partial selection
 * (K is small, at most FTIO_MAX_CANDIDATES). */
void ftio_detect_top(struct ftio_spectrum *s, int want, struct ftio_result *r)
{
    r->ntop = 0;
    if (want <= 0)
        return;
    ftio_spectrum_amplitudes(s);
    size_t k_max = (size_t)want < FTIO_MAX_CANDIDATES ? (size_t)want : FTIO_MAX_CANDIDATES;
    for (size_t k = 0; k <= s->half; k++) {
        double a = s->amp[k];
        size_t pos = r->ntop;
        while (pos > 0 && r->top[pos - 1].amplitude < a)
            pos--;
        if (pos >= k_max)
            continue;
        size_t last = r->ntop < k_max ? r->ntop : k_max - 1;
        memmove(&r->top[pos + 1], &r->top[pos], (last - pos) * sizeof r->top[0]);
        r->top[pos] = make_candidate(s, k);
        if (r->ntop < k_max)
            r->ntop++;
    }
}

void ftio_detect(struct ftio_spectrum *s, const struct ftio_options *o,
                 struct ftio_result *r)
{
    size_t half = s->half;
    double *z = s->z;               /* first the spectrum values, then z */
    r->cls = FTIO_CLASS_NONE;
    r->has_period = false;
    r->ncand = 0;
    r->nsurvivors = 0;
    memset(&r->dominant, 0, sizeof r->dominant);

    ftio_spectrum_amplitudes(s);
    memset(s->conf, 0, (half + 1) * sizeof *s->conf);
    s->has_conf = true;

    /* Steps 2-3. */
    double mean, sd, z_max;
    zscores(s, o, z, &mean, &sd, &z_max);

    /* Steps 4-5: candidates in ascending k, harmonics of kept ones dropped.
     * A dropped harmonic is marked by conf[k] = -1 (conf is rewritten below). */
    size_t kept[FTIO_MAX_CANDIDATES];
    size_t nkept = 0;
    bool overflow = false;
    if (z_max > 0) {
        for (size_t k = 1; k <= half; k++) {
            if (!(z[k] / z_max > o->tol && z[k] > Z_MIN))
                continue;
            double f = ftio_bin_frequency(s->fs, k, s->n);
            bool harmonic = false;
            for (size_t j = 0; j < nkept && !harmonic; j++)
                harmonic = fmod(f, ftio_bin_frequency(s->fs, kept[j], s->n)) < HARMONIC_EPS;
            if (harmonic)
                s->conf[k] = -1;
            else if (nkept < FTIO_MAX_CANDIDATES)
                kept[nkept++] = k;
            else
                overflow = true;
        }
    }

    /* Step 6: confidence over A = {z/z_max > tol} and B = {z > 3}, both
     * without the dropped harmonics.  Like the reference, every bin in A or
     * B gets a confidence, not only the candidates (-n shows them). */
    if (nkept > 0) {
        double sum_a = 0, sum_b = 0;
        for (size_t k = 1; k <= half; k++) {
            if (s->conf[k] < 0)
                continue;
            if (z[k] / z_max > o->tol) sum_a += z[k];
            if (z[k] > Z_MIN)          sum_b += z[k];
        }
        for (size_t k = 1; k <= half; k++) {
            double c = 0;
            if (s->conf[k] >= 0) {
                if (z[k] / z_max > o->tol) c += z[k] / sum_a;
                if (z[k] > Z_MIN)          c += z[k] / sum_b;
            }
            s->conf[k] = c / 2;
        }
    } else {
        for (size_t k = 1; k <= half; k++)
            s->conf[k] = 0;
    }

    /* Steps 7-8: the class by number of survivors; the dominant frequency is
     * the survivor with the largest amplitude [compat]. */
    r->nsurvivors = overflow ? FTIO_MAX_CANDIDATES + 1 : nkept;
    if (nkept >= 1 && nkept <= 2 && !overflow) {
        r->cls = nkept == 1 ? FTIO_CLASS_PERIODIC : FTIO_CLASS_UNCERTAIN;
        r->has_period = true;
        r->ncand = nkept;
        size_t best = 0;
        for (size_t i = 0; i < nkept; i++) {
            r->cand[i] = make_candidate(s, kept[i]);
            if (r->cand[i].amplitude > r->cand[best].amplitude)
                best = i;
        }
        r->dominant = r->cand[best];
    }

    /* Step 9. */
    ftio_detect_top(s, o->top_n, r);
}

/* The level of steps 2-4's test on the normalised scale: a bin passes when
 * z / z_max > tol and z > 3, i.e. above mean + sd max(tol z_max, 3). */
double ftio_compat_threshold(struct ftio_spectrum *s, const struct ftio_options *o)
{
    if (s->half == 0)
        return NAN;
    ftio_spectrum_amplitudes(s);
    double *z = malloc((s->half + 1) * sizeof *z), mean, sd, z_max;
    if (!z)
        return NAN;
    zscores(s, o, z, &mean, &sd, &z_max);
    free(z);
    if (!(sd > 0))
        return NAN;
    return mean + sd * fmax(o->tol * z_max, Z_MIN);
}
