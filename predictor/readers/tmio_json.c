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
 * number_of_ranks takes the max.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "readers.h"

struct json_src {
    struct ftio_reader_ctx *c;
    struct ftio_trace      *t;
    size_t                  line;   /* line where the current object starts */
};

/* Fetch a numeric array member; NULL (no error) when absent. */
static int get_array(struct json_src *s, json_t *obj, const char *key, json_t **out)
{
    json_t *a = json_object_get(obj, key);
    *out = NULL;
    if (!a)
        return 0;
    if (!json_is_array(a))
        return FTIO_READER_FAIL(s->c, "line %zu: \"%s\" is not an array", s->line, key);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (!json_is_number(v))
            return FTIO_READER_FAIL(s->c, "line %zu: \"%s\"[%zu] is not a number",
                                    s->line, key, i);
    }
    *out = a;
    return 0;
}

/* Append rates b over [ts, te) into dir; returns the bytes they carry. */
static int push_series(struct json_src *s, struct ftio_trace_dir *d, json_t *b, json_t *ts,
                       json_t *te, const char *what, double *bytes)
{
    if (!b && !ts && !te)
        return 0;
    if (!b || !ts || !te)
        return FTIO_READER_FAIL(s->c, "line %zu: %s: rate, start and end arrays must all be present",
                                s->line, what);
    size_t n = json_array_size(b);
    if (json_array_size(ts) != n || json_array_size(te) != n)
        return FTIO_READER_FAIL(s->c, "line %zu: %s: arrays differ in length (%zu, %zu, %zu)",
                                s->line, what, n, json_array_size(ts), json_array_size(te));
    *bytes = 0;
    for (size_t i = 0; i < n; i++) {
        double rate = json_number_value(json_array_get(b, i));
        double t0 = json_number_value(json_array_get(ts, i));
        double t1 = json_number_value(json_array_get(te, i));
        if (!isfinite(rate) || !isfinite(t0) || !isfinite(t1))
            return FTIO_READER_FAIL(s->c, "line %zu: %s[%zu]: not a finite number", s->line, what, i);
        if (rate < 0 || t1 < t0)
            return FTIO_READER_FAIL(s->c, "line %zu: %s[%zu]: negative rate or end before start",
                                    s->line, what, i);
        if (ftio_requests_push_rate(&d->req, t0, t1, rate) != 0)
            return FTIO_READER_FAIL(s->c, "line %zu: out of memory", s->line);
        *bytes += rate * (t1 - t0);
    }
    s->t->records += n;
    return 0;
}

static int read_mode(struct json_src *s, json_t *m, const char *key, int is_write)
{
    if (!json_is_object(m))
        return FTIO_READER_FAIL(s->c, "line %zu: \"%s\" is not an object", s->line, key);
    struct ftio_trace_dir *d = ftio_trace_dir_of(s->t, is_write);

    json_t *ranks = json_object_get(m, "number_of_ranks");
    if (ranks) {
        if (!json_is_number(ranks) || !(json_number_value(ranks) >= 0 &&
                                        json_number_value(ranks) <= FTIO_MAX_RANKS))
            return FTIO_READER_FAIL(s->c, "line %zu: %s.number_of_ranks is not a count", s->line, key);
        int64_t r = (int64_t)json_number_value(ranks);
        if (r > s->t->ranks_declared)
            s->t->ranks_declared = r;
    }
    json_t *bw = json_object_get(m, "bandwidth");
    double bytes = 0;
    if (bw) {
        if (!json_is_object(bw))
            return FTIO_READER_FAIL(s->c, "line %zu: %s.bandwidth is not an object", s->line, key);
        json_t *b, *ts, *te, *ob, *ot;
        if (get_array(s, bw, "b_rank_avr", &b) || get_array(s, bw, "t_rank_s", &ts) ||
            get_array(s, bw, "t_rank_e", &te) || get_array(s, bw, "b_overlap_avr", &ob) ||
            get_array(s, bw, "t_overlap", &ot))
            return -1;
        if (push_series(s, d, b, ts, te, key, &bytes) != 0)
            return -1;
        if (ob || ot) {
            if (!ob || !ot || json_array_size(ob) != json_array_size(ot))
                return FTIO_READER_FAIL(s->c, "line %zu: %s: b_overlap_avr and t_overlap differ",
                                        s->line, key);
            for (size_t i = 0; i < json_array_size(ob); i++)
                if (ftio_trace_overlap_push(d, json_number_value(json_array_get(ot, i)),
                                            json_number_value(json_array_get(ob, i))) != 0)
                    return FTIO_READER_FAIL(s->c, "line %zu: out of memory", s->line);
            d->has_overlap = true;
        } else if (b && json_array_size(b) > 0) {
            d->overlap_missing = true;
        }
    }
    json_t *total = json_object_get(m, "total_bytes");
    if (total) {
        if (!json_is_number(total))
            return FTIO_READER_FAIL(s->c, "line %zu: %s.total_bytes is not a number", s->line, key);
        /* Some producers write 0 when they did not count: trust the rates then. */
        d->bytes += json_number_value(total) > 0 ? json_number_value(total) : bytes;
    } else {
        d->bytes += bytes;   /* not declared: what the rates carry */
    }
    return 0;
}

static const struct { const char *key; int is_write; } tmio_modes[] = {
    { "write_sync", 1 }, { "write_async_t", 1 }, { "read_sync", 0 }, { "read_async_t", 0 },
};

static int read_object(struct json_src *s, json_t *o)
{
    int is_write = s->c->o->bare_mode != FTIO_MODE_READ;
    if (!json_is_object(o))
        return FTIO_READER_FAIL(s->c, "line %zu: expected a JSON object", s->line);
    if (json_object_get(o, "bandwidth"))
        return read_mode(s, o, "bandwidth", is_write);
    if (json_object_get(o, "b") || json_object_get(o, "ts") || json_object_get(o, "te")) {
        json_t *b, *ts, *te;
        double bytes = 0;
        if (get_array(s, o, "b", &b) || get_array(s, o, "ts", &ts) || get_array(s, o, "te", &te) ||
            push_series(s, ftio_trace_dir_of(s->t, is_write), b, ts, te, "b/ts/te", &bytes))
            return -1;
        ftio_trace_dir_of(s->t, is_write)->bytes += bytes;
        ftio_trace_dir_of(s->t, is_write)->overlap_missing = true;
        return 0;
    }
    int found = 0;
    for (size_t i = 0; i < sizeof tmio_modes / sizeof tmio_modes[0]; i++) {
        json_t *m = json_object_get(o, tmio_modes[i].key);
        if (!m)
            continue;
        found = 1;
        if (read_mode(s, m, tmio_modes[i].key, tmio_modes[i].is_write) != 0)
            return -1;
    }
    if (!found && !json_object_get(o, "io_time") && !json_object_get(o, "read_async_b") &&
        !json_object_get(o, "write_async_b"))
        return FTIO_READER_FAIL(s->c, "line %zu: no I/O data (expected TMIO mode keys such as "
                                "\"write_sync\", a \"bandwidth\" object, or b/ts/te arrays)", s->line);
    return 0;
}

int ftio_read_tmio_json(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    struct json_src s = { c, t, 1 };
    size_t off = 0, line = 1, objects = 0;
    for (;;) {
        while (off < len && (buf[off] == ' ' || buf[off] == '\t' || buf[off] == '\r' ||
                             buf[off] == '\n'))
            line += buf[off++] == '\n';
        if (off >= len)
            break;
        json_error_t e;
        json_t *o = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &e);
        if (!o)
            return FTIO_READER_FAIL(c, "line %zu: %s", line + (size_t)(e.line > 0 ? e.line - 1 : 0),
                                    e.text);
        s.line = line;
        int rc = read_object(&s, o);
        json_decref(o);
        if (rc != 0)
            return -1;
        objects++;
        size_t used = (size_t)e.position;
        if (used == 0)   /* cannot happen with a parsed object; never loop */
            return FTIO_READER_FAIL(c, "line %zu: parser made no progress", line);
        for (size_t i = off; i < off + used && i < len; i++)
            line += buf[i] == '\n';
        off += used;
    }
    if (objects == 0)
        return FTIO_READER_FAIL(c, "line %zu: no JSON object", line);
    return 0;
}
