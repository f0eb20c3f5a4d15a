/* SPDX-License-Identifier: BSD-3-Clause */
/* tmio_json.c -- TMIO JSON Lines, TMIO JSON and custom JSON (FORMATS.md §2, §4).
 *
 * The file is read as a sequence of JSON objects separated by whitespace: a
 * .json file is a sequence of one, a TMIO .jsonl file one object per flush and
 * mode.  Each object may be
 *   - TMIO-shaped: keys read_sync / read_async_t / write_async_t / write_sync
 *     (others such as *_async_b and io_time are ignored), each a mode object
 *     {total_bytes, number_of_ranks, bandwidth: {b_rank_avr, t_rank_s,
 *     t_rank_e[, b_overlap_avr, t_overlap]}};
 *   - a bare mode object {"bandwidth": {...}, ...}, taken as the selected mode;
 *   - top-level "b", "ts", "te" arrays (rates and times), also the selected mode.
 * Arrays of the same mode concatenate across objects, total_bytes sums and
 * number_of_ranks takes the max.  An object mixing these shapes, or naming a
 * key it reads twice, is an error (it used to be read one arbitrary way).
 *
 * A streaming parser of our own (the hot path of `ftio` on TMIO traces:
 * bench/README.md "analysis"): no tree, the numbers of the rate/start/end
 * arrays go straight into the request columns (ftio_requests_reserve()), each
 * through readers/numscan.c, and a series counts (n grows) only once its
 * three arrays are complete and consistent.  It checks all of JSON that
 * Jansson checked (grammar, escapes, UTF-8, nesting depth), so the same files
 * are accepted.  An object is all or nothing: on an error in it, whatever it
 * added is taken back, so --lenient keeps exactly the objects before the
 * damage.  Errors: "line L: why (byte O)", L the object's first line for
 * content errors and the line of the fault for syntax errors.
 * The file's pages already parsed are handed back to the kernel as we go
 * (as readers/spool_read.c does), so memory is the request columns: 24-48 B per
 * request.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "readers.h"
#include "grow.h"

#define MAX_DEPTH 2048               /* Jansson's limit */
#define RELEASE_EVERY (16u << 20)
#define KEY_MAX 32                   /* longer keys are none we read */

enum { COL_RATE, COL_TS, COL_TE, NCOL };

struct jp {
    struct ftio_reader_ctx *c;
    struct ftio_trace      *t;
    const char *buf, *p, *end;
    size_t line;                     /* line of p */
    size_t obj_line;                 /* line where the current object starts */
    double *ov[2];                   /* overlap scratch: b_overlap_avr, t_overlap */
    size_t  ov_cap[2];
};

/* ---- errors --------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail_at(struct jp *j, size_t line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return FTIO_READER_FAIL(j->c, "line %zu: %s (byte %zu)", line, msg, (size_t)(j->p - j->buf));
}

/* A content error: at the object's line. */
#define fail(j, ...) fail_at((j), (j)->obj_line, __VA_ARGS__)
/* A syntax error: at the line where it is. */
#define syntax(j, ...) fail_at((j), (j)->line, __VA_ARGS__)

static int unexpected(struct jp *j, const char *want)
{
    if (j->p >= j->end)
        return syntax(j, "%s expected, end of file", want);
    unsigned char ch = (unsigned char)*j->p;
    if (ch >= 0x20 && ch < 0x7f)
        return syntax(j, "%s expected near '%c'", want, ch);
    return syntax(j, "%s expected near byte 0x%02x", want, ch);
}

/* ---- lexical -------------------------------------------------------------- */

static inline void ws(struct jp *j)
{
    const char *p = j->p;
    while (p < j->end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        j->line += *p++ == '\n';
    j->p = p;
}

static inline bool at(struct jp *j, char ch)
{
    return j->p < j->end && *j->p == ch;
}

static int hex4(const char *p, const char *end, unsigned *v)
{
    if (end - p < 4)
        return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = p[i];
        unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0')
                   : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
                   : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10) : 16u;
        if (d == 16)
            return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at p (first byte >= 0x80), 0 if invalid
 * (overlong, surrogate, above U+10FFFF, truncated). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* A string at p ('"'): validated; its decoded text goes to key (when key,
 * up to KEY_MAX - 1 bytes: *klen = KEY_MAX when longer). */
static int string(struct jp *j, char *key, size_t *klen)
{
    const char *p = j->p + 1, *end = j->end;
    size_t k = 0;
    for (;;) {
        if (p >= end) {
            j->p = p;
            return syntax(j, "unterminated string, end of file");
        }
        unsigned char ch = (unsigned char)*p;
        char out[4];
        size_t nout = 1;
        if (ch == '"') {
            p++;
            break;
        }
        if (ch < 0x20) {
            j->p = p;
            return syntax(j, "control character 0x%02x in a string", ch);
        }
        if (ch == '\\') {
            if (p + 1 >= end) {
                j->p = p;
                return syntax(j, "unterminated string, end of file");
            }
            char e = p[1];
            const char *map = strchr("\"\\/bfnrt", e);
            if (e && map) {
                out[0] = "\"\\/\b\f\n\r\t"[map - "\"\\/bfnrt"];
                p += 2;
            } else if (e == 'u') {
                unsigned u, lo;
                if (hex4(p + 2, end, &u) != 0) {
                    j->p = p;
                    return syntax(j, "invalid \\u escape");
                }
                p += 6;
                if (u >= 0xdc00 && u <= 0xdfff) {
                    j->p = p - 6;
                    return syntax(j, "invalid Unicode '\\u%04X'", u);
                }
                if (u >= 0xd800 && u <= 0xdbff) {
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) != 0 ||
                        lo < 0xdc00 || lo > 0xdfff) {
                        j->p = p - 6;
                        return syntax(j, "invalid Unicode '\\u%04X'", u);
                    }
                    p += 6;
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                }
                if (u == 0) {
                    j->p = p - 6;
                    return syntax(j, "\\u0000 is not allowed");
                }
                /* encode (only keys need the bytes) */
                if (u < 0x80) { out[0] = (char)u; }
                else if (u < 0x800) { out[0] = (char)(0xc0 | u >> 6); out[1] = (char)(0x80 | (u & 0x3f)); nout = 2; }
                else if (u < 0x10000) { out[0] = (char)(0xe0 | u >> 12); out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
                                        out[2] = (char)(0x80 | (u & 0x3f)); nout = 3; }
                else { out[0] = (char)(0xf0 | u >> 18); out[1] = (char)(0x80 | ((u >> 12) & 0x3f));
                       out[2] = (char)(0x80 | ((u >> 6) & 0x3f)); out[3] = (char)(0x80 | (u & 0x3f)); nout = 4; }
            } else {
                j->p = p;
                return syntax(j, "invalid escape");
            }
        } else if (ch >= 0x80) {
            size_t n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
            if (n == 0) {
                j->p = p;
                return syntax(j, "invalid UTF-8 in a string");
            }
            if (key)
                memcpy(out, p, n);
            nout = n;
            p += n;
        } else {
            out[0] = (char)ch;
            p++;
        }
        if (key) {
            if (k + nout < KEY_MAX) {
                memcpy(key + k, out, nout);
            }
            k += nout;
        }
    }
    j->p = p;
    if (key) {
        if (k >= KEY_MAX)
            k = KEY_MAX;
        else
            key[k] = 0;
        *klen = k;
    }
    return 0;
}

static int number(struct jp *j, double *v)
{
    const char *e = ftio_scan_number(j->p, j->end, true, v);
    if (!e)
        return syntax(j, "invalid number");
    if (!isfinite(*v))
        return syntax(j, "number out of range");
    j->p = e;
    return 0;
}

static bool number_starts(struct jp *j)
{
    return j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'));
}

static int literal(struct jp *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return unexpected(j, "a value");
    j->p += n;
    return 0;
}

/* ---- containers: the punctuation every object and array walk shares ---------- */

/* At an opening '{' or '[': steps past it; true (and past `close` too)
 * when the container is empty. */
static bool open_empty(struct jp *j, char close)
{
    j->p++;
    ws(j);
    if (!at(j, close))
        return false;
    j->p++;
    return true;
}

/* An object member's key and ':', leaving p on its value; key NULL: only
 * checked (else up to KEY_MAX bytes into key, its length in *klen). */
static int member_key(struct jp *j, char *key, size_t *klen)
{
    if (!at(j, '"'))
        return unexpected(j, "a string (key)");
    if (string(j, key, klen) != 0)
        return -1;
    ws(j);
    if (!at(j, ':'))
        return unexpected(j, "':'");
    j->p++;
    ws(j);
    return 0;
}

/* After an element: 1 when a ',' follows (p on the next element), 0 at
 * `close` (p past it), -1 (error) at anything else. */
static int next_element(struct jp *j, char close)
{
    ws(j);
    if (at(j, ',')) {
        j->p++;
        ws(j);
        return 1;
    }
    if (at(j, close)) {
        j->p++;
        return 0;
    }
    return unexpected(j, close == '}' ? "',' or '}'" : "',' or ']'");
}

/* Any value, validated and skipped. */
static int skip_value(struct jp *j, int depth)
{
    if (j->p >= j->end)
        return unexpected(j, "a value");
    double v;
    switch (*j->p) {
    case '"':
        return string(j, NULL, NULL);
    case 't': return literal(j, "true");
    case 'f': return literal(j, "false");
    case 'n': return literal(j, "null");
    case '{':
    case '[': {
        if (depth >= MAX_DEPTH)
            return syntax(j, "maximum parsing depth reached");
        char close = *j->p == '{' ? '}' : ']';
        if (open_empty(j, close))
            return 0;
        int more;
        do {
            if ((close == '}' && member_key(j, NULL, NULL) != 0) || skip_value(j, depth + 1) != 0)
                return -1;
        } while ((more = next_element(j, close)) > 0);
        return more;
    }
    default:
        if (number_starts(j))
            return number(j, &v);
        return unexpected(j, "a value");
    }
}

/* Object iteration: at '{' (checked by the caller); calls each(key) with p
 * on the value, which it must consume. */
typedef int (*member_fn)(struct jp *j, const char *key, size_t klen, void *arg);
static int members(struct jp *j, member_fn each, void *arg)
{
    if (open_empty(j, '}'))
        return 0;
    int more;
    do {
        char key[KEY_MAX];
        size_t klen;
        if (member_key(j, key, &klen) != 0 || each(j, klen < KEY_MAX ? key : "", klen, arg) != 0)
            return -1;
    } while ((more = next_element(j, '}')) > 0);
    return more;
}

/* ---- numeric arrays ---------------------------------------------------------- */

/* Where an array's numbers go: field `col` of req's records from index
 * req->n on (not yet counted), or a scratch vector. */
struct sink {
    struct ftio_requests *req;
    int     col;
    double **vec;
    size_t  *vec_cap;
};

/* Number i goes to d[(base + i) * *stride]. */
#define REC_STRIDE (sizeof(struct ftio_request) / sizeof(double))
static double *sink_data(const struct sink *s, size_t *cap, size_t *base, size_t *stride)
{
    if (s->req) {
        *cap = s->req->cap;
        *base = s->req->n;
        *stride = REC_STRIDE;
        struct ftio_request *r = s->req->rec;
        return !r ? NULL : s->col == COL_RATE ? &r->rate : s->col == COL_TS ? &r->t_start
                                                                             : &r->t_end;
    }
    *cap = *s->vec_cap;
    *base = 0;
    *stride = 1;
    return *s->vec;
}

static int sink_grow(struct sink *s, size_t want)
{
    if (s->req)
        return ftio_requests_reserve(s->req, want);
    return FTIO_GROW(*s->vec, *s->vec_cap, want);
}

/* The array of numbers `name` at p into s; *len its length. */
static int num_array(struct jp *j, const char *name, struct sink *s, size_t *len)
{
    if (!at(j, '['))
        return fail(j, "\"%s\" is not an array", name);
    size_t i = 0, cap, base, stride;
    double *d = sink_data(s, &cap, &base, &stride);
    *len = 0;
    if (open_empty(j, ']'))
        return 0;
    for (;;) {
        if (base + i >= cap) {
            if (sink_grow(s, base + i + 1) != 0)
                return fail(j, "out of memory");
            d = sink_data(s, &cap, &base, &stride);
        }
        double *to = &d[(base + i) * stride];
        /* hot loop: a number, then ',' (maybe spaces) */
        const char *e = j->p < j->end && (*j->p == '-' || (unsigned char)(*j->p - '0') < 10)
                      ? ftio_scan_number(j->p, j->end, true, to) : NULL;
        if (!e) {
            if (number_starts(j))
                return syntax(j, "invalid number");
            if (j->p < j->end && *j->p && strchr("\"{[tfn", *j->p))
                /* a JSON value but not a number: say which element */
                return fail(j, "\"%s\"[%zu] is not a number", name, i);
            return unexpected(j, "a number");
        }
        if (!isfinite(*to))
            return syntax(j, "number out of range");
        j->p = e;
        i++;
        if (j->p < j->end && *j->p == ',') {   /* the usual case, without the calls */
            j->p++;
            ws(j);
            continue;
        }
        int more = next_element(j, ']');
        if (more <= 0) {
            *len = i;
            return more;
        }
    }
}

/* ---- series: rate, start and end arrays of one direction -------------------- */

struct series {
    struct ftio_trace_dir *d;
    bool   has[NCOL];
    size_t len[NCOL];
};

static int series_array(struct jp *j, struct series *s, int col, const char *name)
{
    if (s->has[col])
        return fail(j, "\"%s\" twice", name);
    s->has[col] = true;
    struct sink k = { &s->d->req, col, NULL, NULL };
    return num_array(j, name, &k, &s->len[col]);
}

/* The three arrays are complete: check them and count the requests. */
static int series_commit(struct jp *j, struct series *s, const char *what, double *bytes)
{
    *bytes = 0;
    if (!s->has[0] && !s->has[1] && !s->has[2])
        return 0;
    if (!s->has[0] || !s->has[1] || !s->has[2])
        return fail(j, "%s: rate, start and end arrays must all be present", what);
    size_t n = s->len[0];
    if (s->len[1] != n || s->len[2] != n)
        return fail(j, "%s: arrays differ in length (%zu, %zu, %zu)", what, n, s->len[1],
                    s->len[2]);
    struct ftio_requests *r = &s->d->req;
    struct ftio_request *q = r->rec + r->n;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (q[i].rate < 0 || q[i].t_end < q[i].t_start)
            return fail(j, "%s[%zu]: negative rate or end before start", what, i);
        sum += q[i].rate * (q[i].t_end - q[i].t_start);
        q[i].proc = q[i].fid = 0;        /* the arrays say neither */
    }
    r->n += n;
    j->t->records += n;
    *bytes = sum;
    return 0;
}

/* ---- mode objects ------------------------------------------------------------ */

/* A scalar member read later: present, a number, its value. */
struct scalar {
    bool   has, is_num;
    double v;
};

static int scalar(struct jp *j, struct scalar *s, const char *name)
{
    if (s->has)
        return fail(j, "\"%s\" twice", name);
    s->has = true;
    if (number_starts(j)) {
        s->is_num = true;
        return number(j, &s->v);
    }
    return skip_value(j, 2);
}

struct bandwidth {
    struct series s;
    bool   has_ov[2];
    size_t ov_len[2];
};

static int bandwidth_member(struct jp *j, const char *key, size_t klen, void *arg)
{
    struct bandwidth *bw = arg;
    (void)klen;
    static const char *const cols[NCOL] = { "b_rank_avr", "t_rank_s", "t_rank_e" };
    for (int c = 0; c < NCOL; c++)
        if (strcmp(key, cols[c]) == 0)
            return series_array(j, &bw->s, c, key);
    for (int o = 0; o < 2; o++)
        if (strcmp(key, o ? "t_overlap" : "b_overlap_avr") == 0) {
            if (bw->has_ov[o])
                return fail(j, "\"%s\" twice", key);
            bw->has_ov[o] = true;
            struct sink k = { NULL, 0, &j->ov[o], &j->ov_cap[o] };
            return num_array(j, key, &k, &bw->ov_len[o]);
        }
    return skip_value(j, 3);
}

/* The bandwidth object of mode `what` at p, into d; *bytes what its rates carry. */
static int bandwidth(struct jp *j, struct ftio_trace_dir *d, const char *what, double *bytes)
{
    if (!at(j, '{'))
        return fail(j, "%s.bandwidth is not an object", what);
    struct bandwidth bw;
    memset(&bw, 0, sizeof bw);
    bw.s.d = d;
    if (members(j, bandwidth_member, &bw) != 0 || series_commit(j, &bw.s, what, bytes) != 0)
        return -1;
    if (bw.has_ov[0] || bw.has_ov[1]) {
        if (!bw.has_ov[0] || !bw.has_ov[1] || bw.ov_len[0] != bw.ov_len[1])
            return fail(j, "%s: b_overlap_avr and t_overlap differ", what);
        for (size_t i = 0; i < bw.ov_len[0]; i++)
            if (ftio_trace_overlap_push(d, j->ov[1][i], j->ov[0][i]) != 0)
                return fail(j, "out of memory");
        d->has_overlap = true;
    } else if (bw.s.len[COL_RATE] > 0) {
        d->overlap_missing = true;
    }
    return 0;
}

/* What a mode object holds, applied once it is complete. */
struct mode {
    struct ftio_trace_dir *d;
    const char   *what;
    struct scalar ranks, total;
    bool          has_bw;
    double        bw_bytes;
};

static int mode_finish(struct jp *j, struct mode *m)
{
    if (m->ranks.has) {
        if (!m->ranks.is_num || !(m->ranks.v >= 0 && m->ranks.v <= FTIO_MAX_RANKS))
            return fail(j, "%s.number_of_ranks is not a count", m->what);
        int64_t r = (int64_t)m->ranks.v;
        if (r > j->t->ranks_declared)
            j->t->ranks_declared = r;
    }
    if (m->total.has) {
        if (!m->total.is_num)
            return fail(j, "%s.total_bytes is not a number", m->what);
        /* Some producers write 0 when they did not count: trust the rates then. */
        m->d->bytes += m->total.v > 0 ? m->total.v : m->bw_bytes;
    } else {
        m->d->bytes += m->bw_bytes;   /* not declared: what the rates carry */
    }
    return 0;
}

/* A member of a mode object, or of a bare top-level mode object. */
static int mode_member(struct jp *j, struct mode *m, const char *key)
{
    if (strcmp(key, "number_of_ranks") == 0)
        return scalar(j, &m->ranks, key);
    if (strcmp(key, "total_bytes") == 0)
        return scalar(j, &m->total, key);
    if (strcmp(key, "bandwidth") == 0) {
        if (m->has_bw)
            return fail(j, "\"bandwidth\" twice");
        m->has_bw = true;
        return bandwidth(j, m->d, m->what, &m->bw_bytes);
    }
    return skip_value(j, 2);
}

static int mode_member_cb(struct jp *j, const char *key, size_t klen, void *arg)
{
    (void)klen;
    return mode_member(j, arg, key);
}

/* ---- top-level objects -------------------------------------------------------- */

static const struct { const char *key; int is_write; } tmio_modes[] = {
    { "write_sync", 1 }, { "write_async_t", 1 }, { "read_sync", 0 }, { "read_async_t", 0 },
};
#define NMODES (sizeof tmio_modes / sizeof tmio_modes[0])

struct top {
    struct mode   bare;          /* "bandwidth" + number_of_ranks/total_bytes */
    struct series b;             /* top-level b/ts/te */
    bool seen[NMODES];
    bool tmio, bare_bw, bare_b, ignored;
};

static int top_member(struct jp *j, const char *key, size_t klen, void *arg)
{
    struct top *o = arg;
    (void)klen;
    for (size_t i = 0; i < NMODES; i++)
        if (strcmp(key, tmio_modes[i].key) == 0) {
            if (o->seen[i])
                return fail(j, "\"%s\" twice", key);
            o->seen[i] = o->tmio = true;
            if (!at(j, '{'))
                return fail(j, "\"%s\" is not an object", key);
            struct mode m = { .d = ftio_trace_dir_of(j->t, tmio_modes[i].is_write),
                              .what = tmio_modes[i].key };
            return members(j, mode_member_cb, &m) != 0 ? -1 : mode_finish(j, &m);
        }
    static const char *const bcols[NCOL] = { "b", "ts", "te" };
    for (int c = 0; c < NCOL; c++)
        if (strcmp(key, bcols[c]) == 0) {
            o->bare_b = true;
            return series_array(j, &o->b, c, key);
        }
    if (strcmp(key, "bandwidth") == 0)
        o->bare_bw = true;
    else if (strcmp(key, "io_time") == 0 || strcmp(key, "read_async_b") == 0 ||
             strcmp(key, "write_async_b") == 0)
        o->ignored = true;
    /* bandwidth, number_of_ranks, total_bytes: kept for a bare mode object */
    return mode_member(j, &o->bare, key);
}

/* What an object may change in the trace, to take it back on error. */
struct snapshot {
    size_t   n[2], ov[2];
    double   bytes[2];
    bool     has_ov[2], ov_missing[2];
    uint64_t records;
    int64_t  ranks;
};

static void snap(const struct ftio_trace *t, struct snapshot *s)
{
    for (int w = 0; w < 2; w++) {
        const struct ftio_trace_dir *d = w ? &t->write : &t->read;
        s->n[w] = d->req.n;
        s->ov[w] = d->overlap.n;
        s->bytes[w] = d->bytes;
        s->has_ov[w] = d->has_overlap;
        s->ov_missing[w] = d->overlap_missing;
    }
    s->records = t->records;
    s->ranks = t->ranks_declared;
}

static void restore(struct ftio_trace *t, const struct snapshot *s)
{
    for (int w = 0; w < 2; w++) {
        struct ftio_trace_dir *d = w ? &t->write : &t->read;
        d->req.n = s->n[w];
        d->overlap.n = s->ov[w];
        d->bytes = s->bytes[w];
        d->has_overlap = s->has_ov[w];
        d->overlap_missing = s->ov_missing[w];
    }
    t->records = s->records;
    t->ranks_declared = s->ranks;
}

static int object(struct jp *j)
{
    if (!at(j, '{'))
        return fail(j, "expected a JSON object");
    int is_write = j->c->o->bare_mode != FTIO_MODE_READ;
    struct top o;
    memset(&o, 0, sizeof o);
    o.bare.d = o.b.d = ftio_trace_dir_of(j->t, is_write);
    o.bare.what = "bandwidth";
    if (members(j, top_member, &o) != 0)
        return -1;
    if (o.tmio + o.bare_bw + o.bare_b > 1)
        return fail(j, "mixes TMIO mode keys, a \"bandwidth\" object and b/ts/te arrays");
    if (o.bare_bw)
        return mode_finish(j, &o.bare);
    if (o.bare_b) {
        double bytes;
        if (series_commit(j, &o.b, "b/ts/te", &bytes) != 0)
            return -1;
        o.b.d->bytes += bytes;
        o.b.d->overlap_missing = true;
        return 0;
    }
    if (!o.tmio && !o.ignored)
        return fail(j, "no I/O data (expected TMIO mode keys such as \"write_sync\", a "
                    "\"bandwidth\" object, or b/ts/te arrays)");
    return 0;
}

int ftio_read_tmio_json(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    struct jp j = { .c = c, .t = t, .buf = buf, .p = buf, .end = buf + len, .line = 1 };
    size_t objects = 0, released = 0, page = (size_t)sysconf(_SC_PAGESIZE);
    int rc = 0;
    for (;;) {
        ws(&j);
        if (j.p >= j.end)
            break;
        j.obj_line = j.line;
        struct snapshot s;
        snap(t, &s);
        if (object(&j) != 0) {
            restore(t, &s);
            rc = -1;
            break;
        }
        objects++;
        size_t off = (size_t)(j.p - buf);
        if (c->mapped && off - released >= RELEASE_EVERY) {
            size_t upto = off & ~(page - 1);
            madvise((char *)buf + released, upto - released, MADV_DONTNEED);
            released = upto;
        }
    }
    free(j.ov[0]);
    free(j.ov[1]);
    if (rc == 0 && objects == 0)
        return FTIO_READER_FAIL(c, "line %zu: no JSON object (byte %zu)", j.line, len);
    return rc;
}
