/* SPDX-License-Identifier: BSD-3-Clause */
/* sub_machine.c -- `ftio sub --machine`: the machine forecast (PROTOCOL.md
 * §2 Version 4, topic `ftio.machine`) of every daemon given, summed.
 *
 * Each daemon publishes its share once a second (its jobs: ftiod sees
 * whole jobs, PROTOCOL.md §1.5).  One SUB socket per endpoint, so each
 * message is known by where it came from; once every endpoint has sent a
 * message since the last sum (or 1.5 s after the first of them), the
 * latest of each are summed: per file system the observed and predicted
 * series on one grid of Unix seconds, the expected jobs in a phase, the
 * collisions and the jobs listed, plus the collisions between jobs of two
 * daemons (their listed phases overlapping on one file system), which no
 * daemon can see alone.  Printed in human units, or the summed JSON
 * object ("daemons": how many) with --json.  With --last, the control
 * sockets' `machine` answer instead (a user's view: the totals and their
 * own jobs).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include <zmq.h>
#include "auth.h"
#include "cliopt.h"
#include "commands.h"
#include "control.h"
#include "curve.h"
#include "timeutil.h"
#include "units.h"

#define MACHINE_TOPIC "ftio.machine"
#define MAX_DAEMONS 256
#define SUM_WAIT 1.5      /* s to wait for the other daemons' message of a second */

static double mono_s(void)
{
    return (double)ftio_mono_ns() * 1e-9;
}

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static double num(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Add series src (starting at s0) into dst (starting at d0), in place. */
static void add_series(json_t *dst, double d0, const json_t *src, double s0)
{
    long off = lround(s0 - d0);
    size_t n = json_array_size(dst);
    for (size_t k = 0; k < json_array_size(src); k++) {
        long i = (long)k + off;
        if (i < 0 || (size_t)i >= n)
            continue;
        double v = json_number_value(json_array_get(dst, (size_t)i)) +
                   json_number_value(json_array_get(src, k));
        json_array_set_new(dst, (size_t)i, json_is_integer(json_array_get(dst, (size_t)i))
                                               ? json_integer((json_int_t)llround(v))
                                               : json_real(v));
    }
}

static void add_block(json_t *dst, const json_t *src)
{
    double d0 = num(dst, "start"), s0 = num(src, "start");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)src, k, v)
        if (json_is_array(v) && json_is_array(json_object_get(dst, k)))
            add_series(json_object_get(dst, k), d0, v, s0);
}

/* The collisions between the listed jobs of different daemons. */
static void across(json_t *sum, json_t *const *part, size_t n)
{
    json_t *coll = json_object_get(sum, "collisions");
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            size_t i, j;
            json_t *x, *y;
            json_array_foreach(json_object_get(part[a], "jobs"), i, x)
                json_array_foreach(json_object_get(part[b], "jobs"), j, y) {
                    const char *fx = json_string_value(json_object_get(x, "fs"));
                    const char *fy = json_string_value(json_object_get(y, "fs"));
                    if (!fx || !fy || strcmp(fx, fy) != 0)
                        continue;
                    size_t p, q;
                    json_t *u, *w;
                    json_array_foreach(json_object_get(x, "phases"), p, u)
                        json_array_foreach(json_object_get(y, "phases"), q, w) {
                            double us = json_number_value(json_array_get(u, 0)),
                                   ue = json_number_value(json_array_get(u, 1)),
                                   ws = json_number_value(json_array_get(w, 0)),
                                   we = json_number_value(json_array_get(w, 1));
                            double s = fmax(us, ws), e = fmin(ue, we);
                            double pp = json_number_value(json_array_get(u, 3)) *
                                        json_number_value(json_array_get(w, 3));
                            if (e <= s || pp < 0.25)
                                continue;
                            json_array_append_new(
                                coll, json_pack("{s:s, s:f, s:f, s:[O,O], s:[O,O], s:[f,f], s:f, s:b}",
                                                "fs", fx, "start", s, "end", e, "jobs",
                                                json_object_get(x, "job"), json_object_get(y, "job"),
                                                "modes", json_object_get(x, "mode"),
                                                json_object_get(y, "mode"), "bytes",
                                                json_number_value(json_array_get(u, 2)) * (e - s) / (ue - us),
                                                json_number_value(json_array_get(w, 2)) * (e - s) / (we - ws),
                                                "p", pp, "across_daemons", 1));
                            json_object_set_new(sum, "collisions_total",
                                                json_integer((json_int_t)num(sum, "collisions_total") + 1));
                        }
                }
        }
}

/* The sum of n machine messages (new reference). */
static json_t *sum_machine(json_t *const *part, size_t n)
{
    json_t *sum = json_deep_copy(part[0]);
    if (!sum)
        return NULL;
    json_t *fsa = json_object_get(sum, "fs");
    for (size_t d = 1; d < n; d++) {
        const json_t *m = part[d];
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(m, "fs"), i, f) {
            const char *name = json_string_value(json_object_get(f, "fs"));
            json_t *mine = NULL, *g;
            size_t k;
            json_array_foreach(fsa, k, g)
                if (name && json_string_value(json_object_get(g, "fs")) &&
                    strcmp(name, json_string_value(json_object_get(g, "fs"))) == 0)
                    mine = g;
            if (!mine) {
                json_array_append_new(fsa, json_deep_copy(f));
                continue;
            }
            add_block(json_object_get(mine, "observed"), json_object_get(f, "observed"));
            add_block(json_object_get(mine, "forecast"), json_object_get(f, "forecast"));
            json_object_set_new(mine, "collisions",
                                json_integer((json_int_t)(num(mine, "collisions") +
                                                          num(f, "collisions"))));
        }
        json_array_extend(json_object_get(sum, "collisions"), json_object_get(m, "collisions"));
        json_array_extend(json_object_get(sum, "jobs"), json_object_get(m, "jobs"));
        static const char *const counts[] = { "collisions_total", "jobs_live", "trains" };
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            json_object_set_new(sum, counts[c],
                                json_integer((json_int_t)(num(sum, counts[c]) + num(m, counts[c]))));
        json_object_set_new(sum, "cost", json_real(fmax(num(sum, "cost"), num(m, "cost"))));
    }
    across(sum, part, n);
    json_object_set_new(sum, "daemons", json_integer((json_int_t)n));
    return sum;
}

static double mean(const json_t *a, size_t from, size_t to)
{
    double s = 0;
    size_t n = 0;
    for (size_t k = from; k < to && k < json_array_size(a); k++, n++)
        s += json_number_value(json_array_get(a, k));
    return n ? s / (double)n : NAN;
}

static void print_human(const json_t *m)
{
    char when[32], b1[FTIO_UNITS_LEN], b2[FTIO_UNITS_LEN], b3[FTIO_UNITS_LEN];
    double pub = num(m, "published");
    time_t s = (time_t)floor(pub);
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    printf("%s machine: %.0f daemon%s, %.0f live jobs, %.0f collisions predicted%s\n", when,
           json_is_number(json_object_get(m, "daemons")) ? num(m, "daemons") : 1,
           num(m, "daemons") > 1 ? "s" : "", num(m, "jobs_live"), num(m, "collisions_total"),
           json_is_string(json_object_get(m, "view")) &&
                   !strcmp(json_string_value(json_object_get(m, "view")), "user")
               ? " (your view: totals and your jobs)" : "");
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(m, "fs"), i, f) {
        const json_t *ob = json_object_get(f, "observed"), *fc = json_object_get(f, "forecast");
        static const char *const modes[2][2] = { { "write", "writers" }, { "read", "readers" } };
        for (int md = 0; md < 2; md++) {
            const json_t *o = json_object_get(ob, modes[md][0]), *p = json_object_get(fc, modes[md][0]);
            size_t no = json_array_size(o);
            double seen = mean(o, no > 10 ? no - 10 : 0, no), next = mean(p, 0, 60);
            double peak = 0, at = NAN;
            for (size_t k = 0; k < json_array_size(p); k++)
                if (json_number_value(json_array_get(p, k)) > peak) {
                    peak = json_number_value(json_array_get(p, k));
                    at = (double)k;
                }
            if (!(seen > 0) && !(peak > 0))
                continue;
            printf("  %-24s %-5s observed %s (last 10 s), predicted %s (next 60 s), peak %s in %s,"
                   " %.2f jobs in a phase now\n", json_string_value(json_object_get(f, "fs")),
                   modes[md][0], ftio_fmt_rate(seen, b1, sizeof b1), ftio_fmt_rate(next, b2, sizeof b2),
                   ftio_fmt_rate(peak, b3, sizeof b3),
                   isnan(at) ? "-" : ftio_fmt_duration(at, when, sizeof when),
                   json_number_value(json_array_get(json_object_get(fc, modes[md][1]), 0)));
        }
    }
    json_array_foreach(json_object_get(m, "collisions"), i, f) {
        if (i >= 5) {
            printf("  ... %zu more collisions\n", json_array_size(json_object_get(m, "collisions")) - 5);
            break;
        }
        json_t *j = json_object_get(f, "jobs");
        printf("  collision on %s in %s for %s: %s and %s (P %.2f)\n",
               json_string_value(json_object_get(f, "fs")),
               ftio_fmt_duration(num(f, "start") - pub, b1, sizeof b1),
               ftio_fmt_duration(num(f, "end") - num(f, "start"), b2, sizeof b2),
               json_string_value(json_array_get(j, 0)) ?: "another job",
               json_string_value(json_array_get(j, 1)) ?: "another job", num(f, "p"));
    }
}

static void emit(json_t *m, bool json)
{
    if (json) {
        char *t = json_dumps(m, JSON_COMPACT);
        printf("%s\n", t ? t : "null");
        free(t);
    } else {
        print_human(m);
    }
}

/* --last: the control sockets' `machine` answers, summed. */
struct last_ctx { const struct sub_machine_opts *o; json_t *part[MAX_DAEMONS]; size_t n; char err[600]; };

static int ask_one(const char *endpoint, void *arg)
{
    struct last_ctx *c = arg;
    struct ftio_query_opts q = { .endpoint = endpoint, .server_key = c->o->server_key,
                                 .key_file = c->o->key, .timeout = 5,
                                 .munge = ftio_auth_query_munge() };
    json_t *r = NULL;
    char err[512];
    if (ftio_control_call(&q, FTIO_CTL_MACHINE, NULL, -1, &r, err, sizeof err) != 0) {
        snprintf(c->err, sizeof c->err, "%s", err);
        return 0;
    }
    const char *e = ftio_control_error(r);
    if (e) {
        snprintf(c->err, sizeof c->err, "%s: %s", endpoint, e);
        json_decref(r);
    } else if (c->n < MAX_DAEMONS) {
        c->part[c->n++] = r;
    } else {
        json_decref(r);
    }
    return 0;
}

static int machine_last(const struct sub_machine_opts *o)
{
    struct last_ctx c = { .o = o };
    cliopt_each(o->status_endpoints, ask_one, &c);
    if (c.n == 0) {
        fprintf(stderr, "ftio sub --machine --last: %s\n", c.err[0] ? c.err : "no answer");
        return 1;
    }
    json_t *sum = sum_machine(c.part, c.n);
    if (sum)
        emit(sum, o->json);
    json_decref(sum);
    for (size_t i = 0; i < c.n; i++)
        json_decref(c.part[i]);
    if (c.err[0])
        fprintf(stderr, "ftio sub --machine --last: %s\n", c.err);
    return sum ? 0 : 1;
}

/* One SUB socket per endpoint. */
struct subs { void *ctx; void *s[MAX_DAEMONS]; size_t n; const struct sub_machine_opts *o; };

static int open_one(const char *endpoint, void *arg)
{
    struct subs *u = arg;
    if (u->n == MAX_DAEMONS) {
        fprintf(stderr, "ftio sub --machine: more than %d endpoints\n", MAX_DAEMONS);
        return 1;
    }
    void *s = zmq_socket(u->ctx, ZMQ_SUB);
    int linger = 0;
    char err[512];
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_SUBSCRIBE, MACHINE_TOPIC, strlen(MACHINE_TOPIC));
    if (u->o->server_key && ftio_curve_client(s, u->o->server_key, u->o->key, err, sizeof err) != 0) {
        fprintf(stderr, "ftio sub --machine: %s\n", err);
        zmq_close(s);
        return 1;
    }
    if (zmq_connect(s, endpoint) != 0) {
        fprintf(stderr, "ftio sub --machine: cannot connect to %s: %s\n", endpoint,
                zmq_strerror(zmq_errno()));
        zmq_close(s);
        return 1;
    }
    u->s[u->n++] = s;
    return 0;
}

/* The message of socket s, if it is a machine message (new reference). */
static json_t *receive(void *s)
{
    char topic[64];
    int tn = zmq_recv(s, topic, sizeof topic - 1, ZMQ_DONTWAIT);
    if (tn < 0)
        return NULL;
    int more = 0;
    size_t ml = sizeof more;
    zmq_getsockopt(s, ZMQ_RCVMORE, &more, &ml);
    if (!more)
        return NULL;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    json_t *m = NULL;
    if (zmq_msg_recv(&msg, s, 0) >= 0 && tn == (int)strlen(MACHINE_TOPIC) &&
        memcmp(topic, MACHINE_TOPIC, (size_t)tn) == 0)
        m = json_loadb(zmq_msg_data(&msg), zmq_msg_size(&msg), 0, NULL);
    zmq_msg_close(&msg);
    return m;
}

int ftio_sub_machine(const struct sub_machine_opts *o)
{
    if (o->last)
        return machine_last(o);
    struct subs u = { .ctx = zmq_ctx_new(), .o = o };
    int rc = 0;
    if (cliopt_each(o->endpoints, open_one, &u) != 0 || u.n == 0) {
        rc = 1;
        goto out;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    json_t *latest[MAX_DAEMONS] = { 0 };
    bool fresh[MAX_DAEMONS] = { 0 };
    double t0 = mono_s(), first_fresh = NAN;
    long shown = 0;
    while (!stop && (o->count == 0 || shown < o->count)) {
        double now = mono_s();
        if (o->duration > 0 && now - t0 >= o->duration)
            break;
        if (shown == 0 && o->timeout > 0 && now - t0 >= o->timeout) {
            fprintf(stderr, "ftio sub --machine: no machine message from %s in %g s (is ftiod "
                            "running there, and our key allowed?)\n", o->endpoints, o->timeout);
            rc = 1;
            break;
        }
        zmq_pollitem_t it[MAX_DAEMONS];
        for (size_t i = 0; i < u.n; i++)
            it[i] = (zmq_pollitem_t){ .socket = u.s[i], .events = ZMQ_POLLIN };
        zmq_poll(it, (int)u.n, 100);
        size_t nfresh = 0;
        for (size_t i = 0; i < u.n; i++) {
            json_t *m;
            while ((m = receive(u.s[i]))) {
                json_decref(latest[i]);
                latest[i] = m;
                if (!fresh[i] && isnan(first_fresh))
                    first_fresh = mono_s();
                fresh[i] = true;
            }
            nfresh += fresh[i];
        }
        if (nfresh == 0 || (nfresh < u.n && mono_s() - first_fresh < SUM_WAIT))
            continue;
        json_t *part[MAX_DAEMONS];
        size_t n = 0;
        for (size_t i = 0; i < u.n; i++)
            if (latest[i])
                part[n++] = latest[i];
        json_t *sum = sum_machine(part, n);
        if (sum) {
            emit(sum, o->json);
            shown++;
        }
        json_decref(sum);
        memset(fresh, 0, sizeof fresh);
        first_fresh = NAN;
    }
    for (size_t i = 0; i < u.n; i++)
        json_decref(latest[i]);
    if (rc == 0 && o->count > 0 && shown < o->count) {
        fprintf(stderr, "ftio sub --machine: %ld of %d messages before the end\n", shown, o->count);
        rc = 1;
    }
out:
    for (size_t i = 0; i < u.n; i++)
        zmq_close(u.s[i]);
    zmq_ctx_term(u.ctx);
    return rc;
}
