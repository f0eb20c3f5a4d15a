/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c -- ftiod's health and the machine forecast in the Prometheus
 * text format (exposition format 0.0.4) on --metrics-listen [HOST:]PORT,
 * served by libmicrohttpd (Debian's libmicrohttpd12: a maintained HTTP
 * server, not a parser of our own) from its own thread: GET /metrics.
 *
 * Everything is read under d->lock in one go (counters of ftiod_stats,
 * the job table, the machine view's summary: machine.c), written into a
 * buffer, and sent after the lock is dropped.  Off by default; a site
 * binds it where its Prometheus scrapes (a loopback or management
 * address: the numbers name file systems, not jobs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "machine.h"

struct ftiod_metrics {
    struct MHD_Daemon *mhd;
};

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
            (unsigned long long)v);
}

/* The document (caller holds d->lock). */
static void write_metrics(struct ftiod *d, FILE *f)
{
    const struct ftiod_stats *s = &d->stats;
    size_t live = 0, ended = 0, procs = 0;
    for (size_t i = 0; i < d->jobs.n; i++) {
        const struct job *j = d->jobs.job[i];
        if (j->closed)
            ended++;
        else
            live++;
        procs += j->nprocs;
    }
    fprintf(f, "# HELP ftiod_jobs Jobs ftiod holds: live, or ended and kept for late batches.\n"
               "# TYPE ftiod_jobs gauge\nftiod_jobs{state=\"live\"} %zu\n"
               "ftiod_jobs{state=\"ended\"} %zu\n", live, ended);
    fprintf(f, "# HELP ftiod_processes Processes of the jobs ftiod holds.\n"
               "# TYPE ftiod_processes gauge\nftiod_processes %zu\n", procs);
    counter(f, "ftiod_batches_total", "Batches decoded and merged.", s->batches);
    counter(f, "ftiod_records_total", "Records decoded and merged (rate() gives records/s).",
            s->records);
    fprintf(f, "# HELP ftiod_records_per_second Records merged per second over the last "
               "second.\n# TYPE ftiod_records_per_second gauge\nftiod_records_per_second %.6g\n",
            ftiod_machine_records_rate(d->machine));
    static const struct { const char *reason; size_t off; } refused[] = {
        { "malformed", offsetof(struct ftiod_stats, malformed) },
        { "truncated", offsetof(struct ftiod_stats, truncated) },
        { "multipart", offsetof(struct ftiod_stats, multipart) },
        { "over_jobs", offsetof(struct ftiod_stats, over_jobs) },
        { "over_procs", offsetof(struct ftiod_stats, over_procs) },
        { "bad_seq", offsetof(struct ftiod_stats, bad_seq) },
        { "unauthenticated", offsetof(struct ftiod_stats, unauthenticated) },
        { "foreign", offsetof(struct ftiod_stats, foreign) },
        { "over_user_jobs", offsetof(struct ftiod_stats, over_user_jobs) },
        { "over_user_procs", offsetof(struct ftiod_stats, over_user_procs) },
        { "over_user_rate", offsetof(struct ftiod_stats, over_user_rate) },
        { "over_memory", offsetof(struct ftiod_stats, over_memory) },
    };
    fputs("# HELP ftiod_batches_refused_total Batches (and messages) not merged, by reason.\n"
          "# TYPE ftiod_batches_refused_total counter\n", f);
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
        fprintf(f, "ftiod_batches_refused_total{reason=\"%s\"} %llu\n", refused[k].reason,
                (unsigned long long)*(const uint64_t *)((const char *)s + refused[k].off));
    counter(f, "ftiod_duplicate_batches_total", "Batches received twice (acknowledged, dropped).",
            s->duplicates);
    counter(f, "ftiod_connections_refused_total", "Ingest connections refused (--max-connections).",
            s->connections_refused);
    counter(f, "ftiod_queries_refused_total", "Control requests refused.", s->queries_refused);
    counter(f, "ftiod_analyses_total", "Analyses made.", s->analyses);
    counter(f, "ftiod_predictions_published_total", "Predictions and end messages published.",
            s->published);
    counter(f, "ftiod_log_lines_lost_total", "--log lines that could not be written.", s->log_lost);
    fprintf(f, "# HELP ftiod_connections Ingest connections open.\n# TYPE ftiod_connections "
               "gauge\nftiod_connections %llu\n", (unsigned long long)s->connections);
    fprintf(f, "# HELP ftiod_memory_bytes Memory the jobs hold (what --max-memory bounds).\n"
               "# TYPE ftiod_memory_bytes gauge\nftiod_memory_bytes %.0f\n", d->jobs.mem);
    fprintf(f, "# HELP ftiod_uptime_seconds Seconds since ftiod started.\n"
               "# TYPE ftiod_uptime_seconds gauge\nftiod_uptime_seconds %.3f\n",
            ftiod_now() - d->started);
    ftiod_machine_metrics(d->machine, f);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    struct ftiod *d = cls;
    const char *text = NULL, *type = "text/plain; charset=utf-8";
    unsigned status = MHD_HTTP_OK;
    char *body = NULL;
    size_t len = 0;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        text = "only GET /metrics\n";
    } else if (strcmp(url, "/metrics") != 0) {
        status = MHD_HTTP_NOT_FOUND;
        text = "ftiod serves /metrics only\n";
    } else {
        FILE *f = open_memstream(&body, &len);
        if (!f) {
            status = MHD_HTTP_INTERNAL_SERVER_ERROR;
            text = "out of memory\n";
        } else {
            pthread_mutex_lock(&d->lock);
            write_metrics(d, f);
            pthread_mutex_unlock(&d->lock);
            if (fclose(f) != 0) {
                free(body);
                body = NULL;
                status = MHD_HTTP_INTERNAL_SERVER_ERROR;
                text = "out of memory\n";
            }
            type = "text/plain; version=0.0.4; charset=utf-8";
        }
    }
    struct MHD_Response *r =
        body ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* [HOST:]PORT: an IPv4 address (or localhost, or * for every address) and
 * a port. */
static int parse_listen(const char *spec, struct sockaddr_in *sa, char *err, size_t errlen)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    const char *colon = strrchr(spec, ':'), *port = colon ? colon + 1 : spec;
    char host[64] = "127.0.0.1";
    if (colon) {
        size_t n = (size_t)(colon - spec);
        if (n == 0 || n >= sizeof host) {
            snprintf(err, errlen, "--metrics-listen %s: HOST:PORT or PORT", spec);
            return -1;
        }
        memcpy(host, spec, n);
        host[n] = '\0';
    }
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (errno || end == port || *end || p < 1 || p > 65535) {
        snprintf(err, errlen, "--metrics-listen %s: the port must be 1..65535", spec);
        return -1;
    }
    sa->sin_port = htons((uint16_t)p);
    if (strcmp(host, "*") == 0 || strcmp(host, "0.0.0.0") == 0)
        sa->sin_addr.s_addr = htonl(INADDR_ANY);
    else if (strcmp(host, "localhost") == 0)
        sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        snprintf(err, errlen, "--metrics-listen %s: '%s' is not an IPv4 address", spec, host);
        return -1;
    }
    return 0;
}

int ftiod_metrics_check(const char *spec, char *err, size_t errlen)
{
    struct sockaddr_in sa;
    return spec ? parse_listen(spec, &sa, err, errlen) : 0;
}

int ftiod_metrics_start(struct ftiod *d)
{
    if (!d->cfg.metrics_listen)
        return 0;
    char err[256];
    struct sockaddr_in sa;
    if (parse_listen(d->cfg.metrics_listen, &sa, err, sizeof err) != 0) {
        ftiod_log_at(FTIOD_ERROR, "%s", err);
        return -1;
    }
    struct ftiod_metrics *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, ntohs(sa.sin_port), NULL, NULL,
                              &answer, d, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)32,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (!m->mhd) {
        ftiod_log_at(FTIOD_ERROR, "--metrics-listen %s: cannot listen (%s)", d->cfg.metrics_listen,
                     errno ? strerror(errno) : "port in use?");
        free(m);
        return -1;
    }
    d->metrics = m;
    ftiod_log_at(FTIOD_NOTICE, "metrics on http://%s/metrics", d->cfg.metrics_listen);
    return 0;
}

void ftiod_metrics_stop(struct ftiod *d)
{
    if (!d->metrics)
        return;
    MHD_stop_daemon(d->metrics->mhd);
    free(d->metrics);
    d->metrics = NULL;
}
