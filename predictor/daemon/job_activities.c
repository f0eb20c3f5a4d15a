/* SPDX-License-Identifier: BSD-3-Clause */
/* job_activities.c -- ftiod's per-activity streams (see job_activities.h).
 *
 * Records are told apart by their file id: the batches' file tables give
 * each id a path, the path a pattern (ftio_activity_pattern), the pattern a
 * slot per mode.  Ids whose path never arrived are "(unknown)"; patterns past
 * the first JOB_MAX_ACTIVITIES - 1 of a mode, or past JOB_MAX_PATTERNS in the
 * job, go to "other".  Every activity is stepped on the mode's boundaries
 * with its own ftio_online state, so its answer is what `ftio --window` says
 * of it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "job_activities.h"
#include "publish/report.h"

#define OTHER_ID JOB_MAX_PATTERNS   /* pattern id of everything beyond the table */

static void activity_free(struct job_activity *a)
{
    if (!a)
        return;
    if (a->has_bins)
        ftio_bins_free(&a->bins);
    free(a);
}

void job_activities_free(struct job_activities *s)
{
    if (!s)
        return;
    for (int m = 0; m < JOB_NMODES; m++)
        for (size_t k = 0; k < s->n[m]; k++)
            activity_free(s->a[m][k]);
    free(s->fkey);
    free(s->fval);
    free(s->pat);
    free(s);
}

double job_activities_memory(const struct job *j)
{
    const struct job_activities *s = j->acts;
    double total = 0;
    if (!s)
        return 0;
    total += sizeof *s + (double)s->fcap * (sizeof *s->fkey + sizeof *s->fval) +
             (double)s->patcap * sizeof *s->pat;
    for (int m = 0; m < JOB_NMODES; m++)
        for (size_t k = 0; k < s->n[m]; k++)
            total += sizeof *s->a[m][k] +
                     (s->a[m][k]->has_bins ? (double)s->a[m][k]->bins.capacity * 3 * sizeof(double) : 0);
    return total;
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
    snprintf(q->name, sizeof q->name, "%s", pattern);
    snprintf(q->example, sizeof q->example, "%s", path ? path : "");
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

static int bins_on_grid(const struct job_mode_state *m, struct ftio_bins *b)
{
    if (ftio_bins_init(b, m->bins.fs, m->bins.origin, m->bins.limit) != 0)
        return -1;
    b->first = b->last = m->bins.first;
    return 0;
}

/* A later directory of activity a's series (activities.h rule 1): pattern
 * p differs from a's only by its directories' digits, and a's records all
 * ended before this one (at ts) began. */
static bool next_of_series(const struct job_activity *a, const struct job_pattern *p, double ts)
{
    char x[FTIO_PATTERN_MAX], y[FTIO_PATTERN_MAX];
    ftio_activity_series(a->pattern, x, sizeof x);
    ftio_activity_series(p->name, y, sizeof y);
    return a->t_last <= ts && strcmp(x, y) == 0 && strcmp(y, p->name) != 0;
}

/* The slot of pattern id p in mode `mode` for a record starting at ts,
 * created when new; -1 when none can be (out of memory) or when the pattern
 * is tiny so far (rule 1b: no activity for it yet). */
static int slot_of(struct job_activities *s, int mode, int p, double ts, bool *created)
{
    *created = false;
    if (s->slot[mode][p])
        return s->slot[mode][p] - 1;
    size_t n = s->n[mode];
    const struct job_pattern *q = p == OTHER_ID ? NULL : &s->pat[p];
    if (q && q->nfiles > 0 && ftio_activity_tiny(q->bytes, q->nfiles, q->last - q->first))
        return -1;
    for (size_t k = 0; q && k < n; k++)
        if (next_of_series(s->a[mode][k], q, ts)) {
            struct job_activity *a = s->a[mode][k];
            ftio_activity_series(q->name, a->pattern, sizeof a->pattern);
            s->slot[mode][p] = (int8_t)(k + 1);
            return (int)k;
        }
    const char *name = p == OTHER_ID ? "other" : q->name;
    if (n >= JOB_MAX_ACTIVITIES - 1 && p != OTHER_ID) {
        /* Full: the last slot is "other" for every later pattern. */
        int o = s->slot[mode][OTHER_ID] ? s->slot[mode][OTHER_ID] - 1
                                         : slot_of(s, mode, OTHER_ID, ts, created);
        if (o >= 0)
            s->slot[mode][p] = (int8_t)(o + 1);
        return o;
    }
    if (n >= JOB_MAX_ACTIVITIES)
        return -1;
    struct job_activity *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    snprintf(a->pattern, sizeof a->pattern, "%s", name);
    if (q)
        snprintf(a->example, sizeof a->example, "%s", q->example);
    s->a[mode][n] = a;
    s->n[mode] = n + 1;
    s->slot[mode][p] = (int8_t)(n + 1);
    *created = true;
    return (int)n;
}

/* The conversion of job.c's merge_records (common/batch_requests.h and the
 * daemon's horizon and margin), for record i; false when not a data record
 * the mode's bins took. */
static bool record_of(const struct job *j, const struct ftio_record *r, struct ftio_batch_clock clk,
                      const struct ftio_convert_options *co, const struct job_limits *lim,
                      int *mode, double *ts, double *te, double *bytes)
{
    struct ftio_wall_request q;
    if (ftio_record_request(r, clk, co, &q) != FTIO_REQ_DATA)
        return false;
    *mode = q.is_write ? JOB_WRITE : JOB_READ;
    *ts = ftio_job_seconds(q.start_ns, j->origin_ns);
    *te = ftio_job_seconds(q.end_ns, j->origin_ns);
    if (*te - *ts > lim->horizon || *ts < -JOB_EARLY_MARGIN || !j->mode[*mode].has_data)
        return false;
    const struct ftio_bins *b = &j->mode[*mode].bins;
    if (*ts < b->origin + (double)b->first / b->fs && b->first <= 0)
        return false;
    if (*te <= *ts)
        *te = *ts + 1e-6;
    *bytes = (double)q.bytes;
    return true;
}

void job_activities_merge(struct job *j, const struct ftio_batch *b,
                          const struct ftio_convert_options *co, const struct job_limits *lim)
{
    if (!j->acts && !(j->acts = calloc(1, sizeof *j->acts)))
        return;
    struct job_activities *s = j->acts;
    for (size_t i = 0; i < b->h.nfiles; i++)
        add_file(s, b->h.files[i].id, b->h.files[i].path);
    if (!j->has_origin)
        return;
    struct ftio_batch_clock clk = ftio_batch_clock_of(&b->h);
    /* One pass.  The first time a mode gets a second activity, the first
     * takes a copy of the mode's bins (which hold this whole batch already)
     * and its online state; from there on in this batch the first one's
     * records are in that copy, and every other one's are taken out of it
     * and put into their own bins. */
    bool split[JOB_NMODES] = { false, false }, news = false;
    uint32_t last_fid = 0;
    int last_pat = -1;
    for (size_t i = 0; i < b->n; i++) {
        int mode;
        double ts, te, bytes;
        bool known, created;
        if (!record_of(j, &b->rec[i], clk, co, lim, &mode, &ts, &te, &bytes))
            continue;
        /* Records of a batch mostly share a file. */
        int p = last_pat >= 0 && b->rec[i].file_id == last_fid
                    ? last_pat : pattern_of_file(s, b->rec[i].file_id, &known);
        last_fid = b->rec[i].file_id;
        last_pat = p;
        if (p != OTHER_ID) {
            struct job_pattern *q = &s->pat[p];
            q->bytes += bytes;
            q->first = fmin(q->first, ts);
            q->last = fmax(q->last, te);
        }
        int k = slot_of(s, mode, p, ts, &created);
        if (k < 0)
            continue;
        struct job_activity *a = s->a[mode][k];
        a->t_last = fmax(a->t_last, te);
        if (created) {
            news = true;
            struct job_mode_state *m = &j->mode[mode];
            if (s->n[mode] == 2) {
                struct job_activity *first = s->a[mode][0];
                if (ftio_bins_clone(&m->bins, &first->bins) == 0) {
                    first->has_bins = true;
                    first->online = m->online;
                    first->has_result = m->has_result;
                    first->update = m->update;
                    split[mode] = true;
                }
            }
            /* Its online state is laid on the mode's loop at its first
             * analysis (job_activities_prepare). */
            if (s->n[mode] >= 2 && !a->has_bins && bins_on_grid(m, &a->bins) == 0)
                a->has_bins = true;
        }
        a->records++;
        a->bytes += bytes;
        if (split[mode]) {
            if (k == 0)
                continue;   /* in the copy already */
            ftio_bins_add(&s->a[mode][0]->bins, ts, te, -bytes);
        }
        if (a->has_bins)
            ftio_bins_add(&a->bins, ts, te, bytes);
    }
    /* Files per activity, counted again when the table or the activities
     * changed: the named files whose pattern has the activity's slot. */
    if (!b->h.nfiles && !news)
        return;
    for (int m = 0; m < JOB_NMODES; m++)
        for (size_t k = 0; k < s->n[m]; k++)
            s->a[m][k]->nfiles = 0;
    for (size_t i = 0; i < s->fcap; i++)
        for (int m = 0; s->fkey[i] && m < JOB_NMODES; m++) {
            int sl = s->slot[m][s->fval[i]];
            if (sl)
                s->a[m][sl - 1]->nfiles++;
        }
}

/* ---- analysis --------------------------------------------------------------------- */

struct job_act_item {
    size_t k;
    struct ftio_bins bins;            /* window copy */
    struct ftio_online online;
    int rc;
    struct ftio_online_update upd;
};

struct job_act_work {
    size_t n;
    struct job_act_item item[JOB_MAX_ACTIVITIES];
};

struct job_act_work *job_activities_prepare(struct job *j, int mode, double te)
{
    struct job_activities *s = j->acts;
    struct job_mode_state *m = &j->mode[mode];
    if (!s || s->n[mode] < 2)
        return NULL;
    struct job_act_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    for (size_t k = 0; k < s->n[mode]; k++) {
        struct job_activity *a = s->a[mode][k];
        if (!a->has_bins)
            continue;
        if (a->online.step <= 0)      /* created before the mode's loop was */
            ftio_online_init(&a->online, &m->online.opts, m->online.step, m->online.fixed_window,
                             m->online.job_start);
        struct job_act_item *it = &w->item[w->n];
        memset(it, 0, sizeof *it);
        /* The activity's own window (its loop forgets by its own period, as
         * `ftio --window` does for each activity), one step before for the
         * hold. */
        double ts = ftio_online_window_start(&a->online, te) - a->online.step;
        if (ftio_bins_copy(&a->bins, ts, te, &it->bins) != 0)
            continue;
        it->k = k;
        it->online = a->online;
        w->n++;
    }
    return w;
}

void job_activities_run(struct job_act_work *w, struct ftio_analyzer *an, struct ftio_samples *x,
                        double te, double now)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++) {
        char err[256];
        struct job_act_item *it = &w->item[i];
        it->rc = ftio_online_step(&it->online, an, &it->bins, te, now, x, &it->upd, err, sizeof err);
    }
}

void job_activities_commit(struct job *j, int mode, struct job_act_work *w)
{
    if (!w)
        return;
    struct job_activities *s = j->acts;
    for (size_t i = 0; i < w->n; i++) {
        struct job_act_item *it = &w->item[i];
        if (s && it->k < s->n[mode]) {
            struct job_activity *a = s->a[mode][it->k];
            a->online = it->online;
            if (it->rc == 0) {
                a->update = it->upd;
                a->has_result = true;
            }
        }
        ftio_bins_free(&it->bins);
    }
    free(w);
}

/* ---- answers ---------------------------------------------------------------------- */

/* The activities of (j, mode) largest bytes first (insertion sort of <= 8). */
static size_t activity_order(const struct job_activities *s, int mode, size_t order[JOB_MAX_ACTIVITIES])
{
    size_t n = s ? s->n[mode] : 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = k;
        for (; i > 0 && s->a[mode][order[i - 1]]->bytes < s->a[mode][k]->bytes; i--)
            order[i] = order[i - 1];
        order[i] = k;
    }
    return n;
}

size_t job_answers(const struct job *j, int mode, struct job_answer *out, size_t max)
{
    const struct job_mode_state *m = &j->mode[mode];
    const struct ftio_online_update *own = m->has_result ? &m->update : NULL;
    if (max == 0)
        return 0;
    out[0] = (struct job_answer){ NULL, m->bytes, m->records, 0, own };
    size_t order[JOB_MAX_ACTIVITIES], n = activity_order(j->acts, mode, order), filled = 1;
    for (size_t i = 0; i < n && filled < max; i++) {
        const struct job_activity *a = j->acts->a[mode][order[i]];
        out[filled++] = (struct job_answer){ a->pattern, a->bytes, a->records, a->nfiles,
                                             n == 1 ? own : a->has_result ? &a->update : NULL };
    }
    return filled;
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
    const struct job_activities *s = j->acts;
    json_t *arr = json_array();
    size_t order[JOB_MAX_ACTIVITIES], n = activity_order(s, mode, order);   /* as `ftio` lists them */
    double total = 0;
    for (size_t k = 0; k < n; k++)
        total += s->a[mode][k]->bytes;
    for (size_t i = 0; arr && i < n; i++) {
        size_t k = order[i];
        const struct job_activity *a = s->a[mode][k];
        /* One activity: the mode's own answer. */
        const struct ftio_online_update *u = n == 1 ? job : a->has_result ? &a->update : NULL;
        struct ftio_result r;
        memset(&r, 0, sizeof r);
        if (u)
            r = u->res;
        ftio_activity_roll_next(&r, job->res.t1);
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
