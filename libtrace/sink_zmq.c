/* sink_zmq.c -- the shim's way to ftiod: a ZeroMQ DEALER, acknowledged
 * delivery (PROTOCOL.md §1.4), and the spool file (spool.c) for whatever the
 * daemon does not acknowledge.
 *
 * The flusher (flusher.c) encodes batches and offers each one here.  A batch
 * offered is kept (a copy) until ftiod acknowledges it:
 *
 *   - daemon up: sent at once, forgotten at its acknowledgement (ftiod sends
 *     it after merging, and after writing it to its --state-dir journal);
 *   - daemon down or restarting: kept unsent, sent when the connection is
 *     back (ZeroMQ reconnects by itself), so a restart loses nothing and the
 *     job needs no replay;
 *   - sent but not acknowledged for FTIO_ACK_TIMEOUT_MS (the daemon died
 *     after taking it, or it is hung: ZeroMQ and the kernel accept a whole
 *     trace into their buffers): sent again, up to RESENDS times (the daemon
 *     drops a (process, seq) it has), then spooled;
 *   - past FTIO_ACK_MAX_MB of copies, the oldest go to the spool file;
 *   - at the end of the image (exit, _exit, exec, fatal signal) the sink
 *     waits FTIO_EXIT_WAIT_MS at most (5 ms) for what can still be sent and
 *     acknowledged, spools the rest, and says once per job where the spool
 *     went (spool.c).  Nothing is waited for that cannot be sent.
 *
 * FTIO_ENDPOINT may name several daemons (comma-separated): a stable hash of
 * the job id chooses one (PROTOCOL.md §1.5), so every rank of a job, on every
 * node, goes to the same daemon.
 *
 * Everything here runs on the flusher thread: no locks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "internal.h"
#include "auth.h"
#include "hash.h"
#include "timeutil.h"
#include "transport.h"

#define RESENDS        2                 /* then a silent daemon's batches are spooled */
#define CONNECT_WAIT_NS 1000000ll        /* at exit, for a daemon never connected */
#define AUTH_RETRY_NS  (10 * 1000000000ll)

/* A batch offered and not acknowledged yet. */
struct pending_batch {
    uint64_t seq;
    void    *data;
    size_t   len;
    int64_t  sent_ns;      /* 0: not sent (yet, or again) */
    int      sends;
    size_t   nrec;         /* its records: counted lost if it goes nowhere */
};

static struct {
    void    *zctx, *zsock;
    int      broken;                /* bad endpoint: spool only */
    char     endpoint[512];         /* the one chosen for this job */
    struct pending_batch *pend;     /* oldest first */
    struct pending_batch *abandoned;  /* a fork parent's copies (after_fork_child) */
    size_t   npend, cap, bytes;
    int64_t  last_ack_ns;
    uint64_t lost;                  /* records of batches neither acknowledged nor spooled */
    int      stall_said;
    struct ftio_auth_sender auth;   /* FTIO_AUTH=munge: this image's session */
    int      auth_ok;
    int64_t  auth_tried_ns;
} sk;

/* ---- the spool file, for what the daemon does not take ------------------ */

static int spool_copy(const void *buf, size_t len)
{
    return ftio_cfg.spool_mode != FTIO_SPOOL_NEVER && ftio_spool_append(buf, len) == 0;
}

/* ---- connection --------------------------------------------------------- */

/* The daemon of this job among FTIO_ENDPOINT's (comma-separated). */
static void choose_endpoint(void)
{
    const char *list = ftio_cfg.endpoint;
    size_t n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    size_t pick = n > 1 ? (size_t)(ftio_hash64(ftio_id.job, strlen(ftio_id.job)) % n) : 0;
    const char *s = list;
    for (size_t i = 0; i < pick; i++)
        s = strchr(s, ',') + 1;
    size_t len = strcspn(s, ",");
    if (len >= sizeof sk.endpoint)
        len = sizeof sk.endpoint - 1;
    memcpy(sk.endpoint, s, len);
    sk.endpoint[len] = '\0';
}

void ftio_sink_open(void)
{
    if (sk.zsock || sk.broken || ftio_cfg.spool_mode == FTIO_SPOOL_ALWAYS)
        return;
    choose_endpoint();
    sk.zctx = zmq_ctx_new();
    if (!sk.zctx) {
        sk.broken = 1;
        ftio_warn("zmq_ctx_new: %s; spooling to %s", zmq_strerror(errno), ftio_cfg.spool_dir);
        return;
    }
    sk.zsock = zmq_socket(sk.zctx, ZMQ_DEALER);
    int hwm = ftio_cfg.hwm, zero = 0, one = 1;
    /* IMMEDIATE: no queueing for a daemon that is not connected (the copies
     * wait here instead, where they are counted and bounded). */
    if (!sk.zsock || zmq_setsockopt(sk.zsock, ZMQ_SNDHWM, &hwm, sizeof hwm) != 0 ||
        zmq_setsockopt(sk.zsock, ZMQ_LINGER, &zero, sizeof zero) != 0 ||
        zmq_setsockopt(sk.zsock, ZMQ_IMMEDIATE, &one, sizeof one) != 0 ||
        zmq_connect(sk.zsock, sk.endpoint) != 0) {
        ftio_warn("FTIO_ENDPOINT=%s: %s; spooling to %s", sk.endpoint, zmq_strerror(errno),
                  ftio_cfg.spool_dir);
        sk.broken = 1;
        if (sk.zsock)
            zmq_close(sk.zsock);
        sk.zsock = NULL;
        return;
    }
    ftio_log("connecting to %s", sk.endpoint);
}

/* FTIO_AUTH=munge: a session for this image, asked of munged once (and again
 * every AUTH_RETRY_NS while munged cannot be reached).  1 when there is one. */
static int auth_session(void)
{
    if (ftio_cfg.auth_mode != FTIO_AUTH_MUNGE || sk.auth_ok)
        return 1;
    int64_t now = ftio_mono_ns();
    if (sk.auth_tried_ns && now - sk.auth_tried_ns < AUTH_RETRY_NS)
        return 0;
    int first = sk.auth_tried_ns == 0;
    sk.auth_tried_ns = now;
    char err[256];
    if (ftio_auth_sender_init(&sk.auth, ftio_cfg.munge_socket[0] ? ftio_cfg.munge_socket : NULL,
                              ftio_cfg.auth_uid < 0 ? (uid_t)-1 : (uid_t)ftio_cfg.auth_uid,
                              err, sizeof err) != 0) {
        if (first)
            ftio_warn("cannot authenticate to ftiod (%s): spooling to %s (FTIO_AUTH=none "
                      "for a daemon without authentication)", err, ftio_cfg.spool_dir);
        return 0;
    }
    sk.auth_ok = 1;
    ftio_log("MUNGE session made (credential of %zu bytes)", sk.auth.cred_len);
    return 1;
}

/* ---- the pending batches ------------------------------------------------ */

/* Forget pend[i], spooled first when keep. */
static void drop(size_t i, int keep)
{
    struct pending_batch *p = &sk.pend[i];
    if (ftio_cfg.spool_mode == FTIO_SPOOL_TEE)
        keep = 0;                     /* it is in the spool file already */
    if (keep && !spool_copy(p->data, p->len)) {
        /* FTIO_SPOOL=daemon, or the spool file failed: counted, and the next
         * batch's "lost" says so (or the last one's, at exit: see flusher.c). */
        sk.lost += p->nrec;
        ftio_log("batch seq %llu: unacknowledged and not spooled: %zu records lost",
                 (unsigned long long)p->seq, p->nrec);
    }
    sk.bytes -= p->len;
    free(p->data);
    memmove(p, p + 1, (sk.npend - i - 1) * sizeof *p);
    sk.npend--;
}

static void spool_all(void)
{
    while (sk.npend)
        drop(0, 1);
}

/* Send what is unsent, oldest first, while ZeroMQ takes it (a connected
 * daemon with room in its queue). */
static void send_unsent(void)
{
    if (!sk.zsock || !auth_session())
        return;
    for (size_t i = 0; i < sk.npend; i++) {
        struct pending_batch *p = &sk.pend[i];
        if (p->sent_ns)
            continue;
        if (ftio_batch_send(sk.zsock, sk.auth_ok ? &sk.auth : NULL, p->data, p->len,
                            ZMQ_DONTWAIT) != 0)
            return;
        p->sent_ns = ftio_mono_ns();
        p->sends++;
    }
}

int ftio_sink_unsent(void)
{
    if (!sk.zsock)
        return 0;
    for (size_t i = 0; i < sk.npend; i++)
        if (!sk.pend[i].sent_ns)
            return 1;
    return 0;
}

static void take_acks(void)
{
    struct ftio_ack a;
    while (sk.zsock && ftio_ack_recv(sk.zsock, &a)) {
        sk.last_ack_ns = ftio_mono_ns();
        for (size_t i = 0; i < sk.npend; i++)
            if (sk.pend[i].seq == a.seq && sk.pend[i].sent_ns) {
                if (a.status != FTIO_ACK_MERGED)
                    ftio_log("batch seq %llu refused by ftiod: spooled", (unsigned long long)a.seq);
                drop(i, a.status != FTIO_ACK_MERGED);
                break;
            }
    }
}

/* Sent long ago and never acknowledged: the daemon died after taking them
 * (a restarted one gets them again) or it is hung (then, after RESENDS,
 * the spool file). */
static void check_silence(void)
{
    if (!sk.npend || !sk.pend[0].sent_ns)
        return;
    int64_t now = ftio_mono_ns(), timeout = (int64_t)ftio_cfg.ack_timeout_ms * 1000000;
    int64_t since = sk.pend[0].sent_ns > sk.last_ack_ns ? sk.pend[0].sent_ns : sk.last_ack_ns;
    if (now - since < timeout)
        return;
    if (sk.pend[0].sends > RESENDS) {
        if (!sk.stall_said++)
            ftio_warn("ftiod at %s has not acknowledged %zu batches for %d ms: spooling them to %s",
                      sk.endpoint, sk.npend, (RESENDS + 1) * ftio_cfg.ack_timeout_ms,
                      ftio_cfg.spool_dir);
        while (sk.npend && sk.pend[0].sent_ns && now - sk.pend[0].sent_ns >= timeout)
            drop(0, 1);
        return;
    }
    ftio_log("%zu batches unacknowledged for %d ms: sending them again", sk.npend,
             ftio_cfg.ack_timeout_ms);
    for (size_t i = 0; i < sk.npend; i++)
        sk.pend[i].sent_ns = 0;
    send_unsent();
}

uint64_t ftio_sink_take_lost(void)
{
    uint64_t n = sk.lost;
    sk.lost = 0;
    return n;
}

int ftio_sink_offer(uint64_t seq, const void *buf, size_t len, size_t nrec)
{
    ftio_sink_open();
    if (!sk.zsock)
        return 0;
    /* Bounded memory: the oldest copies go to the spool file first. */
    while (sk.npend && sk.bytes + len > ftio_cfg.ack_max_bytes)
        drop(0, 1);
    if (sk.npend == sk.cap) {
        size_t cap = sk.cap ? 2 * sk.cap : 16;
        struct pending_batch *p = realloc(sk.pend, cap * sizeof *p);
        if (!p)
            return 0;
        sk.pend = p;
        sk.cap = cap;
    }
    void *copy = malloc(len);
    if (!copy)
        return 0;
    memcpy(copy, buf, len);
    sk.pend[sk.npend++] = (struct pending_batch){ seq, copy, len, 0, 0, nrec };
    sk.bytes += len;
    send_unsent();
    return 1;
}

void ftio_sink_poll(void)
{
    take_acks();
    send_unsent();
    check_silence();
}

/* ---- the end of the image ---------------------------------------------- */

void ftio_sink_finish(void)
{
    if (sk.zsock && sk.npend) {
        int64_t start = ftio_mono_ns();
        int64_t deadline = start + (int64_t)ftio_cfg.exit_wait_ms * 1000000;
        /* A daemon that is not connected by now is down or unreachable (a
         * connection on a site network takes well under a millisecond; a
         * long-lived process connected long ago): a third of the wait, at
         * least CONNECT_WAIT, for it. */
        int64_t cw = (int64_t)ftio_cfg.exit_wait_ms * 1000000 / 3;
        int64_t connect_deadline = start + (cw > CONNECT_WAIT_NS ? cw : CONNECT_WAIT_NS);
        for (;;) {
            take_acks();
            send_unsent();
            if (!sk.npend || ftio_mono_ns() >= deadline)
                break;
            /* Unsent: wait to be connected; sent: wait for acknowledgements. */
            int unsent = 0, sent = 0;
            for (size_t i = 0; i < sk.npend; i++)
                *(sk.pend[i].sent_ns ? &sent : &unsent) += 1;
            if (!sent && ftio_mono_ns() >= connect_deadline)
                break;
            zmq_pollitem_t it = { .socket = sk.zsock, .events = ZMQ_POLLIN | (unsent ? ZMQ_POLLOUT : 0) };
            /* zmq_poll counts in ms: wait in 1-ms slices so that neither
             * deadline is overshot by more than one. */
            if (zmq_poll(&it, 1, 1) < 0 && errno != EINTR)
                break;
        }
    }
    if (sk.npend)
        ftio_log("%zu batches unacknowledged at exit: spooled", sk.npend);
    spool_all();
    free(sk.pend);
    sk.pend = NULL;
    sk.cap = sk.bytes = 0;
    if (sk.zctx) {
        if (sk.zsock)
            zmq_close(sk.zsock);      /* LINGER 0: what it holds is spooled now */
        while (zmq_ctx_term(sk.zctx) != 0 && errno == EINTR)
            ;
        sk.zsock = sk.zctx = NULL;
    }
}

/* A failed exec: this image goes on, a new flusher thread opens a new
 * socket. */
void ftio_sink_reset(void)
{
    sk.broken = 0;
    sk.stall_said = 0;
}

void ftio_sink_after_fork_child(void)
{
    /* The parent's context and socket belong to threads that do not exist
     * here: abandon them (closing would touch the parent's session).  The
     * parent's copies are the parent's to deliver or spool.  The MUNGE
     * session is kept: the child has the parent's uid, which is all the
     * credential says. */
    sk.zctx = sk.zsock = NULL;
    sk.broken = 0;
    /* Their memory is abandoned, not freed: the parent's flusher may have
     * been inside a realloc of it when we forked.  Kept reachable, so leak
     * checkers do not count it (it is never touched: copy-on-write). */
    sk.abandoned = sk.pend;
    sk.pend = NULL;
    sk.npend = sk.cap = sk.bytes = 0;
    sk.last_ack_ns = 0;
    sk.lost = 0;
    sk.stall_said = 0;
}
