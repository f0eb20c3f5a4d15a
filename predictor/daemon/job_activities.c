/* SPDX-License-Identifier: BSD-3-Clause */
/* job_activities.c -- the activity of each record (see job_activities.h).
 *
 * Records are told apart by their file id: the batches' file tables give
 * each id a path, the path a pattern (ftio_activity_pattern), the pattern an
 * activity of the mode's stream.  Ids whose path never arrived are
 * "(unknown)"; patterns past the first JOB_MAX_ACTIVITIES - 1 of a mode, or
 * past JOB_MAX_PATTERNS in the job, go to "other" (the stream's bound).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "job_activities.h"
#include "publish/report.h"

#define OTHER_ID JOB_MAX_PATTERNS   /* pattern id of everything beyond the table */

void job_activities_free(struct job_activities *s)
{
    if (!s)
        return;
    free(s->fkey);
    free(s->fval);
    for (size_t i = 0; i < s->npat; i++) {
        free(s->pat[i].name);
        free(s->pat[i].example);
    }
    free(s->pat);
    free(s);
}

double job_activities_memory(const struct job *j)
{
    const struct job_activities *s = j->acts;
    if (!s)
        return 0;
    return sizeof *s + (double)s->fcap * (sizeof *s->fkey + sizeof *s->fval) +
           (double)s->patcap * sizeof *s->pat + (double)s->patbytes;
}

/* ---- file id -> pattern id -------------------------------------------------- */

static size_t fslot(const struct job_activities *s, uint32_t id)
{
    size_t i = (id * 2654435761u) & (s->fcap - 1);
    while (s->fkey[i] && s->fkey[i] != id)
        i = (i + 1) & (s->fcap - 1);
    return i;
}

static int fmap_grow(struct job_activities *s)
{
    size_t cap = s->fcap ? s->fcap * 2 : 64;
    struct job_activities n = { .fcap = cap };
    n.fkey = calloc(cap, sizeof *n.fkey);
    n.fval = calloc(cap, sizeof *n.fval);
    if (!n.fkey || !n.fval) {
        free(n.fkey);
        free(n.fval);
        return -1;
    }
    for (size_t i = 0; i < s->fcap; i++)
        if (s->fkey[i]) {
            size_t k = fslot(&n, s->fkey[i]);
            n.fkey[k] = s->fkey[i];
            n.fval[k] = s->fval[i];
        }
    free(s->fkey);
    free(s->fval);
    s->fkey = n.fkey;
    s->fval = n.fval;
    s->fcap = cap;
    return 0;
}

static int pattern_id(struct job_activities *s, const char *pattern, const char *path)
{
    for (size_t i = 0; i < s->npat; i++)
        if (strcmp(s->pat[i].name, pattern) == 0) {
            s->pat[i].nfiles += path != NULL;
            return (int)i;
        }
    if (s->npat == JOB_MAX_PATTERNS)
        return OTHER_ID;
    if (FTIO_GROW(s->pat, s->patcap, s->npat + 1) < 0)
        return OTHER_ID;
    struct job_pattern *q = &s->pat[s->npat];
    memset(q, 0, sizeof *q);
    if (!(q->name = strdup(pattern)) || !(q->example = strdup(path ? path : ""))) {
        free(q->name);
        return OTHER_ID;
    }
    s->patbytes += strlen(q->name) + strlen(q->example) + 2;
    q->nfiles = path != NULL;
    q->first = INFINITY;
    q->last = -INFINITY;
    return (int)s->npat++;
}

/* Name file `id` (the first path given wins; ids are path hashes). */
static void add_file(struct job_activities *s, uint32_t id, const char *path)
{
    if (id == 0 || !path || !*path)
        return;
    if ((s->fn + 1) * 2 > s->fcap && fmap_grow(s) != 0)
        return;
    size_t k = fslot(s, id);
    if (s->fkey[k])
        return;
    char p[FTIO_PATTERN_MAX];
    ftio_activity_pattern(path, p, sizeof p);
    s->fkey[k] = id;
    s->fval[k] = pattern_id(s, p, path);
    s->fn++;
    s->changed = true;
}

static int pattern_of_file(struct job_activities *s, uint32_t id, bool *known)
{
    *known = false;
    if (id && s->fcap) {
        size_t k = fslot(s, id);
        if (s->fkey[k]) {
            *known = true;
            return s->fval[k];
        }
    }
    if (s->unknown <= 0)
        s->unknown = pattern_id(s, "(unknown)", NULL) + 1;
    return s->unknown - 1;
}

/* ---- records into activities -------------------------------------------------- */

static struct job_activities *acts_of(struct job *j)
{
    if (!j->acts)
        j->acts = calloc(1, sizeof *j->acts);
    return j->acts;
}

/* A later directory of activity `act`'s series (activities.h rule 1):
 * pattern p differs from the activity's only by its directories' digits,
 * and the activity's records all ended before this one (at ts) began. */
static bool next_of_series(const char *act, double act_last, const struct job_pattern *p, double ts)
{
    char x[FTIO_PATTERN_MAX], y[FTIO_PATTERN_MAX];
    ftio_activity_series(act, x, sizeof x);
    ftio_activity_series(p->name, y, sizeof y);
    return act_last <= ts && strcmp(x, y) == 0 && strcmp(y, p->name) != 0;
}

void job_activities_files(struct job *j, const struct ftio_batch *b)
{
    struct job_activities *s = acts_of(j);
    for (size_t i = 0; s && i < b->h.nfiles; i++)
        add_file(s, b->h.files[i].id, b->h.files[i].path);
}

int job_activity_of(struct job *j, int mode, uint32_t file_id, double ts, double te, double bytes)
{
    struct job_activities *s = acts_of(j);
    struct ftio_stream *st = j->mode[mode].stream;
    if (!s || !st)
        return -1;
    bool known;
    int p = pattern_of_file(s, file_id, &known);
    if (p != OTHER_ID) {
        struct job_pattern *q = &s->pat[p];
        q->bytes += bytes;
        q->first = ftio_fmin(q->first, ts);
        q->last = ftio_fmax(q->last, te);
    }
    int a = s->slot[mode][p] - 1;
    if (a < 0) {
        const struct job_pattern *q = p == OTHER_ID ? NULL : &s->pat[p];
        /* rule 1b: a tiny pattern so far is no activity yet */
        if (q && q->nfiles > 0 && ftio_activity_tiny(q->bytes, q->nfiles, q->last - q->first))
            return -1;
        size_t n = ftio_stream_nactivities(st);
        for (size_t k = 0; q && k < n && k < JOB_MAX_ACTIVITIES; k++) {
            struct ftio_stream_answer x = ftio_stream_activity_answer(st, (int)k);
            if (x.name && next_of_series(x.name, s->t_last[mode][k], q, ts)) {
                char series[FTIO_PATTERN_MAX];
                ftio_activity_series(q->name, series, sizeof series);
                if (ftio_stream_rename_activity(st, (int)k, series) == 0)
                    a = (int)k;
                break;
            }
        }
        if (a < 0)
            a = ftio_stream_activity(st, p == OTHER_ID ? "other" : q->name);
        if (a < 0)
            return -1;
        s->slot[mode][p] = (int8_t)(a + 1);
        if (a < JOB_MAX_ACTIVITIES && !s->example[mode][a])
            s->example[mode][a] = p + 1;
        s->changed = true;
    }
    if (a < JOB_MAX_ACTIVITIES)
        s->t_last[mode][a] = ftio_fmax(s->t_last[mode][a], te);
    return a;
}

void job_activities_count(struct job *j)
{
    struct job_activities *s = j->acts;
    if (!s || !s->changed)
        return;
    s->changed = false;
    /* The named files whose pattern has the activity's slot. */
    size_t n[JOB_NMODES][FTIO_MAX_ACTIVITIES + 1];
    memset(n, 0, sizeof n);
    for (size_t i = 0; i < s->fcap; i++)
        for (int m = 0; s->fkey[i] && m < JOB_NMODES; m++) {
            int sl = s->slot[m][s->fval[i]];
            if (sl > 0 && sl <= FTIO_MAX_ACTIVITIES)
                n[m][sl - 1]++;
        }
    for (int m = 0; m < JOB_NMODES; m++)
        for (int a = 0; j->mode[m].stream && a < FTIO_MAX_ACTIVITIES; a++)
            ftio_stream_set_files(j->mode[m].stream, a, n[m][a]);
}

/* ---- answers ---------------------------------------------------------------------- */

size_t job_answers(const struct job *j, int mode, struct job_answer *out, size_t max)
{
    const struct ftio_stream *st = j->mode[mode].stream;
    if (max == 0)
        return 0;
    if (!st) {
        out[0] = (struct job_answer){ NULL, "", 0, 0, 0, NULL };
        return 1;
    }
    struct ftio_stream_answer a[1 + FTIO_MAX_ACTIVITIES];
    size_t n = ftio_stream_answers(st, a, max < 1 + FTIO_MAX_ACTIVITIES ? max : 1 + FTIO_MAX_ACTIVITIES);
    const struct job_activities *acts = j->acts;
    for (size_t i = 0; i < n; i++) {
        int e = acts && a[i].act >= 0 && a[i].act < JOB_MAX_ACTIVITIES ? acts->example[mode][a[i].act] : 0;
        out[i] = (struct job_answer){ a[i].name, e > 0 ? acts->pat[e - 1].example : "", a[i].bytes,
                                      a[i].records, a[i].nfiles, a[i].update };
    }
    return n;
}

/* ---- JSON ------------------------------------------------------------------------- */

static void shift(struct ftio_result *r, double origin)
{
    r->t0 += origin;
    r->t1 += origin;
    if (r->next.valid) {
        r->next.start += origin;
        r->next.end += origin;
    }
}

json_t *job_activities_json(const struct job *j, int mode, double origin,
                            const struct ftio_online_update *job)
{
    struct job_answer ans[1 + JOB_MAX_ACTIVITIES];
    size_t n = job_answers(j, mode, ans, 1 + JOB_MAX_ACTIVITIES);   /* as `ftio` lists them */
    json_t *arr = json_array();
    double total = 0;
    for (size_t k = 1; k < n; k++)
        total += ans[k].bytes;
    for (size_t i = 1; arr && i < n; i++) {
        const struct job_answer *a = &ans[i];
        const struct ftio_online_update *u = a->update;
        struct ftio_result r;
        memset(&r, 0, sizeof r);
        if (u)
            r = u->res;
        ftio_activity_roll_next(&r, job->after);
        shift(&r, origin);
        struct ftio_activity info;
        memset(&info, 0, sizeof info);
        snprintf(info.pattern, sizeof info.pattern, "%s", a->pattern);
        snprintf(info.example, sizeof info.example, "%s", a->example);
        info.rule = strcmp(a->pattern, "other") == 0 ? FTIO_RULE_OTHER
                    : strcmp(a->pattern, "(unknown)") == 0 ? FTIO_RULE_UNKNOWN
                    : a->nfiles > 1 ? FTIO_RULE_PATTERN : FTIO_RULE_FILE;
        info.nfiles = a->nfiles;
        info.bytes = a->bytes;
        info.share = total > 0 ? a->bytes / total : 0;
        info.nreq = (size_t)a->records;
        json_t *o = ftio_report_json_activity(&info, &r, ftio_activity_matches(&job->res, &r));
        if (!o)
            continue;
        json_object_set_new(o, "stale", json_boolean(u && u->stale));
        json_object_set_new(o, "since", u && u->stale ? ftio_json_number(u->since + origin) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}
