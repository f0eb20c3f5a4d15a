/* SPDX-License-Identifier: BSD-3-Clause */
/* ingest.c -- the main thread of ftiod: receive batches on the ROUTER (and
 * on ftiod's own ZMTP listener beside an ipc:// one, zmtp_listen.c), check
 * who sent them (auth_verify.c), decode them, admit them (admit.c: whose job
 * by the ownership rules of claims.c, quotas, the journal, the merge into
 * the job) and acknowledge them (common/transport.h): a batch that goes into
 * its job once it is journaled, before its merge (admit.c, PROTOCOL.md
 * §1.4).  Its poll loop also hands each request of the control socket to
 * control_serve.c: the loop
 * stays here because the ingest state (the reused batch, the log limiters)
 * lives as long as it, and the control socket needs nothing of it.
 *
 * Every message is hostile until decoded: multi-frame, malformed, truncated
 * or wrong-version messages are counted and dropped with a rate-limited log
 * line.  Oversized ones never reach us: ZMQ_MAXMSGSIZE (main.c) makes libzmq
 * drop them, and the connection that sent them, before allocating them, so
 * they are not in our counters.  Decoding happens outside the lock; the lock
 * is held only for the admission (admit.c), so the analysis threads never
 * wait long and we never wait for it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <zmq.h>
#include "admit.h"
#include "auth.h"
#include "daemon.h"
#include "history_glue.h"
#include "message.h"
#include "timeutil.h"
#include "transport.h"
#include "wire.h"
#include "zmtp_listen.h"

/* Drain at most this many messages per poll turn, so status requests and the
 * stop flag are still looked at under a flood. */
#define DRAIN_MAX 1024
/* At SIGTERM, what is queued is taken for this long at most (s). */
#define STOP_DRAIN 0.25

struct ingest {
    struct ftiod *d;
    struct ftio_batch batch;          /* reused across messages */
    struct admit_limits rl;           /* its log lines' limiters */
};

/* A job id ends up in a topic and in log lines: printable, no spaces. */
static bool job_id_ok(const char *id)
{
    if (!id || !*id)
        return false;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return false;
    return true;
}

/* Each message takes the lock once: reject() or ftiod_admit() counts it. */
static void reject(struct ingest *in, uint64_t *counter, const char *why)
{
    pthread_mutex_lock(&in->d->lock);
    in->d->stats.messages++;
    (*counter)++;
    pthread_mutex_unlock(&in->d->lock);
    ftiod_log_rl(&in->rl.bad, "dropped message: %s", why);
}

/* Where an acknowledgement goes: the identities of the message it answers
 * (frames [0, delim)), or a direct connection's reply (zmtp_listen.c), and
 * whether it went already (ftiod_admit_acking() sends a merged batch's
 * before the merge proper). */
struct ack_to {
    struct ingest *in;
    struct ftiod_message *m;
    int delim;
    bool sent;
    ftiod_zmtp_reply_fn reply;
    void *rctx;
};

static void send_ack(void *ctx, int status)
{
    struct ack_to *to = ctx;
    struct ingest *in = to->in;
    unsigned char ack[FTIO_ACK_LEN];
    ftio_ack_encode(ack, status == FTIO_ACK_RENEW ? FTIO_ACK_SEQ_ANY : in->batch.h.seq, status);
    to->sent = true;
    if (to->reply) {
        to->reply(to->rctx, ack, sizeof ack);
        return;
    }
    /* A sender that went away or does not read: ROUTER drops the reply. */
    for (int i = 0; i < to->delim; i++)
        zmq_send(in->d->router, zmq_msg_data(&to->m->f[i]), zmq_msg_size(&to->m->f[i]),
                 ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(in->d->router, "", 0, ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(in->d->router, ack, sizeof ack, ZMQ_DONTWAIT);
}

/* One batch message: the batch frame and, when authenticated, its auth
 * frame.  Returns the acknowledgement status, or -1 when the batch could not
 * be decoded (no sequence number to acknowledge: the sender's copy times out
 * into its spool file).  A batch in a session this ftiod does not know
 * (it restarted) is not decoded either: FTIO_ACK_RENEW tells the sender to
 * make a new session and send again at once, with FTIO_ACK_SEQ_ANY for the
 * sequence number (PROTOCOL.md §1.4). */
static int handle_message(struct ingest *in, const void *msg, size_t len, const void *auth,
                          size_t alen, bool extra, struct ack_to *to)
{
    struct ftiod *d = in->d;
    if (extra) {
        reject(in, &d->stats.multipart, "more than two frames");
        return -1;
    }
    char err[256];
    size_t used = 0;
    /* Authenticate before decoding: an unauthenticated sender gets no
     * further than one hash. */
    int64_t uid = -1;
    const char *why = NULL;
    int ar = ftiod_auth_batch(d->auth, msg, len, auth, alen, &uid, &why);
    if (ar != 0) {
        reject(in, &d->stats.unauthenticated, why);
        return ar == FTIOD_AUTH_RENEW ? FTIO_ACK_RENEW : -1;
    }
    int rc = ftio_wire_decode(msg, len, &in->batch, &used, err, sizeof err);
    if (rc == 1) {
        reject(in, &d->stats.truncated, "truncated batch");
        return -1;
    }
    if (rc < 0) {
        char why2[320];
        snprintf(why2, sizeof why2, "malformed batch (%s)", err);
        reject(in, &d->stats.malformed, why2);
        return -1;
    }
    if (used != len) {
        reject(in, &d->stats.malformed, "trailing bytes after the batch");
        return -1;
    }
    if (!job_id_ok(in->batch.h.job)) {
        reject(in, &d->stats.malformed, "empty or unprintable job id");
        return -1;
    }
    struct admission a;
    ftiod_admit_acking(d, &in->batch, uid, msg, len, &a, send_ack, to);
    ftiod_admit_log(&in->rl, d, &in->batch, uid, &a);
    return ftiod_admit_ack(a.verdict);
}

/* One message of the ROUTER: [identity...] [empty] [batch] [auth]; the
 * acknowledgement goes back along the same identities. */
static void ingest_message(struct ingest *in, struct ftiod_message *m)
{
    int delim = -1;
    for (int i = 1; i < m->n && i <= FTIO_ENVELOPE_MAX; i++)
        if (zmq_msg_size(&m->f[i]) == 0) {
            delim = i;
            break;
        }
    int payload = delim < 0 ? 0 : m->n - delim - 1;
    if (delim < 0 || payload < 1) {
        reject(in, &in->d->stats.malformed, "no envelope delimiter or no batch");
        return;
    }
    struct ack_to to = { in, m, delim, false, NULL, NULL };
    zmq_msg_t *b = &m->f[delim + 1], *auth = payload > 1 ? &m->f[delim + 2] : NULL;
    int status = handle_message(in, zmq_msg_data(b), zmq_msg_size(b), auth ? zmq_msg_data(auth) : NULL,
                                auth ? zmq_msg_size(auth) : 0, m->extra || payload > 2, &to);
    if (status >= 0 && !to.sent)
        send_ack(&to, status);
}

/* One message of a direct connection (zmtp_listen.c): [empty] [batch]
 * [auth], as a DEALER sends it; acknowledged on that connection. */
static void ingest_direct(void *ctx, const void *const *f, const size_t *len, int n,
                          ftiod_zmtp_reply_fn reply, void *rctx)
{
    struct ingest *in = ctx;
    if (n < 2 || len[0] != 0) {
        reject(in, &in->d->stats.malformed, "no envelope delimiter or no batch");
        return;
    }
    struct ack_to to = { in, NULL, 0, false, reply, rctx };
    int status = handle_message(in, f[1], len[1], n > 2 ? f[2] : NULL, n > 2 ? len[2] : 0, n > 3, &to);
    if (status >= 0 && !to.sent)
        send_ack(&to, status);
}

/* Receive everything queued (bounded: DRAIN_MAX messages, and until the
 * monotonic `until`).  A live drain (`until` infinite) leaves at a stop
 * signal: on a starved machine 1,024 merges took seconds of its wall time,
 * and the stop's own drain (STOP_DRAIN) takes what it has time for. */
static void drain(struct ingest *in, double until)
{
    bool live = isinf(until);
    for (int i = 0; i < DRAIN_MAX && ftiod_now() < until && !(live && in->d->stop); i++) {
        struct ftiod_message m;
        if (ftiod_message_recv(in->d->router, &m) < 0) {
            atomic_store(&in->d->router_quiet_ns, ftio_real_ns());   /* no backlog (job_clock_received) */
            return;
        }
        ingest_message(in, &m);
        ftiod_message_close(&m);
    }
}

int ftiod_ingest_loop(struct ftiod *d)
{
    struct ingest in = {.d = d};
    zmq_pollitem_t items[4] = {
        {.socket = d->router, .events = ZMQ_POLLIN},
        {.socket = d->rep, .events = ZMQ_POLLIN},
        {.fd = ftiod_control_late_fd(d), .events = ZMQ_POLLIN},   /* history_glue.h */
        {.fd = ftiod_zmtp_listen_fd(), .events = ZMQ_POLLIN},     /* zmtp_listen.h */
    };
    int nitems = items[2].fd >= 0 ? 3 : 2, zi = -1;
    if (items[3].fd >= 0)
        items[zi = nitems++] = items[3];
    int rc = 0;
    atomic_store(&d->router_quiet_ns, ftio_real_ns());
    while (!d->stop) {
        /* REP: no next request while the memory of runs owes a reply */
        items[1].events = ftiod_control_waiting(d) ? 0 : ZMQ_POLLIN;
        if (zmq_poll(items, nitems, 200) < 0) {
            if (errno == EINTR)
                continue;
            ftiod_log("poll: %s", zmq_strerror(errno));
            rc = -1;
            break;
        }
        if (zi >= 0 && (items[zi].revents & ZMQ_POLLIN))
            ftiod_zmtp_listen_serve(ingest_direct, &in);
        if (items[0].revents & ZMQ_POLLIN)
            drain(&in, INFINITY);
        else
            atomic_store(&d->router_quiet_ns, ftio_real_ns());
        ftiod_state_sync(d, ftiod_now());
        ftiod_heap_trim(d, ftiod_now());
        if (items[1].revents & ZMQ_POLLIN)
            ftiod_control_serve(d);
        ftiod_control_late(d);
    }
    /* Take what is already queued before the final summaries, for a moment
     * only: what is left is not acknowledged, so the shims keep it (10,000
     * jobs sending their history queued seconds of merges, which made the
     * stop miss its 2 s). */
    drain(&in, ftiod_now() + STOP_DRAIN);
    ftio_batch_free(&in.batch);
    return rc;
}

void ftiod_ingest_close(struct ftiod *d, int left_ms)
{
    if (!d->router)
        return;
    ftiod_zmtp_listen_close();                     /* unacknowledged: the shims keep them */
    ftio_ack_socket_close(d->router, left_ms);     /* queued acknowledgements leave (transport.h) */
    d->router = NULL;
}
