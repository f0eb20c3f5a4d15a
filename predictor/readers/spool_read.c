/* SPDX-License-Identifier: BSD-3-Clause */
/* spool_read.c -- our own spool / recording files (FORMATS.md §1, PROTOCOL.md §3):
 * wire batches (msgpack maps) back to back, decoded with ftio_wire_decode().
 *
 * Records are grouped per job (the batch header's job id) and become
 * requests by the conversion ftiod uses too (common/batch_requests.h: data
 * ops, nested records counted once or --keep-nested, bytes, clock anchor,
 * order, time origin), so a spool file gives the same requests offline as
 * replayed into the daemon.  Times are seconds since the job's origin (the
 * earliest start in its first data batch); ftio_trace_set_finish() then makes
 * them relative to the earliest request, or absolute.
 * Spool files can be GBs: when the file is mmap'ed, pages already decoded are
 * handed back to the kernel as we go, so they do not add to the peak RSS.
 */

#define RELEASE_EVERY (16u << 20)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "readers.h"
#include "batch_requests.h"
#include "hash.h"

/* A key for a process without an MPI rank, disjoint from small ranks: its
 * host, pid and `born` (PROTOCOL.md §1), as ftiod tells processes apart, so
 * that two processes with one pid (a pid reused, a container's pid 1) are
 * two here too.  A sender without `born` (0) keeps the key it always had. */
static int64_t process_key(const struct ftio_batch_header *h)
{
    uint64_t x = ftio_fnv_str(FTIO_FNV_BASIS_NAMES, h->host ? h->host : "");
    x = ftio_fnv_step(x, (uint64_t)h->pid);
    if (h->born)
        x = ftio_fnv_step(x, (uint64_t)h->born);
    return (int64_t)(x | (1ull << 62)) & INT64_MAX;
}

/* A metadata call (open, close, sync, ...) for the phases' descriptors:
 * its wall time by the batch's anchor (rule 4 of batch_requests.h), counted
 * once across layers as data is (rule 2). */
static int take_meta(struct ftio_trace *t, const struct ftio_record *r, struct ftio_batch_clock clk,
                     const struct ftio_convert_options *co, int64_t key)
{
    bool nested = r->flags & FTIO_FLAG_NESTED;
    int64_t s, e;
    if (r->op == FTIO_OP_SEEK || (co->keep_nested ? r->layer == FTIO_LAYER_MPIIO : nested) ||
        !clk.ok || r->t_start > INT64_MAX || r->t_end < r->t_start ||
        __builtin_add_overflow((int64_t)r->t_start, clk.base, &s) ||
        __builtin_add_overflow((int64_t)r->t_end, clk.base, &e))
        return 0;
    return ftio_trace_add_meta(t, ftio_job_seconds(s, t->base_ns), ftio_job_seconds(e, t->base_ns),
                               key, r->op);
}

/* The job's application identity (PROTOCOL.md §1 `app`, in each image's
 * first batch): the first seen, and the earliest start.  0, or -1 out of
 * memory. */
static int keep_app(struct ftio_trace *t, const struct ftio_batch_header *h)
{
    if (t->app) {
        if (h->clock_real > 0 && h->clock_real < t->app->start_ns)
            t->app->start_ns = h->clock_real;
        return 0;
    }
    const struct ftio_app_identity *a = &h->app;
    struct ftio_trace_app *k = calloc(1, sizeof *k);
    if (!k)
        return -1;
    k->exe = strdup(a->exe ? a->exe : "");
    k->exe_id = strdup(a->exe_id ? a->exe_id : "");
    k->args = strdup(a->args ? a->args : "");
    k->args_norm = strdup(a->args_norm ? a->args_norm : "");
    k->name = strdup(a->name ? a->name : "");
    k->uid = a->uid;
    k->start_ns = h->clock_real;
    t->app = k;
    return k->exe && k->exe_id && k->args && k->args_norm && k->name ? 0 : -1;
}

/* An MPI job's start as ftiod takes it: the last rank's MPI_Init, from each
 * rank's first batch that says it is through (the files of a job may come
 * in any order: the earliest per rank).  0, or -1 out of memory. */
static int note_mpi(struct ftio_trace *t, const struct ftio_batch_header *h)
{
    if (h->mpi < FTIO_MPI_INIT || h->rank < 0 || h->rank >= h->nranks || h->nranks > (1 << 24))
        return 0;
    if ((size_t)h->nranks > t->rank_mpi_n) {
        int64_t *v = realloc(t->rank_mpi_ns, (size_t)h->nranks * sizeof *v);
        if (!v)
            return -1;
        memset(v + t->rank_mpi_n, 0, ((size_t)h->nranks - t->rank_mpi_n) * sizeof *v);
        t->rank_mpi_ns = v;
        t->rank_mpi_n = (size_t)h->nranks;
    }
    int64_t *r = &t->rank_mpi_ns[h->rank];
    if (*r == 0 || h->clock_real < *r)
        *r = h->clock_real;
    return 0;
}

static int take_batch(struct ftio_reader_ctx *c, const struct ftio_batch *b, size_t at)
{
    const struct ftio_batch_header *h = &b->h;
    struct ftio_trace *t = ftio_trace_of_job(c->set, h->job ? h->job : "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    int64_t key = h->rank >= 0 ? h->rank : process_key(h);
    if (ftio_trace_see_rank(t, key) != 0)
        return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    if (h->nranks > t->ranks_declared)
        t->ranks_declared = h->nranks;
    t->lost += h->lost;
    if ((h->has_app && keep_app(t, h) != 0) || note_mpi(t, h) != 0)
        return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    for (size_t i = 0; i < h->nfiles; i++)
        if (ftio_trace_add_file(t, h->files[i].id, h->files[i].path) != 0 ||
            ftio_trace_add_file_fs(t, h->files[i].id, h->files[i].fs) != 0)
            return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);

    /* Every rule of what a record means is in common/batch_requests.h. */
    struct ftio_convert_options co;
    ftio_convert_options_default(&co);
    co.keep_nested = c->o->keep_nested;
    int64_t first, f[2];
    if (!t->has_base && ftio_batch_first_start(b, &co, &first, f)) {
        t->base_ns = first;   /* the job's origin, as ftiod takes it */
        t->has_base = true;
    }
    struct ftio_batch_clock clk = ftio_batch_clock_of(h);
    for (size_t i = 0; i < b->n; i++) {
        struct ftio_wall_request q;
        switch (ftio_record_request(&b->rec[i], clk, &co, &q)) {
        case FTIO_REQ_OTHER:
            if (t->keep_phases && t->has_base && take_meta(t, &b->rec[i], clk, &co, key) != 0)
                return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
            continue;
        case FTIO_REQ_NESTED:
            t->dropped_nested++;
            continue;
        case FTIO_REQ_BAD:
            t->bad_records++;
            continue;
        case FTIO_REQ_DATA:
            break;
        }
        double ts = ftio_job_seconds(q.start_ns, t->base_ns);
        double te = ftio_job_seconds(q.end_ns, t->base_ns);
        struct ftio_trace_dir *d = ftio_trace_dir_of(t, q.is_write);
        if (ftio_requests_push_bytes(&d->req, ts, te, (double)q.bytes) != 0 ||
            ftio_trace_dir_tag(d, b->rec[i].file_id) != 0 || ftio_trace_dir_proc(t, d, key) != 0)
            return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
        d->bytes += (double)q.bytes;
        d->overlap_missing = true;
        t->records++;
    }
    return 0;
}

int ftio_read_spool(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_batch b;
    memset(&b, 0, sizeof b);
    size_t off = 0, released = 0, page = (size_t)sysconf(_SC_PAGESIZE);
    int rc = 0;
    char why[256];
    while (off < len) {
        size_t used = 0;
        int d = ftio_wire_decode(buf + off, len - off, &b, &used, why, sizeof why);
        if (d == 1) {
            rc = FTIO_READER_FAIL(c, "offset %zu: truncated batch (%zu of the file's bytes left)",
                                  off, len - off);
            break;
        }
        if (d != 0) {
            rc = FTIO_READER_FAIL(c, "offset %zu: %s", off + used, why);
            break;
        }
        if (used == 0) {
            rc = FTIO_READER_FAIL(c, "offset %zu: decoder made no progress", off);
            break;
        }
        if ((rc = take_batch(c, &b, off)) != 0)
            break;
        off += used;
        if (c->mapped && off - released >= RELEASE_EVERY) {
            size_t upto = off & ~(size_t)(page - 1);
            madvise((char *)buf + released, upto - released, MADV_DONTNEED);
            released = upto;
        }
    }
    ftio_batch_free(&b);
    return rc;
}
