/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_options.c -- the analysis options shared by ftio, ftiod and
 * ftio scan (predictor/analysis_options.h): their table entries, bounds,
 * defaults and help, and how they resolve (--compat, -ts/-te).  Command-line
 * code (common/cliopt.h), so it lives in libftiooptions.a beside the analysis
 * library, which knows only struct ftio_options.  The commands' own options
 * stay in the commands.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_options.h"

void ftio_analysis_args_default(struct ftio_analysis_args *a)
{
    memset(a, 0, sizeof *a);
    ftio_options_default(&a->opts);
    a->mode = 0;
    a->sampling = -1;
    a->detector = -1;
    a->window = 0;
    a->step = FTIO_STEP_DEF;
    a->max_memory_mb = FTIO_MAX_MEMORY_DEF;
}

/* --window S or adaptive (0 is adaptive too, as ftiod always took it). */
static int set_window(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    struct ftio_analysis_args *a = o->ctx;
    char *end;
    double v = 0;
    if (strcmp(val, "adaptive") != 0) {
        v = strtod(val, &end);
        if (end == val || *end || !isfinite(v) || v < 0 || v > FTIO_WINDOW_MAX) {
            snprintf(err, errlen, "must be 'adaptive' or seconds in (0, %g], not '%s'",
                     FTIO_WINDOW_MAX, val);
            return -1;
        }
    }
    a->window = v;
    a->window_set = true;
    return 0;
}

/* both (3): write and read analysed separately, as `ftio scan -m both`; a
 * command that takes -m resolves it (ftio_main.c). */
static const char *const mode_names[] = {"write", "read", "all", "both", NULL};
static const char *const sampling_names[] = {"hold", "average", NULL};
static const int sampling_values[] = {FTIO_SAMPLING_HOLD, FTIO_SAMPLING_AVERAGE};
static const char *const detector_names[] = {"robust", "compat", NULL};
static const int detector_values[] = {FTIO_DETECTOR_ROBUST, FTIO_DETECTOR_COMPAT};

size_t ftio_analysis_cliopts(struct ftio_analysis_args *a, unsigned which, struct cliopt *t)
{
    const struct cliopt all[FTIO_AOPT_COUNT] = {
        {"freq", 'f', CLIOPT_DOUBLE, "HZ", "sampling frequency of the bandwidth signal",
         CLIOPT_NUM(FTIO_FS_DEFAULT),
         .to.d = &a->opts.fs, .min = FTIO_FREQ_MIN, .max = FTIO_FREQ_MAX},
        {"mode", 'm', CLIOPT_CHOICE, "MODE", "which requests: write, read, all (one signal) or\nboth (each analysed)", "write",
         .to.i = &a->mode, .choices = mode_names},
        {"tol", 't', CLIOPT_DOUBLE, "X", "candidate tolerance, z/z_max of a candidate",
         CLIOPT_NUM(FTIO_TOL_DEFAULT),
         .to.d = &a->opts.tol, .min = 0, .max = 1, .flags = CLIOPT_MIN_OPEN},
        {"ts", 0, CLIOPT_DOUBLE, "S", "analyse only events after S seconds", NULL,
         .to.d = &a->opts.t_start, .min = -FTIO_TIME_LIMIT, .max = FTIO_TIME_LIMIT},
        {"top", 'n', CLIOPT_INT, "K", "also list the K bins of largest amplitude", "0",
         .to.i = &a->opts.top_n, .min = 0, .max = FTIO_MAX_CANDIDATES},
        {"no-psd", 0, CLIOPT_CLEAR, NULL, "use amplitudes instead of the power spectrum", NULL,
         .to.b = &a->opts.psd},
        {"compat", 0, CLIOPT_FLAG, NULL,
         "the published FTIO, digit for digit: its z-score detector\n"
         "(default: the robust detector)", NULL, .to.b = &a->compat},
        {"sampling", 0, CLIOPT_CHOICE, "M",
         "hold (zero-order hold, the published FTIO's) or average\n"
         "(bin averages: conserve the volume, do not depend on\n"
         "where the grid falls)", "average",
         .to.i = &a->sampling, .choices = sampling_names, .values = sampling_values},
        {"autocorrelation", 'a', CLIOPT_FLAG, NULL, "cross-check the period with the autocorrelation",
         NULL, .to.b = &a->opts.autocorrelation},
        {"window", 0, CLIOPT_CUSTOM, "S", "analysis window: S seconds, or 'adaptive' (0)", NULL,
         .set = set_window, .ctx = a},
        {"step", 0, CLIOPT_DOUBLE, "S", "data seconds between two analyses",
         CLIOPT_NUM(FTIO_STEP_DEF),
         .to.d = &a->step, .min = FTIO_STEP_MIN, .max = FTIO_STEP_MAX},
        {"max-memory", 0, CLIOPT_DOUBLE, "MB", "bound on the analysis' memory",
         CLIOPT_NUM(FTIO_MAX_MEMORY_DEF),
         .to.d = &a->max_memory_mb, .min = FTIO_MAX_MEMORY_MIN, .max = FTIO_MAX_MEMORY_MAX},
        {"detector", 0, CLIOPT_CHOICE, "D",
         "robust (phase onsets, spectral arbiter) or compat (the\n"
         "published z-score detector, the default of --compat)\n"
         "alone, sampling unchanged",
         "robust", .to.i = &a->detector, .choices = detector_names,
         .values = detector_values},
    };
    size_t n = 0;
    for (unsigned k = 0; k < FTIO_AOPT_COUNT; k++) {
        if (!(which & (1u << k)))
            continue;
        t[n++] = all[k];
        if ((1u << k) == FTIO_AOPT_TS_TE) {
            /* -te goes with -ts (both or neither in a command). */
            t[n - 1].help = "analyse only events after S seconds (relative, or epoch\n"
                            "with --absolute-time)";
            t[n++] = (struct cliopt){"te", 0, CLIOPT_DOUBLE, "S", "analyse only events before S seconds",
                                     NULL, .to.d = &a->opts.t_end, .min = -FTIO_TIME_LIMIT,
                                     .max = FTIO_TIME_LIMIT};
        }
    }
    return n;
}

int ftio_analysis_args_finish(struct ftio_analysis_args *a, bool compat_hold, char *err,
                              size_t errlen)
{
    if (a->detector >= 0)
        a->opts.detector = (enum ftio_detector)a->detector;
    else if (a->compat)
        a->opts.detector = FTIO_DETECTOR_COMPAT;
    if (a->sampling >= 0)
        a->opts.sampling = (enum ftio_sampling)a->sampling;
    else
        a->opts.sampling = a->compat && compat_hold ? FTIO_SAMPLING_HOLD : FTIO_SAMPLING_AVERAGE;
    if (isfinite(a->opts.t_start) && isfinite(a->opts.t_end) && a->opts.t_end <= a->opts.t_start) {
        snprintf(err, errlen, "-te must be after -ts");
        return -1;
    }
    return 0;
}

int ftio_analysis_check_step(double step, double fs, char *err, size_t errlen)
{
    double samples = step * fs;
    if (fabs(samples - round(samples)) > 1e-9 * samples || round(samples) < 1) {
        snprintf(err, errlen, "--step: %g s is not a whole number of samples at %g Hz (-f)", step, fs);
        return -1;
    }
    return 0;
}
