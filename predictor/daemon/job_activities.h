/* SPDX-License-Identifier: BSD-3-Clause */
/* job_activities.h -- ftiod's per-activity streams (ALGORITHM.md §10,
 * PROTOCOL.md §2 `activities`): each (job, mode) splits its records by the
 * pattern of their file (activities.h rule 1), at most JOB_MAX_ACTIVITIES per
 * mode, further patterns folded into "other"; a pattern that is a later
 * directory of an activity's series (rule 1, out/step200/ after out/step100/
 * ended) joins it; the records of a tiny pattern (rule 1b) count in the mode
 * but in no activity until it stops being tiny.
 *
 * Kept apart from job.c and scheduler.c so that they call it in one place
 * each: job_merge() hands every merged batch to job_activities_merge();
 * analyse_boundary() brackets the mode's analysis with prepare (lock held:
 * copies), run (lock dropped: one ftio_online_step per activity) and commit
 * (lock held: results back); ftiod_prediction_json() adds
 * job_activities_json().  A mode with one activity has no bins of its own:
 * its answer is the mode's.  When a second one appears, the first takes a
 * copy of the mode's bins and online state (everything so far was its), so
 * memory grows only for jobs that have several activities.
 */
#ifndef FTIOD_JOB_ACTIVITIES_H
#define FTIOD_JOB_ACTIVITIES_H

#include <jansson.h>
#include "activities.h"
#include "batch_requests.h"
#include "job.h"

#define JOB_MAX_ACTIVITIES FTIO_MAX_ACTIVITIES
#define JOB_MAX_PATTERNS 256          /* distinct patterns remembered per job */

struct job_activity {
    char     pattern[FTIO_PATTERN_MAX];
    char     example[FTIO_PATTERN_MAX];   /* its first file's path */
    double   t_last;                  /* end of its latest record, job-relative s */
    size_t   nfiles;
    uint64_t records;
    double   bytes;
    bool     has_bins;                /* own bins (the mode has >= 2 activities) */
    struct ftio_bins bins;            /* on the mode's grid */
    struct ftio_online online;
    bool     has_result;
    struct ftio_online_update update; /* latest answer, job-relative times */
};

/* A file pattern of the job (activities.h rule 1): its first file, how
 * many files and what they moved so far (rule 1b: a tiny one is no
 * activity until it moves more, gets a second file or lasts). */
struct job_pattern {
    char     name[FTIO_PATTERN_MAX];
    char     example[FTIO_PATTERN_MAX];
    uint32_t nfiles;
    double   bytes, first, last;      /* job-relative s */
};

struct job_activities {
    uint32_t *fkey;                   /* file id -> pattern id, open addressing */
    int32_t  *fval;
    size_t    fcap, fn;
    size_t    npat, patcap;
    struct job_pattern *pat;          /* pattern id -> pattern (the naming rule's state) */
    int       unknown;                /* pattern id + 1 of "(unknown)", 0 before it is needed */
    int8_t    slot[JOB_NMODES][JOB_MAX_PATTERNS + 1];   /* pattern id -> activity + 1; the
                                                            last id is "beyond the table" */
    size_t    n[JOB_NMODES];
    struct job_activity *a[JOB_NMODES][JOB_MAX_ACTIVITIES];
};

void job_activities_free(struct job_activities *s);
/* Bytes held (for --max-memory). */
double job_activities_memory(const struct job *j);

/* After the batch's records went into the mode's bins (job.c merge_records):
 * its file table, and each data record into its activity. */
void job_activities_merge(struct job *j, const struct ftio_batch *b,
                          const struct ftio_convert_options *co, const struct job_limits *lim);

/* One boundary's work, made outside the lock. */
struct job_act_work;
/* Lock held: copy the window ending at te of every activity of (j, mode)
 * that has its own bins (each activity's own window: its loop forgets by its
 * own period), and its online state.  NULL when there is nothing to do. */
struct job_act_work *job_activities_prepare(struct job *j, int mode, double te);
/* Lock dropped: each activity's online step at boundary te, next phase after now. */
void job_activities_run(struct job_act_work *w, struct ftio_analyzer *an, struct ftio_samples *x,
                        double te, double now);
/* Lock held: results back into the job; frees w (NULL is fine). */
void job_activities_commit(struct job *j, int mode, struct job_act_work *w);

/* One answer of (j, mode): the mode's own (its whole signal) or one
 * activity's, for what reads a job's answers downstream of the analysis
 * (the end message, the memory of runs, the machine forecast, the metrics)
 * without knowing how the streams keep them.  Times are job-relative s. */
struct job_answer {
    const char *pattern;                     /* NULL: the mode's own answer */
    double   bytes;                          /* of the mode, or of the activity */
    uint64_t records;
    size_t   nfiles;                         /* 0 for the mode's own */
    const struct ftio_online_update *update; /* latest answer; NULL before the first */
};
/* out[0] the mode's own answer, then its activities largest bytes first (a
 * mode with one activity: that one, whose answer is the mode's); returns how
 * many were filled, at most max.  Caller holds the lock; the pointers are
 * valid until it is dropped. */
size_t job_answers(const struct job *j, int mode, struct job_answer *out, size_t max);

/* The "activities" array of (j, mode)'s prediction, times shifted by origin
 * (epoch s); job: the mode's own answer (the whole signal). */
json_t *job_activities_json(const struct job *j, int mode, double origin,
                            const struct ftio_online_update *job);

#endif
