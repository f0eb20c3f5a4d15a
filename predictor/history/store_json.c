/* SPDX-License-Identifier: BSD-3-Clause */
/* store_json.c -- the replies of `ftio history` as JSON (history.h), one
 * shape whoever answers: ftiod on its control socket (apps, app ID, forget
 * ID: PROTOCOL.md §2) or `ftio history --history` reading a store itself.
 * Numbers that are unknown are null. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "analysis.h"
#include "history/history.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *error_of(struct ftio_store *h)
{
    return json_pack("{s:s, s:b}", "error", ftio_store_error(h), "busy", ftio_store_busy(h));
}

static json_t *info_json(const struct ftio_store_info *i)
{
    return json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:o, s:I, s:o, s:o}", "id", (json_int_t)i->id,
                     "uid", (json_int_t)i->uid, "prog", i->prog, "exe", i->exe, "args", i->args,
                     "args_norm", i->args_norm, "name", i->name[0] ? json_string(i->name) : json_null(),
                     "runs", (json_int_t)i->runs, "used", num(i->used), "last_end", num(i->last_end));
}

static void add_info(void *ctx, const struct ftio_store_info *i)
{
    json_array_append_new(ctx, info_json(i));
}

json_t *ftio_store_reply_apps(struct ftio_store *h, int64_t uid)
{
    json_t *apps = json_array();
    if (ftio_store_list(h, uid, add_info, apps) != 0) {
        json_decref(apps);
        return error_of(h);
    }
    return json_pack("{s:o}", "apps", apps);
}

static const char *mode_name(int mode)
{
    return mode == 1 ? "read" : "write";
}

static json_t *answer_json(const struct ftio_store_answer *a)
{
    return json_pack("{s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:o}", "mode", mode_name(a->mode),
                     "pattern", a->pattern[0] ? json_string(a->pattern) : json_null(),
                     "period", num(a->period), "confidence", num(a->confidence),
                     "class", ftio_class_name((enum ftio_class)a->cls), "bytes", num(a->bytes),
                     "duration", num(a->duration), "first_offset", num(a->first_offset));
}

/* The runs of a match, latest first, each with its answers. */
static json_t *runs_json(const struct ftio_store_match *m)
{
    json_t *runs = json_array(), *cur = NULL;
    for (size_t i = 0; i < m->n; i++) {
        const struct ftio_store_row *r = &m->row[i];
        if (i == 0 || r->run != m->row[i - 1].run) {
            cur = json_array();
            json_array_append_new(runs, json_pack("{s:s, s:s, s:o, s:I, s:o}", "job", r->job,
                                                  "source", r->source, "end", num(r->end),
                                                  "nranks", (json_int_t)r->nranks, "answers", cur));
        }
        json_array_append_new(cur, answer_json(&r->a));
    }
    return runs;
}

static json_t *priors_json(const struct ftio_store_match *m)
{
    struct ftio_store_prior p[2 * 9];
    size_t n = ftio_store_priors(m, p, sizeof p / sizeof *p);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const struct ftio_prior *q = &p[i].p;
        json_array_append_new(arr, json_pack(
            "{s:s, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:o, s:o, s:o, s:o}", "mode",
            mode_name(p[i].mode), "pattern", p[i].pattern[0] ? json_string(p[i].pattern) : json_null(),
            "period", num(q->period), "period_sd", num(q->period_sd), "confidence", num(q->confidence),
            "class", ftio_class_name(q->cls), "runs", (json_int_t)q->runs,
            "agreeing", (json_int_t)q->agreeing, "bytes", num(q->bytes), "duration", num(q->duration),
            "offset", num(q->offset), "offset_sd", num(q->offset_sd)));
    }
    return arr;
}

json_t *ftio_store_reply_app(struct ftio_store *h, int64_t id, int64_t uid)
{
    struct ftio_store_info info;
    struct ftio_store_match m = { .level = FTIO_PRIOR_ARGS };
    int rc = ftio_store_show(h, id, uid, &info, &m);
    json_t *r;
    if (rc < 0)
        r = error_of(h);
    else if (rc == 0)
        r = json_pack("{s:s, s:I}", "error", "no such application", "id", (json_int_t)id);
    else
        r = json_pack("{s:o, s:o, s:o}", "app", info_json(&info), "runs", runs_json(&m),
                      "priors", priors_json(&m));
    ftio_store_match_free(&m);
    return r;
}

json_t *ftio_store_reply_forget(struct ftio_store *h, int64_t id, int64_t uid)
{
    size_t n;
    if (ftio_store_forget(h, id, uid, &n) != 0)
        return error_of(h);
    return json_pack("{s:I}", "forgotten", (json_int_t)n);
}
