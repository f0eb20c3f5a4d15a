/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_encode.c -- header + records -> one msgpack batch map (PROTOCOL.md §1).
 *
 * Runs in the shim's flusher thread and in tools (replay, tests).  Records are
 * written column by column (ts[], te[], bytes[], ...) because integer columns
 * of similar values pack small and the daemon decodes them in tight loops.
 * msgpack-c's packer writes the header through wbuf_write(), which appends to
 * the caller's growing buffer; the record columns are written directly,
 * by hand (put_*: msgpack-c's smallest encodings, byte for byte).
 * Capacity is reserved once from a size bound so a batch costs at most one
 * reallocation, never one per record.  The shim's flusher stages the
 * columns a piece of records at a time, read in its rings while they are in
 * the cache, their stamps mapped to ns on the way (ftio_wire_columns_add),
 * and, at the end, writes the header and them out as pieces, never copied
 * into one buffer (ftio_wire_encode_columns); tools encode a whole array of
 * records (ftio_wire_encode).  Both write the same bytes with the same
 * loops: one table, RECORD_COLUMNS, says which field goes in which column
 * with which writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include "wire.h"
#include "grow.h"

/* Worst-case msgpack size of one record: 4 x 64-bit ints (9 bytes each),
 * fid as uint32 (5), flags as uint16 (3), op and layer as uint8 (2 each). */
#define RECORD_MAX_PACKED (4 * 9 + 5 + 3 + 2 + 2)
#define HEADER_MAX_PACKED 512       /* keys + fixed-size header values */
/* The value writers below store 9 bytes whatever the value's size (one
 * unaligned 8-byte store instead of a loop of byte stores) and advance by
 * the size: a column buffer keeps this much room past its last value. */
#define PUT_SLACK 9

static int wbuf_reserve(struct ftio_wbuf *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return 0;
    size_t want = b->len + extra;
    if (want < b->len)
        return -1;
    /* (The caller's buffer, too small now: a heap copy from here on.) */
    return FTIO_GROW_FROM(b->data, b->cap, want, b->first, b->len);
}

void ftio_wbuf_use(struct ftio_wbuf *b, void *buf, size_t cap)
{
    b->data = buf;
    b->len = 0;
    b->cap = cap;
    b->first = buf;
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

/* ---- one value: the smallest msgpack encoding, as msgpack-c picks it ----
 *
 * These run once per value of every record the shim sends (eight per record),
 * so they are written for the flusher's budget of a few ns per record: the
 * size class comes from the count of leading zeros through a table, and the
 * big-endian payload is one byte swap and one 8-byte store (PUT_SLACK). */

/* tag byte and payload size by significant bits (1..64) of an unsigned value */
static const uint8_t utag[65] = {
    [8] = 0xcc, [9 ... 16] = 0xcd, [17 ... 32] = 0xce, [33 ... 64] = 0xcf,
};
static const uint8_t ulen[65] = {
    [8] = 1, [9 ... 16] = 2, [17 ... 32] = 4, [33 ... 64] = 8,
};

/* the same for a negative value by its significant bits plus a sign bit */
static const uint8_t stag[66] = {
    [0 ... 8] = 0xd0, [9 ... 16] = 0xd1, [17 ... 32] = 0xd2, [33 ... 65] = 0xd3,
};
static const uint8_t slen[66] = {
    [0 ... 8] = 1, [9 ... 16] = 2, [17 ... 32] = 4, [33 ... 65] = 8,
};

/* tag + the low nbytes of v, big-endian (nbytes 1, 2, 4 or 8). */
static inline uint8_t *put_tagged(uint8_t *p, uint8_t tag, uint64_t v, unsigned nbytes)
{
    uint64_t be = __builtin_bswap64(v << (64 - 8 * nbytes));
    p[0] = tag;
    memcpy(p + 1, &be, 8);
    return p + 1 + nbytes;
}

/* Smallest msgpack encoding of an unsigned integer: positive fixint below
 * 0x80, else uint8/16/32/64. */
static inline uint8_t *put_uint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) {
        *p = (uint8_t)v;
        return p + 1;
    }
    unsigned bits = 64 - (unsigned)__builtin_clzll(v);
    return put_tagged(p, utag[bits], v, ulen[bits]);
}

/* A timestamp: monotonic ns past 2^32 (4.3 s of uptime) nearly always. */
static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v > UINT32_MAX, 1))
        return put_tagged(p, 0xcf, v, 8);
    return put_uint(p, v);
}

/* An 8-bit field (op, layer): fixint, else uint8. */
static inline uint8_t *put_u8(uint8_t *p, uint8_t v)
{
    if (__builtin_expect(v < 0x80, 1)) {
        *p = v;
        return p + 1;
    }
    p[0] = 0xcc;
    p[1] = v;
    return p + 2;
}

/* A file id: a hash of the path, past 16 bits nearly always (else 0,
 * unknown). */
static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    if (__builtin_expect(v > 0xffff, 1))
        return put_tagged(p, 0xce, v, 4);
    return put_uint(p, v);
}

/* Smallest encoding of a signed integer: as unsigned when >= 0, negative
 * fixint down to -32, else int8/16/32/64 (msgpack-c's choice for int64). */
static inline uint8_t *put_int(uint8_t *p, int64_t v)
{
    if (v >= 0)
        return put_uint(p, (uint64_t)v);
    if (v >= -32) {
        *p = (uint8_t)v;
        return p + 1;
    }
    /* ~v >= 0 has as many significant bits as v has without its sign */
    unsigned bits = 65 - (unsigned)__builtin_clzll(~(uint64_t)v);
    return put_tagged(p, stag[bits], (uint64_t)v, slen[bits]);
}

/* A stamp along the line (wire.h): one widening multiply (64 x 64 ->
 * 128 bits), the difference taken modulo 2^64 (never undefined). */
static inline uint64_t time_map(const struct ftio_wire_timeline *l, uint64_t t)
{
    int64_t back = (int64_t)(l->tick - t);
    uint64_t ns = (uint64_t)l->ns - (uint64_t)(int64_t)(((__int128)back * l->mult) >> 32);
    return t ? ns : 0;
}
#define AS_IS(line, v) (v)
#define STAMP(line, v) ((line) ? time_map(line, v) : (v))

/* The record columns of PROTOCOL.md §1, in their order on the wire: key,
 * writer, field, and what the value goes through first (the stamps: the
 * line, when one is given).  Both encoders below (a whole array of records,
 * and records added to staged columns piece by piece) expand it. */
#define RECORD_COLUMNS(X)                        \
    X(0, "ts",    put_u64,  t_start, STAMP)      \
    X(1, "te",    put_u64,  t_end,   STAMP)      \
    X(2, "bytes", put_int,  bytes,   AS_IS)      \
    X(3, "off",   put_int,  offset,  AS_IS)      \
    X(4, "op",    put_u8,   op,      AS_IS)      \
    X(5, "layer", put_u8,   layer,   AS_IS)      \
    X(6, "fid",   put_u32,  file_id, AS_IS)      \
    X(7, "flags", put_uint, flags,   AS_IS)
_Static_assert(FTIO_WIRE_COLUMNS == 8, "RECORD_COLUMNS lists every column");

/* Column k's values of n records, written at p (room for n * 9 +
 * PUT_SLACK bytes); returns the end.  Column after column, one tight loop
 * each: one cursor and few registers, where one pass with eight cursors
 * kept half of them on the stack (the shim's pieces of records are in the
 * L1 cache: reading them eight times costs less).  Inlined where k and
 * whether there is a line are known. */
static inline __attribute__((always_inline)) uint8_t *put_column(uint8_t *p, int k,
                                                                  const struct ftio_record *rec, size_t n,
                                                                  const struct ftio_wire_timeline *line)
{
    switch (k) {
#define COLUMN(i, key, put, field, get)          \
    case i:                                      \
        _Pragma("GCC unroll 4")                  \
        for (size_t r = 0; r < n; r++)           \
            p = put(p, get(line, rec[r].field)); \
        break;
    RECORD_COLUMNS(COLUMN)
#undef COLUMN
    }
    return p;
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

/* The header: every key before the record columns. */
static int pack_header(msgpack_packer *pk, const struct ftio_batch_header *h)
{
    int rc = 0;
    size_t nkeys = 19 + (h->born != 0) + (h->mark != NULL) + (h->skew_ns != 0) + (h->mpi != 0) +
                   h->has_app + h->has_unseen;

    rc |= msgpack_pack_map(pk, nkeys);
    rc |= pack_key(pk, "v")      | msgpack_pack_int(pk, FTIO_WIRE_VERSION);
    rc |= pack_key(pk, "job")    | pack_cstr(pk, h->job);
    rc |= pack_key(pk, "host")   | pack_cstr(pk, h->host);
    rc |= pack_key(pk, "pid")    | msgpack_pack_int64(pk, h->pid);
    if (h->born != 0)
        rc |= pack_key(pk, "born") | msgpack_pack_int64(pk, h->born);
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
    return rc;
}

/* The columns of n records, one after the other, written straight into
 * the reserved buffer (~5x faster than a packer callback per value). */
static int pack_columns(msgpack_packer *pk, struct ftio_wbuf *out,
                        const struct ftio_record *rec, size_t n)
{
    int rc = 0;
    for (int k = 0; k < FTIO_WIRE_COLUMNS && rc == 0; k++) {
        static const char *const key[] = {
#define COLUMN(i, name, put, field, get) [i] = name,
            RECORD_COLUMNS(COLUMN)
#undef COLUMN
        };
        rc = pack_key(pk, key[k]) | msgpack_pack_array(pk, n);
        if (rc == 0 && wbuf_reserve(out, n * 9 + PUT_SLACK) == 0) {
            uint8_t *p = put_column((uint8_t *)out->data + out->len, k, rec, n, NULL);
            out->len = (size_t)((char *)p - out->data);
        } else {
            rc = -1;
        }
    }
    return rc;
}

/* Refuse what the decoder would reject, so a bug shows up at the sender;
 * else a bound on the header's packed size.  0 or -1 (errno EINVAL). */
static int check_header(const struct ftio_batch_header *h, size_t *bound)
{
    if (!h || h->nfiles > FTIO_WIRE_MAX_FILES || (h->nfiles && !h->files) ||
        !str_ok(h->job, 0) || !str_ok(h->host, 1) || !str_ok(h->mark, 1))
        goto invalid;
    size_t b = HEADER_MAX_PACKED;
    if (h->job)  b += strlen(h->job);
    if (h->host) b += strlen(h->host);
    if (h->mark) b += strlen(h->mark);
    for (size_t i = 0; i < h->nfiles; i++) {
        if (!str_ok(h->files[i].path, 0) || !str_ok(h->files[i].fs, 1))
            goto invalid;
        b += 16 + strlen(h->files[i].path) + (h->files[i].fs ? 6 + strlen(h->files[i].fs) : 0);
    }
    if (h->has_app) {
        const char *app[] = { h->app.exe, h->app.exe_id, h->app.args, h->app.args_norm, h->app.name };
        for (size_t i = 0; i < sizeof app / sizeof *app; i++) {
            if (!str_ok(app[i], 1))
                goto invalid;
            b += 16 + (app[i] ? strlen(app[i]) : 0);
        }
    }
    *bound = b;
    return 0;
invalid:
    errno = EINVAL;
    return -1;
}

int ftio_wire_encode(struct ftio_wbuf *out, const struct ftio_batch_header *h,
                     const struct ftio_record *rec, size_t n)
{
    size_t bound;
    if (!out || (n && !rec) || n > FTIO_WIRE_MAX_RECORDS) {
        errno = EINVAL;
        return -1;
    }
    if (check_header(h, &bound) != 0)
        return -1;
    bound += n * RECORD_MAX_PACKED;
    size_t start = out->len;
    if (wbuf_reserve(out, bound) < 0) {
        errno = ENOMEM;
        return -1;
    }
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, wbuf_write);
    if ((pack_header(&pk, h) | pack_columns(&pk, out, rec, n)) != 0) {
        out->len = start;          /* never leave half a batch behind */
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int ftio_wire_columns_add(struct ftio_wire_columns *c, const struct ftio_record *rec, size_t n,
                          const struct ftio_wire_timeline *line)
{
    if (!c || (n && !rec) || n > FTIO_WIRE_MAX_RECORDS - c->n) {
        errno = EINVAL;
        return -1;
    }
    if (n == 0)
        return 0;
    for (size_t k = 0; k < FTIO_WIRE_COLUMNS; k++) {
        if (wbuf_reserve(&c->col[k], n * 9 + PUT_SLACK) < 0) {
            errno = ENOMEM;
            return -1;
        }
    }
    /* (A copy: the column's stores could alias the caller's line, which
     * the loops would then read again at every stamp.) */
    struct ftio_wire_timeline at = line ? *line : (struct ftio_wire_timeline){ 0, 0, 0 };
    for (int k = 0; k < FTIO_WIRE_COLUMNS; k++) {
        uint8_t *p = (uint8_t *)c->col[k].data + c->col[k].len;
        p = line ? put_column(p, k, rec, n, &at) : put_column(p, k, rec, n, NULL);
        c->col[k].len = (size_t)((char *)p - c->col[k].data);
    }
    c->n += n;
    return 0;
}

int ftio_wire_encode_columns(struct ftio_wbuf *head, const struct ftio_batch_header *h,
                             const struct ftio_wire_columns *c, struct iovec iov[FTIO_WIRE_IOV])
{
    size_t bound;
    if (!head || !c || !iov) {
        errno = EINVAL;
        return -1;
    }
    if (check_header(h, &bound) != 0)
        return -1;
    size_t start = head->len;
    if (wbuf_reserve(head, bound + FTIO_WIRE_COLUMNS * 16) < 0) {
        errno = ENOMEM;
        return -1;
    }
    msgpack_packer pk;
    msgpack_packer_init(&pk, head, wbuf_write);
    int rc = pack_header(&pk, h);
    size_t cut[FTIO_WIRE_COLUMNS];     /* where each column's key and array header end */
#define COLUMN(i, key, put, field, get) \
    rc |= pack_key(&pk, key) | msgpack_pack_array(&pk, c->n); \
    cut[i] = head->len;
    RECORD_COLUMNS(COLUMN)
#undef COLUMN
    if (rc != 0) {
        head->len = start;
        errno = ENOMEM;
        return -1;
    }
    /* Pointers taken last: head may have moved while it grew. */
    int niov = 0;
    size_t from = start;
    for (size_t k = 0; k < FTIO_WIRE_COLUMNS; k++) {
        iov[niov++] = (struct iovec){ head->data + from, cut[k] - from };
        if (c->col[k].len)
            iov[niov++] = (struct iovec){ c->col[k].data, c->col[k].len };
        from = cut[k];
    }
    return niov;
}

void ftio_wire_columns_clear(struct ftio_wire_columns *c)
{
    c->n = 0;
    for (size_t k = 0; k < FTIO_WIRE_COLUMNS; k++)
        c->col[k].len = 0;
}

void ftio_wire_columns_free(struct ftio_wire_columns *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < FTIO_WIRE_COLUMNS; k++)
        ftio_wbuf_free(&c->col[k]);
    c->n = 0;
}

void ftio_wbuf_free(struct ftio_wbuf *b)
{
    if (!b)
        return;
    FTIO_GROW_RELEASE(b->data, b->first);
    b->len = b->cap = 0;
    b->first = NULL;
}
