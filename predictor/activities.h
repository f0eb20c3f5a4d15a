/* SPDX-License-Identifier: BSD-3-Clause */
/* activities.h -- a job's periodic activities (docs/ALGORITHM.md §10): the
 * requests of one mode grouped by what they write or read, so that each
 * periodic behaviour of a job (LAMMPS' dumps and its restarts, GROMACS'
 * frames and its checkpoints) gets a period of its own.
 *
 * Part of libftioanalysis.a.  The grouping needs, per request, the id of its
 * file and a way to turn an id into a path (the shim's file table, a DXT
 * header); it knows nothing of trace formats.  Rules, in order:
 *   1. a file's pattern is its path with every run of digits of its file
 *      name replaced by '#' (dump.100.lammpstrj, dump.200.lammpstrj ->
 *      dump.#.lammpstrj; ckpt_0007.h5 -> ckpt_#.h5; an extension that begins
 *      with a letter, up to 5 characters, is kept as it is; directories are
 *      kept: runs/lmp1/ and runs/lmp2/ are two runs), so the same file
 *      (appends, rewrites) and a series of files with one file per output are
 *      one activity; patterns that differ only by the digits of their
 *      directories and were written one after the other (a directory per
 *      output) are one series (ftio_activity_series);
 *   1b. a pattern of one file that moved at most FTIO_TINY_BYTES within
 *      FTIO_TINY_SPAN seconds (a randomly named temporary file) is no activity:
 *      it goes with the rest (rule 2);
 *   2. more than max_activities patterns (or tiny ones): those beyond the
 *      largest (max_activities - 1) by bytes are merged per directory, then
 *      whatever is still beyond is folded into one "other" activity;
 *   3. an activity whose phases fall into two clearly separate volume (or
 *      duration) classes -- one shared file written by two periodic
 *      behaviours -- is split into its "small" and "large" phases.
 * The per-activity analysis is the job's: requests -> signal -> samples ->
 * ftio_analyze() (ftio_activity_analyze), over the job's time span.  A
 * request's burst (rule 3) is read from the activity's signal: a request of
 * zero bytes in a silence no longer bridges it.
 * The online side (ftiod) uses rule 1 alone, per record, through
 * ftio_activity_pattern().
 */
#ifndef FTIO_ACTIVITIES_H
#define FTIO_ACTIVITIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis.h"

#define FTIO_PATTERN_MAX 512
#define FTIO_MAX_ACTIVITIES 8     /* default bound per job and mode */

/* The pattern of a path (rule 1) into out (truncated to outlen - 1, never
 * split inside a digit run); returns its length.  NULL or "" gives "". */
size_t ftio_activity_pattern(const char *path, char *out, size_t outlen);
/* The series a pattern belongs to: its directories' digits replaced too
 * (out/step100/data.h5 -> out/step#/data.h5); returns its length. */
size_t ftio_activity_series(const char *pattern, char *out, size_t outlen);

/* Rule 1b: files of a few bytes that appear once are not activities. */
#define FTIO_TINY_BYTES 4096.0
#define FTIO_TINY_SPAN  1.0
/* A pattern of nfiles files that moved `bytes` over `span` seconds. */
bool ftio_activity_tiny(double bytes, size_t nfiles, double span);

/* Why requests belong together. */
enum ftio_activity_rule {
    FTIO_RULE_FILE = 0,      /* one file */
    FTIO_RULE_PATTERN,       /* files of one pattern */
    FTIO_RULE_DIRECTORY,     /* patterns of one directory (rule 2) */
    FTIO_RULE_OTHER,         /* everything beyond the bound */
    FTIO_RULE_UNKNOWN,       /* requests without a file name */
};
const char *ftio_activity_rule_name(enum ftio_activity_rule r);
/* Which phases of its files an activity holds (rule 3). */
enum ftio_activity_shape { FTIO_SHAPE_ALL = 0, FTIO_SHAPE_SMALL, FTIO_SHAPE_LARGE };
const char *ftio_activity_shape_name(enum ftio_activity_shape s);   /* "all" "small" "large" */

struct ftio_activity {
    char pattern[FTIO_PATTERN_MAX];   /* "dir/dump.#.lammpstrj"; rule 2: the directory
                                         followed by a slash and a star; "(unknown)",
                                         "other" */
    char example[FTIO_PATTERN_MAX];   /* one of its files' paths, for people */
    enum ftio_activity_rule rule;
    enum ftio_activity_shape shape;
    size_t nfiles;                    /* distinct file ids */
    double bytes;                     /* bytes of its requests */
    double share;                     /* of the mode's bytes, 0..1 */
    size_t nreq;                      /* its requests */
    struct ftio_signal sig;           /* its bandwidth signal over the job's time span
                                         (zero at the job's first start and last end) */
    bool owns_sig;                    /* false: the job's own signal, lent to
                                         ftio_activities_group (the only activity) */
};

struct ftio_activity_set {
    size_t n;
    struct ftio_activity *a;          /* largest bytes first */
    size_t cap;                       /* private: slots allocated */
};

/* The id -> path lookup of the caller: NULL when the id is unknown. */
typedef const char *(*ftio_activity_path_fn)(void *ctx, uint32_t file_id);

struct ftio_activity_options {
    size_t max_activities;   /* rule 2 bound (FTIO_MAX_ACTIVITIES) */
    double burst_gap;        /* rule 3: silence that ends a phase, s (0.2) */
    double split_ratio;      /* rule 3: volume (or duration) ratio across the gap (4) */
    size_t split_min;        /* rule 3: phases each class needs (3) */
    bool whole_unused;       /* the caller analyses all of r itself and has no
                                whole signal to lend: an activity that is all
                                of r gets a signal only when rule 3 reads it (a
                                file or pattern); else its sig stays empty */
};
void ftio_activity_options_default(struct ftio_activity_options *o);

/* Group the n requests of r by file: fid[i] is request i's file id for
 * i < nfid (0 or missing: unknown), or with fid NULL the requests' own
 * (struct ftio_request.fid).  One pass over the requests (their groups),
 * one to place them when there are several activities, and each activity's
 * signal built from its requests where they are (no copy, no sort); rule 3
 * reads the bursts from that signal.  whole: the signal of all of r when
 * the caller has it (NULL: built when needed), lent to an activity that is
 * all of r (then it must outlive out).  Returns 0 (an empty r gives n = 0),
 * -1 on OOM. */
int ftio_activities_group(const struct ftio_requests *r, const uint32_t *fid, size_t nfid,
                          ftio_activity_path_fn path_of, void *ctx,
                          const struct ftio_activity_options *o, const struct ftio_signal *whole,
                          struct ftio_activity_set *out);
void ftio_activities_free(struct ftio_activity_set *s);

/* An activity's name for people and the job-level answer's `activity`
 * (PROTOCOL.md §2): its pattern, and " (small)" or " (large)" after it when
 * rule 3 split its files.  Into out (truncated); returns out. */
char *ftio_activity_name(const struct ftio_activity *a, char *out, size_t len);

/* The job's analysis on one activity's signal (ftio_analyze_signal with the
 * job's options): out's times are in the job's time base. */
int ftio_activity_analyze(struct ftio_analyzer *a, const struct ftio_activity *act,
                          const struct ftio_options *o, struct ftio_result *out,
                          char *err, size_t errlen);

/* An activity's answer kept from an earlier window (its data had nothing new
 * since): its next phase rolled forward by whole periods to after `now`. */
void ftio_activity_roll_next(struct ftio_result *r, double now);

/* Whether an activity's answer is the job's: both have a period and they lie
 * within 10 % of each other. */
bool ftio_activity_matches(const struct ftio_result *job, const struct ftio_result *act);

#endif
