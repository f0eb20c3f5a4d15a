/* SPDX-License-Identifier: BSD-3-Clause */
/* batch_requests.c -- wire batch -> job-time requests: the rules of
 * batch_requests.h, applied per record.  Called once per record by ftiod's
 * merge (predictor/daemon/job.c) and by the spool reader
 * (predictor/readers/spool_read.c); it allocates nothing and never fails.
 */
#include "batch_requests.h"
#include "timeutil.h"

void ftio_convert_options_default(struct ftio_convert_options *o)
{
    o->keep_nested = false;
    o->latest_ns = INT64_MAX;
    o->earliest_ns = INT64_MIN;
}

struct ftio_batch_clock ftio_batch_clock_of(const struct ftio_batch_header *h)
{
    struct ftio_batch_clock c = { 0, false };
    c.ok = ftio_wall_base(h->clock_real, h->clock_mono, h->skew_ns, &c.base);
    return c;
}

/* Rule 4: wall ns of monotonic t; false when it overflows or precedes 1970. */
static bool wall_of(uint64_t t, struct ftio_batch_clock c, int64_t *w)
{
    return c.ok && ftio_wall_ns(t, c.base, w) && *w >= 0;
}

enum ftio_req_kind ftio_record_request(const struct ftio_record *r, struct ftio_batch_clock c,
                                       const struct ftio_convert_options *o,
                                       struct ftio_wall_request *out)
{
    /* 1. data */
    if (!ftio_op_is_data(r->op))
        return FTIO_REQ_OTHER;
    /* 2. each byte counted at one layer */
    if (o->keep_nested ? r->layer == FTIO_LAYER_MPIIO : (r->flags & FTIO_FLAG_NESTED) != 0)
        return FTIO_REQ_NESTED;
    /* 3. bytes */
    if (r->bytes < 0 || r->bytes > FTIO_MAX_REQUEST_BYTES) {
        out->bad = FTIO_BAD_SIZE;
        return FTIO_REQ_BAD;
    }
    /* 4. clock, 5. end before start, 6. plausibility */
    int64_t ws, we;
    if (!wall_of(r->t_start, c, &ws) || !wall_of(r->t_end, c, &we) || we < ws) {
        out->bad = FTIO_BAD_CLOCK;
        return FTIO_REQ_BAD;
    }
    if (we > o->latest_ns || ws < o->earliest_ns) {
        out->bad = we > o->latest_ns ? FTIO_BAD_FUTURE : FTIO_BAD_PAST;
        return FTIO_REQ_BAD;
    }
    out->start_ns = ws;
    out->end_ns = we;
    out->bytes = r->bytes;
    out->is_write = r->op == FTIO_OP_WRITE;
    return FTIO_REQ_DATA;
}

bool ftio_batch_survey(const struct ftio_batch *b, const struct ftio_convert_options *o,
                       int64_t *any, int64_t first[2], size_t count[2])
{
    struct ftio_batch_clock c = ftio_batch_clock_of(&b->h);
    int64_t f[2] = { INT64_MAX, INT64_MAX };
    count[0] = count[1] = 0;
    for (size_t i = 0; i < b->n; i++) {
        struct ftio_wall_request q;
        if (ftio_record_request(&b->rec[i], c, o, &q) != FTIO_REQ_DATA)
            continue;
        if (q.start_ns < f[q.is_write])
            f[q.is_write] = q.start_ns;
        count[q.is_write]++;
    }
    if (count[0] + count[1] == 0)
        return false;
    first[0] = f[0];
    first[1] = f[1];
    *any = f[0] < f[1] ? f[0] : f[1];
    return true;
}

bool ftio_batch_first_start(const struct ftio_batch *b, const struct ftio_convert_options *o,
                            int64_t *any, int64_t first[2])
{
    size_t count[2];
    return ftio_batch_survey(b, o, any, first, count);
}
