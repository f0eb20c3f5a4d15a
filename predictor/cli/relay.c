/* SPDX-License-Identifier: BSD-3-Clause */
/* relay.c -- `ftio relay`: one upstream connection for a node's (or a rack's)
 * traced processes (PROTOCOL.md §1.5).
 *
 * Without it every rank opens its own connection to ftiod; with it the
 * shims of a node connect to the relay (ipc:// on the node) and the daemon
 * sees one connection per relay.  The relay is ZeroMQ's proxy device:
 * a ROUTER for the shims, a DEALER to the daemon, zmq_proxy() between them.
 * Batches keep their frames (batching and the MUNGE frame pass through
 * untouched: the daemon authenticates the process, not the relay) and
 * acknowledgements come back along the identity envelope the ROUTERs add
 * (common/transport.h).  Relays can be chained (node -> rack -> daemon).
 *
 * With several upstream daemons (--upstream E1,E2,...) the job id chooses
 * the daemon, by the same stable hash as the shim (PROTOCOL.md §1.5): then
 * the relay reads each batch's header and forwards it itself, the same
 * ROUTER/DEALER pair with one DEALER per daemon.
 *
 * SIGTERM stops the taking of batches; the acknowledgements that still
 * come back are passed on, and the front lingers for those its senders have
 * not read (pass_acks, ftio_ack_socket_close: as ftiod's own ROUTER).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "cliopt.h"
#include "commands.h"
#include "defaults.h"
#include "hash.h"
#include "timeutil.h"
#include "transport.h"
#include "wire.h"

#define MAX_UPSTREAMS 64
#define MAX_FRAMES    (FTIO_ENVELOPE_MAX + 3)

/* SIGINT/SIGTERM are blocked in every thread and taken by this one, which
 * tells the proxy to stop over its control socket (zmq_proxy_steerable):
 * zmq_proxy itself goes on through an interrupted poll. */
static volatile int stop;
struct stopper { void *ctx; sigset_t set; };

static void *stopper_main(void *arg)
{
    struct stopper *st = arg;
    int sig;
    sigwait(&st->set, &sig);
    stop = 1;
    void *ctl = zmq_socket(st->ctx, ZMQ_PAIR);
    if (ctl && zmq_connect(ctl, "inproc://ftio-relay-control") == 0)
        zmq_send(ctl, "TERMINATE", 9, 0);
    if (ctl)
        zmq_close(ctl);
    return NULL;
}

/* The upstream endpoints, from --upstream's list (cliopt_each). */
struct upstreams { char *ep[MAX_UPSTREAMS]; size_t n; };

static int add_upstream(const char *item, void *arg)
{
    struct upstreams *u = arg;
    if (u->n == MAX_UPSTREAMS)
        return 1;
    return (u->ep[u->n++] = strdup(item)) ? 0 : -1;
}

static void *open_socket(void *ctx, int type, int hwm)
{
    void *s = zmq_socket(ctx, type);
    int zero = 0;
    if (s) {
        zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof hwm);
        zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof hwm);
        zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    }
    return s;
}

/* Forward one whole message from `from` to `to`.  Returns the number of
 * frames, 0 when none was queued. */
static int forward(void *from, void *to)
{
    int n = 0;
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, from, n ? 0 : ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return n;
        }
        int more = zmq_msg_more(&m);
        zmq_msg_send(&m, to, more ? ZMQ_SNDMORE : 0);
        n++;
        if (!more)
            return n;
    }
}

/* Stopped: the acknowledgements the daemons sent for what the relay
 * forwarded go back to their senders, never a batch more upstream.  Those
 * already here and those still coming (a gap of ACK_QUIET_MS ends it, at
 * most ACK_WAIT_MS in all); then the front lingers for the ones its senders
 * have not read yet (ftio_ack_socket_close).  Dropped, each would make its
 * sender send the batch again, to a daemon that may count it twice. */
#define ACK_WAIT_MS  200
#define ACK_QUIET_MS 20
static void pass_acks(void *front, void **up, size_t nup)
{
    zmq_pollitem_t items[MAX_UPSTREAMS];
    for (size_t i = 0; i < nup; i++)
        items[i] = (zmq_pollitem_t){.socket = up[i], .events = ZMQ_POLLIN};
    int64_t now = ftio_mono_ns(), end = now + ACK_WAIT_MS * 1000000ll;
    while (now < end) {
        int n = zmq_poll(items, (int)nup, ACK_QUIET_MS);
        if (n < 0 && errno != EINTR)
            break;
        if (n == 0)
            break;
        for (size_t i = 0; i < nup; i++)
            if (items[i].revents & ZMQ_POLLIN)
                while (forward(up[i], front) > 0)
                    ;
        now = ftio_mono_ns();
    }
}

/* Several daemons: read [identity] [empty] [batch] [auth], pick the daemon
 * by the batch's job id, send the same frames.  An undecodable batch goes to
 * the first daemon, which counts it as malformed. */
static void route_batch(void *front, void **up, size_t nup, struct ftio_batch *scratch)
{
    zmq_msg_t f[MAX_FRAMES];
    int n = 0, more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, front, n ? 0 : ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            break;
        }
        more = zmq_msg_more(&m);
        if (n < MAX_FRAMES)
            f[n++] = m;
        else
            zmq_msg_close(&m);   /* too many frames: the daemon rejects the message */
    }
    if (n == 0)
        return;
    size_t pick = 0;
    for (int i = 1; i + 1 < n; i++)
        if (zmq_msg_size(&f[i]) == 0) {
            size_t used;
            char err[128];
            if (ftio_wire_decode(zmq_msg_data(&f[i + 1]), zmq_msg_size(&f[i + 1]), scratch, &used,
                                 err, sizeof err) == 0)
                pick = (size_t)(ftio_hash64(scratch->h.job, strlen(scratch->h.job)) % nup);
            break;
        }
    for (int i = 0; i < n; i++)
        zmq_msg_send(&f[i], up[pick], i + 1 < n ? ZMQ_SNDMORE : 0);
}

static const char usage_text[] = "usage: ftio relay --listen E --upstream E[,E...] [--hwm N] [-v]\n";
static const char about_text[] =
    "Forwards the batches of a node's traced processes to ftiod over one\n"
    "connection and their acknowledgements back (ZeroMQ proxy).\n";
static const char epilog_text[] =
    "Stops on SIGINT/SIGTERM, within 0.7 s: the acknowledgements still on\n"
    "their way to the senders are delivered first.  Exit status: 0, 1 when it\n"
    "cannot listen or connect, 2 on a usage error.\n";

int ftio_cmd_relay(int argc, char **argv)
{
    const char *listen = NULL, *upstream = NULL;
    int verbose = 0, hwm;
    struct cliopt t[] = {
        {"listen", 'l', CLIOPT_STRING, "E",
         "where the shims connect (their FTIO_ENDPOINT), e.g.\n"
         FTIO_DEFAULT_RELAY_SOCKET " or tcp://0.0.0.0:5555", NULL, .to.s = &listen},
        {"upstream", 'u', CLIOPT_LIST, "E",
         "ftiod's --listen endpoint (or another relay's); several\n"
         "(E,E or repeated): each job goes to one, chosen by a hash\n"
         "of its id (the shim's FTIO_ENDPOINT rule)", NULL, .to.s = &upstream},
        {"hwm", 0, CLIOPT_INT, "N", "batches queued per connection", "1000", .to.i = &hwm,
         .min = 1, .max = 10000000},
        {"verbose", 'v', CLIOPT_COUNT, NULL, "say what is connected", NULL, .to.i = &verbose},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio relay", .version = FTIO_VERSION, .opts = t, .usage = usage_text,
        .about = about_text, .epilog = epilog_text,
    };
    struct upstreams ups = {.n = 0};
    int first = cliopt_defaults(&p) != 0 ? -2 : cliopt_parse_argv(&p, argc, argv), urc = 0;
    if (first >= 0 && first < argc)
        first = cliopt_error(&p, "unexpected argument '%s'", argv[first]);
    else if (first >= 0 && (!listen || !upstream))
        first = cliopt_error(&p, "--listen and --upstream are required");
    else if (first >= 0 && ((urc = cliopt_each(upstream, add_upstream, &ups)) != 0 || !ups.n))
        first = cliopt_error(&p, "--upstream: %s", urc > 0 ? "more than 64 endpoints"
                                                   : urc < 0 ? "out of memory" : "no endpoint");
    if (first < 0) {
        for (size_t i = 0; i < ups.n; i++)
            free(ups.ep[i]);
        cliopt_free(&p);
        return CLIOPT_EXIT_STATUS(first);
    }
    size_t nup = ups.n;
    char **eps = ups.ep;
    struct stopper stp;
    sigemptyset(&stp.set);
    sigaddset(&stp.set, SIGINT);
    sigaddset(&stp.set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stp.set, NULL);   /* before ZeroMQ starts its threads */
    void *ctx = zmq_ctx_new();
    stp.ctx = ctx;
    void *front = open_socket(ctx, ZMQ_ROUTER, hwm), *up[MAX_UPSTREAMS] = {0};
    void *control = zmq_socket(ctx, ZMQ_PAIR);
    pthread_t stopper_th;
    bool stopper_started = false;
    int rc = 1;
    if (!control || zmq_bind(control, "inproc://ftio-relay-control") != 0 ||
        pthread_create(&stopper_th, NULL, stopper_main, &stp) != 0) {
        fprintf(stderr, "ftio relay: cannot set up: %s\n", zmq_strerror(errno));
        goto out;
    }
    stopper_started = true;
    if (!front || zmq_bind(front, listen) != 0) {
        fprintf(stderr, "ftio relay: cannot listen on %s: %s\n", listen, zmq_strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < nup; i++)
        if (!(up[i] = open_socket(ctx, ZMQ_DEALER, hwm)) || zmq_connect(up[i], eps[i]) != 0) {
            fprintf(stderr, "ftio relay: cannot connect to %s: %s\n", eps[i], zmq_strerror(errno));
            goto out;
        }
    if (verbose)
        fprintf(stderr, "ftio relay: %s -> %s\n", listen, upstream);
    if (nup == 1) {
        /* ZeroMQ's own device, stopped by the stopper thread. */
        zmq_proxy_steerable(front, up[0], NULL, control);
        rc = 0;
        goto out;
    }
    struct ftio_batch *scratch = calloc(1, sizeof *scratch);
    zmq_pollitem_t items[1 + MAX_UPSTREAMS];
    items[0] = (zmq_pollitem_t){.socket = front, .events = ZMQ_POLLIN};
    for (size_t i = 0; i < nup; i++)
        items[1 + i] = (zmq_pollitem_t){.socket = up[i], .events = ZMQ_POLLIN};
    while (!stop && scratch) {
        if (zmq_poll(items, (int)(1 + nup), 200) < 0 && errno != EINTR)
            break;
        if (items[0].revents & ZMQ_POLLIN)
            for (int k = 0; k < 1000 && (zmq_poll(items, 1, 0) > 0); k++)
                route_batch(front, up, nup, scratch);
        for (size_t i = 0; i < nup; i++)
            if (items[1 + i].revents & ZMQ_POLLIN)
                while (forward(up[i], front) > 0)
                    ;
    }
    if (scratch) {
        ftio_batch_free(scratch);
        free(scratch);
    }
    rc = 0;
out:
    if (rc == 0) {
        pass_acks(front, up, nup);
        if (verbose)
            fprintf(stderr, "ftio relay: stopped (acknowledgements still queued leave within %d ms)\n",
                    FTIO_ACK_LINGER_MS);
    }
    if (stopper_started) {
        pthread_kill(stopper_th, SIGTERM);   /* blocked there: sigwait takes it */
        pthread_join(stopper_th, NULL);
    }
    if (control)
        zmq_close(control);
    for (size_t i = 0; i < nup; i++)
        if (up[i])
            zmq_close(up[i]);
    ftio_ack_socket_close(front, FTIO_ACK_LINGER_MS);
    zmq_ctx_term(ctx);
    for (size_t i = 0; i < nup; i++)
        free(eps[i]);
    cliopt_free(&p);
    return rc;
}
