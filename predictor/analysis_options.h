/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_options.h -- the analysis options every command shares, with one
 * set of bounds, defaults and help texts (the single source of truth): `ftio`
 * (offline), `ftiod` (online; its configuration file too), and any command
 * that analyses.  A command appends the entries it takes to its option
 * table (common/cliopt.h) and calls ftio_analysis_args_finish() after
 * parsing; the bounds are checked by the table, so `--tol 1.5` is refused
 * the same way by every command.  Implemented in predictor/options/
 * (libftiooptions.a), apart from the analysis library: command-line code.
 */
#ifndef FTIO_ANALYSIS_OPTIONS_H
#define FTIO_ANALYSIS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis.h"
#include "cliopt.h"

/* Bounds (and the defaults are those of ftio_options_default()). */
#define FTIO_FREQ_MIN        0.001    /* Hz */
#define FTIO_FREQ_MAX        10000.0
#define FTIO_STEP_MIN        0.001    /* s */
#define FTIO_STEP_MAX        1e6
#define FTIO_WINDOW_MAX      1e9      /* s */
#define FTIO_TIME_LIMIT      1e12     /* |-ts|, |-te|: seconds, epoch times fit */
#define FTIO_MAX_MEMORY_MIN  1.0      /* MB */
#define FTIO_MAX_MEMORY_MAX  1e9
#define FTIO_MAX_MEMORY_DEF  4096     /* MB (a plain number: the tables show it) */
#define FTIO_STEP_DEF        1        /* s */

/* What the analysis options set, before they are resolved. */
struct ftio_analysis_args {
    struct ftio_options opts;  /* fs, tol, psd, top_n, autocorrelation, t_start/t_end */
    int    mode;               /* --mode: 0 write, 1 read, 2 all (enum ftio_io_mode), 3 both */
    int    sampling;           /* --sampling: -1 until given (resolved by _finish) */
    bool   compat;             /* --compat */
    int    detector;           /* --detector: -1 until given (resolved by _finish) */
    bool   window_set;         /* --window given */
    double window;             /* --window: seconds, 0 = adaptive */
    double step;               /* --step: data seconds between analyses */
    double max_memory_mb;      /* --max-memory */
};

/* Which options a command takes (bits of `which`). */
enum {
    FTIO_AOPT_FREQ = 1u << 0,       /* -f, --freq HZ */
    FTIO_AOPT_MODE = 1u << 1,       /* -m, --mode write|read|all */
    FTIO_AOPT_TOL = 1u << 2,        /* -t, --tol X */
    FTIO_AOPT_TS_TE = 1u << 3,      /* -ts S, -te S */
    FTIO_AOPT_TOP = 1u << 4,        /* -n, --top K */
    FTIO_AOPT_NO_PSD = 1u << 5,     /* --no-psd */
    FTIO_AOPT_COMPAT = 1u << 6,     /* --compat */
    FTIO_AOPT_SAMPLING = 1u << 7,   /* --sampling hold|average */
    FTIO_AOPT_AUTOCORR = 1u << 8,   /* -a, --autocorrelation */
    FTIO_AOPT_WINDOW = 1u << 9,     /* --window S|adaptive */
    FTIO_AOPT_STEP = 1u << 10,      /* --step S */
    FTIO_AOPT_MAX_MEMORY = 1u << 11, /* --max-memory MB */
    FTIO_AOPT_DETECTOR = 1u << 12   /* --detector robust|compat */
};
#define FTIO_AOPT_COUNT 13
#define FTIO_AOPT_ENTRIES (FTIO_AOPT_COUNT + 1)   /* -ts and -te are two entries */

void ftio_analysis_args_default(struct ftio_analysis_args *a);

/* The bound on --step beyond [FTIO_STEP_MIN, FTIO_STEP_MAX]: the sliding
 * analyses (ftiod's, and ftio --window's) end on sample edges, so a step is a
 * whole number (>= 1) of samples at fs.  0, or -1 with the message
 * ("--step: 0.05 s is not a whole number of samples at 10 Hz (-f)"). */
int ftio_analysis_check_step(double step, double fs, char *err, size_t errlen);
/* Append the entries of the options in `which` to t (room for
 * FTIO_AOPT_ENTRIES entries; not terminated); returns how many. */
size_t ftio_analysis_cliopts(struct ftio_analysis_args *a, unsigned which, struct cliopt *t);
/* After parsing: --compat selects the published detector (unless
 * --detector says otherwise) and, when
 * compat_hold (offline ftio) and no --sampling was given, its zero-order
 * hold; -te must be after -ts.  0, or -1 with a one-line reason in err. */
int  ftio_analysis_args_finish(struct ftio_analysis_args *a, bool compat_hold, char *err,
                               size_t errlen);

#endif
