/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis.h -- the FTIO period-detection library (libftioanalysis.a).
 *
 * Data flows one way:
 *   requests --(signal.c: event sweep)--> step signal --(sample.c)--> samples
 *   samples  --(spectrum.c: FFTW)--> spectrum --(detect.c)--> candidates, class
 *   samples + dominant frequency --(metrics.c)--> characterisation, next phase
 *   samples --(acf.c)--> autocorrelation cross-check
 * The daemon skips the first two steps: it accumulates records straight into
 * bins (bins.c: exact integral per bin, and B at each bin's left edge for
 * the hold sampling) and hands the bins to ftio_analyze().
 *
 * Everything follows ../shared/docs/ALGORITHM.md; behaviour marked [compat]
 * there reproduces the published implementation digit for digit.
 * Units: seconds, bytes, B/s, Hz.  Functions return 0 on success and -1 on
 * error (with a one-line reason in err when an err buffer is taken).
 * Not thread-safe per object: use one ftio_analyzer per thread.
 */
#ifndef FTIO_ANALYSIS_H
#define FTIO_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- requests (§1) ---------------------------------------------------- */

/* Each request contributes a constant rate over [t_start, t_end).  The
 * readers also say, where the trace does, which process made it and which
 * file it went to (0: unknown), for the activities and the phases'
 * descriptions.  One 32-B record per request, not a column per field: the
 * event sweep (signal.c) and the phase walk (cli/phases.c) visit the
 * requests in time order, not in the order they were read, and a visit
 * then fetches one cache line instead of one per column (10^7 requests are
 * 320 MB visited out of order). */
struct ftio_request {
    double   t_start;
    double   t_end;
    double   rate;     /* B/s */
    uint32_t proc;     /* the process (a rank, or a key folded to 32 bits); 0 unknown */
    uint32_t fid;      /* the file id; 0 unknown */
};

struct ftio_requests {
    size_t  n, cap;
    struct ftio_request *rec;
};

/* Append with a known rate (TMIO traces give rates); proc and fid 0. */
int  ftio_requests_push_rate(struct ftio_requests *r, double t_start, double t_end, double rate);
/* Append with a byte count; a zero-length request lasts 1 us (§1). */
int  ftio_requests_push_bytes(struct ftio_requests *r, double t_start, double t_end, double bytes);
void ftio_requests_free(struct ftio_requests *r);
/* Room for `want` requests (n unchanged; readers that fill the records in
 * place, readers/tmio_json.c); -1 on OOM. */
int  ftio_requests_reserve(struct ftio_requests *r, size_t want);

/* ---- application signal (§1) ------------------------------------------ */

/* Step function: value b[i] holds from t[i] to t[i+1]. */
struct ftio_signal {
    size_t  n;
    double *t;
    double *b;
};

/* The order of the times t[0..n) (ascending, to the microsecond; equal
 * ones in index order) into order[0..n): one radix sort of 64-bit keys, not
 * a copy of the records sorted by comparisons (cli/phases.c walks a trace's
 * records and metadata calls in time order).  0, or -1 out of memory. */
int  ftio_time_order(const double *t, size_t n, uint32_t *order);

/* Event sweep: 2n points, starts before ends on equal times.  -1 (errno
 * EINVAL) when a request ends before it starts, ENOMEM when out of memory.
 * One thread; besides its output, 4 B per event and one time bucket's events
 * (signal.c). */
int  ftio_signal_build(const struct ftio_requests *r, struct ftio_signal *out);
/* The same of the requests idx[0..n) of r (idx NULL: the first n), with
 * zero-rate requests at pad_t0 and pad_t1 (NAN: none) that stretch the
 * signal's span: an activity over its job's span (activities.c), without a
 * copy of its requests. */
int  ftio_signal_build_view(const struct ftio_requests *r, const uint32_t *idx, size_t n,
                            double pad_t0, double pad_t1, struct ftio_signal *out);
/* The sweep itself: the signal of the requests idx[0..n) of r (as
 * ftio_signal_build_view) handed to emit in time order, a bucket's points at
 * a time (t[0..m), b[0..m)), without keeping it whole; 0, or -1 with errno
 * (ENOMEM, EINVAL: a request ends before it starts). */
typedef void ftio_signal_emit_fn(void *ctx, const double *t, const double *b, size_t m);
int  ftio_signal_sweep(const struct ftio_requests *r, const uint32_t *idx, size_t n,
                       double pad_t0, double pad_t1, ftio_signal_emit_fn *emit, void *ctx);
void ftio_signal_free(struct ftio_signal *s);
/* Exact volume sum b[i] * (t[i+1] - t[i]) (V_0 of §2). */
double ftio_signal_volume(const struct ftio_signal *s);

/* ---- samples (§2) ----------------------------------------------------- */

enum ftio_sampling {
    FTIO_SAMPLING_HOLD = 0,    /* [compat] zero-order hold, accumulated step */
    FTIO_SAMPLING_AVERAGE,     /* mean of B over each bin (exact integral) */
};

struct ftio_samples {
    size_t  n, cap;
    double  fs;
    double  t0;                /* time of sample 0 (window start) */
    double  t1;                /* window end (t_last of §2) */
    double  exact_volume;      /* V_0, for the abstraction error; NAN if unknown */
    bool    quiet_before;      /* nothing flowed just before sample 0, so I/O in
                                  sample 0 began there (not cut by the window) */
    double *x;                 /* B/s */
};

/* Sample s at fs inside [ts, te] (NAN = unbounded).  N <= 0 is an error
 * ("trace shorter than one sample at fs=...; raise -f", errno ERANGE, out's
 * t0, t1 and fs set: the span it had).  out must be
 * zeroed or a previous result: its buffer is reused (free with
 * ftio_samples_free). */
int  ftio_sample(const struct ftio_signal *s, double fs, double ts, double te,
                 enum ftio_sampling mode, struct ftio_samples *out,
                 char *err, size_t errlen);
/* The same samples of the requests r's signal (ftio_signal_build then
 * ftio_sample, bit for bit), taken from the sweep as it comes: the signal
 * (32 B per request) is never kept.  *volume (when not NULL): the whole
 * signal's ftio_signal_volume, also when the window is shorter than one
 * sample (ERANGE).  A request ending before it starts: EINVAL. */
int  ftio_sample_requests(const struct ftio_requests *r, double fs, double ts, double te,
                          enum ftio_sampling mode, struct ftio_samples *out, double *volume,
                          char *err, size_t errlen);
void ftio_samples_free(struct ftio_samples *x);
/* The one sampling rule of `ftio`, `ftio scan` and ftiod (ALGORITHM.md §2):
 * the requested rate fs, lowered only when a span of `span` seconds would
 * take more than max_samples samples (then floor(span x rate) = max_samples;
 * max_samples <= 0 or INFINITY: no limit).  The same trace at the same fs
 * then gives the same samples, hence the same answer, in all three. */
double ftio_sampling_rate(double fs, double span, double max_samples);
/* |V_a - V_0| / V_0, or NAN when V_0 is unknown or zero. */
double ftio_abstraction_error(const struct ftio_samples *x);

/* ---- binned signal for streaming (§1, online) -------------------------- */

/* Bins of width 1/fs: bin k spans [origin + k/fs, origin + (k+1)/fs); the
 * kept ones are k in [first, last).  Adding a request spreads its bytes
 * exactly over the bins it overlaps (AVERAGE sampling) and, when the bins
 * keep B at the edges (`hold`), adds its rate to the value of B on both sides
 * of each edge it covers (HOLD sampling): at edge k when
 * t_start <= edge < t_end (the sweep's value there: starts before ends on
 * equal times), just before edge k+1 when t_start < edge <= t_end.  Bins
 * that fall off the horizon (more than `limit` behind the newest) are
 * dropped, and ftio_bins_forget() drops older ones on demand.  Memory
 * follows what was sent: bins are kept in blocks of FTIO_BIN_BLOCK, and only
 * the blocks that hold data exist (an I/O signal is mostly quiet). */
#define FTIO_BIN_BLOCK 64
struct ftio_bin_block;
struct ftio_bins {
    double   fs;
    double   origin;     /* time of bin index 0 */
    size_t   limit;      /* most bins kept (the horizon) */
    int64_t  first;      /* absolute index of the oldest kept bin */
    int64_t  last;       /* absolute index one past the newest touched bin */
    double   dropped_bytes;  /* bytes that fell before the horizon */
    bool     hold;       /* B at the edges kept too (HOLD sampling) */
    bool     forgot_data;    /* the bin before `first` held bytes when it was forgotten */
    size_t   nblocks, cap;
    struct ftio_bin_block **block;   /* those holding data, by index */
    size_t   cursor;     /* the block the last lookup found (adds come in time order) */
};

/* Bins that keep at most `capacity` of them (the horizon), B at the edges
 * too (for either sampling). */
int  ftio_bins_init(struct ftio_bins *b, double fs, double origin, size_t capacity);
/* The same for one sampling: AVERAGE keeps a third of the memory. */
int  ftio_bins_init_for(struct ftio_bins *b, double fs, double origin, size_t capacity,
                        enum ftio_sampling mode);
/* O(bins spanned); allocates only the blocks it reaches first.  Zero-length
 * requests last 1 us. */
void ftio_bins_add(struct ftio_bins *b, double t_start, double t_end, double bytes);
/* Copy the whole bins inside [ts, te] (NAN = unbounded; clipped to what is
 * kept) as samples in B/s: t0 = start of the first bin, t1 = end of the
 * last, exact_volume = their bytes.  AVERAGE: sample k = bytes of bin k * fs
 * (what ftio_sample(..AVERAGE..) computes from the sweep); HOLD: the
 * [compat] zero-order hold of §2, B at t_step advanced by t_step += 1/fs from
 * the first bin's start (what ftio_sample(..HOLD..) computes when the window
 * starts on an edge, exact unless an event lies strictly between t_step and
 * the nearest edge, ~1e-14 s away).  -1 when no whole bin is left (ERANGE)
 * or the mode is unknown or not kept (EINVAL).  out as for ftio_sample(). */
int  ftio_bins_samples_mode(const struct ftio_bins *b, double ts, double te,
                            enum ftio_sampling mode, struct ftio_samples *out);
/* The AVERAGE form of ftio_bins_samples_mode(). */
int  ftio_bins_samples(const struct ftio_bins *b, double ts, double te,
                       struct ftio_samples *out);
/* dst (uninitialised) becomes a deep copy of src.  0, or -1 out of memory. */
int ftio_bins_clone(const struct ftio_bins *src, struct ftio_bins *dst);
/* Forget the bins before the last edge at or before t (a window that will
 * not reach back there again); their blocks are freed. */
void ftio_bins_forget(struct ftio_bins *b, double t);
/* Bytes of memory the bins hold. */
size_t ftio_bins_memory(const struct ftio_bins *b);
/* Bin k's bytes, and with `hold` B at its start edge and just before its
 * end (0 for a bin not kept). */
double ftio_bins_volume_at(const struct ftio_bins *b, int64_t k);
void   ftio_bins_points_at(const struct ftio_bins *b, int64_t k, double *at, double *before_end);
/* Bytes in the whole kept bins inside [ts, te]. */
double ftio_bins_bytes(const struct ftio_bins *b, double ts, double te);
/* The start edge of the last kept bin inside [ts, te) that holds bytes, or
 * NAN when none does (ftiod: the newest boundary with data to analyse). */
double ftio_bins_last_data(const struct ftio_bins *b, double ts, double te);
void ftio_bins_free(struct ftio_bins *b);

/* ---- options and results (§3-§5, §7) ----------------------------------- */

/* Which detector answers (ALGORITHM.md): the robust one by default; the
 * published FTIO's z-score detector, digit for digit, with --compat. */
enum ftio_detector {
    FTIO_DETECTOR_ROBUST = 0,  /* phase detection + spectral arbiter (default) */
    FTIO_DETECTOR_COMPAT,      /* [compat] §3 z-score candidates, as published */
};
const char *ftio_detector_name(enum ftio_detector d);   /* "robust" "compat" */

/* The defaults of ftio_options_default(), which ftio's and ftiod's option
 * tables show (CLIOPT_NUM): plain numbers for that reason. */
#define FTIO_FS_DEFAULT  10     /* Hz */
#define FTIO_TOL_DEFAULT 0.8

struct ftio_options {
    enum ftio_detector detector;
    double fs;                 /* FTIO_FS_DEFAULT */
    double tol;                /* FTIO_TOL_DEFAULT */
    bool   psd;                /* true: power spectrum; false: --no-psd */
    int    top_n;              /* -n K; 0 = off */
    enum ftio_sampling sampling;
    bool   autocorrelation;
    double t_start, t_end;     /* -ts / -te, NAN = unbounded */
};
/* Defaults of the robust detector: average sampling, fs 10 Hz. */
void ftio_options_default(struct ftio_options *o);
/* --compat: the published defaults (hold sampling, compat detector). */
void ftio_options_compat(struct ftio_options *o);

/* What the answer is worth to a scheduler.  periodic: act on it (robust:
 * confidence >= 0.8, calibrated so that >= 95 % of such answers are within
 * 10 % of the true period; compat: one candidate, FTIO's "high");
 * uncertain: a period, but do not bet machine time on it (compat: two
 * candidates, FTIO's "moderate"); none: no period (see reason). */
enum ftio_class { FTIO_CLASS_NONE = 0, FTIO_CLASS_UNCERTAIN, FTIO_CLASS_PERIODIC };
const char *ftio_class_name(enum ftio_class c);   /* "none" "uncertain" "periodic" */

/* One I/O phase found in the signal (robust detector): onset and end in the
 * samples' time base, and the bytes it moved above the background level. */
struct ftio_phase {
    double start, end;         /* s */
    double bytes;              /* volume above the background, B */
    unsigned flags;            /* FTIO_PHASE_CUT_*: the window cuts it */
};
#define FTIO_PHASE_CUT_START 1u   /* began before the window: onset unknown */
#define FTIO_PHASE_CUT_END   2u   /* still going at the window end */

struct ftio_candidate {
    size_t bin;                /* k */
    double frequency;          /* Hz */
    double period;             /* s */
    double confidence;         /* §3 step 6; for -n entries 0 unless the bin is
                                  in A or B (as the reference prints it) */
    double amplitude;          /* |X_k| */
    double phase;              /* rad, referred to absolute time 0 */
};

#define FTIO_MAX_CANDIDATES 32   /* survivors counted, and -n K at most */
/* Candidates a result holds: at most two survive (§3 step 7: three or more
 * are no period; the robust detector has one).  Every result an online loop
 * keeps holds this array, so it is not sized for the counting. */
#define FTIO_RESULT_CANDIDATES 2

struct ftio_metrics {
    bool   valid;              /* false when there is no dominant frequency */
    double r_io, b_io;
    bool   sigma_valid;        /* false when fewer than 2 whole periods */
    double sigma_vol, sigma_time, periodicity;
    double phase_bytes;        /* volume per phase */
    double phase_duration;     /* time in I/O per phase */
};

struct ftio_next_phase {
    bool   valid;
    double start, end, bytes;
};

struct ftio_acf {
    bool   valid;
    double period, confidence;
    bool   agrees;             /* within 10 % of the DFT period */
};

struct ftio_result {
    double t0, t1, fs;
    size_t samples;
    double volume;             /* V_a */
    double abstraction_error;  /* NAN when unknown */

    enum ftio_detector detector;           /* which detector answered */
    enum ftio_class cls;
    bool   has_period;
    const char *reason;                    /* static text when !has_period, else NULL */
    struct ftio_candidate dominant;       /* valid when has_period */

    size_t ncand;                          /* surviving candidates (after harmonics),
                                              0 when there were 3 or more */
    size_t nsurvivors;                     /* survivors before that rule (diagnostic) */
    struct ftio_candidate cand[FTIO_RESULT_CANDIDATES];

    size_t ntop;                           /* -n */
    struct ftio_candidate top[FTIO_MAX_CANDIDATES];

    struct ftio_metrics    metrics;
    struct ftio_next_phase next;           /* relative to `now` given to ftio_analyze */
    struct ftio_acf        acf;

    /* Robust detector: the phases found in the window, oldest first (owned
     * by the analyzer, valid until its next call; 0 under compat), the
     * background bandwidth they stand above, and how many of the most
     * recent phases the period was fitted on. */
    size_t nphases;
    const struct ftio_phase *phases;
    double background;                     /* B/s */
    size_t fitted_phases;
    double interval_cv;                    /* spread of their intervals (CV) */
    double last_onset;                     /* robust: the onset `next` counts periods
                                              from (NAN: from the cosine) */
};

/* r's next phase again, after `now` instead (what ftio_analyze() of the same
 * samples with that `now` says, bit for bit: nothing else in an answer
 * depends on it). */
void ftio_result_predict(struct ftio_result *r, double now);

/* Holds cached FFTW plans and scratch buffers; one per thread. */
struct ftio_analyzer;
struct ftio_analyzer *ftio_analyzer_new(void);
void ftio_analyzer_free(struct ftio_analyzer *a);

/* Spectrum, detection, metrics, next phase after `now` (pass x->t1 offline),
 * and the ACF when o->autocorrelation.  Never allocates per call once the
 * analyzer has seen a given N. */
int ftio_analyze(struct ftio_analyzer *a, const struct ftio_samples *x,
                 const struct ftio_options *o, double now, struct ftio_result *out,
                 char *err, size_t errlen);

/* The spectrum of the analyzer's last ftio_analyze() call, for plots and
 * exports (predictor/plot/).  Values are the detector's normalised scale:
 * bin k's share of the AC power (or amplitude, --no-psd under --compat),
 * k = 1 .. half, DC excluded; `threshold` is on the same scale: robust, the
 * level a line must pass for the spectral arbiter (§9); compat, the level of
 * §3's candidate test (z / z_max > tol and z > 3); NAN when nothing can pass.
 * The arrays belong to the analyzer and stay valid until its next call. */
struct ftio_spectrum_view {
    size_t n;                  /* samples the DFT was taken of */
    size_t half;               /* last bin, floor(N / 2) */
    double fs;                 /* Hz: bin k lies at fs k / N */
    const double *amplitude;   /* |X_k|, k = 0 .. half */
    bool   power;              /* the scale is power, not amplitude */
    double total;              /* sum of the unnormalised values over k >= 1 */
    double threshold;
};
/* -1 when the analyzer has made no analysis yet. */
int    ftio_analyzer_spectrum(struct ftio_analyzer *a, const struct ftio_options *o,
                              struct ftio_spectrum_view *v);
/* Bin k on the normalised scale (0 for k = 0 or k > half). */
double ftio_spectrum_value(const struct ftio_spectrum_view *v, size_t k);

/* §5 self-scoring: once x covers next->start, the first substantial sample
 * (x_k > mean bandwidth of x) at or after next->start; *actual = its time,
 * *error = actual - predicted start (s).  -1 when there is none (yet). */
int ftio_next_phase_score(const struct ftio_next_phase *next, const struct ftio_samples *x,
                          double *actual, double *error);

/* The reason of an answer on a trace shorter than one sample at fs (no
 * error: an answer of class none, ftio_analyze_signal). */
#define FTIO_REASON_TOO_SHORT "too short: the trace spans less than one sample at this rate (raise -f)"

/* The offline pipeline in one call, used by every caller that holds a
 * signal (`ftio`, `ftio report`, `ftio scan`, the activities): sig sampled
 * as o says (o->fs, o->t_start/t_end, o->sampling), then ftio_analyze()
 * predicting the next phase after the window end; a trace shorter than one
 * sample is an answer of class none, reason FTIO_REASON_TOO_SHORT, with no
 * samples (x->n = 0), but under --compat the published error.  x: the
 * samples, kept for
 * a caller that plots or measures them (zeroed or a previous result, reused;
 * free with ftio_samples_free), or NULL for scratch samples freed here. */
int ftio_analyze_signal(struct ftio_analyzer *a, const struct ftio_signal *sig,
                        const struct ftio_options *o, struct ftio_samples *x,
                        struct ftio_result *out, char *err, size_t errlen);
/* The same from requests, sampled from their sweep as it goes
 * (ftio_sample_requests: the same samples and answer as on their signal,
 * without keeping it); x as above. */
int ftio_analyze_request_samples(struct ftio_analyzer *a, const struct ftio_requests *r,
                                 const struct ftio_options *o, struct ftio_samples *x,
                                 struct ftio_result *out, char *err, size_t errlen);
/* ftio_analyze_request_samples with scratch samples. */
int ftio_analyze_requests(struct ftio_analyzer *a, const struct ftio_requests *r,
                          const struct ftio_options *o, struct ftio_result *out,
                          char *err, size_t errlen);

/* ---- the online loop shared by `ftio --window` and ftiod (§6, online.c) -- */

/* Adaptive window [compat]: frequency hits. */
struct ftio_window {
    double fixed;        /* > 0: fixed window length in s (--window S) */
    double job_start;
    double start;        /* start of the next analysis window */
    int    hits;         /* consecutive analyses with exactly one candidate */
};
void   ftio_window_init(struct ftio_window *w, double job_start, double fixed_len);
/* Feed an analysis made over a window ending at t_end; returns the next start. */
double ftio_window_update(struct ftio_window *w, const struct ftio_result *r, double t_end);

/* Frequency groups and P(periodic) over many analyses. */
#define FTIO_MAX_GROUPS 16
struct ftio_freq_group { double f_min, f_max; unsigned count; };
struct ftio_history {
    unsigned analyses, periodic;
    size_t   ngroups;
    struct ftio_freq_group group[FTIO_MAX_GROUPS];
};
/* Start from a zeroed struct; a group's share is count / analyses. */
void   ftio_history_add(struct ftio_history *h, const struct ftio_result *r);
double ftio_history_p_periodic(const struct ftio_history *h);

/* One (job, mode) followed online.  Analyses are made over windows ending on
 * data-time boundaries every `step` seconds (ftio --window --step, ftiod
 * --step): the same boundaries, the same bins, the same answers, whichever
 * program makes them.  A boundary whose last step holds no data is skipped
 * (nothing new to say).  Robust detector: unless fixed, the window is the
 * whole job (up to the bins' horizon) until a `periodic` period T is established, then
 * the last FTIO_ONLINE_HORIZON_PERIODS x T seconds (at least
 * FTIO_ONLINE_HORIZON_MIN): it follows the current regime and bounds the
 * cost of a step (ALGORITHM.md §9 step 11).  The answer is stable: once a
 * period is established, a window without one, or one disagreeing once,
 * publishes the last good answer marked stale; it changes on evidence (two
 * analyses in a row agreeing on a new period, or no period for more than
 * FTIO_ONLINE_NONE_PERIODS periods).  --compat: FTIO's frequency-hits
 * window, every analysis published as it is. */
#define FTIO_ONLINE_NONE_PERIODS 3.0
#define FTIO_ONLINE_HORIZON_PERIODS 10.0
#define FTIO_ONLINE_HORIZON_MIN 30.0
struct ftio_online {
    struct ftio_options opts;
    double step;                 /* s of data between analyses */
    double fixed_window;         /* > 0: fixed window length, s */
    double job_start;
    struct ftio_window  win;     /* [compat] adaptive window */
    struct ftio_history hist;
    /* self-scoring of the pending prediction (§5) */
    bool   pending;
    struct ftio_next_phase pred;
    double pred_period;
    bool   has_error;
    double last_error;           /* actual - predicted start, s */
    uint64_t scored, missed;
    /* stability (robust) */
    bool   has_good;
    struct ftio_result good;     /* last established answer (phases cleared) */
    double good_since;           /* window end of the analysis that last confirmed it */
    bool   has_challenger;
    double challenger;           /* a disagreeing period seen once */
};

/* What one step publishes: the analysis, or the kept answer when stale. */
struct ftio_online_update {
    struct ftio_result res;      /* phases cleared: the analyzer's scratch */
    bool   stale;
    double since;                /* NAN unless stale */
    bool   has_error;
    double last_error;
    double p_periodic;
    double after;                /* the time its next phase was predicted after
                                    (`now` of the analysis: the wall clock live) */
};

void ftio_online_init(struct ftio_online *s, const struct ftio_options *o, double step,
                      double fixed_window, double job_start);
/* The analysis of the window ending at t_end (a bin edge of b), predicting
 * the next phase after `now` (t_end for old data, the wall clock live).
 * x: scratch samples (reused).  0: *out filled; 1: nothing new since the
 * previous boundary (no analysis); -1: error (err). */
int ftio_online_step(struct ftio_online *s, struct ftio_analyzer *a, const struct ftio_bins *b,
                     double t_end, double now, struct ftio_samples *x,
                     struct ftio_online_update *out, char *err, size_t errlen);
/* ftio_online_step() in two halves, for a caller that samples under a lock
 * and analyses outside it (stream.c): the window's samples into x (0; 1:
 * nothing new since the previous boundary; -1: error), then their analysis
 * (0, or -1: error). */
int ftio_online_window(const struct ftio_online *s, const struct ftio_bins *b, double t_end,
                       struct ftio_samples *x, char *err, size_t errlen);
int ftio_online_analyse(struct ftio_online *s, struct ftio_analyzer *a, const struct ftio_samples *x,
                        double t_end, double now, struct ftio_online_update *out, char *err,
                        size_t errlen);
/* Where the window ending at t_end starts (what a caller copies). */
double ftio_online_window_start(const struct ftio_online *s, double t_end);
/* The first boundary after t (boundaries are job_start + k step). */
double ftio_online_next_boundary(const struct ftio_online *s, double t);

#endif
