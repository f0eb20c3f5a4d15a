/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_encode.c -- header + records -> one msgpack batch map (PROTOCOL.md §1).
 *
 * Runs in the shim's flusher thread and in tools (replay, tests).  Records are
 * written column by column (ts[], te[], bytes[], ...) because integer columns
 * of similar values pack small and the daemon decodes them in tight loops.
 * msgpack-c's packer writes the header through wbuf_write(), which appends to
 * the caller's growing buffer; the record columns are written directly.
 * Capacity is reserved once from a size bound so a batch costs at most one
 * reallocation, never one per record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include "wire.h"
#include "grow.h"

/* Worst-case msgpack size of one record: 4 x 64-bit ints (9 bytes each),
 * fid as uint32 (5), flags as uint16 (3), op and layer as fixints (1). */
#define RECORD_MAX_PACKED (4 * 9 + 5 + 3 + 1 + 1)
#define HEADER_MAX_PACKED 512       /* keys + fixed-size header values */

static int wbuf_reserve(struct ftio_wbuf *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return 0;
    size_t want = b->len + extra;
    if (want < b->len)
        return -1;
    return FTIO_GROW(b->data, b->cap, want);
}

/* msgpack_packer write callback: append to the wbuf. */
static int wbuf_write(void *data, const char *buf, size_t len)
{
    struct ftio_wbuf *b = data;
    if (b->cap - b->len < len && wbuf_reserve(b, len) < 0)
        return -1;
    memcpy(b->data + b->len, buf, len);
    b->len += len;
    return 0;
}

static inline uint8_t *put_be(uint8_t *p, uint8_t tag, uint64_t v, int nbytes)
{
    *p++ = tag;
    for (int i = nbytes - 1; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* Smallest msgpack encoding of an unsigned / signed integer. */
static inline uint8_t *put_uint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) { *p = (uint8_t)v; return p + 1; }
    if (v <= UINT8_MAX)  return put_be(p, 0xcc, v, 1);
    if (v <= UINT16_MAX) return put_be(p, 0xcd, v, 2);
    if (v <= UINT32_MAX) return put_be(p, 0xce, v, 4);
    return put_be(p, 0xcf, v, 8);
}

static inline uint8_t *put_int(uint8_t *p, int64_t v)
{
    if (v >= 0)
        return put_uint(p, (uint64_t)v);
    if (v >= -32) { *p = (uint8_t)v; return p + 1; }         /* negative fixint */
    if (v >= INT8_MIN)  return put_be(p, 0xd0, (uint64_t)v, 1);
    if (v >= INT16_MIN) return put_be(p, 0xd1, (uint64_t)v, 2);
    if (v >= INT32_MIN) return put_be(p, 0xd2, (uint64_t)v, 4);
    return put_be(p, 0xd3, (uint64_t)v, 8);
}

static int pack_key(msgpack_packer *pk, const char *key)
{
    size_t n = strlen(key);
    return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, key, n);
}

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return msgpack_pack_str(pk, n) | (n ? msgpack_pack_str_body(pk, s, n) : 0);
}

static int str_ok(const char *s, int may_be_empty)
{
    if (!s)
        return may_be_empty;
    size_t n = strnlen(s, FTIO_WIRE_MAX_STR + 1);
    return n <= FTIO_WIRE_MAX_STR && (n > 0 || may_be_empty);
}

/* The `app` map: its present fields only. */
static int pack_app(msgpack_packer *pk, const struct ftio_app_identity *a)
{
    const char *key[] = { "exe", "exe_id", "args", "args_norm", "name" };
    const char *val[] = { a->exe, a->exe_id, a->args, a->args_norm, a->name };
    size_t n = a->uid >= 0;
    for (size_t i = 0; i < sizeof key / sizeof *key; i++)
        n += val[i] != NULL;
    int rc = pack_key(pk, "app") | msgpack_pack_map(pk, n);
    for (size_t i = 0; i < sizeof key / sizeof *key; i++)
        if (val[i])
            rc |= pack_key(pk, key[i]) | pack_cstr(pk, val[i]);
    if (a->uid >= 0)
        rc |= pack_key(pk, "uid") | msgpack_pack_int64(pk, a->uid);
    return rc;
}

/* The whole batch; returns non-zero if any write failed. */
static int pack_batch(msgpack_packer *pk, struct ftio_wbuf *out,
                      const struct ftio_batch_header *h,
                      const struct ftio_record *rec, size_t n)
{
    int rc = 0;
    size_t nkeys = 19 + (h->mark != NULL) + (h->skew_ns != 0) + (h->mpi != 0) + h->has_app +
                   h->has_unseen;

    rc |= msgpack_pack_map(pk, nkeys);
    rc |= pack_key(pk, "v")      | msgpack_pack_int(pk, FTIO_WIRE_VERSION);
    rc |= pack_key(pk, "job")    | pack_cstr(pk, h->job);
    rc |= pack_key(pk, "host")   | pack_cstr(pk, h->host);
    rc |= pack_key(pk, "pid")    | msgpack_pack_int64(pk, h->pid);
    rc |= pack_key(pk, "rank")   | msgpack_pack_int32(pk, h->rank);
    rc |= pack_key(pk, "nranks") | msgpack_pack_int32(pk, h->nranks);
    rc |= pack_key(pk, "seq")    | msgpack_pack_uint64(pk, h->seq);
    rc |= pack_key(pk, "clock")  | msgpack_pack_array(pk, 2);
    rc |= msgpack_pack_int64(pk, h->clock_mono) | msgpack_pack_int64(pk, h->clock_real);
    rc |= pack_key(pk, "lost")   | msgpack_pack_uint64(pk, h->lost);
    if (h->skew_ns != 0)
        rc |= pack_key(pk, "skew_ns") | msgpack_pack_int64(pk, h->skew_ns);
    if (h->mark)
        rc |= pack_key(pk, "mark") | pack_cstr(pk, h->mark);
    if (h->mpi != 0)
        rc |= pack_key(pk, "mpi") | msgpack_pack_int32(pk, h->mpi);
    rc |= pack_key(pk, "final")  | (h->final ? msgpack_pack_true(pk) : msgpack_pack_false(pk));
    if (h->has_app)
        rc |= pack_app(pk, &h->app);
    if (h->has_unseen) {
        rc |= pack_key(pk, "unseen") | msgpack_pack_array(pk, 2);
        rc |= msgpack_pack_uint64(pk, h->unseen_read) | msgpack_pack_uint64(pk, h->unseen_write);
    }

    rc |= pack_key(pk, "files")  | msgpack_pack_array(pk, h->nfiles);
    for (size_t i = 0; i < h->nfiles; i++) {
        rc |= msgpack_pack_array(pk, h->files[i].fs ? 3 : 2) | msgpack_pack_uint32(pk, h->files[i].id);
        rc |= pack_cstr(pk, h->files[i].path);
        if (h->files[i].fs)
            rc |= pack_cstr(pk, h->files[i].fs);
    }

    /* One loop per column: the hot part for large batches.  The values are
     * written straight into the reserved buffer (put_uint/put_int pick the
     * smallest encoding, as msgpack-c does) instead of one packer callback
     * per value, which is ~5x faster. */
#define COLUMN(key, put_expr)                                    \
    rc |= pack_key(pk, key) | msgpack_pack_array(pk, n);         \
    if (rc == 0 && wbuf_reserve(out, n * 9) == 0) {              \
        uint8_t *p = (uint8_t *)out->data + out->len;            \
        for (size_t i = 0; i < n; i++)                           \
            p = (put_expr);                                      \
        out->len = (size_t)((char *)p - out->data);              \
    } else {                                                     \
        rc = -1;                                                 \
    }
    COLUMN("ts",    put_uint(p, rec[i].t_start))
    COLUMN("te",    put_uint(p, rec[i].t_end))
    COLUMN("bytes", put_int(p, rec[i].bytes))
    COLUMN("off",   put_int(p, rec[i].offset))
    COLUMN("op",    put_uint(p, rec[i].op))
    COLUMN("layer", put_uint(p, rec[i].layer))
    COLUMN("fid",   put_uint(p, rec[i].file_id))
    COLUMN("flags", put_uint(p, rec[i].flags))
#undef COLUMN
    return rc;
}

int ftio_wire_encode(struct ftio_wbuf *out, const struct ftio_batch_header *h,
                     const struct ftio_record *rec, size_t n)
{
    /* Refuse what the decoder would reject, so a bug shows up at the sender. */
    if (!out || !h || (n && !rec) || n > FTIO_WIRE_MAX_RECORDS ||
        h->nfiles > FTIO_WIRE_MAX_FILES || (h->nfiles && !h->files) ||
        !str_ok(h->job, 0) || !str_ok(h->host, 1) || !str_ok(h->mark, 1)) {
        errno = EINVAL;
        return -1;
    }
    size_t bound = HEADER_MAX_PACKED + n * RECORD_MAX_PACKED;
    if (h->job)  bound += strlen(h->job);
    if (h->host) bound += strlen(h->host);
    if (h->mark) bound += strlen(h->mark);
    for (size_t i = 0; i < h->nfiles; i++) {
        if (!str_ok(h->files[i].path, 0) || !str_ok(h->files[i].fs, 1)) {
            errno = EINVAL;
            return -1;
        }
        bound += 16 + strlen(h->files[i].path) + (h->files[i].fs ? 6 + strlen(h->files[i].fs) : 0);
    }
    if (h->has_app) {
        const char *app[] = { h->app.exe, h->app.exe_id, h->app.args, h->app.args_norm, h->app.name };
        for (size_t i = 0; i < sizeof app / sizeof *app; i++) {
            if (!str_ok(app[i], 1)) {
                errno = EINVAL;
                return -1;
            }
            bound += 16 + (app[i] ? strlen(app[i]) : 0);
        }
    }
    size_t start = out->len;
    if (wbuf_reserve(out, bound) < 0) {
        errno = ENOMEM;
        return -1;
    }
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, wbuf_write);
    if (pack_batch(&pk, out, h, rec, n) != 0) {
        out->len = start;          /* never leave half a batch behind */
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void ftio_wbuf_free(struct ftio_wbuf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
