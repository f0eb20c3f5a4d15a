/* SPDX-License-Identifier: BSD-3-Clause */
/* readers.h -- private contract between readers/trace.c (merge, dispatch) and
 * the per-format readers in readers/<format>.c.  Not installed.
 *
 * A reader parses buf[0..len) and appends into the set through the helpers
 * below.  On damage it writes "offset N: reason" or "line L: reason" into
 * ctx->err (trace.c prefixes the file name) and returns -1; whatever it
 * appended before stays, which is what --lenient analyses.
 */
#ifndef FTIO_READERS_H
#define FTIO_READERS_H

#include "trace.h"

struct ftio_reader_ctx {
    struct ftio_trace_set          *set;
    const char                     *name;
    const struct ftio_read_options *o;
    char                           *err;
    size_t                          errlen;
    bool                            mapped;  /* buf is a page-aligned read-only mmap */
};

int ftio_read_spool(struct ftio_reader_ctx *c, const char *buf, size_t len);
int ftio_read_tmio_json(struct ftio_reader_ctx *c, const char *buf, size_t len);
int ftio_read_tmio_msgpack(struct ftio_reader_ctx *c, const char *buf, size_t len);
int ftio_read_dxt(struct ftio_reader_ctx *c, const char *buf, size_t len);
int ftio_read_csv(struct ftio_reader_ctx *c, const char *buf, size_t len);
int ftio_read_darshan(struct ftio_reader_ctx *c, const char *buf, size_t len);

/* The trace of `job` in the set, created on first use; NULL on OOM. */
struct ftio_trace *ftio_trace_of_job(struct ftio_trace_set *set, const char *job);
/* Record that `key` (a rank, or a process key) was seen; -1 on OOM. */
int ftio_trace_see_rank(struct ftio_trace *t, int64_t key);
/* Direction of a trace for an op: write (1) or read (0). */
static inline struct ftio_trace_dir *ftio_trace_dir_of(struct ftio_trace *t, int is_write)
{
    return is_write ? &t->write : &t->read;
}
/* Append one step point to a direction's pre-merged signal. */
int ftio_trace_overlap_push(struct ftio_trace_dir *d, double t, double b);

/* Tag the request just pushed into d with file id `id` (earlier requests
 * without a tag get 0); -1 on OOM. */
int ftio_trace_dir_tag(struct ftio_trace_dir *d, uint32_t id);
/* A 64-bit file record id (Darshan's) as the 32-bit file id of our traces
 * (never 0, which means unknown). */
static inline uint32_t ftio_fold_file_id(uint64_t id)
{
    uint32_t f = (uint32_t)(id ^ (id >> 32));
    return f ? f : 1;
}
/* Name file `id` of t (the first path given for an id is kept); -1 on OOM. */
int ftio_trace_add_file(struct ftio_trace *t, uint32_t id, const char *path);
/* Its file system, when the trace says (the first one given is kept); -1 on OOM. */
int ftio_trace_add_file_fs(struct ftio_trace *t, uint32_t id, const char *fs);
/* With ftio_read_options.phases (t->keep_phases): the process `key` (a
 * rank, or a process key) of the request just pushed into d, which may be
 * a reader's own scratch direction of t (0 for earlier untagged ones); and
 * a metadata call of it.  Nothing without; -1 on OOM. */
int ftio_trace_dir_proc(const struct ftio_trace *t, struct ftio_trace_dir *d, int64_t key);
int ftio_trace_add_meta(struct ftio_trace *t, double ts, double te, int64_t key, int op);

/* Append every request of src to dst (rates kept as they are); -1 on OOM. */
int ftio_trace_append_requests(struct ftio_requests *dst, const struct ftio_requests *src);

/* A number at p (before end) in JSON's grammar (json) or strtod()'s decimal
 * one (optional '+', ".5", "5."), with strtod()'s value (readers/numscan.c);
 * returns the end of the number, NULL when p holds none (CSV callers then
 * try strtod() itself: hex, inf ...).  Out of range values are +-inf; a JSON
 * integer -0 is 0. */
const char *ftio_scan_number(const char *p, const char *end, bool json, double *out);

/* Rank counts and numbers above this are rejected as corrupt (and keep
 * double -> int64 conversions defined). */
#define FTIO_MAX_RANKS 1e12

#define FTIO_READER_FAIL(c, ...) (snprintf((c)->err, (c)->errlen, __VA_ARGS__), -1)

#endif
