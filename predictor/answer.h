/* SPDX-License-Identifier: BSD-3-Clause */
/* answer.h -- the job-level answer (ALGORITHM.md §10 "The job's answer"):
 * which of a job's answers (the analysis of its whole signal, one per
 * activity) is the one a person or a scheduler reads first.
 *
 * Part of libftioanalysis.a.  One rule, used by ftiod (prediction_json.c,
 * over job_answers()) and by `ftio` (cli/offline.c: the analysis of the whole
 * trace and every step of --window), so that both say the same:
 *   - one activity (or none known): the whole signal's answer, which is that
 *     activity's;
 *   - several: the answer of the activity that moves the most bytes (those
 *     within FTIO_ANSWER_TIE of it as heavy: the first pattern of them in
 *     byte order), when it has a period -- never the
 *     whole signal's mixture of periodic activities; the phase (bytes,
 *     duration) and the next phase's bytes are the whole signal's when its
 *     period is that activity's (what the job moves in those phases, outputs
 *     of other activities written with them included);
 *   - several, the heaviest without a period, or `uncertain` while the whole
 *     signal is `periodic` at another period: the whole signal's answer,
 *     named after the heaviest activity of its period, at most
 *     FTIO_NOT_HEAVIEST_CONF ("uncertain": what the job moves most has no
 *     period yet); a period that is no activity's while some activity has
 *     one (a mixture) at most FTIO_MIXTURE_CONF;
 *   - --compat: the whole signal's answer, as the published FTIO gives it.
 */
#ifndef FTIO_ANSWER_H
#define FTIO_ANSWER_H

#include <stddef.h>
#include "analysis.h"

/* Activities that move within this share of the heaviest's bytes are as
 * heavy: the first pattern of them is the job's (answer.c heaviest()). */
#define FTIO_ANSWER_TIE 0.1

/* The confidence a mixture line (a period of the whole signal that is no
 * activity's) may have at most, and that of another activity's period while
 * the heaviest has none of its own: never "periodic". */
#define FTIO_MIXTURE_CONF 0.5
#define FTIO_NOT_HEAVIEST_CONF 0.75

/* One activity's part in the choice. */
struct ftio_answer_part {
    const char *pattern;              /* its name (ties between equal bytes) */
    double bytes;                     /* what it moved */
    const struct ftio_result *res;    /* its answer; NULL before the first */
};

/* The job's answer from its whole signal's (job) and its n activities'.
 * *out: the answer to publish (times as in the inputs; phases are the
 * chosen answer's).  An activity's answer is as old as its last data: its
 * next phase is rolled on by whole periods past `now` (the time the whole
 * signal's latest analysis predicted after; NAN: as it is).  Returns the
 * index of the activity it is, or -1 when it is no activity's. */
int ftio_job_answer(const struct ftio_result *job, const struct ftio_answer_part *acts, size_t n,
                    double now,
                    struct ftio_result *out);

/* The share (0..1) of the job's I/O that the analysed signal holds caps
 * the confidence of its answer: I/O the trace records but ftio cannot read
 * (Darshan's DFS and DAOS modules) may hold the period, or none.  A share
 * below 1 lowers r's confidence to at most the share (and `periodic` below
 * 0.8 to `uncertain`). */
void ftio_answer_cap_share(struct ftio_result *r, double share);

#endif
