/* SPDX-License-Identifier: BSD-3-Clause */
/* forecast.h -- what the whole machine's I/O will be (PROTOCOL.md §2
 * Version 4, topic `ftio.machine`; ALGORITHM.md §12): every live job's
 * predicted phases summed per file system and mode into an aggregate
 * bandwidth at 1-s steps over the horizon, the expected number of jobs in
 * a phase at each step, and the phases predicted to overlap on one file
 * system (collisions).  Part of libftioforecast.a; ftiod's machine thread
 * (daemon/machine.c) calls it once a second.
 *
 * A job's predicted phases are a train: the next at `start`, then one
 * every `period`, each `duration` s long moving `bytes`.  Where a phase
 * starts is uncertain: its start is taken as uniform over start_k +- a_k
 * with a_k = sqrt(3) sd_k (the same variance as a normal), sd_k =
 * sqrt(jitter^2 + k (period cv)^2) (irregular compute: the uncertainty of
 * the k-th phase grows like a random walk), so the expected bandwidth of
 * a phase is a trapezoid.  With probability 1 - confidence the period is
 * wrong: then the job's bytes are spread evenly (bytes / period), so the
 * expected volume is kept.  A trapezoid is four ramps, a ramp two or three
 * entries of a second-difference array: the cost is O(phases + steps), not
 * O(phases x steps) (10,000 jobs: bench/README.md "contention").  Once
 * sd_k passes a third of the period (or after 32 phases) the phases run
 * into one another and the rest of the train is its mean rate.  Collisions
 * are looked for among each train's next 16 phases.
 */
#ifndef FTIO_FORECAST_H
#define FTIO_FORECAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTIO_FC_MODES 2            /* 0 write, 1 read (phase_track.h's order) */
#define FTIO_FC_MIN_HALFWIDTH 0.05 /* s: the least uncertainty of a start */

/* One job's predicted phases on one file system, in one mode. */
struct ftio_fc_train {
    uint32_t job;          /* the caller's index of the job */
    uint16_t fs;           /* the caller's file system index (< nfs) */
    uint8_t  mode;
    double   start;        /* s (the caller's clock: ftiod's is Unix time) */
    double   period;       /* s; 0 or NAN: this one phase only */
    double   duration;     /* s */
    double   bytes;        /* per phase */
    double   confidence;   /* P(the period is right), 0..1 */
    double   jitter;       /* s: sd of the next phase's start */
    double   cv;           /* the intervals' coefficient of variation */
};

/* Two phases of different jobs predicted to overlap on one file system. */
struct ftio_fc_collision {
    uint32_t job[2];       /* train indexes' jobs */
    uint32_t train[2];     /* indexes into the trains given */
    uint16_t fs;
    double   start, end;   /* the overlap */
    double   bytes[2];     /* each phase's bytes in the overlap */
    double   p;            /* probability that both phases are there (product of confidences) */
};

struct ftio_fc {
    double  t0;            /* start of step 0 */
    double  step;          /* 1 s */
    size_t  steps, nfs;
    double *rate;          /* [fs][mode][step]: expected B/s */
    double *active;        /* [fs][mode][step]: expected number of jobs in a phase */
    struct ftio_fc_collision *coll;
    size_t  ncoll, coll_cap; /* kept: per file system the earliest, at most max_collisions */
    uint64_t ncoll_total;  /* every collision found (the list may hold fewer; past the
                              listed ones a job's two modes overlapping count too) */
    /* scratch */
    size_t  cap;
};

/* The forecast of n trains over [t0, t0 + steps) at 1-s steps; collisions
 * whose overlap starts inside it, among each train's next 16 phases (per
 * file system the earliest
 * max_collisions kept, sorted by file system then start; only
 * phases whose start is known to within half their duration and whose
 * probability is at least min_p).  0, or -1 out of memory.  f: zeroed or a
 * previous result (its buffers are reused). */
int ftio_fc_compute(struct ftio_fc *f, const struct ftio_fc_train *tr, size_t n, size_t nfs,
                    double t0, size_t steps, size_t max_collisions, double min_p);
void ftio_fc_free(struct ftio_fc *f);
/* The series of (fs, mode). */
static inline double *ftio_fc_rate(const struct ftio_fc *f, size_t fs, int mode)
{
    return f->rate + (fs * FTIO_FC_MODES + (size_t)mode) * f->steps;
}
static inline double *ftio_fc_active(const struct ftio_fc *f, size_t fs, int mode)
{
    return f->active + (fs * FTIO_FC_MODES + (size_t)mode) * f->steps;
}
/* Mean expected B/s of (fs, both modes) over [a, b] (parts outside the
 * forecast count as 0). */
double ftio_fc_mean(const struct ftio_fc *f, size_t fs, double a, double b);
/* The same for one train alone (its own share of that mean). */
double ftio_fc_train_mean(const struct ftio_fc_train *t, double a, double b);

/* The phases of one train inside [t0, t1): at most max, each [start, end),
 * its bytes and its probability.  Returns how many. */
struct ftio_fc_phase { double start, end, bytes, p; };
size_t ftio_fc_train_phases(const struct ftio_fc_train *t, double t0, double t1,
                            struct ftio_fc_phase *out, size_t max);

#endif
