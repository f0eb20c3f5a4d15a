/* SPDX-License-Identifier: BSD-3-Clause */
/* prior.h -- a job's prediction from the earlier runs of its application,
 * checked against the job's own phases as they come (docs/ALGORITHM.md §11).
 * Part of libftioanalysis.a, next to the online loop: ftiod makes a prior
 * from the runs its memory returns (predictor/history/) at the job's first
 * batch, publishes it at once, and calls the check after each online step
 * (predictor/daemon/history_job.c).
 *
 * The prior (ftio_prior_from_runs): the median period of the runs, how much
 * they varied (robust spread), bytes and duration of a phase, the offset of
 * the first phase from the job's start; its confidence is the chance that
 * this run is like them: (agreeing + 1) / (runs + 2) (Laplace's rule: one
 * run 0.67, three 0.8, eight 0.9), times the trust of the key that matched
 * (exact arguments 1, numbers normalised 0.95, the name 0.9, the program
 * alone 0.8).
 *
 * The check (ftio_prior_check_*): the phases of the job's own signal
 * (phases.c, the robust detector's) are compared, onset by onset, to the
 * phase train the prior predicts (job start + offset, then every period,
 * re-anchored on each phase that agreed).  A phase within the runs' spread
 * (3 sigma, at least 5 % of the period and two samples) agrees and raises
 * the confidence (its odds x T / (2 tol), what a phase at a random place
 * would not do, at most 4; at most 1.5 for the first phase, which tests when
 * the outputs begin, not their period); a phase outside it, or a predicted phase
 * that does not come, hands over to the observed analysis at once.  Phases
 * of another size (outside 1/4 .. 4 times the prior's bytes per phase:
 * small log writes, another activity's large checkpoint) are not this
 * train's and are not judged.  Once the job's own analysis says `periodic`
 * the prior has done its work: confirmed when it agrees (within 10 %),
 * handed over when it does not.
 */
#ifndef FTIO_PRIOR_H
#define FTIO_PRIOR_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis.h"

/* A prior of this confidence or more is published `periodic` (the robust
 * detector's own threshold, analysis.h). */
#define FTIO_PRIOR_PERIODIC_CONF 0.8
/* Two periods within this are the same answer. */
#define FTIO_PRIOR_AGREE 0.10

/* How the earlier runs were found (the memory's lookup levels, most
 * specific first): the exact arguments, the arguments with their numbers
 * normalised, the program alone, the user's name for the application. */
enum ftio_prior_level {
    FTIO_PRIOR_NONE = 0, FTIO_PRIOR_ARGS, FTIO_PRIOR_ARGS_NORM, FTIO_PRIOR_EXE, FTIO_PRIOR_NAME,
};
const char *ftio_prior_level_name(enum ftio_prior_level l);   /* "args" "args_norm" "exe" "name" */
double ftio_prior_level_trust(enum ftio_prior_level l);

/* One earlier run's final answer (of a mode, or of one activity). */
struct ftio_prior_run {
    double period;            /* s; NAN: no period */
    double confidence;
    enum ftio_class cls;
    double bytes, duration;   /* of a phase; NAN unknown */
    double offset;            /* job start -> first phase of its train, s; NAN unknown */
};

struct ftio_prior {
    enum ftio_prior_level level;
    unsigned runs;            /* runs behind it */
    unsigned agreeing;        /* of them, with a period within 10 % of `period` */
    double period, period_sd; /* s: the median, and the runs' spread */
    double bytes, bytes_sd;   /* per phase (NAN unknown); sd relative */
    double duration;          /* of a phase, s (NAN unknown) */
    double offset, offset_sd; /* first phase after the job's start, s (NAN unknown) */
    double confidence;
    enum ftio_class cls;      /* periodic at FTIO_PRIOR_PERIODIC_CONF, else uncertain */
};
/* false when the runs make no prior: none had a period, or fewer than half
 * of those that had one agree. */
bool ftio_prior_from_runs(const struct ftio_prior_run *runs, size_t n, enum ftio_prior_level level,
                          struct ftio_prior *out);

enum ftio_prior_state {
    FTIO_PRIOR_LEADS = 0,     /* published, source "history" */
    FTIO_PRIOR_CONFIRMED,     /* the job's own analysis found the same period */
    FTIO_PRIOR_HANDED_OVER,   /* a phase disagreed: the observed analysis answers */
};
const char *ftio_prior_state_name(enum ftio_prior_state s);   /* "leads" "confirmed" "handed_over" */

/* A prior followed through one job (job-relative seconds). */
struct ftio_prior_check {
    struct ftio_prior p;
    enum ftio_prior_state state;
    double job_start;         /* the job's start (its first batch) */
    double confidence;        /* now */
    unsigned agreed;          /* the job's phases that agreed */
    bool   anchored;          /* anchor is a phase of the job (else the prior's first phase) */
    double anchor, anchor_sd; /* the train: anchor + k period; NAN: no first phase known */
    double checked;           /* phases with onsets up to here were judged */
    char   why[192];          /* what handed over (state HANDED_OVER) */
};
void ftio_prior_check_start(struct ftio_prior_check *c, const struct ftio_prior *p, double job_start);
/* Where the samples of the next check should start. */
double ftio_prior_check_from(const struct ftio_prior_check *c);
/* Judge the phases of x (the job's signal from ftio_prior_check_from() to
 * the boundary just analysed, all of the data there is up to x->t1).
 * Returns true when the state changed (why says how, for a log line). */
bool ftio_prior_check_phases(struct ftio_prior_check *c, struct ftio_analyzer *a,
                             const struct ftio_samples *x);
/* The job's own latest answer (not stale): `periodic` ends the prior's lead. */
bool ftio_prior_check_answer(struct ftio_prior_check *c, const struct ftio_result *observed,
                             bool stale);
/* The prior as an answer: period, confidence, class, phase, and the next
 * phase after now.  Window fields are left to the caller. */
void ftio_prior_result(const struct ftio_prior_check *c, double now, struct ftio_result *out);

/* An ended job: the onset of the first phase of x (of about bytes per
 * phase, within a factor 4; NAN: any) that the next phase follows one
 * period later (within 10 % of the period and two samples): where an
 * answer's train begins, the offset the memory keeps; NAN when no phase is
 * followed so.  (Not the train's phase extrapolated back from the job's end:
 * over many periods a slightly long period lands anywhere.) */
double ftio_prior_first_onset(struct ftio_analyzer *a, const struct ftio_samples *x,
                              double period, double bytes);

#endif
