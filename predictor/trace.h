/* SPDX-License-Identifier: BSD-3-Clause */
/* trace.h -- offline trace readers (libftioreaders.a): turn trace files of
 * every format of FORMATS.md into request sets for the analysis library.
 *
 * One reader per format lives in readers/<format>.c; readers/sniff.c picks
 * the reader from the file's content (extension is only a hint), and
 * readers/trace.c owns the merge: any number of files, of any formats, are
 * appended to one ftio_trace_set, grouped per job (spool files carry a job id;
 * every other format goes to the unnamed job "").
 *
 * Errors: a reader returns -1 with a one-line reason "FILE: offset N: why"
 * (binary formats) or "FILE: line L: why" (text formats).  With `lenient`,
 * a reader keeps what it read before the damage, returns 0 and puts the
 * reason in `warning` instead.
 *
 * Times: TMIO, custom JSON, DXT and CSV traces hold seconds already and are
 * kept as they are.  Spool files hold monotonic ns per process; each record is
 * mapped to wall time with its batch's clock anchor (realtime + (t - mono) +
 * skew), and then, by default, made relative to the earliest record of the job
 * (so outputs look like TMIO's); ftio_trace_set.origin holds that earliest
 * wall time in Unix epoch seconds.  With `absolute_time` the times are kept as
 * epoch seconds (origin = 0).
 */
#ifndef FTIO_TRACE_H
#define FTIO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis.h"
#include "defaults.h"   /* FTIO_DEFAULT_HORIZON */

enum ftio_trace_format {
    FTIO_FORMAT_AUTO = 0,
    FTIO_FORMAT_SPOOL,          /* our wire batches, concatenated (PROTOCOL.md §3) */
    FTIO_FORMAT_TMIO_JSON,      /* TMIO JSON / JSONL and custom JSON (one or more objects) */
    FTIO_FORMAT_TMIO_MSGPACK,   /* TMIO msgpack arrays */
    FTIO_FORMAT_DXT,            /* darshan-dxt-parser text */
    FTIO_FORMAT_CSV,            /* rank,op,t_start,t_end,bytes */
    FTIO_FORMAT_DARSHAN,        /* binary Darshan log, formats 3.00-3.41 */
};
const char *ftio_trace_format_name(enum ftio_trace_format f);

enum ftio_dxt_layer { FTIO_DXT_AUTO = 0, FTIO_DXT_POSIX, FTIO_DXT_MPIIO };

/* Which data to analyse, for formats that cannot say: a bare
 * {"bandwidth": ...} or b/ts/te custom JSON goes to this mode. */
enum ftio_io_mode { FTIO_MODE_WRITE = 0, FTIO_MODE_READ, FTIO_MODE_ALL };

struct ftio_read_options {
    enum ftio_trace_format format;   /* AUTO: detect */
    enum ftio_dxt_layer dxt;
    enum ftio_io_mode   bare_mode;   /* where mode-less data goes (WRITE for ALL) */
    bool lenient;                    /* keep what was read before damage */
    bool absolute_time;              /* spool: keep epoch seconds */
    bool keep_nested;                /* spool: count nested POSIX, drop MPI-IO instead */
    double max_span;                 /* s: longer requests are dropped and counted by
                                        ftio_trace_set_finish() (ftio --max-span) */
    bool phases;                     /* keep each request's process and the metadata
                                        calls, to describe the phases (cli/phases.c) */
};
/* The default --max-span: ftiod's default --horizon, beyond which ftiod drops a
 * record as impossible too (one bad timestamp must not stretch the window to
 * days and the analysis to gigabytes); and its bounds. */
#define FTIO_MAX_SPAN_DEFAULT FTIO_DEFAULT_HORIZON
#define FTIO_MAX_SPAN_MIN 1.0
#define FTIO_MAX_SPAN_MAX 1e9
void ftio_read_options_default(struct ftio_read_options *o);

/* One direction (read or write) of one job. */
struct ftio_trace_dir {
    struct ftio_requests req;   /* rank-level requests, rate over [t_start, t_end) */
    double bytes;               /* total bytes (as declared by the trace when it says) */
    bool   has_overlap;         /* TMIO pre-merged application signal present */
    struct ftio_signal overlap; /* step signal (t, b) when has_overlap */
    /* Each request's file id and process are in its record (struct
     * ftio_request: 0 unknown; formats without file names leave the id 0),
     * for the activities (predictor/activities.h) and the phases'
     * descriptions.  nproc: the requests before it may have a process
     * (ftio_read_options.phases, the formats that say: spool, DXT, Darshan
     * DXT, CSV); 0: none has, there is nothing to describe. */
    size_t nproc;
    /* private */
    size_t overlap_cap;
    bool   overlap_missing;     /* some part had requests but no overlap signal */
};

/* The file id of request i of d (0: unknown). */
static inline uint32_t ftio_trace_dir_fid(const struct ftio_trace_dir *d, size_t i)
{
    return i < d->req.n ? d->req.rec[i].fid : 0;
}

/* A metadata call of a process (open, close, sync, stat, other: the op of
 * common/record.h), kept with ftio_read_options.phases (spool files). */
struct ftio_trace_meta {
    double   ts, te;
    uint32_t proc;
    uint8_t  op;
};

/* A file the trace names (spool file tables, DXT headers). */
struct ftio_trace_file {
    uint32_t id;
    char    *path;
    char    *fs;                /* its file system "TYPE:MOUNTPOINT", NULL when not known */
};

struct ftio_trace {
    char    *job;               /* "" for formats without a job id */
    struct ftio_trace_dir write, read;
    int64_t  ranks;             /* number of ranks (max declared or distinct seen) */
    uint64_t records;           /* data records read (after dropping nested) */
    uint64_t lost;              /* records the tracer declared lost */
    uint64_t dropped_nested;    /* spool: records not counted to avoid double counting */
    uint64_t bad_records;       /* spool: impossible bytes or times, dropped
                                   (common/batch_requests.h) */
    uint64_t dropped_long;      /* requests longer than max_span, dropped */
    double   dropped_long_bytes;
    double   origin;            /* epoch seconds of time 0, 0 when unknown */
    /* Job context, when the format records it (binary Darshan logs). */
    const char *source;         /* where the requests came from (static text), NULL: the
                                   format's own request records */
    const char *source_limits;  /* what that source cannot show (static text) or NULL */
    char    *exe;               /* command line, NULL when unknown */
    /* I/O the trace records but the signal does not hold (Darshan modules
     * ftio does not decode: DFS, DAOS, any it does not know): their names
     * ("DFS, DAOS") and bytes per direction (0 read, 1 write; NAN when a
     * module's bytes are unknown).  The share of the job's I/O the signal
     * holds caps the confidence (answer.h ftio_answer_cap_share). */
    char     unread[96];
    double   unread_bytes[2];
    int64_t  uid;               /* -1 when unknown */
    double   run_time;          /* s, 0 when unknown */
    /* Spool files: the application identity the shim sent (PROTOCOL.md §1
     * `app`), for the memory of runs (`ftio scan --history`); NULL when no
     * batch had one.  start_ns: the wall clock of the earliest batch that
     * carried one.  rank_mpi_ns[r]: of rank r's first batch with `mpi`
     * (its MPI_Init; 0: none), for an MPI job's start as ftiod takes it,
     * the last rank's (daemon/history_job.c). */
    struct ftio_trace_app {
        char   *exe, *exe_id, *args, *args_norm, *name;
        int64_t uid;
        int64_t start_ns;
    } *app;
    int64_t *rank_mpi_ns;
    size_t   rank_mpi_n;
    /* Files by id (first path seen for an id wins), for ftio_trace_file_path(). */
    struct ftio_trace_file *files;
    size_t   nfiles;
    /* Metadata calls, with ftio_read_options.phases (times as the requests'). */
    struct ftio_trace_meta *meta;
    size_t   nmeta;
    /* private */
    size_t   files_cap;
    uint32_t *file_slot;        /* open addressing: index + 1 into files, 0 empty */
    size_t   file_slot_cap;
    int64_t  ranks_declared;    /* max rank count a header declared */
    int64_t  base_ns;           /* spool: wall ns that times are relative to until
                                   ftio_trace_set_finish() (the job's origin) */
    bool     has_base;
    int64_t *rankset;           /* open-addressing set of rank keys seen */
    size_t   rankset_n, rankset_cap;
    size_t   meta_cap;
    bool     keep_phases;       /* the reader keeps processes and metadata calls */
};

struct ftio_trace_set {
    size_t n, cap;
    struct ftio_trace *job;     /* n jobs, in order of first appearance */
    bool phases;                /* private: the options' phases while a file is read */
};

/* Guess the format of a buffer (content first, then the name's extension). */
enum ftio_trace_format ftio_trace_detect(const void *buf, size_t len, const char *name);

/* Read one file and merge it into set.  Returns 0 (warning[0] != 0 when
 * lenient recovery happened), -1 on error with err set. */
int ftio_trace_read_file(struct ftio_trace_set *set, const char *path,
                         const struct ftio_read_options *o,
                         char *err, size_t errlen, char *warning, size_t warnlen);
/* Same from memory; `name` is used in messages and for the extension hint. */
int ftio_trace_read_buffer(struct ftio_trace_set *set, const void *buf, size_t len,
                           const char *name, const struct ftio_read_options *o,
                           char *err, size_t errlen, char *warning, size_t warnlen);

/* After all files: spool times relative to the earliest record (unless
 * absolute_time), rank counts finalised.  Call once before analysing. */
void ftio_trace_set_finish(struct ftio_trace_set *set, const struct ftio_read_options *o);
void ftio_trace_set_free(struct ftio_trace_set *set);

/* The requests of `mode` of a trace (ALL: reads and writes concatenated into
 * *scratch, which the caller frees with ftio_requests_free). */
const struct ftio_requests *ftio_trace_requests(const struct ftio_trace *t, enum ftio_io_mode mode,
                                                struct ftio_requests *scratch);
double ftio_trace_bytes(const struct ftio_trace *t, enum ftio_io_mode mode);

/* The path of file id `id` in trace t, NULL when the trace does not name it.
 * Takes a const struct ftio_trace * as ctx (an ftio_activity_path_fn). */
const char *ftio_trace_file_path(void *t, uint32_t id);
/* Its file system ("TYPE:MOUNTPOINT", from spool files), NULL when unknown. */
const char *ftio_trace_file_fs(const struct ftio_trace *t, uint32_t id);

/* The activities of `mode` of a trace (predictor/activities.h); o NULL for
 * the defaults; whole: the mode's signal when the caller has built it (lent
 * to an activity that is all of it: it must outlive out), or NULL.  -1 on
 * OOM. */
struct ftio_activity_set;
struct ftio_activity_options;
int ftio_trace_activities(const struct ftio_trace *t, enum ftio_io_mode mode,
                          const struct ftio_activity_options *o, const struct ftio_signal *whole,
                          struct ftio_activity_set *out);

#endif
