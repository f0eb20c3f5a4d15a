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
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "commands.h"
#include "hash.h"
#include "transport.h"
#include "wire.h"

#define MAX_UPSTREAMS 64
#define MAX_FRAMES    (FTIO_ENVELOPE_MAX + 3)

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *out)
{
    fprintf(out,
"usage: ftio relay --listen E --upstream E[,E...] [-v]\n"
"Forwards the batches of a node's traced processes to ftiod over one\n"
"connection and their acknowledgements back (ZeroMQ proxy).\n"
"\n"
"  --listen E      where the shims connect (their FTIO_ENDPOINT), e.g.\n"
"                  ipc:///run/ftio/relay.sock or tcp://0.0.0.0:5555\n"
"  --upstream E    ftiod's --listen endpoint (or another relay's); several,\n"
"                  comma-separated: each job goes to one, chosen by a hash of\n"
"                  its id (the shim's FTIO_ENDPOINT rule)\n"
"  --hwm N         batches queued per connection (10000)\n"
"  -v, --verbose   say what is connected\n"
"  -h, --help      this help\n");
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

/* Several daemons: read [identity] [empty] [batch] [auth], pick the daemon
 * by the batch's job id, send the same frames.  An undecodable batch goes to
 * the first daemon, which counts it as malformed. */
static void route_batch(void *front, void **up, size_t nup, struct ftio_batch *scratch)
{
    zmq_msg_t f[MAX_FRAMES];
    int n = 0, more = 1;
    while (more) {
        zmq_msg_init(&f[n < MAX_FRAMES ? n : MAX_FRAMES - 1]);
        zmq_msg_t *m = &f[n < MAX_FRAMES ? n : MAX_FRAMES - 1];
        if (zmq_msg_recv(m, front, n ? 0 : ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(m);
            break;
        }
        more = zmq_msg_more(m);
        if (n < MAX_FRAMES)
            n++;
        else
            zmq_msg_close(m);    /* too many frames: the daemon rejects the rest */
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

int ftio_cmd_relay(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", 1, 0, 'l'}, {"upstream", 1, 0, 'u'}, {"hwm", 1, 0, 'H'},
        {"verbose", 0, 0, 'v'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *listen = NULL, *upstream = NULL;
    int verbose = 0, hwm = 10000, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': listen = optarg; break;
        case 'u': upstream = optarg; break;
        case 'H': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 10000000) {
                fprintf(stderr, "ftio relay: --hwm: must be 1..10000000\n");
                return 2;
            }
            hwm = (int)v;
            break;
        }
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default: fprintf(stderr, "ftio relay: try 'ftio relay --help'\n"); return 2;
        }
    }
    if (optind < argc || !listen || !upstream) {
        fprintf(stderr, "ftio relay: %s\n", optind < argc ? "unexpected argument"
                                                           : "--listen and --upstream are required");
        return 2;
    }
    char *ups = strdup(upstream);
    char *eps[MAX_UPSTREAMS];
    size_t nup = 0;
    for (char *save = NULL, *t = strtok_r(ups, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (nup == MAX_UPSTREAMS) {
            fprintf(stderr, "ftio relay: more than %d upstreams\n", MAX_UPSTREAMS);
            free(ups);
            return 2;
        }
        eps[nup++] = t;
    }
    if (!nup) {
        fprintf(stderr, "ftio relay: --upstream: no endpoint\n");
        free(ups);
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *front = open_socket(ctx, ZMQ_ROUTER, hwm), *up[MAX_UPSTREAMS] = {0};
    int rc = 1;
    if (!front || zmq_bind(front, listen) != 0) {
        fprintf(stderr, "ftio relay: cannot listen on %s: %s\n", listen, zmq_strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < nup; i++)
        if (!(up[i] = open_socket(ctx, ZMQ_DEALER, hwm)) || zmq_connect(up[i], eps[i]) != 0) {
            fprintf(stderr, "ftio relay: cannot connect to %s: %s\n", eps[i], zmq_strerror(errno));
            goto out;
        }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (verbose)
        fprintf(stderr, "ftio relay: %s -> %s\n", listen, upstream);
    if (nup == 1) {
        /* ZeroMQ's own device; returns when the context is interrupted. */
        zmq_proxy(front, up[0], NULL);
        rc = 0;
        goto out;
    }
    struct ftio_batch *scratch = calloc(1, sizeof *scratch);
    zmq_pollitem_t items[1 + MAX_UPSTREAMS];
    items[0] = (zmq_pollitem_t){.socket = front, .events = ZMQ_POLLIN};
    for (size_t i = 0; i < nup; i++)
        items[1 + i] = (zmq_pollitem_t){.socket = up[i], .events = ZMQ_POLLIN};
    while (!stop && scratch) {
        if (zmq_poll(items, (int)(1 + nup), 500) < 0 && errno != EINTR)
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
    for (size_t i = 0; i < nup; i++)
        if (up[i])
            zmq_close(up[i]);
    if (front)
        zmq_close(front);
    zmq_ctx_term(ctx);
    free(ups);
    return rc;
}
