/* SPDX-License-Identifier: BSD-3-Clause */
/* job_activities.h -- which activity each record of a job belongs to
 * (ALGORITHM.md §10 rule 1, PROTOCOL.md §2 `activities`), and the job's
 * answers as everything downstream of the analysis reads them.
 *
 * The batches' file tables name each file id; a name gives a pattern
 * (ftio_activity_pattern), a pattern an activity of the mode's stream
 * (analysis/stream.h: at most JOB_MAX_ACTIVITIES per mode, further
 * patterns in "other"; ids whose name never arrived are "(unknown)").  The
 * streams keep the activities' bins, loops and answers; this file keeps the
 * names.  job.c calls it in two places: job_activities_files() with each
 * batch's file table, job_activity_of() for each data record.
 */
#ifndef FTIOD_JOB_ACTIVITIES_H
#define FTIOD_JOB_ACTIVITIES_H

#include <jansson.h>
#include "activities.h"
#include "job.h"

#define JOB_MAX_ACTIVITIES FTIO_MAX_ACTIVITIES
#define JOB_MAX_PATTERNS 256          /* distinct patterns remembered per job */

struct job_activities {
    uint32_t *fkey;                   /* file id -> pattern id, open addressing */
    int32_t  *fval;
    size_t    fcap, fn;
    size_t    npat, patcap;
    char    (*pat)[FTIO_PATTERN_MAX]; /* pattern id -> pattern */
    int       unknown;                /* pattern id + 1 of "(unknown)", 0 before it is needed */
    int8_t    slot[JOB_NMODES][JOB_MAX_PATTERNS + 1];   /* pattern id -> stream activity + 1;
                                                            the last id is "beyond the table" */
    bool      changed;                /* files or activities since the last count */
};

void job_activities_free(struct job_activities *s);
/* Bytes held (for --max-memory): the names; the streams count their own. */
double job_activities_memory(const struct job *j);

/* A batch's file table (before its records). */
void job_activities_files(struct job *j, const struct ftio_batch *b);
/* The activity of mode `mode`'s stream that a record of file `file_id`
 * belongs to (created when new), or -1 (out of memory: the mode's alone). */
int  job_activity_of(struct job *j, int mode, uint32_t file_id);
/* After a batch's records: the files of each activity, counted again when
 * the file table or the activities changed. */
void job_activities_count(struct job *j);

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
