/* SPDX-License-Identifier: BSD-3-Clause */
/* status_client.c -- `ftiod --status`, the client side: asks one or several
 * daemons for their status document (status.c builds it, the control socket
 * serves it: control_serve.c; the request goes through common/control.c)
 * and prints a table in human units, or the raw JSON with --json, one
 * document a line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control.h"
#include "daemon.h"
#include "units.h"

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
