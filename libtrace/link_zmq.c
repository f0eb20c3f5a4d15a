/* SPDX-License-Identifier: BSD-3-Clause */
/* link_zmq.c -- the ZeroMQ link (link.h): a DEALER connected to ftiod's
 * ROUTER.  libzmq is loaded on first use (lazy.h); ZMQ_IMMEDIATE queues
 * nothing before the connection is up (the copies wait in sink.c instead,
 * counted and bounded), ZMQ_LINGER 0 drops what it holds at close (sink.c
 * has spooled it), and ZeroMQ reconnects by itself after a daemon restart.
 * Its I/O thread shares the flusher's private descriptor table.
 */
#include <errno.h>
#include <string.h>
#include "lazy.h"               /* ZeroMQ: loaded on first use */
#include "internal.h"
#include "link.h"

static struct {
    void *ctx, *sock;
} zq;

static int zq_open(const char *endpoint, char *why, size_t wlen)
{
    if (ftio_lazy_load(1, why, wlen) != 0)
        return -1;
    /* libpgm's init inside reads the environment: not while the
     * application changes it (envlock.c, issue 29). */
    ftio_env_lock();
    zq.ctx = zmq_ctx_new();
    ftio_env_unlock();
    if (!zq.ctx) {
        snprintf(why, wlen, "zmq_ctx_new: %s", zmq_strerror(errno));
        return -1;
    }
    zq.sock = zmq_socket(zq.ctx, ZMQ_DEALER);
    int hwm = ftio_cfg.hwm, zero = 0, one = 1;
    if (!zq.sock || zmq_setsockopt(zq.sock, ZMQ_SNDHWM, &hwm, sizeof hwm) != 0 ||
        zmq_setsockopt(zq.sock, ZMQ_LINGER, &zero, sizeof zero) != 0 ||
        zmq_setsockopt(zq.sock, ZMQ_IMMEDIATE, &one, sizeof one) != 0 ||
        zmq_connect(zq.sock, endpoint) != 0) {
        snprintf(why, wlen, "FTIO_ENDPOINT=%s: %s", endpoint, zmq_strerror(errno));
        if (zq.sock)
            zmq_close(zq.sock);
        zq.sock = NULL;
        zmq_ctx_term(zq.ctx);
        zq.ctx = NULL;
        return -1;
    }
    return 0;
}

static int zq_send(const void *batch, size_t len, const struct ftio_auth_sender *auth,
                   int64_t deadline_ns, char *why, size_t wlen)
{
    (void)deadline_ns;
    (void)why;
    (void)wlen;
    return ftio_batch_send(zq.sock, auth, batch, len, ZMQ_DONTWAIT) == 0 ? 0 : 1;
}

static int zq_recv_ack(struct ftio_ack *ack, char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return ftio_ack_recv(zq.sock, ack);
}

static int zq_wait(int unsent)
{
    zmq_pollitem_t it = { .socket = zq.sock, .events = ZMQ_POLLIN | (unsent ? ZMQ_POLLOUT : 0) };
    /* zmq_poll counts in ms: 1-ms slices, so that no deadline is
     * overshot by more than one. */
    return zmq_poll(&it, 1, 1) < 0 && errno != EINTR ? -1 : 0;
}

static void zq_close(void)
{
    if (zq.sock)
        zmq_close(zq.sock);
    if (zq.ctx)
        while (zmq_ctx_term(zq.ctx) != 0 && errno == EINTR)
            ;
    zq.sock = zq.ctx = NULL;
}

/* The parent's context and socket belong to threads that do not exist in a
 * fork child: abandoned, never closed (that would touch the parent's
 * session). */
static void zq_abandon(void)
{
    zq.sock = zq.ctx = NULL;
}

/* ZMQ_IMMEDIATE: nothing is sent before the handshake is done. */
static int zq_heard(void)
{
    return 1;
}

/* (A ZeroMQ peer may be anywhere: not known.) */
static int zq_peer_runs(void)
{
    return 0;
}

const struct ftio_link ftio_link_zmq = {
    "ZeroMQ", zq_open, zq_send, zq_recv_ack, zq_wait, zq_close, zq_abandon, zq_heard, zq_peer_runs,
};
