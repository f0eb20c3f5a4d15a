/* SPDX-License-Identifier: BSD-3-Clause */
/* duration.h -- how long a job's next I/O phase will take under the load
 * predicted for it (PROTOCOL.md §2 Version 4, `next.duration`;
 * ALGORITHM.md §12), learnt online from the machine's own finished phases.
 * Part of libftioforecast.a.
 *
 * The features are those of the write-time studies (write-performance-
 * lasso): the phase's bytes, its active ranks, the bytes of its busiest
 * rank (the load skew), its files, and the aggregate load of the other
 * jobs on its file system while it runs, as log(1 + L / R) with R the
 * job's own bandwidth when it has the file system to itself (the 90th
 * percentile of its phases' bandwidths: its loaded phases are slower) --
 * fair sharing of a saturated file system makes the time grow as
 * 1 + L / R.  The model is linear in the logs:
 *     log duration = a_job + w . x
 * a_job is the job's own level: the median over its last phases like the
 * one predicted (bytes within a factor 2; none: no prediction) of
 * log d_i - w . x_i, so a job alone, whose phases look alike, gets the
 * median of its own past phases (what ftiod predicted before).  w is
 * shared by the jobs of one application (its own fit once it has
 * FTIO_DM_MIN_FIT phases) or of the whole site: recursive least squares
 * on each job's deviations from its own means (a job's level is its own,
 * the effect of the load is shared), from a prior of 1 on bytes and load
 * (time proportional to volume and to the sharing) and 0 elsewhere.
 * The 90 % interval comes from the quantiles (5 %, 95 %) of log(actual /
 * predicted) of the scope's last FTIO_DM_RESIDUALS predictions that were
 * scored against the phase that came, widened to the job's own when it has
 * FTIO_DM_MIN_JOB_RESID of them (a job whose phases are bimodal -- a write
 * the page cache absorbed, or one that waited for the disk -- has wider
 * residuals than the site's); before FTIO_DM_MIN_RESID scored ones, from
 * the spread of the job's own phases.  Its error so far is the
 * median of |actual / predicted - 1| and the share of truths inside the
 * interval over the same predictions.
 */
#ifndef FTIO_DURATION_H
#define FTIO_DURATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FTIO_DM_BYTES = 0, FTIO_DM_RANKS, FTIO_DM_SKEW, FTIO_DM_FILES, FTIO_DM_LOAD, FTIO_DM_NX };
#define FTIO_DM_RESIDUALS 256
#define FTIO_DM_MIN_FIT   20     /* phases before an application has a fit of its own */
#define FTIO_DM_MIN_RESID 20     /* scored predictions before the interval is the scope's */
#define FTIO_DM_MIN_JOB_RESID 8  /* a job's own scored predictions that widen it */
#define FTIO_DM_JOB       16     /* phases of a job kept for its level */
#define FTIO_DM_PENDING   4      /* predictions of phases still to come, per job */

/* One scope's fit: the site, or one application. */
struct ftio_dm_fit {
    double   w[FTIO_DM_NX];
    double   P[FTIO_DM_NX][FTIO_DM_NX];
    uint64_t samples;                      /* phases learnt from */
    double   resid[FTIO_DM_RESIDUALS];     /* log(actual / predicted), ring */
    double   abserr[FTIO_DM_RESIDUALS];    /* |actual / predicted - 1|, same ring */
    size_t   nres, rhead;
    uint64_t scored, inside;               /* scored predictions, truths inside the interval */
    /* the ring's 5 % and 95 % quantiles of resid and median of abserr,
     * made when a residual is pushed (one per scored phase), read by every
     * prediction (many per phase: thousands of jobs each step) */
    double   resid_lo, resid_hi, err_median;
};
void ftio_dm_fit_init(struct ftio_dm_fit *f);

/* What one (job, mode) keeps for the model. */
struct ftio_dm_job {
    double   x[FTIO_DM_JOB][FTIO_DM_NX];   /* its last phases (ring) */
    double   y[FTIO_DM_JOB];               /* log duration */
    double   rate[FTIO_DM_JOB];            /* bytes / duration */
    size_t   n, head;
    double   sx[FTIO_DM_NX], sy;           /* sums over all its phases */
    uint64_t count;
    double   resid[FTIO_DM_JOB];           /* log(actual / predicted) of its own scored
                                              predictions, ring */
    size_t   nres, rhead;
    /* the last prediction published for each phase still to come */
    struct ftio_dm_pending {
        bool   used, app;
        double start, median, low, high;
        double load;                       /* the load it was predicted with */
    } pending[FTIO_DM_PENDING];
};

/* A phase as the model sees it. */
struct ftio_dm_phase {
    double bytes, ranks, skew_bytes, files;
    double load;       /* B/s of the other jobs on its file system while it runs */
};

/* The job's bandwidth alone (90th percentile of its phases' bytes /
 * duration), NAN before its first phase. */
double ftio_dm_job_rate(const struct ftio_dm_job *j);
/* The feature vector of phase p for job j. */
void   ftio_dm_features(const struct ftio_dm_job *j, const struct ftio_dm_phase *p,
                        double x[FTIO_DM_NX]);

/* A finished phase of job j took `duration` s: learn from it (site, and
 * app unless NULL) and keep it as the job's. */
void ftio_dm_learn(struct ftio_dm_fit *site, struct ftio_dm_fit *app, struct ftio_dm_job *j,
                   const struct ftio_dm_phase *p, double duration);
/* The phase that started at `start` took `duration` s: score the job's
 * pending prediction of that phase (its start within `tolerance` s), in
 * the scope that made it and the site's, and forget the predictions of
 * phases that should have started before it.  True when scored; *load
 * (unless NULL) is then the load that prediction was made with, else NAN.
 * A caller learns the phase with that load when there is one: the model
 * is then fit on the load it is given (a forecast's, uncertain in time),
 * not on the one that came. */
bool   ftio_dm_score(struct ftio_dm_fit *site, struct ftio_dm_fit *app, struct ftio_dm_job *j,
                     double start, double duration, double tolerance, double *load);

struct ftio_dm_prediction {
    bool     valid;
    double   load;                /* the load it was made for (p->load) */
    double   median, low, high;   /* s; [low, high] a 90 % interval */
    bool     app;                 /* the application's fit (else the site's) */
    uint64_t phases;              /* phases the fit learnt from */
    uint64_t scored;              /* its predictions scored so far */
    double   error;               /* median |actual / predicted - 1| of those, NAN before */
    double   coverage;            /* share of truths inside the interval, NAN before */
};
/* The duration of a phase p of job j; invalid before the job's first phase
 * like it.  app may be NULL. */
void ftio_dm_predict(const struct ftio_dm_fit *site, const struct ftio_dm_fit *app,
                     const struct ftio_dm_job *j, const struct ftio_dm_phase *p,
                     struct ftio_dm_prediction *out);
/* Keep out as job j's pending prediction of the phase starting at start
 * (replacing an earlier prediction of the same phase: a start within
 * `tolerance` s). */
void   ftio_dm_expect(struct ftio_dm_job *j, double start, const struct ftio_dm_prediction *out,
                      double tolerance);

#endif
