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

/* Whether the item at `p` can hold what its headers claim.  msgpack-c
 * allocates an array's or a map's objects from the count in its header
 * before it reads them, so five hostile bytes (an array32 of 2^32 items)
 * asked for tens of GB: ASan aborts, a plain build fails that malloc or,
 * under the overcommit limit, gets it.  Each item takes at least one byte,
 * so the items still owed may not outnumber the bytes left; a few owed past
 * the end is an ordinary truncation, left to msgpack_unpack_next() to say.
 * Only the headers are read. */
static bool counts_fit(const unsigned char *p, size_t len)
{
    size_t owed = 1, i = 0;
    while (owed > 0) {
        if (i >= len)
            return true;
        unsigned b = p[i++];
        owed--;
        uint64_t skip = 0, items = 0;
        unsigned len_bytes = 0, per_count = 0;   /* a big-endian length or count follows */
        if (b <= 0x7f || b >= 0xe0)
            ;                                    /* fixint */
        else if (b <= 0x8f)
            items = 2 * (b & 0x0fu);             /* fixmap */
        else if (b <= 0x9f)
            items = b & 0x0fu;                   /* fixarray */
        else if (b <= 0xbf)
            skip = b & 0x1fu;                    /* fixstr */
        else switch (b) {
        case 0xc1: return true;                  /* never used: msgpack-c says invalid */
        case 0xc4: case 0xd9: len_bytes = 1; break;               /* bin8, str8 */
        case 0xc5: case 0xda: len_bytes = 2; break;
        case 0xc6: case 0xdb: len_bytes = 4; break;
        case 0xc7: len_bytes = 1; skip = 1; break;                /* ext: + its type */
        case 0xc8: len_bytes = 2; skip = 1; break;
        case 0xc9: len_bytes = 4; skip = 1; break;
        case 0xcc: case 0xd0: skip = 1; break;                    /* ints */
        case 0xcd: case 0xd1: skip = 2; break;
        case 0xca: case 0xce: case 0xd2: skip = 4; break;         /* + float32 */
        case 0xcb: case 0xcf: case 0xd3: skip = 8; break;         /* + float64 */
        case 0xd4: skip = 2; break;                               /* fixext 1-16 */
        case 0xd5: skip = 3; break;
        case 0xd6: skip = 5; break;
        case 0xd7: skip = 9; break;
        case 0xd8: skip = 17; break;
        case 0xdc: len_bytes = 2; per_count = 1; break;           /* array16/32 */
        case 0xdd: len_bytes = 4; per_count = 1; break;
        case 0xde: len_bytes = 2; per_count = 2; break;           /* map16/32 */
        case 0xdf: len_bytes = 4; per_count = 2; break;
        default: break;                                           /* nil, bool */
        }
        if (len_bytes) {
            if (len - i < len_bytes)
                return true;
            uint64_t v = 0;
            for (unsigned k = 0; k < len_bytes; k++)
                v = v << 8 | p[i++];
            if (per_count)
                items = per_count * v;
            else
                skip += v;
        }
        if (skip > len - i)
            return true;
        i += skip;
        owed += items;
        if (owed > len - i && owed > 4096)
            return false;
    }
    return true;
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
        if (!counts_fit((const unsigned char *)buf + off, len - off)) {
            rc = FTIO_READER_FAIL(c, "offset %zu: a msgpack array or map claims more items than "
                                  "the file holds", at);
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
