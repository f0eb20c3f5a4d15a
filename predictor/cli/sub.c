/* SPDX-License-Identifier: BSD-3-Clause */
/* sub.c -- `ftio sub`: subscribe to ftiod's predictions (PROTOCOL.md §2) and
 * print them, one line each in human units (or the raw JSON with --json).
 *
 *   ftio sub [--job J] [--endpoint E[,E...]] [--json] [--count N] [--timeout S]
 *            [--duration S] [--server-key K [--key FILE]]
 *   ftio sub --last --job J [--status-endpoint E[,E...]] [--server-key K [--key FILE]]
 *   ftio sub --machine [--last] ...: the machine forecast (sub_machine.c)
 *
 * --server-key: ftiod's PUB is a CURVE server; our key pair must be in its
 * allow-list (docs/SECURITY.md).  --last asks the status socket for the
 * job's latest prediction instead (a scheduler that starts late), proving
 * the user's uid with MUNGE when the key is not an admin's (curve.h); a job
 * that already ended is answered from the daemon's recently ended jobs
 * (`ftiod --keep-ended`).
 *
 * Subscribes to `ftio.` (every job) or `ftio.<J>.` (one job: with the dot,
 * job 12 is not job 123) on every endpoint given, which also follows every
 * step of a Slurm job J (`ftio.<J>.<step>.<mode>`, common/jobid.h).  With
 * --job, `ftio.<J>.end` ends the command: a step's end
 * (`ftio.<J>.<step>.end`) is printed but does not, since more steps may
 * follow.  --count N stops after N messages; --duration S after S seconds;
 * --timeout S: when nothing at all arrived in the first S seconds, one line
 * says whether the endpoint could not be reached or was silent, and the exit
 * status is 1.  Without --timeout it waits until interrupted (a job that has
 * not published yet, a scheduler between jobs), and says once, after
 * UNREACHABLE_WARN_S, when it cannot reach the endpoint at all.  Defaults from the environment:
 * FTIO_PUB (--endpoint), FTIO_STATUS (--status-endpoint), else ftiod's
 * configuration file (endpoints.c); SLURM_JOB_ID (--job, unless --all-jobs).
 * Exit status: 0; 1 as said or when --count was given and fewer messages
 * arrived; 2 on usage errors.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <zmq.h>
#include "auth.h"
#include "cliopt.h"
#include "commands.h"
#include "control.h"
#include "curve.h"
#include "defaults.h"
#include "ftio_paths.h"   /* FTIOD_CONFIG_DEFAULT, named in --help */
#include "timeutil.h"
#include "units.h"

static volatile sig_atomic_t sub_stop;
static void on_signal(int sig) { (void)sig; sub_stop = 1; }

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "12:34:56.789" (UTC) of an epoch time. */
static void clock_text(double t, char *buf, size_t len)
{
    time_t s = (time_t)floor(t);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)((t - floor(t)) * 1000));
}

/* Every activity of a message (PROTOCOL.md §2 `activities`) on a line of
 * its own under it, when there are two or more (with one, the message's own
 * line is its answer). */
static void print_activities(json_t *o, const char *indent)
{
    json_t *arr = json_object_get(o, "activities"), *a;
    size_t i;
    if (json_array_size(arr) < 2)
        return;
    json_array_foreach(arr, i, a) {
        const char *pat = json_string_value(json_object_get(a, "pattern"));
        const char *ex = json_string_value(json_object_get(a, "example"));
        const char *cls = json_string_value(json_object_get(a, "class"));
        const char *shape = json_string_value(json_object_get(a, "shape"));
        printf("%sactivity %s", indent, pat ? pat : "?");
        if (shape && strcmp(shape, "all") != 0)
            printf(" (%s)", shape);
        if (ex && pat && strcmp(ex, pat) != 0)
            printf(" (e.g. %s)", ex);
        char p[FTIO_UNITS_LEN], b[FTIO_UNITS_LEN];
        printf(", %.0f %% of the bytes: ", 100 * num(a, "share"));
        double period = num(a, "period");
        if (isnan(period)) {
            printf("no period (class %s)", cls ? cls : "none");
        } else {
            printf("period %s conf %.2f %s", ftio_fmt_duration(period, p, sizeof p),
                   num(a, "confidence"), cls ? cls : "");
            json_t *next = json_object_get(a, "next");
            double ns = num(next, "start");
            if (!isnan(ns)) {
                char at[32];
                clock_text(ns, at, sizeof at);
                printf(", next at %s (%s)", at, ftio_fmt_bytes(num(next, "bytes"), b, sizeof b));
            }
        }
        putchar('\n');
    }
}

static void print_prediction(json_t *o)
{
    const char *job = json_string_value(json_object_get(o, "job"));
    const char *mode = json_string_value(json_object_get(o, "mode"));
    const char *cls = json_string_value(json_object_get(o, "class"));
    char when[32];
    clock_text(num(o, "published"), when, sizeof when);
    printf("%s %s %s #%.0f: ", when, job ? job : "?", mode ? mode : "?", num(o, "seq"));
    double period = num(o, "period");
    if (isnan(period)) {
        printf("no period (class %s)", cls ? cls : "none");
    } else {
        char p[FTIO_UNITS_LEN];
        printf("period %s conf %.2f %s", ftio_fmt_duration(period, p, sizeof p),
               num(o, "confidence"), cls ? cls : "");
        /* v4: a prediction from the application's earlier runs says so */
        const char *src = json_string_value(json_object_get(o, "source"));
        json_t *h = json_object_get(o, "history");
        if (src && !strcmp(src, "history") && json_is_object(h))
            printf(" from the memory of runs (%.0f run%s, %s)", num(h, "runs"),
                   num(h, "runs") == 1 ? "" : "s", json_string_value(json_object_get(h, "level")) ?: "?");
        const char *act = json_string_value(json_object_get(o, "activity"));
        if (act && json_array_size(json_object_get(o, "activities")) > 1)
            printf(" (%s)", act);
        json_t *next = json_object_get(o, "next");
        double ns = num(next, "start");
        if (!isnan(ns)) {
            char at[32], in[FTIO_UNITS_LEN], b[FTIO_UNITS_LEN];
            double dt = ns - (double)ftio_real_ns() * 1e-9;
            clock_text(ns, at, sizeof at);
            printf(", next at %s (in %s%s, %s", at, dt >= 0 ? "" : "-",
                   ftio_fmt_duration(fabs(dt), in, sizeof in),
                   ftio_fmt_bytes(num(next, "bytes"), b, sizeof b));
            /* the bandwidth the next phase should take */
            double len = num(next, "end") - ns;
            if (len > 0 && num(next, "bytes") > 0) {
                char r[FTIO_UNITS_LEN];
                printf(" at %s", ftio_fmt_rate(num(next, "bytes") / len, r, sizeof r));
            }
            putchar(')');
        }
    }
    json_t *le = json_object_get(o, "last_error");
    if (json_is_object(le)) {
        char e[FTIO_UNITS_LEN];
        double err = num(le, "start");
        printf(", last error %s%s", err < 0 ? "-" : "+", ftio_fmt_duration(fabs(err), e, sizeof e));
    }
    char r[FTIO_UNITS_LEN];
    printf(", P(periodic) %.2f, %.0f ranks, %s records\n", num(o, "p_periodic"),
           num(o, "ranks"), ftio_fmt_count(num(o, "records"), r, sizeof r));
    print_activities(o, "    ");
}

static void print_end(json_t *o)
{
    const char *job = json_string_value(json_object_get(o, "job"));
    printf("job %s ended:", job ? job : "?");
    json_t *sum = json_object_get(o, "summary");
    const char *mode;
    json_t *m;
    int any = 0;
    json_object_foreach(sum, mode, m) {
        double p = num(m, "period");
        char pt[FTIO_UNITS_LEN];
        if (isnan(p))
            printf(" %s: no period;", mode);
        else
            printf(" %s: period %s (%s, conf %.2f, P(periodic) %.2f%s%s);", mode,
                   ftio_fmt_duration(p, pt, sizeof pt),
                   json_string_value(json_object_get(m, "class")) ?: "?",
                   num(m, "confidence"), num(m, "p_periodic"),
                   json_array_size(json_object_get(m, "activities")) > 1 &&
                       json_is_string(json_object_get(m, "activity")) ? ", " : "",
                   json_array_size(json_object_get(m, "activities")) > 1
                       ? json_string_value(json_object_get(m, "activity")) ?: "" : "");
        any = 1;
    }
    printf("%s\n", any ? "" : " no prediction");
    json_object_foreach(sum, mode, m) {
        if (json_array_size(json_object_get(m, "activities")) > 1) {
            printf("  %s:\n", mode);
            print_activities(m, "    ");
        }
    }
}

/* Without --timeout: when to say that the endpoint cannot be reached. */
#define UNREACHABLE_WARN_S 10.0

struct sub_opts {
    const char *endpoints;     /* --endpoint: PUB endpoints, comma-separated */
    const char *status_eps;    /* --status-endpoint: for --last */
    const char *job, *server_key, *key;
    const char *plot;          /* --plot FILE.html: with --last, the page of the answer */
    bool json, last, all_jobs, machine;
    int count;
    double timeout, duration;
};

static struct ftio_query_opts query_opts(const struct sub_opts *o, const char *endpoint)
{
    return (struct ftio_query_opts){
        .endpoint = endpoint, .server_key = o->server_key, .key_file = o->key, .timeout = 5,
        .munge = ftio_auth_query_munge(),
    };
}

/* Print the per-mode predictions of o (a `last` answer or an end summary);
 * returns how many. */
static int print_modes(json_t *o, bool json)
{
    static const char *const modes[2] = {"write", "read"};
    int shown = 0;
    for (int m = 0; m < 2; m++) {
        json_t *p = json_object_get(o, modes[m]);
        if (!json_is_object(p))
            continue;
        shown++;
        if (json) {
            char *t = json_dumps(p, JSON_COMPACT);
            printf("%s\n", t ? t : "null");
            free(t);
        } else {
            print_prediction(p);
        }
    }
    return shown;
}

/* --plot: the page of what the status socket answered (report_cmd.c). */
static int plot_last(json_t *answer, const struct sub_opts *o, const char *endpoint)
{
    char from[600];
    snprintf(from, sizeof from, "the latest prediction per mode, from ftiod's status socket %s",
             endpoint);
    return ftio_report_last_page(answer, o->job, from, o->plot);
}

struct last_ctx {
    const struct sub_opts *o;
    int plot_rc;               /* --plot: 1 when the page could not be written */
    bool found;
    char err[600];             /* the last failure other than "no such job" */
};

/* `last J` on one status endpoint: 1 (stop) when it knew the job. */
static int ask_last(const char *endpoint, void *arg)
{
    struct last_ctx *c = arg;
    char err[512];
    struct ftio_query_opts q = query_opts(c->o, endpoint);
    json_t *o = NULL;
    if (ftio_control_call(&q, FTIO_CTL_LAST, c->o->job, -1, &o, err, sizeof err) != 0) {
        snprintf(c->err, sizeof c->err, "%s", err);
        return 0;
    }
    const char *e = ftio_control_error(o);
    if (e) {
        if (strcmp(e, "no such job") != 0)
            snprintf(c->err, sizeof c->err, "%s: %s", c->o->job, e);
    } else {
        /* A Slurm job id without its step: the answer of each step. */
        json_t *steps = json_object_get(o, "steps"), *st;
        size_t i;
        int shown = 0;
        if (json_is_array(steps))
            json_array_foreach(steps, i, st)
                shown += print_modes(st, c->o->json);
        else
            shown = print_modes(o, c->o->json);
        if (!shown)
            printf("ftio sub: job %s has no prediction yet\n", c->o->job);
        else if (c->o->plot)
            c->plot_rc = plot_last(o, c->o, endpoint);
        c->found = true;
    }
    json_decref(o);
    return c->found;
}

/* The job may have ended: the daemon keeps its end summary among the
 * recently ended jobs of its status document. */
static int ask_ended(const char *endpoint, void *arg)
{
    struct last_ctx *c = arg;
    char err[512];
    struct ftio_query_opts q = query_opts(c->o, endpoint);
    json_t *root = NULL;
    if (ftio_control_call(&q, FTIO_CTL_STATUS, NULL, -1, &root, err, sizeof err) != 0)
        return 0;
    /* Under MUNGE a job id nobody claimed is in our namespace
     * (docs/SECURITY.md): "u<uid>:JOB". */
    char ns[FTIO_CONTROL_JOB_MAX + 32];
    snprintf(ns, sizeof ns, "u%lld:%s", (long long)getuid(), c->o->job);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "ended"), i, e) {
        const char *job = json_string_value(json_object_get(e, "job"));
        if (!job || (strcmp(job, c->o->job) != 0 && strcmp(job, ns) != 0))
            continue;
        json_t *sum = json_object_get(e, "summary");
        if (!c->o->json) {
            char at[32];
            clock_text(num(e, "ended_at"), at, sizeof at);
            printf("job %s ended at %s (%s, %s)\n", job, at,
                   json_string_value(json_object_get(e, "ended_by")) ?: "?",
                   json_is_true(json_object_get(e, "complete")) ? "complete" : "incomplete");
        }
        if (!print_modes(sum, c->o->json) && !c->o->json)
            printf("ftio sub: job %s ended without a prediction\n", job);
        else if (c->o->plot)
            c->plot_rc = plot_last(e, c->o, endpoint);
        c->found = true;
        break;
    }
    json_decref(root);
    return c->found;
}

/* --last: ask the status sockets, print what they say. */
static int last_prediction(const struct sub_opts *o)
{
    if (strlen(o->job) > 4096) {
        fprintf(stderr, "ftio sub: job id too long\n");
        return 2;
    }
    struct last_ctx c = {.o = o};
    cliopt_each(o->status_eps, ask_last, &c);
    if (!c.found)
        cliopt_each(o->status_eps, ask_ended, &c);
    if (c.found)
        return c.plot_rc;
    if (c.err[0])
        fprintf(stderr, "ftio sub: %s\n", c.err);
    else
        fprintf(stderr, "ftio sub: %s: no such job (neither running nor recently ended)\n", o->job);
    return 1;
}

/* What became of the connections: the socket monitor's events. */
struct conn_state { int connected, refused; };

static void *monitor_open(void *ctx, void *s)
{
    if (zmq_socket_monitor(s, "inproc://ftio-sub-monitor",
                           ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                           ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                           ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) != 0)
        return NULL;
    void *m = zmq_socket(ctx, ZMQ_PAIR);
    int linger = 0;
    zmq_setsockopt(m, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(m, "inproc://ftio-sub-monitor") != 0) {
        zmq_close(m);
        return NULL;
    }
    return m;
}

static void monitor_read(void *m, struct conn_state *c)
{
    for (;;) {
        zmq_msg_t ev;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, m, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&ev);
            return;
        }
        uint16_t event = 0;
        if (zmq_msg_size(&ev) >= 2)
            memcpy(&event, zmq_msg_data(&ev), 2);
        while (zmq_msg_more(&ev)) {   /* the endpoint frame */
            zmq_msg_close(&ev);
            zmq_msg_init(&ev);
            if (zmq_msg_recv(&ev, m, 0) < 0)
                break;
        }
        zmq_msg_close(&ev);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
            c->connected++;
        else
            c->refused++;
    }
}

static int connect_one(const char *endpoint, void *s)
{
    if (zmq_connect(s, endpoint) < 0) {
        fprintf(stderr, "ftio sub: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
        return 1;
    }
    return 0;
}

static double since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

static int subscribe(const struct sub_opts *o)
{
    const char *job = o->job;
    char prefix[512], endtopic[512];
    if (job && strlen(job) > sizeof prefix - 10) {
        fprintf(stderr, "ftio sub: --job: job id too long\n");
        return 2;
    }
    snprintf(prefix, sizeof prefix, "ftio.%s%s", job ? job : "", job ? "." : "");
    snprintf(endtopic, sizeof endtopic, "ftio.%s.end", job ? job : "");

    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_SUB);
    int linger = 0, rc = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_SUBSCRIBE, prefix, strlen(prefix));
    char err[512];
    if (o->server_key && ftio_curve_client(s, o->server_key, o->key, err, sizeof err) != 0) {
        fprintf(stderr, "ftio sub: %s\n", err);
        zmq_close(s);
        zmq_ctx_term(ctx);
        return 1;
    }
    void *mon = monitor_open(ctx, s);
    if (cliopt_each(o->endpoints, connect_one, s) != 0) {
        if (mon)
            zmq_close(mon);
        zmq_close(s);
        zmq_ctx_term(ctx);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct conn_state conn = {0};
    long got = 0;
    bool warned = false;
    while (!sub_stop && (o->count == 0 || got < o->count)) {
        double t = since(&t0), wait = 0.5;
        if (mon)
            monitor_read(mon, &conn);
        if (got == 0 && o->timeout <= 0 && !warned && t >= UNREACHABLE_WARN_S && !conn.connected) {
            fprintf(stderr, "ftio sub: %s %s in %g s; waiting until interrupted (--timeout S gives up)\n",
                    o->endpoints, conn.refused ? "refused the connection (CURVE: is our key in ftiod's "
                    "--curve-clients?)" : "cannot be reached (is ftiod running there?)",
                    UNREACHABLE_WARN_S);
            warned = true;
        }
        if (got == 0 && o->timeout > 0) {
            if (t >= o->timeout) {
                if (conn.connected)
                    fprintf(stderr, "ftio sub: connected to %s, but nothing was published in "
                            "%g s (no job running?%s)\n", o->endpoints, o->timeout,
                            job ? " is the job id right?" : "");
                else if (conn.refused)
                    fprintf(stderr, "ftio sub: %s refused the connection (CURVE: is our key "
                            "in ftiod's --curve-clients?) and nothing came in %g s\n",
                            o->endpoints, o->timeout);
                else
                    fprintf(stderr, "ftio sub: nothing from %s in %g s: cannot reach it "
                            "(is ftiod running there?)\n", o->endpoints, o->timeout);
                rc = 1;
                break;
            }
            wait = fmin(wait, o->timeout - t);
        }
        if (o->duration > 0) {
            if (t >= o->duration)
                break;
            wait = fmin(wait, o->duration - t);
        }
        zmq_pollitem_t it = {.socket = s, .events = ZMQ_POLLIN};
        if (zmq_poll(&it, 1, (long)(wait * 1000) + 1) <= 0)
            continue;
        char topic[512];
        int tn = zmq_recv(s, topic, sizeof topic - 1, 0);
        if (tn < 0)
            continue;
        topic[tn < (int)sizeof topic - 1 ? tn : (int)sizeof topic - 1] = 0;
        int more = 0;
        size_t ml = sizeof more;
        zmq_getsockopt(s, ZMQ_RCVMORE, &more, &ml);
        if (!more)
            continue;
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, s, 0) < 0) {
            zmq_msg_close(&msg);
            continue;
        }
        if (!strcmp(topic, "ftio.machine")) {   /* the machine forecast: ftio sub --machine */
            zmq_msg_close(&msg);
            continue;
        }
        json_error_t jerr;
        json_t *m = json_loadb(zmq_msg_data(&msg), zmq_msg_size(&msg), 0, &jerr);
        bool is_end = strlen(topic) > 4 && !strcmp(topic + strlen(topic) - 4, ".end");
        if (!m) {
            fprintf(stderr, "ftio sub: %s: unparsable message: %s\n", topic, jerr.text);
        } else {
            if (o->json)
                printf("%.*s\n", (int)zmq_msg_size(&msg), (const char *)zmq_msg_data(&msg));
            else if (is_end)
                print_end(m);
            else
                print_prediction(m);
            json_decref(m);
            got++;
        }
        zmq_msg_close(&msg);
        if (job && !strcmp(topic, endtopic))
            break;
    }
    if (rc == 0 && o->count > 0 && got < o->count) {
        fprintf(stderr, "ftio sub: %ld of %d messages before the end\n", got, o->count);
        rc = 1;
    }
    if (mon) {
        zmq_socket_monitor(s, NULL, 0);
        zmq_close(mon);
    }
    zmq_close(s);
    zmq_ctx_term(ctx);
    return rc;
}

static const char sub_usage_text[] =
    "usage: ftio sub [--job J | --all-jobs] [--endpoint E[,E...]] [--json] [--count N]\n"
    "                [--timeout S] [--duration S] [--server-key K [--key FILE]]\n"
    "       ftio sub --machine [--last] [--endpoint E[,E...]] [--json] [--count N] ...\n"
    "       ftio sub --last [--job J] [--status-endpoint E[,E...]] [--server-key K [--key FILE]]\n"
    "                [--plot FILE.html]\n";

static const char sub_about[] =
    "Print ftiod's predictions as they are published (PROTOCOL.md §2), one line\n"
    "each in human units, or the JSON objects with --json.\n";

static const char sub_epilog[] =
    "Environment: FTIO_PUB (default --endpoint), FTIO_STATUS (default\n"
    "--status-endpoint), else those of ftiod's configuration file\n"
    "(FTIO_DAEMON_CONFIG, default " FTIOD_CONFIG_DEFAULT "); SLURM_JOB_ID (default\n"
    "--job, unless --all-jobs).\n"
    "Exit status: 0; 1 when nothing arrived within --timeout (unreachable or\n"
    "silent endpoint), when --count N was not reached, or --last found no such\n"
    "job; 2 on a usage error.\n";

int ftio_cmd_sub(int argc, char **argv)
{
    struct ftio_endpoints ep;
    ftio_default_endpoints(&ep);
    struct sub_opts o = {.endpoints = ep.pub, .status_eps = ep.status};
    const char *env;
    struct cliopt t[] = {
        {"job", 'j', CLIOPT_STRING, "J",
         "only job J and every step of it (J.0, J.batch ...); J's\n"
         "own end ends the command, not a step's", "$SLURM_JOB_ID", .to.s = &o.job},
        {"all-jobs", 0, CLIOPT_FLAG, NULL, "every job, even inside a Slurm job", NULL,
         .to.b = &o.all_jobs},
        {"endpoint", 'e', CLIOPT_LIST, "E",
         "ftiod's PUB endpoint(s): E,E or repeated",
         "$FTIO_PUB, ftiod.conf's pub or " FTIO_DEFAULT_PUB,
         .to.s = &o.endpoints},
        {"json", 0, CLIOPT_FLAG, NULL, "print each message's JSON object as received", NULL,
         .to.b = &o.json},
        {"count", 'c', CLIOPT_INT, "N", "stop after N messages", NULL, .to.i = &o.count,
         .min = 1, .max = 1e9},
        {"timeout", 0, CLIOPT_DOUBLE, "S",
         "nothing at all within S s: say why, exit 1 (0: wait\nuntil interrupted)", "0",
         .to.d = &o.timeout, .min = 0, .max = 1e6},
        {"duration", 0, CLIOPT_DOUBLE, "S", "stop after S seconds", NULL, .to.d = &o.duration,
         .min = 0, .max = 1e9, .flags = CLIOPT_MIN_OPEN},
        {"server-key", 0, CLIOPT_STRING, "K",
         "ftiod's CURVE public key (40 Z85 characters or a file)", NULL, .to.s = &o.server_key},
        {"key", 0, CLIOPT_STRING, "FILE", "our CURVE key pair (ftio keygen); must be allowed", NULL,
         .to.s = &o.key},
        {"last", 0, CLIOPT_FLAG, NULL,
         "print the job's latest prediction and exit (also for a\nrecently ended job)", NULL,
         .to.b = &o.last},
        {"plot", 0, CLIOPT_STRING, "FILE", "with --last: also draw the answer (the latest\n"
         "prediction per mode) as an HTML page, as ftio report does", NULL, .to.s = &o.plot},
        {"machine", 0, CLIOPT_FLAG, NULL,
         "the machine forecast (topic ftio.machine) of every\n"
         "endpoint, summed; with --last: the status sockets'\n"
         "(a user's view: the totals and their own jobs)", NULL, .to.b = &o.machine},
        {"status-endpoint", 0, CLIOPT_LIST, "E", "with --last: ftiod's status socket(s)",
         "$FTIO_STATUS, ftiod.conf's status-endpoint or " FTIO_DEFAULT_STATUS, .to.s = &o.status_eps},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio sub", .version = FTIO_VERSION, .usage = sub_usage_text, .about = sub_about,
        .epilog = sub_epilog, .opts = t,
    };
    int first = cliopt_parse_command(&p, argc, argv, 0, 0, NULL), rc = 0;
    if (first < 0)
        rc = CLIOPT_EXIT_STATUS(first);
    else if (o.key && !o.server_key)
        rc = -cliopt_error(&p, "--key needs --server-key");
    else if (o.plot && !o.last)
        rc = -cliopt_error(&p, "--plot needs --last (ftio report draws a whole job from ftiod's log)");
    else if (o.all_jobs && o.job)
        rc = -cliopt_error(&p, "--all-jobs and --job exclude each other");
    else if (o.machine && (o.job || o.plot))
        rc = -cliopt_error(&p, "--machine is every job's: no --job or --plot "
                               "(ftio report --machine draws it)");
    if (first < 0 || rc != 0) {
        cliopt_free(&p);
        return rc;
    }
    if (o.machine) {
        struct sub_machine_opts mo = {
            .endpoints = o.endpoints, .status_endpoints = o.status_eps,
            .server_key = o.server_key, .key = o.key, .json = o.json, .last = o.last,
            .count = o.count, .timeout = o.timeout, .duration = o.duration,
        };
        rc = ftio_sub_machine(&mo);
        cliopt_free(&p);
        return rc;
    }
    if (!o.job && !o.all_jobs && (env = getenv("SLURM_JOB_ID")) && *env)
        o.job = env;
    if (o.last)
        rc = o.job ? last_prediction(&o) : -cliopt_error(&p, "--last needs --job (or SLURM_JOB_ID)");
    else
        rc = subscribe(&o);
    cliopt_free(&p);
    return rc;
}
