/* SPDX-License-Identifier: BSD-3-Clause */
/* job_activities.h -- which activity each record of a job belongs to
 * (ALGORITHM.md §10 rule 1, PROTOCOL.md §2 `activities`), and the job's
 * answers as everything downstream of the analysis reads them.
 *
 * The batches' file tables name each file id; a name gives a pattern
 * (ftio_activity_pattern), a pattern an activity of the mode's stream
 * (analysis/stream.h: at most JOB_MAX_ACTIVITIES per mode, further
 * patterns in "other"; ids whose name never arrived are "(unknown)").  A
 * pattern that is a later directory of an activity's series (rule 1,
 * out/step200/ after out/step100/ ended) joins it; the records of a tiny
 * pattern (rule 1b) count in the mode but in no activity until it stops
 * being tiny.  The
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

/* A file pattern of the job (activities.h rule 1): its first file, how
 * many files and what they moved so far (rule 1b: a tiny one is no
 * activity until it moves more, gets a second file or lasts). */
struct job_pattern {
    char    *name;
    char    *example;                 /* its first file's path */
    uint32_t nfiles;
    double   bytes, first, last;      /* job-relative s */
};

struct job_activities {
    uint32_t *fkey;                   /* file id -> pattern id, open addressing */
    int32_t  *fval;
    size_t    fcap, fn;
    size_t    npat, patcap;
    struct job_pattern *pat;          /* pattern id -> pattern (the naming rule's state) */
    size_t    patbytes;               /* their names' bytes */
    int       unknown;                /* pattern id + 1 of "(unknown)", 0 before it is needed */
    int8_t    slot[JOB_NMODES][JOB_MAX_PATTERNS + 1];   /* pattern id -> stream activity + 1;
                                                            the last id is "beyond the table" */
    bool      changed;                /* files or activities since the last count */
    double    t_last[JOB_NMODES][JOB_MAX_ACTIVITIES];   /* end of each activity's latest
                                                            record (series, rule 1) */
    int16_t   example[JOB_NMODES][JOB_MAX_ACTIVITIES];  /* pattern id + 1 of its first */
};

void job_activities_free(struct job_activities *s);
/* Bytes held (for --max-memory): the names; the streams count their own. */
double job_activities_memory(const struct job *j);

/* A batch's file table (before its records). */
void job_activities_files(struct job *j, const struct ftio_batch *b);
/* The activity of mode `mode`'s stream that a record of file `file_id`
 * ([ts, te] job-relative s, `bytes`) belongs to (created when new), or -1
 * (a tiny pattern so far, or out of memory: the mode's alone). */
int  job_activity_of(struct job *j, int mode, uint32_t file_id, double ts, double te, double bytes);
/* After a batch's records: the files of each activity, counted again when
 * the file table or the activities changed. */
void job_activities_count(struct job *j);

/* One answer of (j, mode): the mode's own (its whole signal) or one
 * activity's, for what reads a job's answers downstream of the analysis
 * (the end message, the memory of runs, the machine forecast, the metrics)
 * without knowing how the streams keep them.  Times are job-relative s. */
struct job_answer {
    const char *pattern;                     /* NULL: the mode's own answer */
    const char *example;                     /* one of its files ("" unknown) */
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
