/* status.c -- `ftiod --status`: the daemon answers any request on its REP
 * socket (--status-endpoint) with a JSON document listing its jobs (records,
 * bytes, loss, latest period per mode) and the messages it dropped; the
 * client side prints it as a table, or raw with --json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "auth.h"
#include "curve.h"
#include "daemon.h"
#include "report.h"

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
        if (uid >= 0 && j->uid != uid)
            continue;
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
        json_object_set_new(o, "idle", json_real(now - j->last_activity));
        /* Ended jobs stay listed --keep-ended seconds (late batches revise them). */
        json_object_set_new(o, "ended", json_boolean(j->closed));
        if (j->closed) {
            json_object_set_new(o, "ended_by", json_string(j->ended_by));
            json_object_set_new(o, "revision", json_integer((json_int_t)j->revision - 1));
            json_object_set_new(o, "ended_ago", json_real(now - j->closed_at));
        }
        for (int m = 0; m < JOB_NMODES; m++)
            if (j->mode[m].has_data)
                json_object_set_new(o, job_mode_name(m), mode_status(&j->mode[m]));
        json_array_append_new(jobs, o);
    }
    json_object_set_new(root, "jobs", jobs);
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

static void print_table(json_t *root)
{
    json_t *jobs = json_object_get(root, "jobs");
    json_t *drop = json_object_get(root, "dropped");
    json_t *tot = json_object_get(root, "totals");
    printf("ftiod %s, up %.0f s: %.0f batches, %.0f records, %.0f predictions published\n",
           json_string_value(json_object_get(root, "version")) ?: "?", num(root, "uptime"),
           num(tot, "batches"), num(tot, "records"), num(tot, "published"));
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
    printf("%-20s %6s %12s %14s %8s %8s  %-28s %-28s\n", "job", "procs", "records", "bytes",
           "lost", "gaps", "write period", "read period");
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) {
        char w[2][64];
        const char *modes[2] = {"write", "read"};
        for (int m = 0; m < 2; m++) {
            json_t *o = json_object_get(j, modes[m]);
            double p = num(o, "period");
            if (!o)
                snprintf(w[m], sizeof w[m], "-");
            else if (isnan(p))
                snprintf(w[m], sizeof w[m], "none (%.0f analyses)", num(o, "analyses"));
            else
                snprintf(w[m], sizeof w[m], "%.3f s %s", p,
                         json_string_value(json_object_get(o, "class")) ?: "");
        }
        printf("%-20s %6.0f %12.0f %14.0f %8.0f %8.0f  %-28s %-28s\n",
               json_string_value(json_object_get(j, "job")) ?: "?", num(j, "processes"),
               num(j, "records"), num(j, "bytes"), num(j, "lost"), num(j, "lost_batches"),
               w[0], w[1]);
    }
    if (json_array_size(jobs) == 0)
        printf("(no jobs)\n");
}

int ftiod_status_client(const struct ftio_query_opts *q, bool json)
{
    char *reply = NULL, err[512];
    if (ftio_query(q, "status", &reply, err, sizeof err) != 0) {
        fprintf(stderr, "ftiod: --status: %s\n", err);
        return 1;
    }
    int rc = 1;
    json_error_t jerr;
    json_t *root = json_loads(reply, 0, &jerr);
    if (!root) {
        fprintf(stderr, "ftiod: --status: bad answer: %s\n", jerr.text);
    } else if (json_is_string(json_object_get(root, "error"))) {
        fprintf(stderr, "ftiod: --status: %s\n", json_string_value(json_object_get(root, "error")));
    } else {
        if (json)
            printf("%s\n", reply);
        else
            print_table(root);
        rc = 0;
    }
    json_decref(root);
    free(reply);
    return rc;
}
