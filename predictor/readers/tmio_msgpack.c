/* SPDX-License-Identifier: BSD-3-Clause */
/* tmio_msgpack.c -- TMIO MessagePack traces (FORMATS.md §3).
 *
 * A stream of msgpack arrays, one per mode per flush:
 *   [name, is_async, is_write, total_bytes, max_bytes_per_rank,
 *    max_bytes_per_phase, max_io_phases_per_rank, total_io_phases,
 *    max_io_ops_in_phase, max_io_ops_per_rank, total_io_ops,
 *    number_of_ranks, total_number_of_ranks, records]
 * each record [bytes, t_start, t_end_actual, t_end_required, T_sum, T_avr,
 * B_sum, B_avr, n_ops]; the rate is T_avr over [t_start, t_end_actual).
 * ["io_time", ...] items are skipped.  Numbers may be ints or floats.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <msgpack.h>
#include "msgpack_skip.h"
#include "readers.h"

#define MODE_ITEM_LEN 14
#define RECORD_LEN    9

static int as_number(const msgpack_object *o, double *out)
{
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER: *out = (double)o->via.u64; return 0;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: *out = (double)o->via.i64; return 0;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:          *out = o->via.f64; return isfinite(*out) ? 0 : -1;
    default: return -1;
    }
}

static int str_is(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

static int read_item(struct ftio_reader_ctx *c, struct ftio_trace *t, const msgpack_object *o,
                     size_t at)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size == 0)
        return FTIO_READER_FAIL(c, "offset %zu: expected a TMIO mode array", at);
    const msgpack_object *a = o->via.array.ptr;
    if (str_is(&a[0], "io_time"))
        return 0;
    int is_write;
    if (str_is(&a[0], "write_sync") || str_is(&a[0], "write_async"))
        is_write = 1;
    else if (str_is(&a[0], "read_sync") || str_is(&a[0], "read_async"))
        is_write = 0;
    else
        return FTIO_READER_FAIL(c, "offset %zu: unknown TMIO mode name", at);
    if (o->via.array.size != MODE_ITEM_LEN)
        return FTIO_READER_FAIL(c, "offset %zu: mode item has %u elements, expected %d",
                                at, o->via.array.size, MODE_ITEM_LEN);
    double total_bytes, nranks;
    if (as_number(&a[3], &total_bytes) || as_number(&a[11], &nranks) || nranks < 0 ||
        nranks > FTIO_MAX_RANKS)
        return FTIO_READER_FAIL(c, "offset %zu: total_bytes or number_of_ranks is not a number", at);
    const msgpack_object *recs = &a[13];
    if (recs->type != MSGPACK_OBJECT_ARRAY)
        return FTIO_READER_FAIL(c, "offset %zu: records is not an array", at);
    struct ftio_trace_dir *d = ftio_trace_dir_of(t, is_write);
    for (uint32_t i = 0; i < recs->via.array.size; i++) {
        const msgpack_object *r = &recs->via.array.ptr[i];
        double ts, te, rate;
        if (r->type != MSGPACK_OBJECT_ARRAY || r->via.array.size != RECORD_LEN ||
            as_number(&r->via.array.ptr[1], &ts) || as_number(&r->via.array.ptr[2], &te) ||
            as_number(&r->via.array.ptr[5], &rate))
            return FTIO_READER_FAIL(c, "offset %zu: record %u is not [bytes, t_start, t_end, ...] "
                                    "of %d numbers", at, i, RECORD_LEN);
        if (rate < 0 || te < ts)
            return FTIO_READER_FAIL(c, "offset %zu: record %u: negative rate or end before start",
                                    at, i);
        if (ftio_requests_push_rate(&d->req, ts, te, rate) != 0)
            return FTIO_READER_FAIL(c, "offset %zu: out of memory", at);
    }
    t->records += recs->via.array.size;
    d->bytes += total_bytes;
    if (recs->via.array.size)
        d->overlap_missing = true;
    if ((int64_t)nranks > t->ranks_declared)
        t->ranks_declared = (int64_t)nranks;
    return 0;
}

int ftio_read_tmio_msgpack(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = 0;
    while (off < len) {
        size_t at = off;
        /* msgpack-c allocates a container's objects from its header's count
         * before reading them: the headers are walked first (msgpack_skip.h). */
        size_t size;
        enum ftio_mp_skip walk = ftio_mp_skip((const uint8_t *)buf + off, len - off, &size);
        if (walk == FTIO_MP_OVERCLAIM) {
            rc = FTIO_READER_FAIL(c, "offset %zu: a msgpack array or map claims more items than "
                                  "the file holds", at);
            break;
        }
        if (walk == FTIO_MP_TRUNC) {
            rc = FTIO_READER_FAIL(c, "offset %zu: truncated msgpack item", at);
            break;
        }
        if (walk == FTIO_MP_INVALID) {
            rc = FTIO_READER_FAIL(c, "offset %zu: invalid msgpack", at);
            break;
        }
        msgpack_unpack_return ret = msgpack_unpack_next(&u, buf, len, &off);
        if (ret == MSGPACK_UNPACK_CONTINUE) {
            rc = FTIO_READER_FAIL(c, "offset %zu: truncated msgpack item", at);
            break;
        }
        if (ret < 0) {
            rc = FTIO_READER_FAIL(c, "offset %zu: %s", at, ret == MSGPACK_UNPACK_NOMEM_ERROR
                                  ? "out of memory" : "invalid msgpack");
            break;
        }
        if ((rc = read_item(c, t, &u.data, at)) != 0)
            break;
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}
