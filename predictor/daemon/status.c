/* SPDX-License-Identifier: BSD-3-Clause */
/* status.c -- `ftiod --status`: the daemon answers any request on its REP
 * socket (--status-endpoint) with a JSON document listing its jobs (records,
 * bytes, loss, latest period per mode), the jobs that ended recently
 * (--keep-ended: how and when they ended, their summary) and the messages it
 * dropped; the client side asks one or several daemons and prints a table in
 * human units, or the raw JSON with --json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>
#include "auth.h"
#include "control.h"
#include "curve.h"
#include "daemon.h"
#include "publish/report.h"
#include "units.h"

static json_t *mode_status(const struct job_mode_state *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "records", json_integer((json_int_t)m->records));
    json_object_set_new(o, "bytes", json_real(m->bytes));
    json_object_set_new(o, "analyses", json_integer((json_int_t)m->online.hist.analyses));
    bool p = m->has_result && m->last.has_period;
    json_object_set_new(o, "period", p ? json_real(m->last.dominant.period) : json_null());
    json_object_set_new(o, "confidence", p ? json_real(m->last.dominant.confidence) : json_null());
    json_object_set_new(o, "class", json_string(m->has_result ? ftio_class_name(m->last.cls) : "none"));
    json_object_set_new(o, "p_periodic", m->has_result ? ftio_json_number(m->update.p_periodic) : json_null());
    json_object_set_new(o, "last_error", m->online.has_error ? json_real(m->online.last_error) : json_null());
    json_object_set_new(o, "scored", json_integer((json_int_t)m->online.scored));
    json_object_set_new(o, "missed", json_integer((json_int_t)m->online.missed));
    /* Frequency groups of ALGORITHM.md §6: where the periods found fell. */
    json_t *groups = json_array();
    for (size_t i = 0; i < m->online.hist.ngroups && i < FTIO_MAX_GROUPS; i++) {
        const struct ftio_freq_group *g = &m->online.hist.group[i];
        json_t *go = json_object();
        json_object_set_new(go, "f_min", json_real(g->f_min));
        json_object_set_new(go, "f_max", json_real(g->f_max));
        json_object_set_new(go, "share", m->online.hist.analyses
                                ? json_real((double)g->count / m->online.hist.analyses) : json_null());
        json_array_append_new(groups, go);
    }
    json_object_set_new(o, "groups", groups);
    return o;
}

static struct ftiod_ended *ended_at(struct ftiod *d, size_t k);

void ftiod_ended_add(struct ftiod *d, const struct job *j, json_t *end)
{
    size_t keep = d->cfg.keep_ended;
    if (keep == 0)
        return;
    if (!d->ended && !(d->ended = calloc(keep, sizeof *d->ended)))
        return;
    json_t *copy = json_deep_copy(end);
    if (!copy)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    json_object_set_new(copy, "ended_at", json_real((double)now.tv_sec + now.tv_nsec * 1e-9));
    json_object_set_new(copy, "uid", j->uid >= 0 ? json_integer((json_int_t)j->uid) : json_null());
    /* A corrected end (a later revision) takes the place of the first. */
    for (size_t k = 0; k < d->nended; k++) {
        struct ftiod_ended *e = ended_at(d, k);
        const char *id = json_string_value(json_object_get(e->end, "job"));
        if (id && strcmp(id, j->id) == 0) {
            json_decref(e->end);
            e->end = copy;
            return;
        }
    }
    struct ftiod_ended *e = &d->ended[d->ended_next];
    json_decref(e->end);   /* the oldest one goes */
    *e = (struct ftiod_ended){j->uid, copy};
    d->ended_next = (d->ended_next + 1) % keep;
    if (d->nended < keep)
        d->nended++;
}

/* The k-th most recent ended job (k < nended). */
static struct ftiod_ended *ended_at(struct ftiod *d, size_t k)
{
    size_t keep = d->cfg.keep_ended;
    return &d->ended[(d->ended_next + keep - 1 - k) % keep];
}

json_t *ftiod_ended_find(struct ftiod *d, const char *id, int64_t uid)
{
    for (size_t k = 0; k < d->nended; k++) {
        struct ftiod_ended *e = ended_at(d, k);
        const char *job = json_string_value(json_object_get(e->end, "job"));
        if (job && strcmp(job, id) == 0 && (uid < 0 || e->uid == uid))
            return json_incref(e->end);
    }
    return NULL;
}

void ftiod_ended_free(struct ftiod *d)
{
    for (size_t k = 0; d->ended && k < d->cfg.keep_ended; k++)
        json_decref(d->ended[k].end);
    free(d->ended);
    d->ended = NULL;
    d->nended = d->ended_next = 0;
}

char *ftiod_status_json(struct ftiod *d, int64_t uid)
{
    const struct ftiod_stats *s = &d->stats;
    double now = ftiod_now();
    json_t *root = json_object();
    json_object_set_new(root, "v", json_integer(1));
    json_object_set_new(root, "version", json_string(FTIO_VERSION));
    json_object_set_new(root, "uptime", json_real(now - d->started));
    json_t *in = json_object();
    json_object_set_new(in, "messages", json_integer((json_int_t)s->messages));
    json_object_set_new(in, "batches", json_integer((json_int_t)s->batches));
    json_object_set_new(in, "records", json_integer((json_int_t)s->records));
    json_object_set_new(in, "analyses", json_integer((json_int_t)s->analyses));
    json_object_set_new(in, "published", json_integer((json_int_t)s->published));
    json_object_set_new(in, "analysis_threads", json_integer((json_int_t)s->threads));
    json_object_set_new(in, "parallel_turns_max", json_integer((json_int_t)s->turns_max));
    json_object_set_new(in, "log_lines_lost", json_integer((json_int_t)s->log_lost));
    json_object_set_new(in, "connections", json_integer((json_int_t)s->connections));
    json_object_set_new(root, "totals", in);
    json_t *drop = json_object();
    json_object_set_new(drop, "malformed", json_integer((json_int_t)s->malformed));
    json_object_set_new(drop, "truncated", json_integer((json_int_t)s->truncated));
    json_object_set_new(drop, "multipart", json_integer((json_int_t)s->multipart));
    json_object_set_new(drop, "over_max_jobs", json_integer((json_int_t)s->over_jobs));
    json_object_set_new(drop, "over_max_procs", json_integer((json_int_t)s->over_procs));
    json_object_set_new(drop, "duplicates", json_integer((json_int_t)s->duplicates));
    json_object_set_new(drop, "bad_sequence", json_integer((json_int_t)s->bad_seq));
    json_object_set_new(drop, "unauthenticated", json_integer((json_int_t)s->unauthenticated));
    json_object_set_new(drop, "foreign", json_integer((json_int_t)s->foreign));
    json_object_set_new(drop, "over_user_jobs", json_integer((json_int_t)s->over_user_jobs));
    json_object_set_new(drop, "over_user_procs", json_integer((json_int_t)s->over_user_procs));
    json_object_set_new(drop, "over_user_rate", json_integer((json_int_t)s->over_user_rate));
    json_object_set_new(drop, "over_memory", json_integer((json_int_t)s->over_memory));
    json_object_set_new(drop, "connections_refused", json_integer((json_int_t)s->connections_refused));
    json_object_set_new(drop, "queries_refused", json_integer((json_int_t)s->queries_refused));
    json_object_set_new(root, "dropped", drop);
    json_object_set_new(root, "auth", json_string(ftio_auth_mode_name(d->cfg.auth)));
    json_object_set_new(root, "memory_reserved", json_real(ftiod_memory_reserved(d)));
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
            if (j->mode[m].has_data)
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
            json_array_append(ended, e->end);
    }
    json_object_set_new(root, "ended", ended);
    json_object_set_new(root, "keep_ended", json_integer((json_int_t)d->cfg.keep_ended));
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return text;
}

/* ---- client -------------------------------------------------------------------- */

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "2.000 s high" of a mode's prediction, "none (N analyses)", "-" */
static void period_text(json_t *o, char *buf, size_t len)
{
    double p = num(o, "period");
    char d[FTIO_UNITS_LEN];
    if (!o)
        snprintf(buf, len, "-");
    else if (isnan(p))
        snprintf(buf, len, "none (%.0f analyses)", num(o, "analyses"));
    else
        snprintf(buf, len, "%s %s", ftio_fmt_duration(p, d, sizeof d),
                 json_string_value(json_object_get(o, "class")) ?: "");
}

static void print_table(json_t *root)
{
    json_t *jobs = json_object_get(root, "jobs");
    json_t *drop = json_object_get(root, "dropped");
    json_t *tot = json_object_get(root, "totals");
    char up[FTIO_UNITS_LEN], mem[FTIO_UNITS_LEN], rec[FTIO_UNITS_LEN];
    printf("ftiod %s, up %s: %.0f batches, %s records, %.0f predictions published, "
           "%s in use by the jobs\n",
           json_string_value(json_object_get(root, "version")) ?: "?",
           ftio_fmt_duration(num(root, "uptime"), up, sizeof up), num(tot, "batches"),
           ftio_fmt_count(num(tot, "records"), rec, sizeof rec), num(tot, "published"),
           ftio_fmt_bytes(num(root, "memory_reserved"), mem, sizeof mem));
    printf("dropped messages: %.0f malformed, %.0f truncated, %.0f multi-frame, "
           "%.0f over --max-jobs, %.0f over --max-procs, %.0f duplicates, %.0f bad sequence\n",
           num(drop, "malformed"), num(drop, "truncated"), num(drop, "multipart"),
           num(drop, "over_max_jobs"), num(drop, "over_max_procs"), num(drop, "duplicates"),
           num(drop, "bad_sequence"));
    printf("refused: %.0f unauthenticated, %.0f for another user's job, %.0f over user quotas, "
           "%.0f over --max-memory, %.0f connections, %.0f queries (auth %s)\n",
           num(drop, "unauthenticated"), num(drop, "foreign"),
           num(drop, "over_user_jobs") + num(drop, "over_user_procs") + num(drop, "over_user_rate"),
           num(drop, "over_memory"), num(drop, "connections_refused"), num(drop, "queries_refused"),
           json_string_value(json_object_get(root, "auth")) ?: "?");
    printf("%-20s %6s %10s %10s %8s %8s %9s  %-22s %-22s\n", "job", "procs", "records", "bytes",
           "lost", "gaps", "idle", "write period", "read period");
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) {
        char w[2][64], b[FTIO_UNITS_LEN], r[FTIO_UNITS_LEN], idle[FTIO_UNITS_LEN];
        period_text(json_object_get(j, "write"), w[0], sizeof w[0]);
        period_text(json_object_get(j, "read"), w[1], sizeof w[1]);
        printf("%-20s %6.0f %10s %10s %8.0f %8.0f %9s  %-22s %-22s\n",
               json_string_value(json_object_get(j, "job")) ?: "?", num(j, "processes"),
               ftio_fmt_count(num(j, "records"), r, sizeof r),
               ftio_fmt_bytes(num(j, "bytes"), b, sizeof b), num(j, "lost"),
               num(j, "lost_batches"), ftio_fmt_duration(num(j, "idle"), idle, sizeof idle),
               w[0], w[1]);
    }
    if (json_array_size(jobs) == 0)
        printf("(no jobs)\n");
    json_t *ended = json_object_get(root, "ended");
    if (json_array_size(ended) == 0)
        return;
    printf("recently ended (latest first, at most %.0f kept):\n", num(root, "keep_ended"));
    printf("%-20s %-12s %-8s %-9s %6s %10s %10s  %-22s %-22s\n", "job", "ended", "by",
           "complete", "procs", "bytes", "lost", "write period", "read period");
    double now = (double)time(NULL);
    json_array_foreach(ended, i, j) {
        char w[2][64], ago[FTIO_UNITS_LEN + 8], d[FTIO_UNITS_LEN], b[FTIO_UNITS_LEN];
        json_t *sum = json_object_get(j, "summary");
        double bytes = 0;
        const char *mode;
        json_t *m;
        json_object_foreach(sum, mode, m)
            if (json_is_number(json_object_get(m, "bytes")))
                bytes += num(m, "bytes");
        period_text(json_object_get(sum, "write"), w[0], sizeof w[0]);
        period_text(json_object_get(sum, "read"), w[1], sizeof w[1]);
        snprintf(ago, sizeof ago, "%s ago", ftio_fmt_duration(now - num(j, "ended_at"), d, sizeof d));
        printf("%-20s %-12s %-8s %-9s %6.0f %10s %10.0f  %-22s %-22s\n",
               json_string_value(json_object_get(j, "job")) ?: "?", ago,
               json_string_value(json_object_get(j, "ended_by")) ?: "?",
               json_is_true(json_object_get(j, "complete")) ? "yes" : "no",
               num(j, "processes"), ftio_fmt_bytes(bytes, b, sizeof b), num(j, "lost_records"),
               w[0], w[1]);
    }
}

struct status_ask {
    const struct ftio_query_opts *q;
    bool json, several;
    int rc;
};

static int ask_one(const char *endpoint, void *ctx)
{
    struct status_ask *s = ctx;
    struct ftio_query_opts q = *s->q;
    q.endpoint = endpoint;
    char err[512];
    json_t *root = NULL;
    if (ftio_control_call(&q, FTIO_CTL_STATUS, NULL, -1, &root, err, sizeof err) != 0) {
        fprintf(stderr, "ftiod: --status: %s%s%s\n", s->several ? endpoint : "",
                s->several ? ": " : "", err);
        s->rc = 1;
        return 0;
    }
    if (ftio_control_error(root)) {
        fprintf(stderr, "ftiod: --status: %s%s%s\n", s->several ? endpoint : "",
                s->several ? ": " : "", ftio_control_error(root));
        s->rc = 1;
    } else if (s->json) {
        /* One document per daemon, one per line, each saying where from. */
        json_object_set_new(root, "endpoint", json_string(endpoint));
        char *t = json_dumps(root, JSON_COMPACT);
        printf("%s\n", t ? t : "null");
        free(t);
    } else {
        if (s->several)
            printf("== %s\n", endpoint);
        print_table(root);
    }
    json_decref(root);
    return 0;
}

int ftiod_status_client(const struct ftio_query_opts *q, const char *endpoints, bool json)
{
    struct status_ask s = {q, json, strchr(endpoints, ',') != NULL, 0};
    cliopt_each(endpoints, ask_one, &s);
    fflush(stdout);
    return s.rc;
}
