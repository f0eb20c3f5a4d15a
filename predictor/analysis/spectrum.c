/* SPDX-License-Identifier: BSD-3-Clause */
/* spectrum.c -- the DFT of the samples with FFTW (§3 step 1) and the FFT
 * plumbing shared with the autocorrelation (acf.c).
 *
 * FFTW plans cost far more to make than to run (FFTW_ESTIMATE: 0.4-1.5 ms
 * for a length it has not seen, against 0.01-0.2 ms to run it), so they are
 * made once per (kind, length) in the process and shared: a registry under
 * one process-wide lock (FFTW's planner is global and not thread-safe, so
 * making and destroying a plan takes that lock anyway) holds each plan with
 * the number of analyzers using it, and keeps up to REGISTRY_IDLE plans
 * nobody uses for the next one who needs them.  Each struct ftio_analyzer
 * keeps the plans it uses in a small LRU cache of its own (FTIO_PLAN_SLOTS)
 * in front of it: the hot path -- a length the analyzer used recently --
 * takes no lock.  Executing a plan is thread-safe in FFTW (the new-array
 * functions, on buffers of the same alignment: every one comes from
 * fftw_malloc).  struct ftio_analyzer also owns every scratch buffer, so once
 * a size has been seen an analysis allocates nothing.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* Plans no analyzer uses, kept for the next one (least recently used go)
 * while their lengths add up to at most this many samples.  A plan of
 * FFTW_ESTIMATE costs ~8 B per sample of its length and 0.4-2 ms to make:
 * every 7-smooth length from 128 to 36,000 (ftiod's default hour at 10 Hz:
 * 461 lengths, 4.6 M samples) took 37 MB.  ftiod's jobs each analyse a
 * window of their own length (10 of their periods), so thousands of jobs
 * use hundreds of lengths; 64 plans kept made FFTW's planner 12 % of ftiod's
 * CPU with 5,000 jobs (issue 27). */
#define REGISTRY_IDLE_SAMPLES (8u << 20)

struct shared_plan {
    enum ftio_plan_kind kind;
    size_t        n;
    fftw_plan     plan;
    unsigned      users;       /* analyzers holding it in their cache */
    unsigned long last_used;
};

/* The only globals: FFTW's planner is global too, a struct cannot help. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct shared_plan *e;
    size_t n, cap, idle;        /* idle: the lengths of the plans nobody uses, summed */
    unsigned long tick;
} registry;

/* Caller holds planner_lock. */
static struct shared_plan *registry_find(enum ftio_plan_kind kind, size_t n)
{
    for (size_t i = 0; i < registry.n; i++)
        if (registry.e[i].n == n && registry.e[i].kind == kind)
            return &registry.e[i];
    return NULL;
}

/* The shared plan of (kind, n), made on first use with a's buffers; one
 * more user.  NULL when FFTW cannot make it or out of memory. */
static fftw_plan registry_take(struct ftio_analyzer *a, enum ftio_plan_kind kind, size_t n)
{
    pthread_mutex_lock(&planner_lock);
    struct shared_plan *s = registry_find(kind, n);
    if (!s && FTIO_GROW(registry.e, registry.cap, registry.n + 1) == 0) {
        fftw_plan p = kind == FTIO_PLAN_R2C
            ? fftw_plan_dft_r2c_1d((int)n, a->in, a->out, FFTW_ESTIMATE)
            : fftw_plan_dft_c2r_1d((int)n, a->out, a->in, FFTW_ESTIMATE);
        if (p) {
            s = &registry.e[registry.n++];
            *s = (struct shared_plan){ kind, n, p, 0, 0 };
            registry.idle += n;
        }
    }
    fftw_plan plan = NULL;
    if (s) {
        if (s->users++ == 0)
            registry.idle -= n;
        s->last_used = ++registry.tick;
        plan = s->plan;
    }
    pthread_mutex_unlock(&planner_lock);
    return plan;
}

/* One user less for (kind, n); beyond REGISTRY_IDLE unused plans, the
 * least recently used one is destroyed. */
static void registry_release(enum ftio_plan_kind kind, size_t n)
{
    pthread_mutex_lock(&planner_lock);
    struct shared_plan *s = registry_find(kind, n);
    if (s && s->users > 0 && --s->users == 0)
        registry.idle += n;
    while (registry.idle > REGISTRY_IDLE_SAMPLES) {
        size_t old = registry.n;
        for (size_t i = 0; i < registry.n; i++)
            if (registry.e[i].users == 0 &&
                (old == registry.n || registry.e[i].last_used < registry.e[old].last_used))
                old = i;
        if (old == registry.n)
            break;
        registry.idle -= registry.e[old].n;
        fftw_destroy_plan(registry.e[old].plan);
        registry.e[old] = registry.e[--registry.n];
    }
    pthread_mutex_unlock(&planner_lock);
}

struct ftio_analyzer *ftio_analyzer_new(void)
{
    return calloc(1, sizeof(struct ftio_analyzer));
}

void ftio_analyzer_free(struct ftio_analyzer *a)
{
    if (!a)
        return;
    for (int i = 0; i < FTIO_PLAN_SLOTS; i++)
        if (a->plans[i].n)
            registry_release(a->plans[i].kind, a->plans[i].n);
    fftw_free(a->in);            /* and out, in the same block */
    free(a->spec.power);
    free(a->spec.amp);
    free(a->spec.X_own);
    free(a->spec.conf);
    free(a->spec.z);
    free(a->acf);
    free(a->scratch);
    free(a->sorted);
    free(a->phase_buf);
    free(a);
}

/* Make the FFT buffers hold n reals and n/2+1 complex values: one block
 * from fftw_malloc (aligned for FFTW's SIMD code), the complex values after
 * the cap reals; cap is a power of two >= 256, so they are as aligned. */
static int fft_reserve(struct ftio_analyzer *a, size_t n)
{
    if (n <= a->in_cap)
        return 0;
    size_t cap = a->in_cap ? a->in_cap : 256;
    while (cap < n)
        cap *= 2;
    double *in = fftw_malloc(cap * sizeof *in + (cap / 2 + 1) * sizeof *a->out);
    if (!in)
        return -1;
    fftw_free(a->in);
    a->in = in;
    a->out = (fftw_complex *)(in + cap);
    a->in_cap = cap;
    return 0;
}

/* The plan of the given kind and size: from the analyzer's own cache (no
 * lock), else from the registry, which makes it the first time. */
static fftw_plan plan_get(struct ftio_analyzer *a, enum ftio_plan_kind kind, size_t n)
{
    struct ftio_plan_slot *victim = &a->plans[0];
    a->tick++;
    for (int i = 0; i < FTIO_PLAN_SLOTS; i++) {
        struct ftio_plan_slot *s = &a->plans[i];
        if (s->n == n && s->kind == kind) {
            s->last_used = a->tick;
            return s->plan;
        }
        if (s->n == 0 || (victim->n != 0 && s->last_used < victim->last_used))
            victim = s;
    }
    if (n > (size_t)INT32_MAX)
        return NULL;
    fftw_plan p = registry_take(a, kind, n);
    if (!p)
        return NULL;
    if (victim->n)
        registry_release(victim->kind, victim->n);
    *victim = (struct ftio_plan_slot){ kind, n, p, a->tick };
    return p;
}

/* The spectrum's columns, one capacity for the five. */
static int spec_reserve(struct ftio_analyzer *a, size_t bins)
{
    void **const cols[] = { (void **)&a->spec.power, (void **)&a->spec.amp,
                            (void **)&a->spec.X_own, (void **)&a->spec.conf, (void **)&a->spec.z };
    const size_t elem[] = { sizeof *a->spec.power, sizeof *a->spec.amp, sizeof *a->spec.X_own,
                            sizeof *a->spec.conf, sizeof *a->spec.z };
    return ftio_grow_parallel(&a->spec_cap, bins, 5, cols, elem);
}

/* The FFT buffers are about to be reused: the spectrum's X_k, a view of
 * them, moves into its own column first. */
static void spec_detach(struct ftio_analyzer *a)
{
    struct ftio_spectrum *s = &a->spec;
    if (s->X && s->X != s->X_own) {
        memcpy(s->X_own, s->X, (s->half + 1) * sizeof *s->X);
        s->X = s->X_own;
    }
}

int ftio_spectrum_compute(struct ftio_analyzer *a, const struct ftio_samples *x,
                          struct ftio_spectrum **out)
{
    size_t n = x->n, half = n / 2;
    a->spec.X = NULL;                /* whatever it was is being replaced */
    if (fft_reserve(a, n) != 0 || spec_reserve(a, half + 1) != 0)
        return -1;
    fftw_plan plan = plan_get(a, FTIO_PLAN_R2C, n);
    if (!plan)
        return -1;
    memcpy(a->in, x->x, n * sizeof *a->in);
    fftw_execute_dft_r2c(plan, a->in, a->out);

    struct ftio_spectrum *s = &a->spec;
    s->n = n;
    s->half = half;
    s->fs = x->fs;
    s->t0 = x->t0;
    s->X = a->out;                      /* complex.h precedes fftw3.h */
    const double *re_im = (const double *)a->out;
    for (size_t k = 0; k <= half; k++) {
        double re = re_im[2 * k], im = re_im[2 * k + 1];
        s->power[k] = re * re + im * im;
    }
    s->has_amp = false;
    s->has_conf = false;
    s->floor_known = false;
    *out = s;
    return 0;
}

const double *ftio_spectrum_amplitudes(struct ftio_spectrum *s)
{
    if (!s->has_amp) {
        for (size_t k = 0; k <= s->half; k++)
            s->amp[k] = cabs(s->X[k]);
        s->has_amp = true;
    }
    return s->amp;
}

double ftio_spectrum_phase(const struct ftio_spectrum *s, size_t k)
{
    double f = ftio_bin_frequency(s->fs, k, s->n);
    return carg(s->X[k] * cexp(-2.0 * M_PI * I * f * s->t0));
}

/* n's prime factors are all 2, 3, 5 or 7: FFTW's fast sizes (a prime size
 * such as 36,001 = 7 x 37 x 139 took 23x as long as 36,000). */
static bool smooth7(size_t n)
{
    if (n == 0)
        return false;
    /* Constant divisors: the compiler multiplies instead of dividing (the
     * search below tests a few hundred lengths per analysis). */
    n >>= __builtin_ctzll(n);
    while (n % 3 == 0)
        n /= 3;
    while (n % 5 == 0)
        n /= 5;
    while (n % 7 == 0)
        n /= 7;
    return n == 1;
}

size_t ftio_fft_size_below(size_t n)
{
    while (n > 1 && !smooth7(n))
        n--;
    return n;
}

size_t ftio_fft_size_above(size_t n)
{
    while (!smooth7(n))
        n++;
    return n;
}

int ftio_acf_compute(struct ftio_analyzer *a, const struct ftio_samples *x,
                     const double **acf)
{
    return ftio_acf_compute_len(a, x, 2 * x->n, acf);
}

int ftio_acf_compute_len(struct ftio_analyzer *a, const struct ftio_samples *x, size_t m,
                         const double **acf)
{
    size_t n = x->n;
    if (m < 2 * n)
        m = 2 * n;
    spec_detach(a);
    if (fft_reserve(a, m) != 0 ||
        ftio_grow((void **)&a->acf, &a->acf_cap, n, sizeof *a->acf) != 0)
        return -1;
    fftw_plan fwd = plan_get(a, FTIO_PLAN_R2C, m);
    fftw_plan bwd = fwd ? plan_get(a, FTIO_PLAN_C2R, m) : NULL;
    if (!fwd || !bwd)
        return -1;

    double mean = 0, sumsq = 0;
    for (size_t k = 0; k < n; k++)
        mean += x->x[k];
    mean /= (double)n;
    for (size_t k = 0; k < n; k++) {
        a->in[k] = x->x[k] - mean;
        sumsq += a->in[k] * a->in[k];
    }
    /* Zero padding to m >= 2N turns the FFT's circular correlation into
     * the linear one: lags up to N-1 never wrap around. */
    memset(a->in + n, 0, (m - n) * sizeof *a->in);
    fftw_execute_dft_r2c(fwd, a->in, a->out);
    for (size_t k = 0; k <= m / 2; k++) {
        double re = creal(a->out[k]), im = cimag(a->out[k]);
        a->out[k] = re * re + im * im;
    }
    fftw_execute_dft_c2r(bwd, a->out, a->in);
    /* A constant signal has no correlation structure: all lags 0. */
    double zero_lag = a->in[0];
    for (size_t k = 0; k < n; k++)
        a->acf[k] = sumsq > 0 && zero_lag > 0 ? a->in[k] / zero_lag : 0;
    *acf = a->acf;
    return 0;
}

int ftio_analyzer_spectrum(struct ftio_analyzer *a, const struct ftio_options *o,
                           struct ftio_spectrum_view *v)
{
    struct ftio_spectrum *s = &a->spec;
    memset(v, 0, sizeof *v);
    if (s->n == 0 || !s->X)
        return -1;
    v->n = s->n;
    v->half = s->half;
    v->fs = s->fs;
    v->amplitude = ftio_spectrum_amplitudes(s);
    /* The robust detector reads power whatever --no-psd says (§9). */
    v->power = o->detector == FTIO_DETECTOR_ROBUST || o->psd;
    for (size_t k = 1; k <= s->half; k++)
        v->total += v->power ? s->amp[k] * s->amp[k] : s->amp[k];
    v->threshold = o->detector == FTIO_DETECTOR_ROBUST ? ftio_robust_threshold(s)
                                                       : ftio_compat_threshold(s, o);
    return 0;
}

double ftio_spectrum_value(const struct ftio_spectrum_view *v, size_t k)
{
    if (k == 0 || k > v->half || !(v->total > 0))
        return 0;
    double a = v->amplitude[k];
    return (v->power ? a * a : a) / v->total;
}
