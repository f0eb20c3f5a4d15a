/* sub.c -- `ftio sub`: subscribe to ftiod's predictions (PROTOCOL.md §2) and
 * print them, one line each (or the raw JSON with --json).
 *
 *   ftio sub [--job J] [--endpoint E] [--json] [--count N] [--timeout S]
 *            [--server-key K [--key FILE]]
 *   ftio sub --last --job J [--status-endpoint E] [--server-key K [--key FILE]]
 *
 * --server-key: ftiod's PUB is a CURVE server; our key pair must be in its
 * allow-list (docs/SECURITY.md).  --last asks the status socket for the
 * job's latest prediction instead (a scheduler that starts late), proving
 * the user's uid with MUNGE when the key is not an admin's (curve.h).
 *
 * Subscribes to `ftio.` (every job) or `ftio.<J>.` (one job: with the dot,
 * job 12 is not job 123), which also follows every step of a Slurm job J
 * (`ftio.<J>.<step>.<mode>`, common/jobid.h).  With --job, `ftio.<J>.end`
 * ends the command: a step's end (`ftio.<J>.<step>.end`) is printed but
 * does not, since more steps may follow; a job whose steps are all that is
 * published is followed until --count, --timeout or a signal.  --count N stops after N
 * messages; --timeout S after S seconds.  Exit status: 0, or 1 when --count
 * was given and fewer messages arrived before the timeout, 2 on usage errors.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include <zmq.h>
#include "auth.h"
#include "commands.h"
#include "curve.h"
#include "timeutil.h"

static volatile sig_atomic_t sub_stop;
static void on_signal(int sig) { (void)sig; sub_stop = 1; }

static int sub_usage(const char *why)
{
    if (why)
        fprintf(stderr, "ftio sub: %s\n", why);
    fprintf(stderr, "usage: ftio sub [--job J] [--endpoint E] [--json] [--count N] [--timeout S]\n"
                    "                [--server-key K [--key FILE]]\n"
                    "       ftio sub --last --job J [--status-endpoint E] [--server-key K [--key FILE]]\n"
                    "  --endpoint E         ftiod's PUB endpoint (default tcp://127.0.0.1:5556)\n"
                    "  --server-key K       ftiod's CURVE public key (40 Z85 characters or a file)\n"
                    "  --key FILE           our CURVE key pair (ftio keygen); must be allowed\n"
                    "  --job J              job J and every step of it (J.0, J.batch ...); ends at\n"
                    "                       J's own end, not at the end of a step\n"
                    "  --last               print the job's latest prediction and exit\n"
                    "  --status-endpoint E  with --last: ftiod's status socket (tcp://127.0.0.1:5557)\n");
    return 2;
}

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
        printf("period %.3f s conf %.2f %s", period, num(o, "confidence"), cls ? cls : "");
        json_t *next = json_object_get(o, "next");
        double ns = num(next, "start");
        if (!isnan(ns)) {
            char at[32];
            clock_text(ns, at, sizeof at);
            printf(", next at %s (in %+.2f s, %.0f B)", at, ns - (double)ftio_real_ns() * 1e-9,
                   num(next, "bytes"));
        }
    }
    json_t *le = json_object_get(o, "last_error");
    if (json_is_object(le))
        printf(", last error %+.3f s", num(le, "start"));
    printf(", P(periodic) %.2f, %.0f ranks, %.0f records\n", num(o, "p_periodic"),
           num(o, "ranks"), num(o, "records"));
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
        if (isnan(p))
            printf(" %s: no period;", mode);
        else
            printf(" %s: period %.3f s (%s, conf %.2f, P(periodic) %.2f);", mode, p,
                   json_string_value(json_object_get(m, "class")) ?: "?",
                   num(m, "confidence"), num(m, "p_periodic"));
        any = 1;
    }
    printf("%s\n", any ? "" : " no prediction");
}

/* The predictions of one job in a `last` answer; how many. */
static int print_last(json_t *o, bool json)
{
    const char *modes[2] = {"write", "read"};
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

/* --last: ask the status socket, print what it says. */
static int last_prediction(const char *endpoint, const char *server_key, const char *key,
                           const char *job, bool json)
{
    char req[4200], err[512], *reply = NULL;
    if ((size_t)snprintf(req, sizeof req, "last %s", job) >= sizeof req) {
        fprintf(stderr, "ftio sub: job id too long\n");
        return 2;
    }
    const char *au = getenv("FTIO_AUTH");
    struct ftio_query_opts q = {
        .endpoint = endpoint, .server_key = server_key, .key_file = key, .timeout = 5,
        .munge = !au || ftio_auth_mode_parse(au) != FTIO_AUTH_NONE,
    };
    if (ftio_query(&q, req, &reply, err, sizeof err) != 0) {
        fprintf(stderr, "ftio sub: %s\n", err);
        return 1;
    }
    json_error_t jerr;
    json_t *o = json_loads(reply, 0, &jerr);
    int rc = 1;
    if (!o) {
        fprintf(stderr, "ftio sub: bad answer: %s\n", jerr.text);
    } else if (json_is_string(json_object_get(o, "error"))) {
        fprintf(stderr, "ftio sub: %s: %s\n", job, json_string_value(json_object_get(o, "error")));
    } else {
        /* A Slurm job id without its step: the answer of each step. */
        json_t *steps = json_object_get(o, "steps"), *st;
        size_t i;
        int shown = 0;
        if (json_is_array(steps))
            json_array_foreach(steps, i, st)
                shown += print_last(st, json);
        else
            shown = print_last(o, json);
        if (!shown)
            printf("ftio sub: job %s has no prediction yet\n", job);
        rc = 0;
    }
    json_decref(o);
    free(reply);
    return rc;
}

int ftio_cmd_sub(int argc, char **argv)
{
    const char *endpoint = "tcp://127.0.0.1:5556", *job = NULL;
    const char *server_key = NULL, *key = NULL, *status_ep = "tcp://127.0.0.1:5557";
    bool json = false, last = false;
    long count = 0;
    double timeout = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--last")) {
            last = true;
        } else if ((!strcmp(a, "--server-key") || !strcmp(a, "--key") ||
                    !strcmp(a, "--status-endpoint")) && v) {
            i++;
            if (!strcmp(a, "--server-key"))
                server_key = v;
            else if (!strcmp(a, "--key"))
                key = v;
            else
                status_ep = v;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            sub_usage(NULL);
            return 0;
        } else if (!strcmp(a, "--job") || !strcmp(a, "--endpoint") || !strcmp(a, "--count") ||
                   !strcmp(a, "--timeout")) {
            if (!v)
                return sub_usage("option needs a value");
            i++;
            if (!strcmp(a, "--job")) {
                job = v;
            } else if (!strcmp(a, "--endpoint")) {
                endpoint = v;
            } else if (!strcmp(a, "--count")) {
                count = strtol(v, &end, 10);
                if (*end || end == v || count < 1)
                    return sub_usage("--count: a positive integer");
            } else {
                timeout = strtod(v, &end);
                if (*end || end == v || !(timeout > 0) || !isfinite(timeout))
                    return sub_usage("--timeout: a positive number of seconds");
            }
        } else {
            fprintf(stderr, "ftio sub: unknown argument '%s'\n", a);
            return sub_usage(NULL);
        }
    }

    if (key && !server_key)
        return sub_usage("--key needs --server-key");
    if (last) {
        if (!job)
            return sub_usage("--last needs --job");
        return last_prediction(status_ep, server_key, key, job, json);
    }

    char prefix[512], endtopic[512];
    if (job && strlen(job) > sizeof prefix - 10)
        return sub_usage("--job: job id too long");
    snprintf(prefix, sizeof prefix, "ftio.%s%s", job ? job : "", job ? "." : "");
    snprintf(endtopic, sizeof endtopic, "ftio.%s.end", job ? job : "");

    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_SUB);
    int linger = 0, rc = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_SUBSCRIBE, prefix, strlen(prefix));
    char err[512];
    if (server_key && ftio_curve_client(s, server_key, key, err, sizeof err) != 0) {
        fprintf(stderr, "ftio sub: %s\n", err);
        zmq_close(s);
        zmq_ctx_term(ctx);
        return 1;
    }
    if (zmq_connect(s, endpoint) < 0) {
        fprintf(stderr, "ftio sub: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
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
    long got = 0;
    while (!sub_stop && (count == 0 || got < count)) {
        long wait_ms = 500;
        if (timeout > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            double left = timeout - ((double)(now.tv_sec - t0.tv_sec) +
                                     (double)(now.tv_nsec - t0.tv_nsec) * 1e-9);
            if (left <= 0)
                break;
            if (left * 1000 < wait_ms)
                wait_ms = (long)(left * 1000) + 1;
        }
        zmq_pollitem_t it = {.socket = s, .events = ZMQ_POLLIN};
        if (zmq_poll(&it, 1, wait_ms) <= 0)
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
        json_error_t jerr;
        json_t *o = json_loadb(zmq_msg_data(&msg), zmq_msg_size(&msg), 0, &jerr);
        bool is_end = strlen(topic) > 4 && !strcmp(topic + strlen(topic) - 4, ".end");
        if (!o) {
            fprintf(stderr, "ftio sub: %s: unparsable message: %s\n", topic, jerr.text);
        } else {
            if (json)
                printf("%.*s\n", (int)zmq_msg_size(&msg), (const char *)zmq_msg_data(&msg));
            else if (is_end)
                print_end(o);
            else
                print_prediction(o);
            json_decref(o);
            got++;
        }
        zmq_msg_close(&msg);
        if (job && !strcmp(topic, endtopic))
            break;
    }
    if (count > 0 && got < count) {
        fprintf(stderr, "ftio sub: %ld of %ld messages before the timeout\n", got, count);
        rc = 1;
    }
    zmq_close(s);
    zmq_ctx_term(ctx);
    return rc;
}
