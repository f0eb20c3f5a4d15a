/* spool.c -- our own spool / recording files (FORMATS.md §1, PROTOCOL.md §3):
 * wire batches (msgpack maps) back to back, decoded with ftio_wire_decode().
 *
 * Records are grouped per job (the batch header's job id).  Only read and
 * write records are data.  Nested POSIX records (issued by the MPI library
 * inside an MPI-IO call) carry bytes the MPI-IO record already counts, so by
 * default they are dropped; with keep_nested the MPI-IO records are dropped
 * instead and the data is counted at the POSIX layer.
 * Times: wall = clock_real + (t - clock_mono) + skew_ns, kept as seconds
 * since the job's first anchor (exact in int64 ns, then small doubles);
 * ftio_trace_set_finish() makes them relative or absolute.
 * Spool files can be GBs: when the file is mmap'ed, pages already decoded are
 * handed back to the kernel as we go, so they do not add to the peak RSS.
 */

#define RELEASE_EVERY (16u << 20)
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "readers.h"
#include "wire.h"

/* A key for a process without an MPI rank, disjoint from small ranks. */
static int64_t process_key(const struct ftio_batch_header *h)
{
    uint64_t x = 1469598103934665603ull;
    for (const char *p = h->host ? h->host : ""; *p; p++)
        x = (x ^ (unsigned char)*p) * 1099511628211ull;
    x = (x ^ (uint64_t)h->pid) * 1099511628211ull;
    return (int64_t)(x | (1ull << 62)) & INT64_MAX;
}

static int take_batch(struct ftio_reader_ctx *c, const struct ftio_batch *b, size_t at)
{
    const struct ftio_batch_header *h = &b->h;
    struct ftio_trace *t = ftio_trace_of_job(c->set, h->job ? h->job : "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    if (!t->has_base) {
        t->base_ns = h->clock_real;
        t->has_base = true;
    }
    if (ftio_trace_see_rank(t, h->rank >= 0 ? h->rank : process_key(h)) != 0)
        return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    if (h->nranks > t->ranks_declared)
        t->ranks_declared = h->nranks;
    t->lost += h->lost;

    /* wall(t) - base, in ns, for this batch: t + shift.  Unsigned arithmetic
     * wraps instead of overflowing on hostile anchors (no UB, just odd times). */
    uint64_t shift = (uint64_t)h->clock_real - (uint64_t)h->clock_mono + (uint64_t)h->skew_ns -
                     (uint64_t)t->base_ns;
    for (size_t i = 0; i < b->n; i++) {
        const struct ftio_record *r = &b->rec[i];
        if (!ftio_op_is_data(r->op))
            continue;
        int nested = (r->flags & FTIO_FLAG_NESTED) != 0;
        if (c->o->keep_nested ? r->layer == FTIO_LAYER_MPIIO : nested) {
            t->dropped_nested++;
            continue;
        }
        if (r->bytes < 0)
            return FTIO_READER_FAIL(c, "offset %zu: record %zu has negative bytes", at, i);
        double ts = (double)(int64_t)(r->t_start + shift) / 1e9;
        double te = (double)(int64_t)(r->t_end + shift) / 1e9;
        if (te < ts)
            te = ts;   /* clock went backwards: keep the bytes, minimal duration */
        struct ftio_trace_dir *d = ftio_trace_dir_of(t, r->op == FTIO_OP_WRITE);
        if (ftio_requests_push_bytes(&d->req, ts, te, (double)r->bytes) != 0)
            return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
        d->bytes += (double)r->bytes;
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
