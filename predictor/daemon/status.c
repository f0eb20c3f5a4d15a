/* SPDX-License-Identifier: BSD-3-Clause */
/* status.c -- the daemon's status document, what `ftiod --status` asks for
 * on the control socket (control_serve.c serves it, status_client.c prints
 * it): its jobs (records, bytes, loss, latest period per mode), the jobs
 * that ended recently (--keep-ended: how and when they ended, their
 * summary, kept here) and the messages it dropped. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "auth.h"
#include "daemon.h"
#include "history_glue.h"
#include "publish/report.h"

static json_t *mode_status(const struct job_mode_state *m)
{
    json_t *o = json_object();
    const struct ftio_stream_totals *t = job_mode_totals(m);
    const struct ftio_online *on = ftio_stream_online(m->stream);
    const struct ftio_online_update *u = job_mode_update(m);
    json_object_set_new(o, "records", json_integer((json_int_t)t->records));
    json_object_set_new(o, "bytes", json_real(t->bytes));
    json_object_set_new(o, "analyses", json_integer((json_int_t)on->hist.analyses));
    bool p = u && u->res.has_period;
    json_object_set_new(o, "period", p ? json_real(u->res.dominant.period) : json_null());
    json_object_set_new(o, "confidence", p ? json_real(u->res.dominant.confidence) : json_null());
    json_object_set_new(o, "class", json_string(u ? ftio_class_name(u->res.cls) : "none"));
    json_object_set_new(o, "p_periodic", u ? ftio_json_number(u->p_periodic) : json_null());
    json_object_set_new(o, "last_error", on->has_error ? json_real(on->last_error) : json_null());
    json_object_set_new(o, "scored", json_integer((json_int_t)on->scored));
    json_object_set_new(o, "missed", json_integer((json_int_t)on->missed));
    /* Frequency groups of ALGORITHM.md §6: where the periods found fell. */
    json_t *groups = json_array();
    for (size_t i = 0; i < on->hist.ngroups && i < FTIO_MAX_GROUPS; i++) {
        const struct ftio_freq_group *g = &on->hist.group[i];
        json_t *go = json_object();
        json_object_set_new(go, "f_min", json_real(g->f_min));
        json_object_set_new(go, "f_max", json_real(g->f_max));
        json_object_set_new(go, "share", on->hist.analyses
                                ? json_real((double)g->count / on->hist.analyses) : json_null());
        json_array_append_new(groups, go);
    }
    json_object_set_new(o, "groups", groups);
    return o;
}

static struct ftiod_ended *ended_at(struct ftiod *d, size_t k);

void ftiod_ended_add(struct ftiod *d, const struct job *j, const char *end)
{
    size_t keep = d->cfg.keep_ended;
    if (keep == 0)
        return;
    if (!d->ended && !(d->ended = calloc(keep, sizeof *d->ended)))
        return;
    char *copy = strdup(end), *id = strdup(j->id);
    if (!copy || !id) {
        free(copy);
        free(id);
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct ftiod_ended add = {j->uid, (double)now.tv_sec + now.tv_nsec * 1e-9, id, copy};
    /* A corrected end (a later revision) takes the place of the first. */
    struct ftiod_ended *e = NULL;
    for (size_t k = 0; k < d->nended && !e; k++)
        if (strcmp(ended_at(d, k)->id, j->id) == 0)
            e = ended_at(d, k);
    if (!e) {
        e = &d->ended[d->ended_next];     /* the oldest one goes */
        d->ended_next = (d->ended_next + 1) % keep;
        if (d->nended < keep)
            d->nended++;
    }
    free(e->id);
    free(e->end);
    *e = add;
}

/* The k-th most recent ended job (k < nended). */
static struct ftiod_ended *ended_at(struct ftiod *d, size_t k)
{
    size_t keep = d->cfg.keep_ended;
    return &d->ended[(d->ended_next + keep - 1 - k) % keep];
}

/* e's end message with "ended_at" and "uid" (a new object, NULL out of
 * memory). */
static json_t *ended_json(const struct ftiod_ended *e)
{
    json_t *o = json_loads(e->end, 0, NULL);
    if (!o)
        return NULL;
    json_object_set_new(o, "ended_at", json_real(e->ended_at));
    json_object_set_new(o, "uid", e->uid >= 0 ? json_integer((json_int_t)e->uid) : json_null());
    return o;
}

json_t *ftiod_ended_find(struct ftiod *d, const char *id, int64_t uid)
{
    for (size_t k = 0; k < d->nended; k++) {
        struct ftiod_ended *e = ended_at(d, k);
        if (strcmp(e->id, id) == 0 && (uid < 0 || e->uid == uid))
            return ended_json(e);
    }
    return NULL;
}

void ftiod_ended_free(struct ftiod *d)
{
    for (size_t k = 0; d->ended && k < d->cfg.keep_ended; k++) {
        free(d->ended[k].id);
        free(d->ended[k].end);
    }
    free(d->ended);
    d->ended = NULL;
    d->nended = d->ended_next = 0;
}

/* The counters of ftiod_stats the document lists, under "totals" and
 * "dropped", in the order it lists them. */
struct counter { const char *key; size_t off; };
#define COUNTER(key, field) { key, offsetof(struct ftiod_stats, field) }
static const struct counter totals[] = {
    COUNTER("messages", messages), COUNTER("batches", batches), COUNTER("records", records),
    COUNTER("analyses", analyses), COUNTER("published", published),
    COUNTER("analysis_threads", threads), COUNTER("parallel_turns_max", turns_max),
    COUNTER("log_lines_lost", log_lost), COUNTER("connections", connections),
};
static const struct counter dropped[] = {
    COUNTER("malformed", malformed), COUNTER("truncated", truncated),
    COUNTER("multipart", multipart), COUNTER("over_max_jobs", over_jobs),
    COUNTER("over_max_procs", over_procs), COUNTER("duplicates", duplicates),
    COUNTER("bad_sequence", bad_seq), COUNTER("unauthenticated", unauthenticated),
    COUNTER("foreign", foreign), COUNTER("over_user_jobs", over_user_jobs),
    COUNTER("over_user_procs", over_user_procs), COUNTER("over_user_rate", over_user_rate),
    COUNTER("over_memory", over_memory), COUNTER("connections_refused", connections_refused),
    COUNTER("queries_refused", queries_refused),
};

static json_t *counters(const struct ftiod_stats *s, const struct counter *c, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++) {
        const uint64_t *v = (const uint64_t *)((const char *)s + c[i].off);
        json_object_set_new(o, c[i].key, json_integer((json_int_t)*v));
    }
    return o;
}

json_t *ftiod_status_doc(struct ftiod *d, int64_t uid)
{
    const struct ftiod_stats *s = &d->stats;
    double now = ftiod_now();
    json_t *root = json_object();
    json_object_set_new(root, "v", json_integer(1));
    json_object_set_new(root, "version", json_string(FTIO_VERSION));
    json_object_set_new(root, "uptime", json_real(now - d->started));
    json_object_set_new(root, "totals", counters(s, totals, sizeof totals / sizeof *totals));
    json_object_set_new(root, "dropped", counters(s, dropped, sizeof dropped / sizeof *dropped));
    json_object_set_new(root, "auth", json_string(ftio_auth_mode_name(d->cfg.auth)));
    json_object_set_new(root, "memory_reserved", json_real(ftiod_memory_reserved(d)));
    json_object_set_new(root, "history", ftiod_history_status(d));   /* history_glue.h */
    if (uid >= 0)
        json_object_set_new(root, "only_uid", json_integer((json_int_t)uid));

    json_t *jobs = json_array();
    for (size_t i = 0; i < d->jobs.n; i++) {
        const struct job *j = d->jobs.job[i];
        if ((uid >= 0 && j->uid != uid) || j->closed)
            continue;          /* ended jobs are listed under "ended" */
        json_t *o = json_object();
        json_object_set_new(o, "job", json_string(j->id));
        json_object_set_new(o, "uid", j->uid >= 0 ? json_integer((json_int_t)j->uid) : json_null());
        json_object_set_new(o, "foreign_batches", json_integer((json_int_t)j->foreign_batches));
        json_object_set_new(o, "rejected_batches", json_integer((json_int_t)j->rejected_batches));
        json_object_set_new(o, "processes", json_integer((json_int_t)j->nprocs));
        json_object_set_new(o, "nranks", json_integer(j->nranks));
        json_object_set_new(o, "final", json_integer((json_int_t)j->nfinal));
        json_object_set_new(o, "batches", json_integer((json_int_t)j->batches));
        json_object_set_new(o, "records", json_integer((json_int_t)j->data_records));
        json_object_set_new(o, "bytes", json_real(j->bytes));
        json_object_set_new(o, "memory", json_integer((json_int_t)job_memory(j)));
        json_object_set_new(o, "lost", json_integer((json_int_t)j->lost));
        json_object_set_new(o, "lost_batches", json_integer((json_int_t)j->lost_batches));
        json_object_set_new(o, "bad_sequence_batches", json_integer((json_int_t)j->bad_seq_batches));
        json_object_set_new(o, "recovered_batches", json_integer((json_int_t)j->recovered_batches));
        json_object_set_new(o, "duplicate_batches", json_integer((json_int_t)j->dup_batches));
        json_object_set_new(o, "nested_records", json_integer((json_int_t)j->nested_records));
        json_object_set_new(o, "bad_records", json_integer((json_int_t)j->bad_records));
        json_t *dropped = json_object();   /* bad_records by reason, as the .end has them */
        for (int k = 0; k < JOB_NDROPS; k++)
            json_object_set_new(dropped, job_drop_name(k), json_integer((json_int_t)j->dropped[k]));
        json_object_set_new(o, "dropped_records", dropped);
        json_object_set_new(o, "idle", json_real(now - j->last_activity));
        for (int m = 0; m < JOB_NMODES; m++)
            if (j->mode[m].stream)
                json_object_set_new(o, job_mode_name(m), mode_status(&j->mode[m]));
        json_array_append_new(jobs, o);
    }
    json_object_set_new(root, "jobs", jobs);
    /* Recently ended jobs, latest first: a scheduler that asks after the
     * end still has an answer. */
    json_t *ended = json_array();
    for (size_t k = 0; k < d->nended; k++) {
        struct ftiod_ended *e = ended_at(d, k);
        if (uid < 0 || e->uid == uid)
            json_array_append_new(ended, ended_json(e));
    }
    json_object_set_new(root, "ended", ended);
    json_object_set_new(root, "keep_ended", json_integer((json_int_t)d->cfg.keep_ended));
    return root;
}
