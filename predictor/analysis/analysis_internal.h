/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_internal.h -- contracts between the files of libftioanalysis.a.
 *
 * analysis.h is the public API; this header wires its pieces together:
 * analyze.c drives spectrum.c (FFTW, plan cache in struct ftio_analyzer),
 * detect.c (z-score candidates, §3), metrics.c / predict.c (§4, §5) and
 * acf.c (§7).  Nothing here is installed or used outside predictor/analysis.
 */
#ifndef FTIO_ANALYSIS_INTERNAL_H
#define FTIO_ANALYSIS_INTERNAL_H

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <fftw3.h>
#include "analysis.h"
#include "grow.h"          /* ftio_grow, ftio_grow_parallel (libftiocommon.a) */

/* End of a request starting at t_start and ending at t_end >= t_start: a
 * zero-length request lasts 1 us so its bytes survive (§1), or one ulp when
 * 1 us is below the resolution of huge timestamps.  requests.c and bins.c
 * both apply it, so the sweep and the streaming bins see the same request. */
#define FTIO_ZERO_LENGTH_DURATION 1e-6
static inline double ftio_request_end(double t_start, double t_end)
{
    if (t_end != t_start)
        return t_end;
    t_end = t_start + FTIO_ZERO_LENGTH_DURATION;
    return t_end != t_start ? t_end : nextafter(t_start, INFINITY);
}

/* The first k in [i, n) with x[k] != 0, or n.  A window of a bursty job is
 * mostly zeros (a 1-h job writing 10 s a minute: 5 of 6 samples), which
 * add nothing to a sum and stand above no threshold >= 0: the passes over
 * a window skip them eight at a time (one test of their bits, +0 and -0
 * alike) instead of one by one. */
static inline size_t ftio_next_nonzero(const double *x, size_t i, size_t n)
{
    for (; i + 8 <= n; i += 8) {
        uint64_t u[8];
        memcpy(u, x + i, sizeof u);
        if (((u[0] | u[1] | u[2] | u[3] | u[4] | u[5] | u[6] | u[7]) << 1) != 0)
            break;
    }
    while (i < n && x[i] == 0)
        i++;
    return i;
}

/* The sums of the samples and of their magnitudes (equal unless a sample
 * is negative), in one pass.  Zeros add nothing (to a sum that starts at
 * +0, exactly), so they are skipped. */
static inline void ftio_samples_sums(const struct ftio_samples *x, double *sum, double *magnitude)
{
    double v = 0, m = 0;
    const double *s = x->x;
    for (size_t k = 0; (k = ftio_next_nonzero(s, k, x->n)) < x->n;)
        for (; k < x->n && s[k] != 0; k++) {
            v += s[k];
            m += fabs(s[k]);
        }
    *sum = v;
    *magnitude = m;
}

/* Volume V_a of the samples (bytes) and the span it is spread over (the
 * window t1 - t0, or N / fs when the window is unknown): their ratio is the
 * mean bandwidth that "substantial" samples exceed (§4, §5). */
static inline double ftio_samples_volume(const struct ftio_samples *x)
{
    double v, m;
    ftio_samples_sums(x, &v, &m);
    return v / x->fs;
}
static inline double ftio_samples_span(const struct ftio_samples *x)
{
    double dt = x->t1 - x->t0;
    return dt > 0 ? dt : (double)x->n / x->fs;
}

/* ---- signal.c ----------------------------------------------------------- */

/* ftio_signal_sweep of all of r (no index, no padding) whose caller has
 * checked every end against its start and taken the span: lo the earliest
 * start, hi the latest end (sample.c's one pass over the requests). */
int ftio_signal_sweep_spanned(const struct ftio_requests *r, double lo, double hi,
                              ftio_signal_emit_fn *emit, void *ctx);

/* ---- spectrum.c --------------------------------------------------------- */

/* Per-bin results of one DFT, k = 0 .. N/2, owned by the analyzer. */
struct ftio_spectrum {
    size_t  n;          /* N, number of samples */
    size_t  half;       /* floor(N/2) */
    double  fs, t0;
    double *power;      /* |X_k|^2 = re^2 + im^2: the robust detector's
                           noise floor and lines */
    double *amp;        /* |X_k| = cabs(X_k), filled on first use by
                           ftio_spectrum_amplitudes() (--compat, -n, the
                           picture): cabs() of every bin was a tenth of a
                           robust analysis, which needs one amplitude */
    bool    has_amp;
    double complex *X;  /* X_k, for ftio_spectrum_phase() (the phase of a few
                           bins is needed: computing all of them was a fifth
                           of an analysis): a view of the analyzer's FFT
                           output, moved into X_own before anything reuses
                           that (ftio_acf_compute_len) */
    double complex *X_own;
    bool    has_conf;   /* conf filled (ftio_detect); else every bin's is 0 */
    double *conf;       /* §3 step 6 confidence (0 where not in A or B) */
    double *z;          /* scratch: z-scores (index k, z[0] unused) */
    /* The noise floor of power[1..half] (robust.c), computed once per
     * spectrum: its median and robust deviation; floor_known says whether
     * they have been, floor_ok whether the spectrum has a floor at all. */
    bool    floor_known, floor_ok;
    double  floor_med, floor_mad;
};

/* One cached FFTW plan (spectrum.c: shared by the analyzers of the process
 * through its registry).  Plans are made with FFTW_ESTIMATE on an analyzer's
 * buffers and run with the new-array execute functions, so they stay valid
 * when the buffers grow and serve every analyzer (fftw_malloc gives them all
 * the same alignment). */
enum ftio_plan_kind { FTIO_PLAN_R2C, FTIO_PLAN_C2R };
struct ftio_plan_slot {
    enum ftio_plan_kind kind;
    size_t        n;          /* 0 = empty slot */
    fftw_plan     plan;
    unsigned long last_used;  /* for least-recently-used eviction */
};
#define FTIO_PLAN_SLOTS 8

struct ftio_analyzer {
    struct ftio_plan_slot plans[FTIO_PLAN_SLOTS];
    unsigned long  tick;
    double        *in;        /* real FFT input, in_cap doubles (fftw_malloc) */
    fftw_complex  *out;       /* in_cap / 2 + 1 complex values, after in's (one block) */
    size_t         in_cap;
    struct ftio_spectrum spec;
    size_t         spec_cap;  /* capacity of spec's arrays (bins) */
    double        *acf;       /* ACF lags, acf_cap values */
    size_t         acf_cap;
    double        *scratch;   /* phases.c / robust.c work space */
    size_t         scratch_cap;
    double        *sorted;    /* the window's samples sorted (phases.c), once per analysis */
    size_t         sorted_cap;
    struct ftio_phase *phase_buf;   /* the phases of the last analysis */
    size_t         phase_cap;
};

/* Frequency of bin k, computed as the reference does: fs * k / N. */
static inline double ftio_bin_frequency(double fs, size_t k, size_t n)
{
    return fs * (double)k / (double)n;
}

/* s->amp, filled from X_k the first time it is asked for. */
const double *ftio_spectrum_amplitudes(struct ftio_spectrum *s);

/* The phase of bin k referred to absolute time 0: arg(X_k e^{-2 pi i f_k t0})
 * (sample 0 is at t0, not 0). */
double ftio_spectrum_phase(const struct ftio_spectrum *s, size_t k);

/* DFT of x (r2c, unscaled) into the analyzer's spectrum; reuses plans and
 * buffers, allocating only the first time a size is seen. */
int ftio_spectrum_compute(struct ftio_analyzer *a, const struct ftio_samples *x,
                          struct ftio_spectrum **out);

/* ACF of x (mean removed, normalised so acf[0] = 1) via zero-padded FFT
 * into *acf (N values, owned by the analyzer). */
/* The same, zero-padded to m >= 2N samples (a fast FFT size: the linear
 * autocorrelation does not depend on m). */
int ftio_acf_compute_len(struct ftio_analyzer *a, const struct ftio_samples *x, size_t m,
                         const double **acf);
/* The largest size <= n, and the smallest >= n, whose prime factors are all
 * 2, 3, 5 or 7 (FFTW's fast sizes). */
size_t ftio_fft_size_below(size_t n);
size_t ftio_fft_size_above(size_t n);
int ftio_acf_compute(struct ftio_analyzer *a, const struct ftio_samples *x,
                     const double **acf);

/* ---- detect.c ----------------------------------------------------------- */

/* §3 steps 2-9: fills cls, has_period, dominant, ncand, cand, ntop, top. */
void ftio_detect(struct ftio_spectrum *s, const struct ftio_options *o,
                 struct ftio_result *r);
/* -n K: the K bins of largest amplitude, DC included (any detector). */
void ftio_detect_top(struct ftio_spectrum *s, int want, struct ftio_result *r);

/* ---- phases.c / robust.c (the robust detector, ALGORITHM.md §9) -------- */

/* qsort order of doubles, and the median of sorted v[0..n) (0 when empty). */
static inline int ftio_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline double ftio_median_sorted(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- select.c: order statistics without comparison sorts ---------------- */

/* The k-th smallest of v[0..n) (k < n), in linear expected time; v is
 * reordered so that v[0..k) <= v[k] <= v[k+1..n). */
double ftio_select(double *v, size_t n, size_t k);
/* The median of the ranks [lo, lo + cnt) of v[0..n) (what
 * ftio_median_sorted(sorted + lo, cnt) gives: the same element, or the same
 * mean of the two middle ones); 0 when cnt is 0.  Reorders v. */
double ftio_median_rank(double *v, size_t n, size_t lo, size_t cnt);
/* ftio_median_rank(v, n, 0, n). */
double ftio_median(double *v, size_t n);
/* The median of v[0..n), or with dev of |v_i - c| (a MAD), without
 * reordering v: what ftio_median() of a copy of those values gives, from
 * one pass over them and a selection among the few near the median.  tmp:
 * n doubles of scratch.  0 when n is 0. */
double ftio_median_view(const double *v, size_t n, bool dev, double c, double *tmp);
/* The median of |v_i - c| over sorted v[0..n) (a MAD), in O(log n): the value
 * ftio_median() of those deviations gives; 0 when n is 0. */
double ftio_deviation_median_sorted(const double *v, size_t n, double c);
/* Sorts v[0..n) ascending (radix sort; tmp: n doubles of scratch, or NULL
 * to allocate them).  0, or -1 out of memory (v unchanged). */
int ftio_sort(double *v, size_t n, double *tmp);
/* The same into dst[0..n) from src (src == dst allowed): a sorted copy in
 * one pass over src. */
int ftio_sort_copy(const double *src, size_t n, double *dst, double *tmp);

/* The phases found in the samples (owned by the analyzer) and the levels
 * they were told from. */
struct ftio_phase_scan {
    double background;        /* B/s: median of the lower level */
    double spread;            /* its robust standard deviation */
    double level;             /* B/s: median of the upper level */
    double inner;             /* s: longest onset interval inside a phase of
                                 grouped bursts (0: none grouped) */
    size_t n;
    struct ftio_phase *phase;
};
int  ftio_phases_find(struct ftio_analyzer *a, const struct ftio_samples *x,
                      struct ftio_phase_scan *s);
/* Period, confidence, class, candidates, metrics and next phase from the
 * phases (and the spectrum as arbiter when they cannot tell). */
int  ftio_detect_robust(struct ftio_analyzer *a, struct ftio_spectrum *s,
                        const struct ftio_samples *x, const struct ftio_options *o,
                        double now, struct ftio_result *r);

/* The thresholds each detector compares the spectrum to, on the normalised
 * scale of struct ftio_spectrum_view (NAN when none applies). */
double ftio_compat_threshold(struct ftio_spectrum *s, const struct ftio_options *o);
double ftio_robust_threshold(const struct ftio_spectrum *s);

/* ---- metrics.c / predict.c / acf.c -------------------------------------- */

/* volume: ftio_samples_volume(x), which the caller has already. */
void ftio_metrics_compute(const struct ftio_samples *x, double volume, double f_d,
                          struct ftio_metrics *m);
/* ftio_next_phase_score() given volume = ftio_samples_volume(x) (the
 * analysis of x has it already: r->volume). */
int ftio_next_phase_score_volume(const struct ftio_next_phase *next, const struct ftio_samples *x,
                                 double volume, double *actual, double *error);
/* ftio_abstraction_error() of x, given the sum of its samples' magnitudes
 * (ftio_samples_sums()). */
double ftio_abstraction_error_of(const struct ftio_samples *x, double magnitude);
void ftio_predict_next(const struct ftio_candidate *dom, const struct ftio_metrics *m,
                       double now, struct ftio_next_phase *next);
/* §7 from a computed ACF of n lags at fs. */
/* scratch: n doubles the function may overwrite. */
void ftio_acf_period(const double *acf, size_t n, double fs, double *scratch,
                     struct ftio_acf *out);

/* bin_pool.c: the bins' blocks (bins.c) in pages of their own; a page whose
 * blocks are all free goes back to the system whole, not at a heap trim.
 * ftio_bin_pool_alloc() gives a zeroed block of `size` bytes (at most four
 * sizes, each under 8 KiB) or NULL with ENOMEM; thread-safe.  When the
 * empty pages go back: ftio_bin_pool_trim() (analysis/stream.h). */
void *ftio_bin_pool_alloc(size_t size);
void  ftio_bin_pool_free(void *block);
struct ftio_bin_pool_stats {
    size_t blocks;        /* blocks given out */
    size_t pages;         /* pages holding at least one */
    size_t spare;         /* empty pages kept resident for the next blocks */
    size_t released;      /* empty pages given back (not resident) */
    size_t mapped;        /* bytes mapped, in all */
    size_t given_back;    /* bytes given back so far, in all */
};
void  ftio_bin_pool_stats(struct ftio_bin_pool_stats *s);

#endif
