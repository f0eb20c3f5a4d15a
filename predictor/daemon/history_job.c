/* SPDX-License-Identifier: BSD-3-Clause */
/* history_job.c -- one job and the memory of runs (history_glue.h,
 * docs/ALGORITHM.md §11): its application's identity from its first batch
 * and the lookup queued; the priors the answer gives, published at once;
 * each prior checked after each online step of its mode (analysis/prior.c)
 * and, while it leads, the prediction it makes in place of the observed
 * one (`source: "history"`); the job's final answers recorded at its `.end`.
 *
 * Times: a prior's check runs on the job's own time axis (seconds from its
 * origin, as the bins), which exists only once a data record came; before,
 * the prior is published on the Unix epoch straight from the job's start.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app_key.h"
#include "history_glue.h"
#include "job_activities.h"
#include "publish/report.h"
#include "sched.h"
#include "timeutil.h"

/* The start of a mode's signal a run's record keeps to find its first
 * phases: this many periods of its longest answer, at least MIN_S, at most
 * MAX_S (the horizon bounds it too). */
#define FIRST_SPAN_PERIODS 3.0
#define FIRST_SPAN_MIN_S 120.0
#define FIRST_SPAN_MAX_S 7200.0

static uint64_t next_serial;     /* under d->lock */

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

static bool key_copy(struct ftio_store_app *to, const struct ftio_store_app *from)
{
    to->uid = from->uid;
    to->prog = dup_or_empty(from->prog);
    to->exe = dup_or_empty(from->exe);
    to->args = dup_or_empty(from->args);
    to->args_norm = dup_or_empty(from->args_norm);
    to->name = dup_or_empty(from->name);
    return to->prog && to->exe && to->args && to->args_norm && to->name;
}

static double real_now(void)
{
    return (double)ftio_real_ns() * 1e-9;
}

/* The job's start on its own time axis (NAN before its origin). */
static double job_start_rel(const struct job *j, const struct job_history *h)
{
    return j->has_origin ? (double)(h->start_ns - j->origin_ns) * 1e-9 : NAN;
}

/* ---- the first batch -------------------------------------------------------------------- */

/* A request for the thread about job j. */
static struct history_req *request(enum history_req_kind kind, const struct job *j)
{
    struct history_req *r = calloc(1, sizeof *r);
    if (r && !(r->job = strdup(j->id))) {
        free(r);
        return NULL;
    }
    if (r) {
        r->kind = kind;
        r->serial = j->history->serial;
    }
    return r;
}

/* An MPI job starts when its last rank is through MPI_Init: its outputs
 * come a computation after that, however the ranks' starts spread (up to a
 * second on a loaded node; the same rule as the archive's,
 * readers/spool_read.c).  b is the batch that made job.c count the last
 * rank's MPI_Init: the last rank's, sent as MPI_Init returned.  The prior
 * published at the first batch is published again from that start. */
static void ranks_up(struct ftiod *d, struct job *j, const struct ftio_batch_header *b)
{
    struct job_history *h = j->history;
    h->ranks_up = true;
    int64_t late = b->clock_real - h->start_ns;
    if (d->cfg.verbose)
        ftiod_log_at(FTIOD_DEBUG, "job %s: its %d ranks are up, the last %.3f s after the first batch",
                     j->id, j->mpi_nranks, (double)late * 1e-9);
    if (late <= 0)
        return;
    h->start_ns = b->clock_real;
    struct history_req *r = h->looked_up ? request(HREQ_REPUBLISH, j) : NULL;
    if (r && !ftiod_history_queue(d, r))
        history_req_free(r);
}

static bool all_ranks_up(const struct job *j)
{
    return j->mpi_nranks > 0 && j->nmpi_init >= (size_t)j->mpi_nranks;
}

void ftiod_history_batch(struct ftiod *d, struct job *j, const struct ftio_batch *b)
{
    if (!d->history)
        return;
    if (j->history) {
        if (!j->history->ranks_up && all_ranks_up(j))
            ranks_up(d, j, &b->h);
        return;
    }
    if (!b->h.has_app)
        return;
    const struct ftio_app_identity *a = &b->h.app;
    if (!a->exe || !a->args || !a->args_norm)
        return;                    /* nothing to know it by */
    struct job_history *h = calloc(1, sizeof *h);
    if (!h)
        return;
    /* Whose history: the job's owner as MUNGE or a claim says (never what
     * the sender claims), but under --auth none there is no owner. */
    struct ftio_store_app key = {
        .uid = j->uid >= 0 ? j->uid : a->uid, .prog = ftio_app_prog(a->exe), .exe = a->exe,
        .args = a->args, .args_norm = a->args_norm, .name = a->name,
    };
    h->serial = ++next_serial;
    h->start_ns = b->h.clock_real > 0 ? b->h.clock_real : ftio_real_ns();
    h->nranks = b->h.nranks;
    h->exe_id = dup_or_empty(a->exe_id);
    h->ranks_up = all_ranks_up(j);    /* one rank: its first batch */
    j->history = h;
    struct history_req *r = request(HREQ_LOOKUP, j);
    if (r && (!key_copy(&h->key, &key) || !key_copy(&r->key, &key) || !h->exe_id ||
              !ftiod_history_queue(d, r)))
        history_req_free(r);
}

/* ---- the lookup's answer ------------------------------------------------------------------ */

/* The priors of a match into a job's arrays (per mode). */
static void priors_of(const struct ftio_store_match *m, struct job_prior *out[JOB_NMODES],
                      size_t n[JOB_NMODES])
{
    struct ftio_store_prior p[JOB_NMODES * (1 + JOB_MAX_ACTIVITIES)];
    size_t np = ftio_store_priors(m, p, sizeof p / sizeof *p);
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        n[mode] = 0;
        out[mode] = calloc(1 + JOB_MAX_ACTIVITIES, sizeof **out);
        for (size_t i = 0; out[mode] && i < np && n[mode] < 1 + JOB_MAX_ACTIVITIES; i++) {
            if (p[i].mode != mode)
                continue;
            struct job_prior *q = &out[mode][n[mode]++];
            snprintf(q->pattern, sizeof q->pattern, "%s", p[i].pattern);
            /* started on the job's axis at its first step (ftiod_history_step) */
            ftio_prior_check_start(&q->c, &p[i].p, 0);
        }
    }
}

/* The mode's own prior (the first, pattern ""), or NULL. */
static struct job_prior *mode_prior(const struct job_history *h, int mode)
{
    return h && h->nprior[mode] && !h->prior[mode][0].pattern[0] ? &h->prior[mode][0] : NULL;
}

bool ftiod_history_leads(const struct job *j, int mode)
{
    const struct job_prior *p = mode_prior(j->history, mode);
    return p && !j->history->ended && p->c.state == FTIO_PRIOR_LEADS;
}

void ftiod_history_install(struct ftiod *d, const char *job, uint64_t serial,
                           const struct ftio_store_match *m)
{
    struct job_prior *prior[JOB_NMODES] = { NULL, NULL };
    size_t n[JOB_NMODES] = { 0, 0 };
    if (m && m->level != FTIO_PRIOR_NONE)
        priors_of(m, prior, n);
    json_t *msg[JOB_NMODES] = { NULL, NULL };
    char *topic[JOB_NMODES] = { NULL, NULL }, said[512] = "";
    pthread_mutex_lock(&d->lock);
    struct job *j = job_table_find(&d->jobs, job);
    struct job_history *h = j ? j->history : NULL;
    if (h && h->serial == serial && (m ? !h->looked_up : h->looked_up)) {
        if (m) {
            h->looked_up = true;
            h->level = m->level;
            h->runs = (unsigned)m->nruns;
        }
        size_t len = 0;
        for (int mode = 0; mode < JOB_NMODES && !h->ended; mode++) {
            if (m) {
                h->prior[mode] = prior[mode];
                h->nprior[mode] = n[mode];
                prior[mode] = NULL;
            }
            struct job_prior *p = mode_prior(h, mode);
            if (!p || (!m && p->started))
                continue;
            /* the job's own analysis may have answered already (a slow store) */
            struct job_mode_state *ms = &j->mode[mode];
            const struct ftio_online_update *u = job_mode_update(ms);
            if (u)
                ftio_prior_check_answer(&p->c, &u->res, u->stale);
            if (m)             /* a summary made before this answer (every process
                                * sent final while the store was slow) kept a text
                                * without the prior */
                job_mode_forget_said(ms);
            len += (size_t)snprintf(said + len, len < sizeof said ? sizeof said - len : 0,
                                    "%s%s period %.4g s (confidence %.2f, %s)", len ? ", " : "",
                                    job_mode_name(mode), p->c.p.period, p->c.confidence,
                                    ftio_prior_state_name(p->c.state));
            if (p->c.state != FTIO_PRIOR_LEADS)
                continue;
            ms->pub_seq++;
            msg[mode] = ftiod_prediction_json(j, mode);
            topic[mode] = ftiod_topic_of(j->id, job_mode_name(mode));
        }
        if (!m)
            ;                          /* published again: said at the first */
        else if (said[0])
            ftiod_log_at(FTIOD_INFO, "job %s: memory of runs: %s of uid %" PRId64 " known by %s "
                         "(%zu run%s): %s", j->id, h->key.prog, h->key.uid,
                         ftio_prior_level_name(m->level), m->nruns, m->nruns == 1 ? "" : "s", said);
        else if (d->cfg.verbose)
            ftiod_log_at(FTIOD_DEBUG, "job %s: memory of runs: %s of uid %" PRId64 " %s", j->id,
                         h->key.prog, h->key.uid, m->level ? "known, but its runs give no period"
                                                           : "not known");
    }
    pthread_mutex_unlock(&d->lock);
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        if (msg[mode] && topic[mode])
            ftiod_publish(d, topic[mode], msg[mode]);
        else
            json_decref(msg[mode]);
        free(topic[mode]);
        free(prior[mode]);
    }
}

/* ---- after each online step ---------------------------------------------------------------- */

void ftiod_history_step(struct analysis *a, struct job *j, int mode, double b)
{
    struct job_history *h = j->history;
    struct job_prior *p = mode_prior(h, mode);
    if (!p || h->ended || !j->has_origin)
        return;
    struct job_mode_state *m = &j->mode[mode];
    if (!p->started) {
        struct ftio_prior q = p->c.p;
        enum ftio_prior_state s = p->c.state;
        ftio_prior_check_start(&p->c, &q, job_start_rel(j, h));
        p->c.state = s;
        p->started = true;
    }
    if (p->c.state != FTIO_PRIOR_LEADS)
        return;
    struct ftio_prior_check c = p->c;
    const struct ftio_online_update *u = job_mode_update(m);
    bool changed = u && ftio_prior_check_answer(&c, &u->res, u->stale);
    double from = ftio_prior_check_from(&c);
    /* the job's signal since the last phase judged, copied here */
    struct ftio_samples x = {0};
    if (!changed && from < b && m->stream &&
        ftio_bins_samples_mode(ftio_stream_mode_bins(m->stream), from, b, FTIO_SAMPLING_AVERAGE,
                               &x) == 0) {
        pthread_mutex_unlock(&a->d->lock);
        changed = ftio_prior_check_phases(&c, a->an, &x);
        pthread_mutex_lock(&a->d->lock);
    }
    ftio_samples_free(&x);
    p->c = c;
    if (changed)
        ftiod_log_at(FTIOD_INFO, "job %s %s: the memory of runs' prior (period %.4g s) %s%s%s",
                     j->id, job_mode_name(mode), c.p.period,
                     c.state == FTIO_PRIOR_CONFIRMED ? "is confirmed by the job's own analysis"
                                                     : "hands over to the observed analysis",
                     c.why[0] ? ": " : "", c.why);
}

/* ---- the prediction ------------------------------------------------------------------------- */

/* The prior's answer, times on the Unix epoch, next phase after now. */
static void prior_answer(const struct job *j, const struct job_history *h,
                         const struct job_prior *p, double now, struct ftio_result *r)
{
    if (p->started) {
        double origin = (double)j->origin_ns * 1e-9;
        ftio_prior_result(&p->c, now - origin, r);
        if (r->next.valid) {
            r->next.start += origin;
            r->next.end += origin;
        }
        return;
    }
    struct ftio_prior_check c;
    ftio_prior_check_start(&c, &p->c.p, (double)h->start_ns * 1e-9);
    c.confidence = p->c.confidence;
    ftio_prior_result(&c, now, r);
}

static json_t *history_json(const struct job_history *h, const struct job_prior *p)
{
    return json_pack("{s:I, s:s, s:o, s:o, s:I, s:s, s:o}", "runs", (json_int_t)p->c.p.runs,
                     "level", ftio_prior_level_name(h->level), "confidence",
                     ftio_json_number(p->c.p.confidence), "period", ftio_json_number(p->c.p.period),
                     "agreed", (json_int_t)p->c.agreed, "state", ftio_prior_state_name(p->c.state),
                     "reason", p->c.why[0] ? json_string(p->c.why) : json_null());
}

/* The answer fields of o replaced by those of r. */
static void replace_answer(json_t *o, const struct ftio_result *r, const char *mode)
{
    static const char *const keys[] = { "period", "frequency", "confidence", "class", "candidates",
                                        "metrics", "phase", "next", "reason", "detector" };
    json_t *src = ftio_report_json(r, mode);
    for (size_t i = 0; src && i < sizeof keys / sizeof *keys; i++)
        json_object_set(o, keys[i], json_object_get(src, keys[i]));
    json_decref(src);
}

/* Activities: each observed one the prior knows and the job has not yet
 * answered for takes the prior's answer; the prior's others follow. */
static void activities_json(const struct job_history *h, int mode, json_t *arr, double now,
                            const struct job *j, double mode_period)
{
    bool *used = calloc(h->nprior[mode] + 1, sizeof *used);
    size_t i;
    json_t *a;
    json_array_foreach(arr, i, a) {
        const char *pat = json_string_value(json_object_get(a, "pattern"));
        const char *cls = json_string_value(json_object_get(a, "class"));
        json_object_set_new(a, "source", json_string("observed"));
        for (size_t k = 1; pat && used && k < h->nprior[mode]; k++) {
            const struct job_prior *p = &h->prior[mode][k];
            if (strcmp(p->pattern, ftio_app_prog(pat)) != 0)
                continue;
            used[k] = true;
            if (cls && !strcmp(cls, "periodic"))
                break;
            struct ftio_result r;
            prior_answer(j, h, p, now, &r);
            /* the period from the runs; the next phase too when they know
             * where the train begins, else the job's own (its phases so far) */
            static const char *const keys[] = { "period", "frequency", "confidence", "class",
                                                "phase", "next" };
            struct ftio_activity info = { 0 };
            json_t *src = ftio_report_json_activity(&info, &r, false);
            size_t nkeys = sizeof keys / sizeof *keys - !r.next.valid;
            for (size_t q = 0; src && q < nkeys; q++)
                json_object_set(a, keys[q], json_object_get(src, keys[q]));
            json_decref(src);
            json_object_set_new(a, "source", json_string("history"));
            break;
        }
    }
    for (size_t k = 1; used && k < h->nprior[mode]; k++) {
        if (used[k])
            continue;
        const struct job_prior *p = &h->prior[mode][k];
        struct ftio_result r;
        prior_answer(j, h, p, now, &r);
        struct ftio_activity info = { 0 };
        snprintf(info.pattern, sizeof info.pattern, "%s", p->pattern);
        info.rule = FTIO_RULE_PATTERN;
        info.bytes = info.share = NAN;
        double per = p->c.p.period;
        json_t *o = ftio_report_json_activity(&info, &r,
                                              fabs(per - mode_period) <= FTIO_PRIOR_AGREE * per);
        if (!o)
            continue;
        json_object_set_new(o, "stale", json_false());
        json_object_set_new(o, "since", json_null());
        json_object_set_new(o, "source", json_string("history"));
        json_array_append_new(arr, o);
    }
    free(used);
}

void ftiod_history_json(const struct job *j, int mode, json_t *o)
{
    const struct job_history *h = j->history;
    const struct job_prior *p = mode_prior(h, mode);
    bool leads = p && !h->ended && p->c.state == FTIO_PRIOR_LEADS;
    json_object_set_new(o, "source", json_string(leads ? "history" : "observed"));
    json_object_set_new(o, "history", p ? history_json(h, p) : json_null());
    json_t *acts = json_object_get(o, "activities");
    if (!leads) {
        size_t i;
        json_t *a;
        json_array_foreach(acts, i, a)
            json_object_set_new(a, "source", json_string("observed"));
        return;
    }
    double now = real_now();
    struct ftio_result r;
    prior_answer(j, h, p, now, &r);
    replace_answer(o, &r, job_mode_name(mode));
    json_object_set_new(o, "stale", json_false());
    json_object_set_new(o, "since", json_null());
    const struct job_mode_state *ms = &j->mode[mode];
    if (!job_mode_update(ms)) {
        /* nothing observed yet: the window is the job's start until now */
        double fs = ms->stream ? ftio_stream_mode_bins(ms->stream)->fs : 0.0;
        json_object_set_new(o, "window", json_pack("{s:f, s:f, s:f, s:i}", "start",
                                                   (double)h->start_ns * 1e-9, "end", now, "fs",
                                                   fs, "samples", 0));
    }
    if (json_is_array(acts))
        activities_json(h, mode, acts, now, j, p->c.p.period);
}

/* ---- the end ---------------------------------------------------------------------------------- */

void ftiod_history_end(struct ftiod *d, struct job *j)
{
    struct job_history *h = j->history;
    if (!d->history || !h)
        return;
    h->ended = true;
    struct history_req *r = request(HREQ_RECORD, j);
    size_t cap = JOB_NMODES * (1 + JOB_MAX_ACTIVITIES);
    if (!r || !(r->answers = calloc(cap, sizeof *r->answers)) || !key_copy(&r->key, &h->key) ||
        !(r->exe_id = strdup(h->exe_id))) {
        history_req_free(r);
        return;
    }
    r->start = (double)h->start_ns * 1e-9;
    r->end = real_now();
    r->nranks = j->mpi_nranks > 0 ? j->mpi_nranks : j->nranks > 0 ? j->nranks : (int64_t)j->nprocs;
    r->job_start = job_start_rel(j, h);
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        struct job_answer ans[1 + JOB_MAX_ACTIVITIES];
        size_t n = m->stream ? job_answers(j, mode, ans, 1 + JOB_MAX_ACTIVITIES) : 0;
        /* the activities only when there are several: one is the mode itself */
        size_t take = n >= 3 ? n : n > 0 ? 1 : 0;
        double longest = 0;
        for (size_t i = 0; i < take; i++) {
            if (!ans[i].update)
                continue;
            const struct ftio_result *res = &ans[i].update->res;
            struct ftio_store_answer *w = &r->answers[r->nanswers++];
            w->mode = mode;
            snprintf(w->pattern, sizeof w->pattern, "%s", ans[i].pattern ? ans[i].pattern : "");
            w->period = res->has_period ? res->dominant.period : NAN;
            w->confidence = res->has_period ? res->dominant.confidence : NAN;
            w->cls = res->cls;
            bool mv = res->has_period && res->metrics.valid;
            w->bytes = mv ? res->metrics.phase_bytes : NAN;
            w->duration = mv ? res->metrics.phase_duration : NAN;
            w->first_offset = NAN;
            if (res->has_period)
                longest = fmax(longest, res->dominant.period);
        }
        /* the start of the signal, where the first phases are */
        if (take && isfinite(r->job_start)) {
            double span = fmin(fmax(FIRST_SPAN_PERIODS * longest, FIRST_SPAN_MIN_S), FIRST_SPAN_MAX_S);
            const struct ftio_stream_totals *t = job_mode_totals(m);
            double from = fmin(t->t_min, r->job_start);
            ftio_bins_samples_mode(ftio_stream_mode_bins(m->stream), from, fmin(t->t_max, from + span),
                                   FTIO_SAMPLING_AVERAGE, &r->x[mode]);
        }
    }
    if (r->nanswers == 0 || !ftiod_history_queue(d, r))
        history_req_free(r);
}
