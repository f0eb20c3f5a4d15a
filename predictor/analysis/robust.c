/* SPDX-License-Identifier: BSD-3-Clause */
/* robust.c -- the default detector: the period from the I/O phases
 * themselves, the spectrum as arbiter (ALGORITHM.md §9).
 *
 * FTIO's DFT answers "which sinusoid fits best", which for a bursty
 * application is a comb of harmonics (the fundamental of a short pulse
 * train is no taller than its multiples), moves with noise, and for
 * irregular compute has no line at the mean rate at all.  The phases
 * (phases.c) mark every iteration whatever the spectrum looks like, so:
 *   1. onsets of the phases -> intervals; a period change is a suffix of
 *      mutually consistent intervals that differs from what came before,
 *      and only that suffix is used; intervals that are clean multiples of
 *      the typical one are missed phases, not long iterations;
 *   2. period = least-squares slope of onsets against iteration index for
 *      a regular train, the mean spacing of onsets otherwise (the mean
 *      iteration length, which no spectral line gives);
 *   3. confidence = P(|T - T_true| <= 10 %) as measured on bench/accuracy,
 *      by the number of intervals and the standard error of their mean
 *      (bench/README.md has the calibration table);
 *   4. next phase = last onset + T, rolled forward past `now`; its bytes
 *      and duration are the median of the whole phases seen.
 * With fewer than two onsets the spectrum answers alone, with the
 * harmonic question settled on bin indices (a comb's teeth at k0, 2k0, ...
 * all standing out means the fundamental is k0), and never as "periodic".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Intervals this regular (coefficient of variation) are a regular train. */
#define REGULAR_CV 0.15
/* A period change: both regimes this regular (the new one a little more),
 * their means this far apart and four times their scatter (a drift is not
 * a change). */
#define REGIME_CV 0.10
#define REGIME_SHIFT 0.20
/* A drift (fit_onsets): the intervals' trend spans more than DRIFT_SPAN of
 * their mean over the window, stands DRIFT_T standard errors out, and the
 * intervals scatter around it by less than DRIFT_RESID (irregular compute
 * does not look like that); and the onsets themselves bend: their quadratic
 * term stands DRIFT_T standard errors out of the onsets' scatter around it
 * (jitter is not drift: phases that start a random delay after a steady
 * timer scatter each onset on its own, which makes the intervals' slope
 * test, built for intervals that scatter on their own, find trends that the
 * onsets do not have: a stationary 14.6-s job read 16.3 s at 0.99). */
#define DRIFT_SPAN 0.10
#define DRIFT_T 4.0
#define DRIFT_RESID 0.05
/* ... over at least this many intervals (fewer leave the t test too few
 * degrees of freedom: jitter made false drifts online). */
#define DRIFT_MIN_INTERVALS 6
/* An interval within this of an integer multiple of the typical one. */
#define MULTIPLE_SLACK 0.12
/* Spectral fallback: a line must stand this many robust deviations above
 * the median of the power spectrum; a comb tooth this many. */
#define LINE_Z 8.0
#define TOOTH_Z 3.0
/* ... and hold this share of the tallest line's power: the teeth of a pulse
 * train are of comparable height (a narrow pulse has a flat spectrum), while
 * the red noise of a busy signal also rises above a quiet floor (E3SM's
 * heatmap: lines at 1/4, 2/4, 3/4 of its 36 s line hold 15 %, 4 %, 0.6 % of
 * its power; taking them for a comb answered 4 x 36 s). */
#define TOOTH_SHARE 0.1
/* The spectrum alone never reaches "periodic"; it is at most
 * SPECTRAL_FEW_CONF when the window holds fewer than EVIDENCE_ONSETS cycles
 * of its line, or phases that stand out (one or two of a job's first
 * phases, online: the line is the phase's own shape): on bench/accuracy 1 to
 * 1.5 % of such answers were within 10 %.  A busy signal without phases
 * (E3SM's heatmap) keeps up to SPECTRAL_MAX_CONF. */
#define SPECTRAL_MAX_CONF 0.5
#define SPECTRAL_FEW_CONF 0.05
/* The arbiter (contradicted()): a spectral line's period is a repetition
 * when the autocorrelation there exceeds ARBITER_MIN_ACF; a divisor of the
 * onsets' period where the signal repeats with an autocorrelation of
 * ARBITER_DIVISOR_ACF or more contradicts it (a pulse train's autocorrelation
 * at half its period is about zero), and the answer is then capped at
 * CONTRADICTED_CONF ("uncertain"). */
#define ARBITER_MIN_ACF 0.3
#define ARBITER_DIVISOR_ACF 0.5
#define CONTRADICTED_CONF 0.6
/* "periodic" from this confidence on (the calibration target, ALGORITHM.md). */
#define PERIODIC_CONF 0.8
/* Evidence (issue 28): fewer than EVIDENCE_ONSETS onsets (two intervals)
 * cannot show that the next interval will look alike -- three phases with
 * two near-equal gaps read 0.81 -- so such an answer is at most
 * FEW_ONSETS_CONF ("uncertain"); a period shorter than RESOLVE_SAMPLES
 * samples is not resolved by the sampling (a phase and a gap need a sample
 * each, and the onsets' refinement inside a bin is no better than its
 * height), at most UNRESOLVED_CONF. */
#define EVIDENCE_ONSETS 4
#define FEW_ONSETS_CONF 0.75
#define RESOLVE_SAMPLES 4.0
#define UNRESOLVED_CONF 0.5

/* Median of v[0..n) (reorders v: select.c); NAN when empty. */
static double median_of(double *v, size_t n)
{
    return n ? ftio_median(v, n) : NAN;
}

static void mean_cv(const double *v, size_t n, double *mean, double *cv)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    double m = n ? s / (double)n : 0;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - m) * (v[i] - m);
    *mean = m;
    *cv = n > 1 && m > 0 ? sqrt(q / (double)(n - 1)) / m : 0;
}

/* The fitted period of onsets o[0..m) (m >= 2). */
struct fit {
    double period;
    double cv;            /* spread of the per-iteration intervals */
    size_t from;          /* first onset used (after a period change) */
    size_t used;          /* onsets used */
    size_t iterations;    /* iterations they span (> used - 1: missed phases) */
};

/* Index of the first onset of the newest regime (0 when there was no
 * period change).  d: the m - 1 intervals. */
static size_t newest_regime(const double *d, size_t nd)
{
    /* prefix d[0..s-2] (>= 2, or 1 before a suffix of >= 4), the interval
     * d[s-1] across the change (either regime), suffix d[s..] (>= 2). */
    for (size_t s = 2; s + 2 <= nd; s++) {
        /* A prefix of one interval only against a long suffix (the online
         * window's horizon slides past a change and keeps one old interval). */
        if (s == 2 && nd - s < 4)
            continue;
        double mp, cp, ms, cs;
        mean_cv(d, s - 1, &mp, &cp);
        mean_cv(d + s, nd - s, &ms, &cs);
        double pooled = sqrt((cp * cp + cs * cs) / 2);
        if (cp < REGIME_CV && cs < 0.8 * REGIME_CV &&
            fabs(ms / mp - 1) > fmax(REGIME_SHIFT, 4 * pooled)) {
            /* Keep the longest consistent suffix: later splits would only
             * cut the new regime shorter. */
            return s;
        }
    }
    return 0;
}

/* "Clearly better than a constant period": the slope's t statistic over
 * df = intervals - 2 degrees of freedom must pass the two-sided 0.1 % point
 * of Student's t (and DRIFT_T): with 4 degrees of freedom DRIFT_T alone
 * passes 1.6 % of steady jobs, and an online job is analysed at every step
 * (bench/README.md "jitter is not drift": 0.9 % of steady 7-onset windows
 * with 5 % interval spread read as drift, 0.03 % with this). */
static double trend_t(size_t df)
{
    static const double t999[] = { 0, 636.6, 31.6, 12.92, 8.61, 6.87, 5.96, 5.41, 5.04, 4.78,
                                   4.59, 4.44, 4.32, 4.22, 4.14, 4.07 };
    double t = df < sizeof t999 / sizeof t999[0] ? t999[df] : 0;
    return fmax(t, DRIFT_T);
}

/* The onsets o[0..m) against their index: does a quadratic term stand
 * DRIFT_T standard errors out of their scatter around the quadratic fit? */
static bool onsets_bend(const double *o, size_t m)
{
    if (m < 5)
        return false;
    /* orthogonal polynomials on i = 0..m-1: 1, u = i - c, w = u^2 - q */
    double c = (double)(m - 1) / 2, q = 0;
    for (size_t i = 0; i < m; i++)
        q += ((double)i - c) * ((double)i - c);
    q /= (double)m;
    double so = 0, su = 0, sw = 0, uu = 0, ww = 0;
    for (size_t i = 0; i < m; i++) {
        double u = (double)i - c, w = u * u - q;
        so += o[i];
        su += u * o[i];
        sw += w * o[i];
        uu += u * u;
        ww += w * w;
    }
    double a = so / (double)m, b = su / uu, k = sw / ww, rss = 0;
    for (size_t i = 0; i < m; i++) {
        double u = (double)i - c, e = o[i] - (a + b * u + k * (u * u - q));
        rss += e * e;
    }
    double se = sqrt(rss / (double)(m - 3) / ww);
    return fabs(k) > DRIFT_T * se;
}

static void fit_onsets(const double *o, size_t m, double *scratch, struct fit *f)
{
    double *d = scratch, *k = scratch + m;
    size_t nd = m - 1;
    for (size_t i = 0; i < nd; i++)
        d[i] = o[i + 1] - o[i];
    size_t from = nd >= 5 ? newest_regime(d, nd) : 0;
    o += from;
    d += from;
    m -= from;
    nd = m - 1;

    /* Iterations per interval: 1, unless the intervals are clean multiples
     * of the typical one (a phase the detector missed). */
    double mean, cv;
    mean_cv(d, nd, &mean, &cv);
    for (size_t i = 0; i < nd; i++)
        k[i] = 1;
    if (nd >= 3 && cv > 0.25) {
        double *tmp = k + nd;
        memcpy(tmp, d, nd * sizeof *d);
        double med = median_of(tmp, nd);
        bool multiples = med > 0;
        for (size_t i = 0; i < nd && multiples; i++) {
            double r = d[i] / med;
            multiples = r > 0.5 && fabs(r - round(r)) < MULTIPLE_SLACK;
        }
        if (multiples) {
            for (size_t i = 0; i < nd; i++) {
                k[i] = round(d[i] / med);
                tmp[i] = d[i] / k[i];
            }
            double m2, cv2;
            mean_cv(tmp, nd, &m2, &cv2);
            if (cv2 < REGULAR_CV) {
                cv = cv2;
            } else {
                for (size_t i = 0; i < nd; i++)
                    k[i] = 1;
            }
        } else {
            for (size_t i = 0; i < nd; i++)
                k[i] = 1;
        }
    }
    double iters = 0;
    for (size_t i = 0; i < nd; i++)
        iters += k[i];

    double period = (o[m - 1] - o[0]) / iters;      /* mean spacing */
    if (cv < REGULAR_CV && m >= 3) {
        /* Least squares of o_i = t0 + c_i T over the iteration index c_i:
         * every onset's jitter averages out, not only the end points'. */
        double sc = 0, so = 0, c = 0;
        for (size_t i = 0; i < m; i++) {
            sc += c;
            so += o[i];
            if (i < nd)
                c += k[i];
        }
        double mc = sc / (double)m, mo = so / (double)m, sxy = 0, sxx = 0;
        c = 0;
        for (size_t i = 0; i < m; i++) {
            sxy += (c - mc) * (o[i] - mo);
            sxx += (c - mc) * (c - mc);
            if (i < nd)
                c += k[i];
        }
        if (sxx > 0)
            period = sxy / sxx;
    }
    /* Drift: intervals that grow or shrink steadily (the least-squares
     * line through them spans more than DRIFT_SPAN of their mean, stands
     * DRIFT_T standard errors out, and leaves residuals under DRIFT_RESID):
     * the period is the current interval, the line's last value, not the
     * mean of the whole window. */
    if (nd >= DRIFT_MIN_INTERVALS && iters == (double)nd) {
        double mi = (double)(nd - 1) / 2, sxy = 0, sxx = 0;
        for (size_t i = 0; i < nd; i++) {
            sxy += ((double)i - mi) * (d[i] - mean);
            sxx += ((double)i - mi) * ((double)i - mi);
        }
        double slope = sxy / sxx, rss = 0;
        for (size_t i = 0; i < nd; i++) {
            double e = d[i] - (mean + slope * ((double)i - mi));
            rss += e * e;
        }
        double rsd = sqrt(rss / (double)(nd - 2)), se = rsd / sqrt(sxx);
        if (fabs(slope) * (double)(nd - 1) > DRIFT_SPAN * mean && rsd < DRIFT_RESID * mean &&
            fabs(slope) > trend_t(nd - 2) * se && onsets_bend(o, m)) {
            period = mean + slope * mi;
            cv = rsd / mean;
        }
    }
    f->period = period;
    f->cv = cv;
    f->from = from;
    f->used = m;
    f->iterations = (size_t)iters;
}

/* P(the period is within 10 %) from the fit, as measured: the share of
 * answers within 10 % of the true period on bench/accuracy (seed 1: the
 * sweep, the extra and the adversarial families, 63,000 online and offline
 * analyses, bench/calibrate.py), by the number of intervals fitted and the
 * relative standard error of their mean, se = max(CV, 0.02) / sqrt(n), made
 * non-increasing in se within each row (isotonic), with a +1/+2 prior.
 * bench/README.md shows the table this gives on an independent sweep.  The
 * caps come after it: fewer than 4 onsets at most FEW_ONSETS_CONF (two
 * intervals: however often they were right here, 99 %), one interval 0.6
 * (it cannot show that the next will look alike). */
static const size_t calib_n[] = { 1, 2, 3, 4, 5, 9 };             /* row: n >= */
static const double calib_se[] = { 0, 0.015, 0.03, 0.05, 0.08, 0.12 };  /* column: se >= */
static const double calib_p[][6] = {
    { 0.600, 0.600, 0.500, 0.500, 0.500, 0.500 },
    { 0.991, 0.936, 0.849, 0.640, 0.592, 0.331 },
    { 0.995, 0.978, 0.907, 0.768, 0.768, 0.317 },
    { 1.000, 0.936, 0.924, 0.924, 0.896, 0.170 },
    { 0.999, 0.987, 0.966, 0.942, 0.829, 0.241 },
    { 1.000, 0.999, 0.624, 0.253, 0.099, 0.048 },
};

static double fit_confidence(const struct fit *f)
{
    size_t nd = f->used - 1;
    if (nd < 1)
        return 0;
    double se = fmax(f->cv, 0.02) / sqrt((double)nd);
    size_t row = 0, col = 0;
    while (row + 1 < sizeof calib_n / sizeof calib_n[0] && nd >= calib_n[row + 1])
        row++;
    while (col + 1 < sizeof calib_se / sizeof calib_se[0] && se >= calib_se[col + 1])
        col++;
    return calib_p[row][col];
}

/* Does bin k (+-1) stand out as a tooth of a comb of spacing k0: above the
 * noise floor, and taller than the valley halfway to the next tooth? */
static bool tooth(const double *p, size_t half, size_t k, size_t k0, double med, double mad,
                  double tallest)
{
    double top = 0;
    for (size_t j = k > 1 ? k - 1 : 1; j <= k + 1 && j <= half; j++)
        top = fmax(top, p[j]);
    size_t valley = k + k0 / 2;
    if ((top - med) / mad <= TOOTH_Z || valley > half || top < TOOTH_SHARE * tallest)
        return false;
    return top > 2 * p[valley];
}

/* The noise floor of the power spectrum power[1..half]: its median and
 * robust deviation, once per spectrum (the detector and the picture's
 * threshold both read it).  false for a flat signal, which has no line: its
 * AC power is rounding noise next to the mean's (DC) power, however it is
 * distributed.  tmp: half doubles of scratch. */
static bool noise_floor(struct ftio_spectrum *s, double *tmp)
{
    if (s->floor_known)
        return s->floor_ok;
    size_t half = s->half;
    const double *p = s->power + 1;
    double ac = 0;
    for (size_t k = 0; k < half; k++)
        ac += p[k];
    s->floor_known = true;
    s->floor_ok = ac > 1e-12 * s->power[0];
    if (!s->floor_ok)
        return false;
    double med = ftio_median_view(p, half, false, 0, tmp);
    double mad = 1.4826 * ftio_median_view(p, half, true, med, tmp);
    if (!(mad > 0))
        mad = med > 0 ? med : 1;
    s->floor_med = med;
    s->floor_mad = mad;
    return true;
}

double ftio_robust_threshold(const struct ftio_spectrum *s)
{
    size_t half = s->half;
    if (half < 2)
        return NAN;
    struct ftio_spectrum own = *s;        /* the floor is computed at most once */
    if (!own.floor_known) {
        double *tmp = malloc(half * sizeof *tmp);
        if (!tmp)
            return NAN;
        noise_floor(&own, tmp);
        free(tmp);
    }
    double sum = 0;
    for (size_t k = 1; k <= half; k++)
        sum += s->power[k];
    if (!own.floor_ok || !(sum > 0))
        return NAN;
    return (own.floor_med + LINE_Z * own.floor_mad) / sum;
}

/* Spectral answer for signals without usable phases: the tallest line of
 * the power spectrum if it stands out, moved down to the fundamental of the
 * comb it belongs to (every tooth k0, 2 k0, ... up to it standing out);
 * harmonics are told on bin indices, not float remainders. */
static bool spectral_pick(struct ftio_analyzer *a, struct ftio_spectrum *s,
                          size_t *bin, double *z_out)
{
    size_t half = s->half;
    if (half < 2)
        return false;
    const double *p = s->power;
    size_t kmax = 1;
    for (size_t k = 1; k <= half; k++)
        if (p[k] > p[kmax])
            kmax = k;
    if (!noise_floor(s, a->scratch))
        return false;
    double med = s->floor_med, mad = s->floor_mad;
    double zmax = (p[kmax] - med) / mad;
    if (!(zmax > LINE_Z))
        return false;
    size_t best = kmax;
    for (size_t div = 2; div <= 8 && kmax / div >= 2; div++) {
        size_t k0 = (size_t)llround((double)kmax / (double)div);
        bool comb = true;
        for (size_t h = 1; h < div && comb; h++)
            comb = tooth(p, half, k0 * h, k0, med, mad, p[kmax]);
        if (comb)
            best = k0;
    }
    if (best < 2)                 /* a "period" the window holds once is none */
        return false;
    *bin = best;
    *z_out = zmax;
    return true;
}

/* a and b within 10 % of an integer ratio (either way). */
static bool commensurate(double a, double b)
{
    double r = a > b ? a / b : b / a;
    return fabs(r - round(r)) <= 0.1 * round(r);
}

/* The unbiased autocorrelation of the samples around lag `period` (the best
 * within +-5 % and +-1 sample: onsets jitter). */
static double acf_at(const double *acf, size_t n, double fs, double period)
{
    double lag = period * fs, w = fmax(1, 0.05 * lag), best = -1;
    for (double l = ceil(lag - w); l <= floor(lag + w); l++) {
        if (l < 1 || l >= (double)n / 2)
            continue;
        size_t k = (size_t)l;
        best = fmax(best, acf[k] * (double)n / (double)(n - k));
    }
    return best;
}

/* §9 step 8, the arbiter: the onsets' period P against a strong spectral
 * line's period S that is not within 10 % of it.  The autocorrelation
 * decides whom the signal backs: when it repeats at S about as well as at P
 * (S a divisor of P: outputs the phases merged; or S unrelated to P), P is
 * contradicted and may not be `periodic`.  True when it is. */
static bool contradicted(struct ftio_analyzer *a, const struct ftio_samples *x, double p,
                         double sp)
{
    if (fabs(p - sp) <= 0.1 * fmax(p, sp))
        return false;
    const double *acf;
    if (ftio_acf_compute_len(a, x, ftio_fft_size_above(2 * x->n), &acf) != 0)
        return false;
    double rp = acf_at(acf, x->n, x->fs, p), rs = acf_at(acf, x->n, x->fs, sp);
    if (!(rs > ARBITER_MIN_ACF))
        return false;                  /* the line is not a repetition */
    if (sp < p && commensurate(p, sp))
        return rs >= ARBITER_DIVISOR_ACF;  /* repeats at a divisor of P */
    if (sp > p && commensurate(p, sp))
        return false;                  /* a multiple of P: P stands */
    return rs > rp;
}

/* A line at period sp is the inside of the phases, not their repetition,
 * when the phases are groups of bursts (phases.c: ranks writing one after
 * the other) at most this far apart: the group's own comb. */
static bool inside_phase(const struct ftio_phase_scan *ps, double sp)
{
    return ps->inner > 0 && sp <= (1 + MULTIPLE_SLACK) * ps->inner;
}

/* Candidate entry for period T (amplitude and phase of the nearest bin). */
static struct ftio_candidate candidate_at(const struct ftio_spectrum *s, double period,
                                          double conf)
{
    struct ftio_candidate c = { 0 };
    c.frequency = 1.0 / period;
    c.period = period;
    c.confidence = conf;
    double kf = c.frequency * (double)s->n / s->fs;
    size_t k = (size_t)llround(kf);
    if (k >= 1 && k <= s->half) {
        c.bin = k;
        c.amplitude = cabs(s->X[k]);     /* ftio_spectrum_amplitudes()' value */
        c.phase = ftio_spectrum_phase(s, k);
    }
    return c;
}

/* Median bytes and duration of the phases that the window holds whole. */
static void typical_phase(struct ftio_analyzer *a, const struct ftio_phase *ph, size_t n,
                          double *bytes, double *duration)
{
    double *b = a->scratch, *d = a->scratch + n;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (ph[i].flags)
            continue;
        b[m] = ph[i].bytes;
        d[m] = ph[i].end - ph[i].start;
        m++;
    }
    if (m == 0) {                 /* only cut phases: better than nothing */
        for (size_t i = 0; i < n; i++) {
            b[m] = ph[i].bytes;
            d[m] = ph[i].end - ph[i].start;
            m++;
        }
    }
    *bytes = median_of(b, m);
    *duration = median_of(d, m);
}

int ftio_detect_robust(struct ftio_analyzer *a, struct ftio_spectrum *s,
                       const struct ftio_samples *x, const struct ftio_options *o,
                       double now, struct ftio_result *r)
{
    (void)o;
    r->cls = FTIO_CLASS_NONE;
    r->has_period = false;
    r->ncand = 0;
    r->nsurvivors = 0;
    r->reason = NULL;
    r->last_onset = NAN;
    memset(&r->dominant, 0, sizeof r->dominant);

    /* The spectrum's answer first: a hint for fragmented phases, and the
     * answer itself when there are no phases to count. */
    if (ftio_grow((void **)&a->scratch, &a->scratch_cap, 2 * (s->half + 2),
                  sizeof *a->scratch) != 0)
        return -1;
    size_t spec_bin = 0;
    double spec_z = 0;
    bool spec_ok = spectral_pick(a, s, &spec_bin, &spec_z);
    double spec_period = spec_ok ? (double)s->n / (s->fs * (double)spec_bin) : NAN;

    struct ftio_phase_scan ps;
    if (ftio_phases_find(a, x, &ps) != 0)
        return -1;
    r->phases = ps.phase;
    r->nphases = ps.n;
    r->background = ps.background;

    /* Onsets of the phases whose start the window saw. */
    size_t n = ps.n;
    if (ftio_grow((void **)&a->scratch, &a->scratch_cap, 4 * (n + s->half + 2),
                  sizeof *a->scratch) != 0)
        return -1;
    double *on = a->scratch + 3 * (n + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!(ps.phase[i].flags & FTIO_PHASE_CUT_START))
            on[m++] = ps.phase[i].start;

    double period = NAN, conf = 0;
    size_t first_phase = 0;
    if (m >= 2) {
        struct fit f;
        fit_onsets(on, m, a->scratch, &f);
        period = f.period;
        conf = fit_confidence(&f);
        /* Irregular intervals whose period the spectrum contradicts (a
         * strong line that is neither a multiple nor a divisor of it) may be
         * a phase cut into pieces rather than irregular compute: not
         * `periodic` (halving it made answers 80-92 % right read 0.4-0.5). */
        if (f.cv > REGULAR_CV && spec_ok && !commensurate(period, spec_period))
            conf = fmin(conf, FEW_ONSETS_CONF);
        /* Never a confident answer that the spectrum and the
         * autocorrelation contradict. */
        if (conf > CONTRADICTED_CONF && spec_ok && !inside_phase(&ps, spec_period) &&
            contradicted(a, x, period, spec_period))
            conf = CONTRADICTED_CONF;
        r->fitted_phases = f.used;
        r->interval_cv = f.cv;
        r->nsurvivors = f.used;
        /* Phases of the newest regime: the ones the typical phase and the
         * prediction come from (cut-start phases come before the onsets). */
        size_t skipped = 0;
        for (first_phase = 0; first_phase < n; first_phase++) {
            if (ps.phase[first_phase].flags & FTIO_PHASE_CUT_START)
                continue;
            if (skipped++ == f.from)
                break;
        }
    } else if (spec_ok) {
        period = spec_period;
        conf = fmin(spec_bin < EVIDENCE_ONSETS || n > 0 ? SPECTRAL_FEW_CONF : SPECTRAL_MAX_CONF,
                    0.5 * (1 - LINE_Z / spec_z) + 0.1);
        r->nsurvivors = 1;
    }
    if (!(period > 0) || !isfinite(period)) {
        r->reason = n == 0 ? "no I/O phases stand out of the background and no dominant frequency"
                           : "fewer than two I/O phase onsets and no dominant frequency";
        return 0;
    }
    /* What the evidence can back (EVIDENCE_ONSETS, RESOLVE_SAMPLES). */
    if (m >= 2 && r->fitted_phases < EVIDENCE_ONSETS)
        conf = fmin(conf, FEW_ONSETS_CONF);
    if (period * x->fs < RESOLVE_SAMPLES)
        conf = fmin(conf, UNRESOLVED_CONF);

    r->has_period = true;
    r->cls = conf >= PERIODIC_CONF ? FTIO_CLASS_PERIODIC : FTIO_CLASS_UNCERTAIN;
    r->dominant = candidate_at(s, period, conf);
    r->cand[0] = r->dominant;
    r->ncand = 1;

    /* §4 metrics at the found frequency; the phase's bytes and duration
     * from the phases (background excluded) when there are any. */
    ftio_metrics_compute(x, r->volume, r->dominant.frequency, &r->metrics);
    double t_last = NAN;
    if (m >= 1 && first_phase < n) {
        double bytes, duration;
        typical_phase(a, ps.phase + first_phase, n - first_phase, &bytes, &duration);
        r->metrics.phase_bytes = bytes;
        r->metrics.phase_duration = duration;
        for (size_t i = n; i-- > 0;)
            if (!(ps.phase[i].flags & FTIO_PHASE_CUT_START)) {
                t_last = ps.phase[i].start;
                break;
            }
        /* The dominant cosine peaks mid-phase (§5's convention). */
        double mid = t_last + duration / 2;
        double ph = -2 * M_PI * fmod(mid / period, 1.0);
        r->dominant.phase = r->cand[0].phase = atan2(sin(ph), cos(ph));
    }

    r->last_onset = t_last;
    ftio_result_predict(r, isnan(now) ? x->t1 : now);
    return 0;
}
