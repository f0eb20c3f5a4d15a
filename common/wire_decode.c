/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_decode.c -- one msgpack batch map -> struct ftio_batch (PROTOCOL.md §1).
 *
 * This is ftiod's ingest hot path and it reads bytes from the network and from
 * files, so it is a small hand-written msgpack reader for the fixed schema
 * rather than msgpack-c's generic object tree: no allocation per value, one
 * tight loop per column, and every read bounds-checked against the buffer.
 *
 * Every reader function returns OK (0), TRUNC (1: the buffer ends inside the
 * value, so it may be a prefix of a valid batch) or BAD (-1: garbage, with a
 * reason in the reader).  Truncation is decided before any content check can
 * fail only where content depends on bytes not yet seen, so every proper
 * prefix of a valid batch yields TRUNC.  Nothing recurses on input data
 * (unknown values are skipped with a counter), so nesting depth is no attack.
 *
 * Decoded strings are copied, NUL-terminated, into an arena owned by the
 * batch; offsets are kept while decoding (the arena may move as it grows) and
 * turned into pointers once the batch is complete.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire.h"
#include "grow.h"
#include "msgpack_skip.h"

enum { OK = 0, TRUNC = 1, BAD = -1 };

#define NO_STRING SIZE_MAX          /* arena offset of an absent string */

/* What the batch owns (struct ftio_batch.storage); grown, never shrunk. */
struct wire_storage {
    struct ftio_record     *rec;
    size_t                  rec_cap;
    struct ftio_file_entry *files;
    size_t                  files_cap;
    size_t                 *path_off;   /* arena offsets while decoding */
    size_t                  path_cap;
    size_t                 *fs_off;     /* likewise for each file's fs (NO_STRING: none) */
    size_t                  fs_cap;
    char                   *arena;
    size_t                  arena_len, arena_cap;
};

struct reader {
    const uint8_t *base, *p, *end;
    const uint8_t *item;        /* start of the value being read: error offset */
    char          *err;
    size_t         errlen;
};

/* A msgpack number: value is u when !neg, else (int64_t)u (< 0). */
struct num {
    uint64_t u;
    int      neg;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *r, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    return BAD;
}

static inline size_t avail(const struct reader *r) { return (size_t)(r->end - r->p); }

static inline uint16_t be16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return __builtin_bswap16(v); }
static inline uint32_t be32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return __builtin_bswap32(v); }
static inline uint64_t be64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return __builtin_bswap64(v); }

/* The bytes a msgpack positive fixint or uint 8/16/32/64 takes, its type
 * byte included, from that byte: 1, 2, 3, 5 or 9; 0 for any other type.
 * The one table of them (read_num(), read_uint_fast(), the columns' runs). */
static inline size_t uint_width(uint8_t b)
{
    return b <= 0x7f ? 1 : b == 0xcc ? 2 : b == 0xcd ? 3 : b == 0xce ? 5 : b == 0xcf ? 9 : 0;
}

/* The value of the unsigned integer at p of width w = uint_width(p[0]) (> 0),
 * all of whose bytes are in the buffer. */
static inline uint64_t uint_at(const uint8_t *p, size_t w)
{
    switch (w) {
    case 1:  return p[0];
    case 2:  return p[1];
    case 3:  return be16(p + 1);
    case 5:  return be32(p + 1);
    default: return be64(p + 1);
    }
}

/* Converts a float to an integer (toward zero) if it is finite and fits. */
static int num_from_double(struct reader *r, double d, struct num *v)
{
    if (!isfinite(d) || d < -9223372036854775808.0 || d >= 18446744073709551616.0)
        return fail(r, "number %g out of range", d);
    if (d <= -1.0) {
        v->neg = 1;
        v->u = (uint64_t)(int64_t)d;
    } else {
        v->neg = 0;
        v->u = d > 0 ? (uint64_t)d : 0;
    }
    return OK;
}

/* Any msgpack int (any width, signed or unsigned) or float. */
static inline int read_num(struct reader *r, struct num *v)
{
    r->item = r->p;
    if (r->p >= r->end)
        return TRUNC;
    uint8_t b = r->p[0];
    if (b <= 0x7f) {                        /* positive fixint: the common case */
        v->u = b;
        v->neg = 0;
        r->p++;
        return OK;
    }
    if (b >= 0xe0) {                        /* negative fixint */
        v->u = (uint64_t)(int64_t)(int8_t)b;
        v->neg = 1;
        r->p++;
        return OK;
    }
    size_t len = uint_width(b);
    if (len) {                              /* uint 8/16/32/64 */
        if (avail(r) < len)
            return TRUNC;
        v->u = uint_at(r->p, len);
        v->neg = 0;
        r->p += len;
        return OK;
    }
    switch (b) {
    case 0xd0: len = 1; break;
    case 0xd1: len = 2; break;
    case 0xd2: case 0xca: len = 4; break;
    case 0xd3: case 0xcb: len = 8; break;
    default:
        return fail(r, "expected a number, found type byte 0x%02x", b);
    }
    if (avail(r) < 1 + len)
        return TRUNC;
    const uint8_t *q = r->p + 1;
    r->p += 1 + len;
    int64_t s;
    switch (b) {
    case 0xd0: s = (int8_t)q[0];           break;
    case 0xd1: s = (int16_t)be16(q);       break;
    case 0xd2: s = (int32_t)be32(q);       break;
    case 0xd3: s = (int64_t)be64(q);       break;
    case 0xca: { uint32_t w = be32(q); float f; memcpy(&f, &w, 4); return num_from_double(r, f, v); }
    default:   { uint64_t w = be64(q); double d; memcpy(&d, &w, 8); return num_from_double(r, d, v); }
    }
    v->u = (uint64_t)s;
    v->neg = s < 0;
    return OK;
}

/* The values a column mostly holds, read inline: a positive fixint (op,
 * layer, flags, small ids), a uint 64 (times in ns) or a uint 8/16/32
 * (sizes and offsets); true when read, else nothing consumed and read_num()
 * decides. */
static inline int read_uint_fast(struct reader *r, struct num *v)
{
    const uint8_t *p = r->p;
    if (p >= r->end)
        return 0;
    size_t len = uint_width(p[0]);
    if (len == 0 || (size_t)(r->end - p) < len)
        return 0;
    r->item = p;
    v->u = uint_at(p, len);
    v->neg = 0;
    r->p = p + len;
    return 1;
}

static inline int num_to_u64(const struct num *v, uint64_t max, uint64_t *out)
{
    if (v->neg || v->u > max)
        return -1;
    *out = v->u;
    return 0;
}

static inline int num_to_i64(const struct num *v, int64_t min, int64_t max, int64_t *out)
{
    if (!v->neg && v->u > (uint64_t)INT64_MAX)
        return -1;
    int64_t s = (int64_t)v->u;
    if (s < min || s > max)
        return -1;
    *out = s;
    return 0;
}

/* Reads an unsigned / signed integer field and range-checks it. */
static int read_u64(struct reader *r, const char *what, uint64_t max, uint64_t *out)
{
    struct num v;
    int rc = read_num(r, &v);
    if (rc != OK)
        return rc;
    if (num_to_u64(&v, max, out) < 0)
        return fail(r, "'%s' out of range [0, %" PRIu64 "]", what, max);
    return OK;
}

static int read_i64(struct reader *r, const char *what, int64_t min, int64_t max, int64_t *out)
{
    struct num v;
    int rc = read_num(r, &v);
    if (rc != OK)
        return rc;
    if (num_to_i64(&v, min, max, out) < 0)
        return fail(r, "'%s' out of range [%" PRId64 ", %" PRId64 "]", what, min, max);
    return OK;
}

/* Container headers.  The length is checked against the bytes left (every
 * element takes at least min_elem bytes): a larger claim is a truncation. */
static int read_container(struct reader *r, int map, const char *what, uint32_t *count)
{
    r->item = r->p;
    if (r->p >= r->end)
        return TRUNC;
    uint8_t b = r->p[0];
    uint8_t fix = map ? 0x80 : 0x90, b16 = map ? 0xde : 0xdc, b32 = map ? 0xdf : 0xdd;
    if ((b & 0xf0) == fix) {
        *count = b & 0x0f;
        r->p++;
    } else if (b == b16) {
        if (avail(r) < 3)
            return TRUNC;
        *count = be16(r->p + 1);
        r->p += 3;
    } else if (b == b32) {
        if (avail(r) < 5)
            return TRUNC;
        *count = be32(r->p + 1);
        r->p += 5;
    } else {
        return fail(r, "'%s': expected %s, found type byte 0x%02x", what, map ? "a map" : "an array", b);
    }
    return OK;
}

/* A str value: sets *s / *len to the bytes inside the buffer. */
static int read_str(struct reader *r, const char *what, size_t maxlen, const uint8_t **s, size_t *len)
{
    r->item = r->p;
    if (r->p >= r->end)
        return TRUNC;
    uint8_t b = r->p[0];
    size_t hdr;
    if ((b & 0xe0) == 0xa0) {
        *len = b & 0x1f;
        hdr = 1;
    } else if (b == 0xd9) {
        if (avail(r) < 2) return TRUNC;
        *len = r->p[1];
        hdr = 2;
    } else if (b == 0xda) {
        if (avail(r) < 3) return TRUNC;
        *len = be16(r->p + 1);
        hdr = 3;
    } else if (b == 0xdb) {
        if (avail(r) < 5) return TRUNC;
        *len = be32(r->p + 1);
        hdr = 5;
    } else {
        return fail(r, "'%s': expected a string, found type byte 0x%02x", what, b);
    }
    if (*len > maxlen)
        return fail(r, "'%s': string of %zu bytes exceeds the limit of %zu", what, *len, maxlen);
    if (avail(r) - hdr < *len)
        return TRUNC;
    *s = r->p + hdr;
    r->p += hdr + *len;
    return OK;
}

/* Skips one value of any type (msgpack_skip.h: no recursion, so nesting
 * depth is no attack; a count larger than the bytes left is a truncation). */
static int skip_value(struct reader *r)
{
    size_t size;
    r->item = r->p;
    switch (ftio_mp_skip(r->p, avail(r), &size)) {
    case FTIO_MP_OK:
        r->p += size;
        return OK;
    case FTIO_MP_INVALID:
        r->item = r->p + size;
        return fail(r, "invalid msgpack type byte 0x%02x", r->p[size]);
    default:
        return TRUNC;
    }
}

/* ---- storage ------------------------------------------------------------ */

/* Copies a string into the arena; returns its offset or NO_STRING. */
static size_t arena_put(struct wire_storage *st, const uint8_t *s, size_t len)
{
    if (FTIO_GROW(st->arena, st->arena_cap, st->arena_len + len + 1) < 0)
        return NO_STRING;
    size_t off = st->arena_len;
    memcpy(st->arena + off, s, len);
    st->arena[off + len] = '\0';
    st->arena_len += len + 1;
    return off;
}

/* read_str + checks (no NUL inside, non-empty if required) + copy. */
/* Is s[0..n) well-formed UTF-8 (no overlong forms, no surrogates, at most
 * U+10FFFF)?  Job ids become topics and JSON strings: anything else would
 * vanish from the published messages, the log and --status. */
static int utf8_valid(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        uint32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        static const uint32_t min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

/* allow_empty: bit 0 = may be empty; READ_UTF8 = must be valid UTF-8. */
#define READ_UTF8 2
static int read_cstr(struct reader *r, struct wire_storage *st, const char *what,
                     int allow_empty, size_t *off)
{
    const uint8_t *s;
    size_t len;
    int rc = read_str(r, what, FTIO_WIRE_MAX_STR, &s, &len);
    if (rc != OK)
        return rc;
    if (!len && !(allow_empty & 1))
        return fail(r, "'%s' is empty", what);
    if (memchr(s, '\0', len))
        return fail(r, "'%s' contains a NUL byte", what);
    if (allow_empty & READ_UTF8 && !utf8_valid(s, len))
        return fail(r, "'%s' is not valid UTF-8", what);
    if ((*off = arena_put(st, s, len)) == NO_STRING)
        return fail(r, "out of memory");
    return OK;
}

/* ---- the batch map ------------------------------------------------------ */

enum key {
    K_V, K_JOB, K_HOST, K_PID, K_RANK, K_NRANKS, K_SEQ, K_CLOCK, K_LOST,
    K_FILES, K_MARK, K_FINAL, K_SKEW, K_MPI, K_APP, K_UNSEEN, K_BORN,
    K_TS, K_TE, K_BYTES, K_OFF, K_OP, K_LAYER, K_FID, K_FLAGS,
    K_UNKNOWN
};

static const char *const key_names[K_UNKNOWN] = {
    "v", "job", "host", "pid", "rank", "nranks", "seq", "clock", "lost",
    "files", "mark", "final", "skew_ns", "mpi", "app", "unseen", "born",
    "ts", "te", "bytes", "off", "op", "layer", "fid", "flags",
};

#define BIT(k) (1u << (k))
/* Documented in wire.h. */
#define REQUIRED (BIT(K_V) | BIT(K_JOB) | BIT(K_SEQ) | BIT(K_TS) | BIT(K_TE) | BIT(K_BYTES) | BIT(K_OP))

static enum key lookup_key(const uint8_t *s, size_t len)
{
    for (int k = 0; k < K_UNKNOWN; k++)
        if (strlen(key_names[k]) == len && memcmp(key_names[k], s, len) == 0)
            return (enum key)k;
    return K_UNKNOWN;
}

/* Everything decoded so far; turned into the public struct at the end. */
#define APP_FIELDS 5   /* exe, exe_id, args, args_norm, name */
struct state {
    struct ftio_batch_header h;
    size_t   job_off, host_off, mark_off;
    size_t   app_off[APP_FIELDS];
    unsigned seen;              /* BIT(key) of keys already decoded */
    size_t   n;                 /* column length, once a column was seen */
};
/* One function per column, reached through columns[] by its key.  Each reads
 * the values into its field of the records, range-checked: runs of one
 * encoding (a column mostly holds one: times in ns are uint 64, op and layer
 * positive fixints, sizes and offsets uint 8/16/32) in a loop per width, each
 * value checked and stored as it is read, with the position in a register
 * (a store and a reload of the reader's per value otherwise); a run stops at
 * the first value of another encoding or one the buffer does not hold whole,
 * and that value goes through read_uint_fast() or read_num().  r->item is left
 * at a run's last value, as reading them one by one would; an out-of-range
 * value reports its own offset and index.
 * Not a switch on the key: inlined into decode_batch(), such a switch had
 * one column's loop (gcc 12: the first, 'ts') left as the default of a jump
 * table whose range covers every key, and switch lowering gives that default
 * a probability of 0, so the whole loop went to .text.unlikely
 * (ftio_wire_decode.cold, 5.5 % of an offline run) as if it never ran.  A
 * function reached by a pointer is estimated on its own. */
typedef int column_fn(struct reader *r, struct ftio_record *rec, size_t n);

/* check and store read the value as val (u, neg) and the record as x:
 * in a run those are the loop's own (no struct on the stack kept up to date
 * for the read below, one index: the records' and the values'). */
#define COLUMN_RUN(test, value, key, check, store)                              \
    for (; k < max && (test); k++) {                                            \
        const struct num val = { (value), 0 };                                  \
        struct ftio_record *x = &rec[i + k];                                    \
        if (!(check)) {                                                         \
            r->item = p + k * w;                                                \
            return fail(r, "'%s'[%zu]: value out of range", key_names[key], i + k); \
        }                                                                       \
        store;                                                                  \
    }

#define COLUMN(fn, key, check, store)                                           \
static int fn(struct reader *r, struct ftio_record *rec, size_t n)             \
{                                                                               \
    struct num v;                                                               \
    int rc;                                                                     \
    for (size_t i = 0; i < n;) {                                                \
        const uint8_t *p = r->p;                                                \
        size_t w = p < r->end ? uint_width(p[0]) : 0, k = 0, max = 0;           \
        if (w)                                                                  \
            max = (size_t)(r->end - p) / w;                                     \
        if (max > n - i)                                                        \
            max = n - i;                                                        \
        switch (w) {                                                            \
        case 0:  break;                                                         \
        case 1:  COLUMN_RUN(p[k] <= 0x7f, p[k], key, check, store) break;       \
        case 2:  COLUMN_RUN(p[2 * k] == 0xcc, p[2 * k + 1], key, check, store) break; \
        case 3:  COLUMN_RUN(p[3 * k] == 0xcd, be16(p + 3 * k + 1), key, check, store) break; \
        case 5:  COLUMN_RUN(p[5 * k] == 0xce, be32(p + 5 * k + 1), key, check, store) break; \
        default: COLUMN_RUN(p[9 * k] == 0xcf, be64(p + 9 * k + 1), key, check, store) break; \
        }                                                                       \
        if (k) {                                                                \
            i += k;                                                             \
            r->item = p + (k - 1) * w;                                          \
            r->p = p + k * w;                                                   \
            continue;                                                           \
        }                                                                       \
        v.neg = 0;                                                              \
        if (!read_uint_fast(r, &v) && (rc = read_num(r, &v)) != OK)             \
            return rc;                                                          \
        const struct num val = v;                                               \
        struct ftio_record *x = &rec[i];                                        \
        if (!(check))                                                           \
            return fail(r, "'%s'[%zu]: value out of range", key_names[key], i); \
        store;                                                                  \
        i++;                                                                    \
    }                                                                           \
    return OK;                                                                  \
}

COLUMN(column_ts,    K_TS,    !val.neg, x->t_start = val.u)
COLUMN(column_te,    K_TE,    !val.neg, x->t_end = val.u)
COLUMN(column_bytes, K_BYTES, val.neg || val.u <= (uint64_t)INT64_MAX, x->bytes = (int64_t)val.u)
COLUMN(column_off,   K_OFF,   val.neg || val.u <= (uint64_t)INT64_MAX, x->offset = (int64_t)val.u)
COLUMN(column_op,    K_OP,    !val.neg && val.u < FTIO_OP_COUNT, x->op = (uint8_t)val.u)
COLUMN(column_layer, K_LAYER, !val.neg && val.u < FTIO_LAYER_COUNT, x->layer = (uint8_t)val.u)
COLUMN(column_fid,   K_FID,   !val.neg && val.u <= UINT32_MAX, x->file_id = (uint32_t)val.u)
COLUMN(column_flags, K_FLAGS, !val.neg && val.u <= UINT16_MAX, x->flags = (uint16_t)val.u)
#undef COLUMN
#undef COLUMN_RUN

/* Indexed by key - K_TS; the keys K_TS..K_FLAGS are the columns. */
static column_fn *const columns[K_FLAGS - K_TS + 1] = {
    column_ts, column_te, column_bytes, column_off, column_op, column_layer, column_fid, column_flags,
};

static int decode_files(struct reader *r, struct wire_storage *st, struct state *s)
{
    uint32_t count;
    int rc = read_container(r, 0, "files", &count);
    if (rc != OK)
        return rc;
    if (count > FTIO_WIRE_MAX_FILES)
        return fail(r, "'files' has %" PRIu32 " entries, limit is %u", count, FTIO_WIRE_MAX_FILES);
    if (count > avail(r) / 3)                 /* an entry takes >= 3 bytes */
        return TRUNC;
    if (FTIO_GROW(st->files, st->files_cap, count) < 0 ||
        FTIO_GROW(st->path_off, st->path_cap, count) < 0 ||
        FTIO_GROW(st->fs_off, st->fs_cap, count) < 0)
        return fail(r, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        uint32_t pair;
        if ((rc = read_container(r, 0, "files[]", &pair)) != OK)
            return rc;
        if (pair != 2 && pair != 3)
            return fail(r, "'files'[%" PRIu32 "]: expected [id, path] or [id, path, fs]", i);
        uint64_t id = 0;
        if ((rc = read_u64(r, "files[].id", UINT32_MAX, &id)) != OK)
            return rc;
        if ((rc = read_cstr(r, st, "files[].path", 0, &st->path_off[i])) != OK)
            return rc;
        st->fs_off[i] = NO_STRING;
        if (pair == 3 && (rc = read_cstr(r, st, "files[].fs", 1, &st->fs_off[i])) != OK)
            return rc;
        st->files[i].id = (uint32_t)id;
    }
    s->h.nfiles = count;
    return OK;
}

/* `app`: a map of optional fields (wire.h); unknown keys are skipped. */
static int decode_app(struct reader *r, struct wire_storage *st, struct state *s)
{
    static const char *const names[APP_FIELDS] = { "exe", "exe_id", "args", "args_norm", "name" };
    uint32_t count;
    int rc = read_container(r, 1, "app", &count);
    if (rc != OK)
        return rc;
    if (count > avail(r) / 2)                 /* a pair takes >= 2 bytes */
        return TRUNC;
    unsigned seen = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *ks;
        size_t klen;
        if ((rc = read_str(r, "app key", FTIO_WIRE_MAX_STR, &ks, &klen)) != OK)
            return rc;
        int f = -1;
        for (int k = 0; k < APP_FIELDS; k++)
            if (strlen(names[k]) == klen && memcmp(names[k], ks, klen) == 0)
                f = k;
        bool uid = klen == 3 && memcmp(ks, "uid", 3) == 0;
        if (f < 0 && !uid) {
            if ((rc = skip_value(r)) != OK)
                return rc;
            continue;
        }
        unsigned bit = uid ? 1u << APP_FIELDS : 1u << f;
        if (seen & bit)
            return fail(r, "duplicate key 'app.%s'", uid ? "uid" : names[f]);
        seen |= bit;
        rc = uid ? read_i64(r, "app.uid", 0, INT64_MAX, &s->h.app.uid)
                 : read_cstr(r, st, names[f], 1 | READ_UTF8, &s->app_off[f]);
        if (rc != OK)
            return rc;
    }
    s->h.has_app = true;
    return OK;
}

static int decode_value(struct reader *r, struct wire_storage *st, struct state *s, enum key k)
{
    int rc;
    int64_t i;

    switch (k) {
    case K_V:
        if ((rc = read_i64(r, "v", INT64_MIN, INT64_MAX, &i)) != OK)
            return rc;
        if (i != FTIO_WIRE_VERSION)
            return fail(r, "unsupported protocol version %" PRId64 " (expected %d)", i, FTIO_WIRE_VERSION);
        s->h.version = (int)i;
        return OK;
    case K_JOB:   return read_cstr(r, st, "job", READ_UTF8, &s->job_off);
    case K_HOST:  return read_cstr(r, st, "host", 1, &s->host_off);
    case K_PID:   return read_i64(r, "pid", INT64_MIN, INT64_MAX, &s->h.pid);
    case K_BORN:  return read_i64(r, "born", 0, INT64_MAX, &s->h.born);
    case K_RANK:
        if ((rc = read_i64(r, "rank", -1, INT32_MAX, &i)) == OK)
            s->h.rank = (int32_t)i;
        return rc;
    case K_NRANKS:
        if ((rc = read_i64(r, "nranks", 0, INT32_MAX, &i)) == OK)
            s->h.nranks = (int32_t)i;
        return rc;
    case K_SEQ:   return read_u64(r, "seq", UINT64_MAX, &s->h.seq);
    case K_LOST:  return read_u64(r, "lost", UINT64_MAX, &s->h.lost);
    case K_SKEW:  return read_i64(r, "skew_ns", INT64_MIN, INT64_MAX, &s->h.skew_ns);
    case K_MPI:
        if ((rc = read_i64(r, "mpi", 0, FTIO_MPI_FINALIZED, &i)) == OK)
            s->h.mpi = (int32_t)i;
        return rc;
    case K_CLOCK: {
        uint32_t count;
        if ((rc = read_container(r, 0, "clock", &count)) != OK)
            return rc;
        if (count != 2)
            return fail(r, "'clock': expected [monotonic_ns, realtime_ns]");
        if ((rc = read_i64(r, "clock[0]", INT64_MIN, INT64_MAX, &s->h.clock_mono)) != OK)
            return rc;
        return read_i64(r, "clock[1]", INT64_MIN, INT64_MAX, &s->h.clock_real);
    }
    case K_MARK:
        if (r->p < r->end && *r->p == 0xc0) {    /* nil: same as absent */
            r->p++;
            s->mark_off = NO_STRING;
            return OK;
        }
        return read_cstr(r, st, "mark", 1, &s->mark_off);
    case K_FINAL:
        r->item = r->p;
        if (r->p >= r->end)
            return TRUNC;
        if (*r->p != 0xc2 && *r->p != 0xc3)
            return fail(r, "'final': expected a bool, found type byte 0x%02x", *r->p);
        s->h.final = *r->p++ == 0xc3;
        return OK;
    case K_FILES:
        return decode_files(r, st, s);
    case K_APP:
        return decode_app(r, st, s);
    case K_UNSEEN: {
        uint32_t count;
        if ((rc = read_container(r, 0, "unseen", &count)) != OK)
            return rc;
        if (count != 2)
            return fail(r, "'unseen': expected [read_bytes, write_bytes]");
        if ((rc = read_u64(r, "unseen[0]", UINT64_MAX, &s->h.unseen_read)) != OK ||
            (rc = read_u64(r, "unseen[1]", UINT64_MAX, &s->h.unseen_write)) != OK)
            return rc;
        s->h.has_unseen = true;
        return OK;
    }
    case K_TS: case K_TE: case K_BYTES: case K_OFF: case K_OP: case K_LAYER: case K_FID: case K_FLAGS:
        break;                                /* a case, not the default: see columns[] */
    default:
        return fail(r, "internal: not a key");
    }

    /* A column. */
    uint32_t count;
    if ((rc = read_container(r, 0, key_names[k], &count)) != OK)
        return rc;
    if (!(s->seen & (BIT(K_TS) | BIT(K_TE) | BIT(K_BYTES) | BIT(K_OFF) | BIT(K_OP) |
                     BIT(K_LAYER) | BIT(K_FID) | BIT(K_FLAGS)))) {
        if (count > FTIO_WIRE_MAX_RECORDS)
            return fail(r, "batch of %" PRIu32 " records exceeds the limit of %u",
                        count, FTIO_WIRE_MAX_RECORDS);
        if (count > avail(r))                 /* a value takes >= 1 byte */
            return TRUNC;
        if (FTIO_GROW(st->rec, st->rec_cap, count) < 0)
            return fail(r, "out of memory");
        s->n = count;
    } else if (count != s->n) {
        return fail(r, "column '%s' has %" PRIu32 " entries, others have %zu",
                    key_names[k], count, s->n);
    }
    return columns[k - K_TS](r, st->rec, s->n);
}

/* Record i's fields that are no column, and the cross-column checks. */
static inline int finish_record(struct reader *r, struct ftio_record *x, size_t i)
{
    x->tid = 0;
    x->reserved = 0;
    if (x->t_end < x->t_start)
        return fail(r, "record %zu ends before it starts (te %" PRIu64 " < ts %" PRIu64 ")",
                    i, x->t_end, x->t_start);
    if (x->bytes < 0 && ftio_op_is_data(x->op))
        return fail(r, "record %zu: %s of %" PRId64 " bytes", i, ftio_op_name(x->op), x->bytes);
    return OK;
}

/* Defaults for absent optional columns, and the cross-column checks.  A
 * batch with every optional column (the shim's) takes a loop without the
 * four tests per record. */
static int finish_records(struct reader *r, struct ftio_record *rec, size_t n, unsigned seen)
{
    int has_off = seen & BIT(K_OFF), has_layer = seen & BIT(K_LAYER);
    int has_fid = seen & BIT(K_FID), has_flags = seen & BIT(K_FLAGS);
    int rc;
    if (has_off && has_layer && has_fid && has_flags) {
        for (size_t i = 0; i < n; i++)
            if ((rc = finish_record(r, &rec[i], i)) != OK)
                return rc;
        return OK;
    }
    for (size_t i = 0; i < n; i++) {
        struct ftio_record *x = &rec[i];
        if (!has_off)   x->offset = -1;
        if (!has_layer) x->layer = FTIO_LAYER_POSIX;
        if (!has_fid)   x->file_id = 0;
        if (!has_flags) x->flags = 0;
        if ((rc = finish_record(r, x, i)) != OK)
            return rc;
    }
    return OK;
}

static int decode_batch(struct reader *r, struct wire_storage *st, struct state *s)
{
    uint32_t nkeys;
    int rc = read_container(r, 1, "batch", &nkeys);
    if (rc != OK)
        return rc;
    for (uint32_t i = 0; i < nkeys; i++) {
        /* Keys we know are strings; anything else is an unknown key. */
        enum key k = K_UNKNOWN;
        const uint8_t *key_start = r->p, *ks;
        size_t klen;
        uint8_t b = r->p < r->end ? *r->p : 0;
        if (r->p < r->end && ((b & 0xe0) == 0xa0 || b == 0xd9 || b == 0xda || b == 0xdb)) {
            if ((rc = read_str(r, "key", SIZE_MAX, &ks, &klen)) != OK)
                return rc;
            k = lookup_key(ks, klen);
        } else if ((rc = skip_value(r)) != OK) {
            return rc;
        }
        if (k == K_UNKNOWN) {                 /* forward compatibility */
            if ((rc = skip_value(r)) != OK)
                return rc;
            continue;
        }
        if (s->seen & BIT(k)) {
            r->item = key_start;
            return fail(r, "duplicate key '%s'", key_names[k]);
        }
        if ((rc = decode_value(r, st, s, k)) != OK)
            return rc;
        s->seen |= BIT(k);
    }
    r->item = r->base;
    if ((s->seen & REQUIRED) != REQUIRED) {
        for (int k = 0; k < K_UNKNOWN; k++)
            if ((REQUIRED & BIT(k)) && !(s->seen & BIT(k)))
                return fail(r, "missing key '%s'", key_names[k]);
    }
    if (s->h.nranks > 0 && s->h.rank >= s->h.nranks)
        return fail(r, "rank %" PRId32 " >= nranks %" PRId32, s->h.rank, s->h.nranks);
    return finish_records(r, st->rec, s->n, s->seen);
}

int ftio_wire_decode(const void *buf, size_t len, struct ftio_batch *out,
                     size_t *used, char *err, size_t errlen)
{
    size_t ignored;
    if (!used)
        used = &ignored;
    if (err && errlen)
        err[0] = '\0';
    struct wire_storage *st = out->storage;
    if (!st && !(st = out->storage = calloc(1, sizeof *st))) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        *used = 0;
        return -1;
    }
    memset(&out->h, 0, sizeof out->h);
    out->n = 0;
    out->rec = st->rec;
    st->arena_len = 0;

    struct reader r = { .base = buf, .p = buf, .end = (const uint8_t *)buf + len,
                        .item = buf, .err = err, .errlen = errlen };
    struct state s = { .job_off = NO_STRING, .host_off = NO_STRING, .mark_off = NO_STRING };
    s.h.rank = -1;
    s.h.app.uid = -1;
    for (int k = 0; k < APP_FIELDS; k++)
        s.app_off[k] = NO_STRING;

    int rc = len ? decode_batch(&r, st, &s) : TRUNC;
    if (rc == TRUNC) {
        *used = len;
        if (err && errlen)
            snprintf(err, errlen, "truncated batch (%zu bytes)", len);
        return 1;
    }
    if (rc == BAD) {
        *used = (size_t)(r.item - r.base);
        if (err && errlen && !err[0])
            snprintf(err, errlen, "malformed batch");
        return -1;
    }

    /* Complete: offsets -> pointers (the arena no longer moves). */
    static const char empty[] = "";
    for (size_t i = 0; i < s.h.nfiles; i++) {
        st->files[i].path = st->arena + st->path_off[i];
        st->files[i].fs = st->fs_off[i] == NO_STRING ? NULL : st->arena + st->fs_off[i];
    }
    const char **app[APP_FIELDS] = { &s.h.app.exe, &s.h.app.exe_id, &s.h.app.args,
                                     &s.h.app.args_norm, &s.h.app.name };
    for (int k = 0; k < APP_FIELDS; k++)
        *app[k] = s.app_off[k] == NO_STRING ? NULL : st->arena + s.app_off[k];
    s.h.files = s.h.nfiles ? st->files : NULL;
    s.h.job = st->arena + s.job_off;
    s.h.host = s.host_off == NO_STRING ? empty : st->arena + s.host_off;
    s.h.mark = s.mark_off == NO_STRING ? NULL : st->arena + s.mark_off;
    out->h = s.h;
    out->n = s.n;
    out->rec = st->rec;
    *used = (size_t)(r.p - r.base);
    return 0;
}

void ftio_batch_free(struct ftio_batch *b)
{
    if (!b)
        return;
    struct wire_storage *st = b->storage;
    if (st) {
        free(st->rec);
        free(st->files);
        free(st->path_off);
        free(st->fs_off);
        free(st->arena);
        free(st);
    }
    memset(b, 0, sizeof *b);
}
