/* SPDX-License-Identifier: BSD-3-Clause */
/* sink.c -- the shim's way to ftiod: the delivery policy (PROTOCOL.md §1.4)
 * over a link (link.h: ZMTP, then ZeroMQ), and the spool file (spool.c) for
 * whatever the daemon does not acknowledge.
 *
 * The flusher (flusher.c) encodes batches and offers each one here.  A batch
 * offered is kept (a copy) until ftiod acknowledges it:
 *
 *   - daemon up: sent at once, forgotten at its acknowledgement (ftiod sends
 *     it once the batch is taken and written to its --state-dir journal,
 *     just before merging it: PROTOCOL.md §1.4);
 *   - daemon down or restarting: kept unsent, sent when the connection is
 *     back (ZeroMQ reconnects by itself), so a restart loses nothing and the
 *     job needs no replay;
 *   - sent but not acknowledged for FTIO_ACK_TIMEOUT_MS (the daemon died
 *     after taking it, or it is hung: ZeroMQ and the kernel accept a whole
 *     trace into their buffers): sent again, up to RESENDS times (the daemon
 *     drops a (process, seq) it has), then spooled;
 *   - sent, still unanswered when ftiod answers a batch sent after it: lost
 *     on the way (overtaken()), sent again at once, within the same RESENDS;
 *   - past FTIO_ACK_MAX_MB of copies, the oldest go to the spool file;
 *   - at the end of the image (exit, _exit, fatal signal) the sink waits
 *     FTIO_EXIT_WAIT_MS at most (3 ms) for what can still be sent and
 *     acknowledged, spools the rest, and says once per job where the spool
 *     went (spool.c).  Nothing is waited for that cannot be sent;
 *   - exec into a traced image: no wait at all; what is unacknowledged is
 *     handed to the next image (same process, same stream) through the
 *     spool file and FTIO_HANDOFF, and the next image sends it first and
 *     removes it from the file: a shell that execs loses nothing;
 *   - a batch spooled after the daemon stayed silent and acknowledged later
 *     (a stopped daemon that resumed) counts as delivered: no notice.
 *
 * Authentication (FTIO_AUTH=munge): a session (a MUNGE credential carrying
 * a fresh key, common/auth.h) restricted to ftiod's uid, so a process that
 * captures a batch cannot decode it; a new session every FTIO_AUTH_RENEW_S,
 * at once when ftiod answers "renew" (a restarted ftiod does not know a
 * credential it did not see fresh), and whenever the daemon stops answering.
 *
 * A process's first second (FTIO_ZMTP) goes through the ZMTP link
 * (link_zmtp.c) instead of ZeroMQ (link_zmq.c): the same frames and
 * acknowledgements over a connection of our own, so a short process never
 * loads libzmq; at any surprise, and after that second, ZeroMQ takes over and
 * resends what is unacknowledged (libtrace/README.md).  Which link is open is
 * known here only through `sk.link`; everything else is the policy.
 *
 * FTIO_ENDPOINT may name several daemons (comma-separated): a stable hash of
 * the job id chooses one (PROTOCOL.md §1.5), so every rank of a job, on every
 * node, goes to the same daemon.
 *
 * Everything here runs on the flusher thread: no locks.  The two exceptions
 * run while no flusher does: ftio_sink_handoff_accept() in the constructor,
 * ftio_sink_handoff_env() in exec after the flusher exited.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "lazy.h"               /* MUNGE, libsodium: loaded on first use */
#include "internal.h"
#include "auth.h"
#include "grow.h"
#include "hash.h"
#include "link.h"
#include "zmtp_wire.h"
#include "timeutil.h"

#define RESENDS        2                 /* then a silent daemon's batches are spooled */
#define CONNECT_WAIT_NS 1000000ll        /* at exit, for a daemon never connected */
#define AUTH_RETRY_NS  (10 * 1000000000ll)
#define AUTH_RENEW_NS  (FTIO_AUTH_RENEW_S * 1000000000ll)
#define SPOOLED_MAX    1024              /* spooled after sending: a late ack still counts */
#define HANDOFF_MAX    64                /* batches handed to the next image at exec */
#define HANDOFF_BYTES_MAX (1ull << 32)   /* what a hand-off may describe, in all */
#define UP_FRESH_S     600               /* "the daemon is up": an ack this recent, and none missed since */
#define UP_WAIT_NS     (300 * 1000000ll) /* the exit wait then (instead of FTIO_EXIT_WAIT_MS) */
#define UP_MARK_NS     1000000000ll      /* the shared marker is touched at most this often */
#define ZMTP_SPAN_NS   1000000000ll      /* a process alive longer moves from ZMTP to ZeroMQ */
#define RENEW_HOLD_NS  1000000000ll      /* "renew" answers to what the old session sent: once */

/* A batch offered and not acknowledged yet. */
struct pending_batch {
    uint64_t seq;
    void    *data;
    size_t   len;
    int64_t  sent_ns;      /* 0: not sent (yet, or again) */
    uint64_t first_order;  /* its first and its last send's places among all */
    uint64_t last_order;   /* sends (overtaken()) */
    int      sends;
    size_t   nrec;         /* its records: counted lost if it goes nowhere */
};

static struct {
    const struct ftio_link *link;   /* the open link (link.h), NULL: none */
    int      broken;                /* bad endpoint: spool only */
    char     endpoint[512];         /* the one chosen for this job */
    struct pending_batch *pend;     /* oldest first */
    struct pending_batch *abandoned;  /* a fork parent's copies (after_fork_child) */
    size_t   npend, cap, bytes;
    int64_t  last_ack_ns;
    uint64_t sends_made;            /* sends so far (first_order, last_order) */
    uint64_t lost;                  /* records of batches neither acknowledged nor spooled */
    int      stall_said;
    int64_t  up_marked_ns;          /* when we last touched the "daemon up" marker */
    int      deferred;              /* ipc:// socket absent: no ZeroMQ yet, copies kept */
    /* The ZMTP link first (FTIO_ZMTP): a short process never loads libzmq. */
    int      zt_off;                /* ZMTP failed or retired: ZeroMQ from then on */
    int      zt_leaving;            /* zmtp_leave() is reading the last acknowledgements */
    int64_t  opened_ns;             /* when the link was opened */
    int64_t  deadline_ns;           /* the end of the exit wait for a send, 0 before */
    struct ftio_auth_sender auth;   /* FTIO_AUTH=munge: this image's session */
    int      auth_ok, auth_renew;
    int64_t  auth_tried_ns, auth_made_ns, renewed_ns;
    int      auth_uid_known;
    uid_t    auth_uid;                /* who may decode (auth.h), (uid_t)-1 = anyone */
    size_t   nspooled;
    size_t   nin;
    uint64_t in_off;
    /* The arrays last: a short process touches their first bytes only
     * (handoff_env[0] at every end), and the fields above stay on one or
     * two pages (bench/README.md "exit latency"). */
    /* exec hand-off: what the next image gets (out), what we got (in). */
    char     handoff_env[HANDOFF_MAX * 44 + 2200];  /* 64 x "seq/len," + the path: never truncated */
    uint64_t in_seq[HANDOFF_MAX];
    size_t   in_len[HANDOFF_MAX];
    uint64_t spooled[SPOOLED_MAX];   /* sent, then spooled unacknowledged */
} sk FTIO_FLUSHER_STATE;

/* ---- the copies' memory ------------------------------------------------- */

/* A short process's pending batches and their copies live in static memory:
 * the flusher thread's first malloc or free made glibc create a malloc arena
 * for it (an mmap of 128 MB, two munmaps, mprotects, and its pages: bench/
 * README.md "exit latency").  The copies are carved one after the other from
 * copy_static (a batch before the exit and the final one share a page) and
 * the space is reused once none is left there; more batches, or bigger ones,
 * are malloc'd. */
#define PEND_STATIC 16
#define COPY_STATIC 8192
static struct pending_batch pend_static[PEND_STATIC] FTIO_FLUSHER_STATE;
static struct pending_batch pend_forked[PEND_STATIC];   /* a fork parent's, kept reachable */
static char   copy_static[COPY_STATIC] __attribute__((aligned(16))) FTIO_FLUSHER_STATE;
static size_t copy_static_used FTIO_FLUSHER_STATE;
static size_t copy_static_live FTIO_FLUSHER_STATE;

static void *copy_alloc(size_t len)
{
    size_t room = (len + 15) & ~(size_t)15;
    if (len && room <= sizeof copy_static - copy_static_used) {
        void *p = copy_static + copy_static_used;
        copy_static_used += room;
        copy_static_live++;
        return p;
    }
    return malloc(len ? len : 1);
}

static void copy_free(void *p)
{
    if ((char *)p >= copy_static && (char *)p < copy_static + sizeof copy_static) {
        if (!--copy_static_live)
            copy_static_used = 0;
    } else {
        free(p);
    }
}

/* Room for one more pending batch: 0, or -1 (out of memory). */
static int pend_room(void)
{
    if (!sk.pend) {
        sk.pend = pend_static;
        sk.cap = PEND_STATIC;
    }
    return FTIO_GROW_FROM(sk.pend, sk.cap, sk.npend + 1, pend_static, sk.npend);
}

static void pend_release(void)
{
    FTIO_GROW_RELEASE(sk.pend, pend_static);
    sk.cap = 0;
}

/* ---- the spool file, for what the daemon does not take ------------------ */

static int spool_copy(const void *buf, size_t len)
{
    return ftio_cfg.spool_mode != FTIO_SPOOL_NEVER && ftio_spool_append(buf, len) == 0;
}

/* ---- connection --------------------------------------------------------- */

static void adopt(void);

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
    size_t len = 0;
    while (s[len] && s[len] != ',')
        len++;
    if (len >= sizeof sk.endpoint)
        len = sizeof sk.endpoint - 1;
    memcpy(sk.endpoint, s, len);
    sk.endpoint[len] = '\0';
}

/* An ipc:// endpoint whose socket file does not exist: nobody listens. */
static int endpoint_absent(void)
{
    struct stat st;
    return strncmp(sk.endpoint, "ipc://", 6) == 0 && sk.endpoint[6] == '/' &&
           lstat(sk.endpoint + 6, &st) != 0 && errno == ENOENT;
}

/* Can a connection made now take a batch at once?  ftiod down (its ipc://
 * socket absent: the batches go to the spool file), or its own listener
 * there (PATH.zmtp, which takes a batch behind our greeting).  Not a
 * ROUTER (a relay, an older ftiod, tcp://): its handshake waits for
 * libzmq's I/O thread twice, which a connection made at the very end of a
 * process would mostly spend in the exit wait (flusher.c
 * ftio_flusher_end_here: the thread, connected early, does it then). */
int ftio_sink_quick(void)
{
    if (sk.link || sk.npend)
        return 0;                    /* (a connection of this image's already) */
    if (!sk.endpoint[0])
        choose_endpoint();
    if (endpoint_absent())
        return 1;
    char path[sizeof sk.endpoint + sizeof ZMTP_DIRECT_SUFFIX];
    struct stat st;
    return strncmp(sk.endpoint, "ipc://", 6) == 0 &&
           ftio_concat(path, sizeof path, sk.endpoint + 6, ZMTP_DIRECT_SUFFIX, "") < sizeof path &&
           syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 && S_ISSOCK(st.st_mode);
}

/* The way to ftiod is open. */
static int link_up(void)
{
    return sk.link != NULL;
}

static int zmtp_on(void)
{
    return sk.link == &ftio_link_zmtp;
}

/* FTIO_ZMTP: ftiod's ROUTER spoken to without loading libzmq (the bulk of
 * a short process's exit, libtrace/README.md).  1 when open. */
static int zmtp_open(void)
{
    char why[256];
    if (sk.zt_off)
        return 0;
    int r = ftio_link_zmtp.open(sk.endpoint, why, sizeof why);
    if (r != 0) {
        if (r < 0)
            ftio_log("ZMTP to %s: %s: ZeroMQ instead", sk.endpoint, why);
        sk.zt_off = 1;
        return 0;
    }
    sk.link = &ftio_link_zmtp;
    sk.opened_ns = ftio_mono_ns();
    ftio_log("connecting to %s (ZMTP, without ZeroMQ)", sk.endpoint);
    return 1;
}

static void take_acks(void);

/* Leave ZMTP for ZeroMQ: the connection failed (why), or the process lives
 * long enough to need ZeroMQ's reconnection (why NULL).  What was sent and
 * not acknowledged is sent again (ftiod drops a seq it has). */
static void zmtp_leave(const char *why)
{
    if (why)
        ftio_log("ZMTP to %s: %s: ZeroMQ from now on", sk.endpoint, why);
    else
        ftio_log("alive for %lld ms: ZeroMQ from now on", ZMTP_SPAN_NS / 1000000);
    /* The acknowledgements already here are ftiod's word: taken before the
     * connection goes, so that only what it has not acknowledged is sent
     * again (burst.sh: batches acknowledged but resent counted twice in a
     * receiver that does not drop copies). */
    if (!sk.zt_leaving) {
        sk.zt_leaving = 1;
        take_acks();
        sk.zt_leaving = 0;
    }
    if (zmtp_on()) {
        ftio_link_zmtp.close();
        sk.link = NULL;
    }
    sk.zt_off = 1;
    for (size_t i = 0; i < sk.npend; i++)
        sk.pend[i].sent_ns = 0;
    ftio_sink_open();
}

void ftio_sink_open(void)
{
    if (link_up() || sk.broken || ftio_cfg.spool_mode == FTIO_SPOOL_ALWAYS)
        return;
    if (!sk.endpoint[0])
        choose_endpoint();
    if (sk.nin)
        adopt();
    /* ftiod on this node, down: loading and starting ZeroMQ (milliseconds,
     * the bulk of a short process's exit) waits until its socket appears;
     * the copies wait here meanwhile (sk.deferred), and a process that ends
     * first spools them at once. */
    if (endpoint_absent()) {
        if (!sk.deferred)
            ftio_log("%s does not exist (ftiod down): ZeroMQ waits for it", sk.endpoint);
        sk.deferred = 1;
        return;
    }
    sk.deferred = 0;
    if (zmtp_open()) {
        /* The spool directory, checked now, while ftiod's greeting is on
         * its way: the first acknowledgement touches the "daemon up"
         * marker there (mark_up), on a short process's exit path. */
        (void)ftio_spool_dir();
        return;
    }
    char why[512];
    if (ftio_link_zmq.open(sk.endpoint, why, sizeof why) != 0) {
        sk.broken = 1;
        ftio_warn_job("zmq", "%s; spooling to %s", why, ftio_spool_dir());
        return;
    }
    sk.link = &ftio_link_zmq;
    sk.opened_ns = ftio_mono_ns();
    ftio_log("connecting to %s", sk.endpoint);
}

/* FTIO_AUTH=munge: a session for this image, asked of munged once (and again
 * every AUTH_RETRY_NS while munged cannot be reached), renewed every
 * AUTH_RENEW_NS and when asked (sk.auth_renew: the daemon went silent).
 * 1 when there is one. */
static int auth_session(void)
{
    if (ftio_cfg.auth_mode != FTIO_AUTH_MUNGE)
        return 1;
    int64_t now = ftio_mono_ns();
    if (sk.auth_ok && !sk.auth_renew && now - sk.auth_made_ns < AUTH_RENEW_NS)
        return 1;
    if (!sk.auth_ok && sk.auth_tried_ns && now - sk.auth_tried_ns < AUTH_RETRY_NS)
        return 0;
    int first = sk.auth_tried_ns == 0;
    sk.auth_tried_ns = now;
    sk.auth_renew = 0;
    char err[256], how[256];
    if (!sk.auth_uid_known) {
        if (ftio_auth_daemon_uid(ftio_cfg.auth_uid, sk.endpoint, &sk.auth_uid, how, sizeof how) != 0) {
            ftio_warn_job("authuid", "%s: the credential is restricted to root", how);
            sk.auth_uid = 0;
        } else {
            ftio_log("credentials restricted to %s", how);
        }
        sk.auth_uid_known = 1;
    }
    struct ftio_auth_sender next;
    if (ftio_auth_sender_init(&next, ftio_cfg.munge_socket[0] ? ftio_cfg.munge_socket : NULL,
                              sk.auth_uid, err, sizeof err) != 0) {
        if (first)
            ftio_warn_job("auth", "cannot authenticate to ftiod (%s): spooling to %s "
                          "(FTIO_AUTH=none for a daemon without authentication)", err,
                          ftio_spool_dir());
        return sk.auth_ok;        /* a renewal that failed: the old session may still do */
    }
    if (sk.auth_ok)
        ftio_auth_sender_free(&sk.auth);
    sk.auth = next;
    sk.auth_ok = 1;
    sk.auth_made_ns = now;
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
    } else if (keep && p->sent_ns && sk.nspooled < SPOOLED_MAX) {
        sk.spooled[sk.nspooled++] = p->seq;     /* its acknowledgement may still come */
    }
    sk.bytes -= p->len;
    copy_free(p->data);
    memmove(p, p + 1, (sk.npend - i - 1) * sizeof *p);
    sk.npend--;
    ftio_flusher_progress();          /* (spooling the rest at exit is work done) */
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
    if (!link_up() && sk.deferred)
        ftio_sink_open();              /* the daemon's socket may be there now */
    if (!link_up() || !auth_session())
        return;
    for (size_t i = 0; i < sk.npend; i++) {
        struct pending_batch *p = &sk.pend[i];
        if (p->sent_ns)
            continue;
        char why[256];
        int r = sk.link->send(p->data, p->len, sk.auth_ok ? &sk.auth : NULL, sk.deadline_ns, why,
                              sizeof why);
        if (r < 0 && zmtp_on()) {
            zmtp_leave(why);           /* ZeroMQ takes over, and sends now */
            if (link_up())
                send_unsent();
            return;
        }
        if (r != 0)
            return;                    /* not now: the next poll */
        p->sent_ns = ftio_mono_ns();
        p->last_order = ++sk.sends_made;
        if (!p->sends++)
            p->first_order = p->last_order;
    }
}

/* An acknowledgement of a batch spooled already (the daemon was silent
 * for a while, then took the copies it had): it was delivered after all. */
static void late_ack(uint64_t seq)
{
    for (size_t i = 0; i < sk.nspooled; i++)
        if (sk.spooled[i] == seq) {
            sk.spooled[i] = sk.spooled[--sk.nspooled];
            ftio_spool_acked_later();
            return;
        }
}

/* The daemon answers: tell this user's other processes on the node (the
 * marker in the spool directory), so that a short process that has no
 * answer yet at its exit waits a little longer rather than spooling. */
static void mark_up(void)
{
    if (!sk.up_marked_ns || sk.last_ack_ns - sk.up_marked_ns > UP_MARK_NS) {
        sk.up_marked_ns = sk.last_ack_ns;
        ftio_spool_mark_up(sk.endpoint);
    }
}

int ftio_sink_unsent(void)
{
    if (!link_up())
        return 0;
    for (size_t i = 0; i < sk.npend; i++)
        if (!sk.pend[i].sent_ns)
            return 1;
    return 0;
}

/* The next acknowledgement, without waiting: 1 with *a, 0 when none. */
static int next_ack(struct ftio_ack *a)
{
    while (link_up()) {
        char why[256];
        int r = sk.link->recv_ack(a, why, sizeof why);
        if (r >= 0)
            return r;
        if (!zmtp_on() || sk.zt_leaving)
            return 0;
        zmtp_leave(why);
    }
    return 0;
}

/* ftiod does not know our session (it restarted since it was made): a new
 * one now, and everything unacknowledged again in it.  The answers to the
 * other batches the old session sent come right after: one renewal for
 * them all. */
static void renew(void)
{
    if (sk.renewed_ns && sk.last_ack_ns - sk.renewed_ns < RENEW_HOLD_NS)
        return;
    sk.renewed_ns = sk.last_ack_ns;
    ftio_log("ftiod does not know our session (restarted): a new one, %zu batches sent again",
             sk.npend);
    sk.auth_renew = 1;
    for (size_t i = 0; i < sk.npend; i++)
        sk.pend[i].sent_ns = 0;
}

/* ftiod answered a batch whose first send was the order-th send (the answer
 * is to that copy or to a later one).  What ftiod receives of our sends is
 * a subsequence of them, in the order sent: one connection is FIFO, ZeroMQ's
 * reconnection carries the rest of its queue in order and loses only what
 * the broken connection held, a relay is a FIFO proxy; and ftiod answers
 * what it receives in that order (one ingest thread, ingest.c).  So a batch
 * whose last copy went before that first send, and is still unanswered,
 * will not be answered: it never arrived (it was in the queue of a daemon
 * that stopped, or in a connection that broke), or its answer was lost
 * (ftiod's queue to us full, a daemon that stopped before it left).  It is
 * sent again now, as FTIO_ACK_TIMEOUT_MS would have sent it had the answers
 * to the later ones not kept that timeout from firing (a live process would
 * keep it until its exit, then spool it); ftiod drops a (process, seq) it
 * has merged.  A batch in flight (last sent after that first send) is left
 * alone.  After RESENDS, spooled (a batch ftiod will not take). */
static void overtaken(uint64_t order)
{
    for (size_t i = 0; i < sk.npend;) {
        struct pending_batch *p = &sk.pend[i];
        if (!p->sent_ns || p->last_order >= order) {
            i++;
            continue;
        }
        ftio_log("batch seq %llu overtaken by an acknowledged one: %s",
                 (unsigned long long)p->seq, p->sends > RESENDS ? "spooled" : "sent again");
        if (p->sends > RESENDS) {
            drop(i, 1);
            continue;
        }
        p->sent_ns = 0;
        i++;
    }
}

static void take_acks(void)
{
    struct ftio_ack a;
    while (next_ack(&a)) {
        sk.last_ack_ns = ftio_mono_ns();
        mark_up();
        if (a.status == FTIO_ACK_RENEW) {
            renew();
            continue;
        }
        /* Its answer to any copy, even one we meanwhile marked to send
         * again (a timeout, overtaken()): ftiod has it.  Sent again after
         * all, to a daemon that replaced this one without its journal, it
         * would count twice there. */
        size_t i = 0;
        while (i < sk.npend && sk.pend[i].seq != a.seq)
            i++;
        if (i < sk.npend && sk.pend[i].sends) {
            uint64_t order = sk.pend[i].first_order;
            if (a.status != FTIO_ACK_MERGED)
                ftio_log("batch seq %llu refused by ftiod: spooled", (unsigned long long)a.seq);
            drop(i, a.status != FTIO_ACK_MERGED);
            overtaken(order);
        } else if (a.status == FTIO_ACK_MERGED) {
            late_ack(a.seq);
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
            ftio_warn_job("stall", "ftiod at %s has not acknowledged %zu batches for %d ms: "
                          "spooling them to %s", sk.endpoint, sk.npend,
                          (RESENDS + 1) * ftio_cfg.ack_timeout_ms, ftio_spool_dir());
        while (sk.npend && sk.pend[0].sent_ns && now - sk.pend[0].sent_ns >= timeout)
            drop(0, 1);
        return;
    }
    ftio_log("%zu batches unacknowledged for %d ms: sending them again, in a new session",
             sk.npend, ftio_cfg.ack_timeout_ms);
    /* A restarted ftiod refuses (silently) a credential it did not see
     * fresh: a new one. */
    sk.auth_renew = 1;
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

int ftio_sink_offer(uint64_t seq, const struct iovec *iov, int niov, size_t nrec)
{
    ftio_sink_open();
    if (!link_up() && !sk.deferred)
        return 0;
    size_t len = 0;
    for (int k = 0; k < niov; k++)
        len += iov[k].iov_len;
    /* Bounded memory: the oldest copies go to the spool file first. */
    while (sk.npend && sk.bytes + len > ftio_cfg.ack_max_bytes)
        drop(0, 1);
    if (pend_room() < 0)
        return 0;
    char *copy = copy_alloc(len);
    if (!copy)
        return 0;
    size_t at = 0;
    for (int k = 0; k < niov; k++) {
        memcpy(copy + at, iov[k].iov_base, iov[k].iov_len);
        at += iov[k].iov_len;
    }
    sk.pend[sk.npend++] = (struct pending_batch){ .seq = seq, .data = copy, .len = len, .nrec = nrec };
    sk.bytes += len;
    send_unsent();
    return 1;
}

/* A process alive ZMTP_SPAN_NS is not a short one: ZeroMQ (reconnection
 * after a daemon restart, its queues), once nothing sent is unacknowledged. */
static void zmtp_retire(void)
{
    if (!zmtp_on() || ftio_mono_ns() - sk.opened_ns < ZMTP_SPAN_NS)
        return;
    for (size_t i = 0; i < sk.npend; i++)
        if (sk.pend[i].sent_ns)
            return;
    zmtp_leave(NULL);
}

void ftio_sink_poll(void)
{
    take_acks();
    zmtp_retire();
    send_unsent();
    check_silence();
}

/* ---- exec: handing the unacknowledged batches to the next image -------- */

/* Append what is pending to the spool file for the next image and describe
 * it in sk.handoff_env.  1 when every pending batch was handed off. */
static int handoff(void)
{
    sk.handoff_env[0] = 0;
    if (ftio_cfg.spool_mode != FTIO_SPOOL_AUTO || sk.npend > HANDOFF_MAX)
        return 0;
    if (!sk.npend)
        return 1;
    char *e = sk.handoff_env, *end = e + sizeof sk.handoff_env;
    uint64_t first = 0;
    size_t done = 0;
    e += snprintf(e, (size_t)(end - e), "FTIO_HANDOFF=%ld:", (long)atomic_load(&ftio_id.pid));
    char *offp = e;
    e += 21;                                  /* the offset goes here (padded) */
    for (; done < sk.npend; done++) {
        uint64_t at;
        if (ftio_spool_handoff_append(sk.pend[done].data, sk.pend[done].len, &at) != 0)
            break;
        if (done == 0)
            first = at;
        e += snprintf(e, (size_t)(end - e), "%s%llu/%zu", done ? "," : "",
                      (unsigned long long)sk.pend[done].seq, sk.pend[done].len);
    }
    if (done < sk.npend) {
        /* The spool file failed: what was appended stays there (noticed as
         * spooled by the next image or nobody); the rest is spooled or
         * counted lost by the caller. */
        sk.handoff_env[0] = 0;
        while (done--)
            drop(0, 0);
        return 0;
    }
    char path[2048];
    ftio_spool_path(path, sizeof path);
    snprintf(e, (size_t)(end - e), ";%s", path);
    char num[22];
    snprintf(num, sizeof num, "%020llu", (unsigned long long)first);
    memcpy(offp, num, 20);
    offp[20] = ':';
    ftio_log("exec: %zu unacknowledged batches handed to the next image", sk.npend);
    while (sk.npend)
        drop(0, 0);
    return 1;
}

const char *ftio_sink_handoff_env(void)
{
    return sk.handoff_env;
}

int ftio_sink_handoff_accept(const char *v)
{
    /* <pid>:<offset>:<seq>/<len>,...;<path> -- only our own pid's (the
     * image before us, same process).  The path is for people (and for an
     * image that is not traced, lifecycle.c): we take the batches from our
     * own spool file, never from a path the environment names. */
    char *p;
    if (!v)
        return 0;            /* the constructor, state still zero: a page not touched */
    sk.nin = 0;
    if (!v || strtol(v, &p, 10) != (long)getpid() || *p != ':')
        return 0;
    sk.in_off = strtoull(p + 1, &p, 10);
    /* Every length is checked before any arithmetic: each at most what an
     * image may hand over (HANDOFF_BYTES_MAX), the sum too. */
    uint64_t total = 0;
    for (char sep = ':'; *p == sep && sk.nin < HANDOFF_MAX; sep = ',') {
        char *q, *r;
        uint64_t seq = strtoull(p + 1, &q, 10);
        if (q == p + 1 || *q != '/')
            break;
        errno = 0;
        uint64_t len = strtoull(q + 1, &r, 10);
        if (r == q + 1 || errno || len == 0 || len > HANDOFF_BYTES_MAX ||
            total + len > HANDOFF_BYTES_MAX) {
            p = q;                       /* not ';': the whole value is refused */
            break;
        }
        p = r;
        total += len;
        sk.in_seq[sk.nin] = seq;
        sk.in_len[sk.nin] = (size_t)len;
        sk.nin++;
    }
    if (*p != ';' || sk.in_off > (uint64_t)INT64_MAX)
        sk.nin = 0;                      /* not what an image of ours wrote */
    /* Until our flusher takes them, an exec passes them on as they are
     * (a shell's execve that fails along PATH, an exec before our flusher
     * ran). */
    if (sk.nin && v != sk.handoff_env + sizeof "FTIO_HANDOFF=" - 1)
        snprintf(sk.handoff_env, sizeof sk.handoff_env, "FTIO_HANDOFF=%s", v);
    if (!sk.nin)
        sk.handoff_env[0] = 0;
    return sk.nin > 0;
}

/* The next image, in its flusher: the batches the image before the exec
 * handed over become our first pending ones (unsent), and leave the spool
 * file.  If the file is not exactly what was handed over, they stay there. */
static void adopt(void)
{
    size_t n = sk.nin, total = 0;
    sk.nin = 0;
    sk.handoff_env[0] = 0;
    for (size_t i = 0; i < n; i++)
        total += sk.in_len[i];        /* bounded by HANDOFF_BYTES_MAX (handoff_accept) */
    if (!n || !total || total > ftio_cfg.ack_max_bytes + (64u << 20))
        return;
    char *buf = malloc(total);
    size_t cap = n + sk.npend > 16 ? n + sk.npend : 16;
    struct pending_batch *pend = calloc(cap, sizeof *pend);
    if (!buf || !pend || ftio_spool_take(sk.in_off, buf, total) != 0) {
        ftio_log("exec hand-off of %zu batches not taken: they stay in the spool file", n);
        free(buf);
        free(pend);
        return;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        pend[i].data = malloc(sk.in_len[i]);
        if (pend[i].data) {
            memcpy(pend[i].data, buf + off, sk.in_len[i]);
        } else if (ftio_spool_append(buf + off, sk.in_len[i]) != 0) {
            ftio_log("batch seq %llu of the exec hand-off lost", (unsigned long long)sk.in_seq[i]);
        }
        pend[i].seq = sk.in_seq[i];
        pend[i].len = sk.in_len[i];
        off += sk.in_len[i];
    }
    free(buf);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pend[i].data) {
            pend[k++] = pend[i];
            sk.bytes += pend[i].len;
        }
    /* Ours after theirs (there are none when the flusher adopts first). */
    if (sk.npend)
        memcpy(pend + k, sk.pend, sk.npend * sizeof *pend);
    pend_release();
    sk.pend = pend;
    sk.npend += k;
    sk.cap = cap;
    ftio_log("exec hand-off: %zu batches of the image before us, sent first", k);
}

/* ---- the end of the image ---------------------------------------------- */

/* exec: the acknowledgements of what was sent, for FTIO_EXIT_WAIT_MS at
 * most (the next image would send those batches again: harmless for ftiod,
 * which drops a seq it has, but a receiver that counts would count twice). */
static void wait_sent_acks(void)
{
    int64_t deadline = ftio_mono_ns() + (int64_t)ftio_cfg.exit_wait_ms * 1000000;
    for (;;) {
        take_acks();
        int sent = 0;
        for (size_t i = 0; i < sk.npend && !sent; i++)
            sent = sk.pend[i].sent_ns != 0;
        if (!sent || ftio_mono_ns() >= deadline || !link_up() || sk.link->wait(0) < 0)
            return;
    }
}

int ftio_sink_finish(int exec, int final)
{
    sk.handoff_env[0] = 0;
    int handed = 0;
    if (exec && (link_up() || sk.deferred)) {
        if (link_up())
            wait_sent_acks();
        handed = handoff();
    }
    if (!handed && !link_up() && sk.deferred && sk.npend)
        send_unsent();                 /* opens the link if ftiod's socket is there now */
    int extended = 0;                  /* the longer wait for a daemon known up */
    if (!handed && link_up() && sk.npend) {
        int64_t start = ftio_mono_ns();
        int64_t deadline = start + (int64_t)ftio_cfg.exit_wait_ms * 1000000;
        sk.deadline_ns = deadline;
        /* A daemon that is not connected by now is down or unreachable (a
         * connection on a site network takes well under a millisecond; a
         * long-lived process connected long ago): a third of the wait, at
         * least CONNECT_WAIT, for it. */
        int64_t cw = (int64_t)ftio_cfg.exit_wait_ms * 1000000 / 3;
        int64_t connect_deadline = start + (cw > CONNECT_WAIT_NS ? cw : CONNECT_WAIT_NS);
        for (;;) {
            take_acks();
            send_unsent();
            /* (A ZMTP link that failed just now and a ZeroMQ one that waits
             * for ftiod's socket to come back: no link, the rest spooled.) */
            if (!sk.npend || !link_up())
                break;
            /* Unsent: wait to be connected; sent: wait for acknowledgements
             * (sent before the peer answered the handshake: as unsent). */
            int unsent = 0, sent = 0;
            for (size_t i = 0; i < sk.npend; i++)
                *(sk.pend[i].sent_ns ? &sent : &unsent) += 1;
            if (!sk.link->heard())
                sent = 0;
            int64_t now = ftio_mono_ns();
            if (now >= deadline || (!sent && now >= connect_deadline)) {
                /* A daemon that is up, only slow (a loaded node), is worth
                 * UP_WAIT more, once: one that answered this process, or
                 * another process of ours on this node (the marker in our
                 * private spool directory), within UP_FRESH_S.  A peer that
                 * greets and never answers (anyone may bind a tcp://
                 * endpoint while ftiod is down), a stopped or an absent
                 * daemon answered nobody: no extra wait, the rest is
                 * spooled (the handshake alone proves nothing).  The
                 * marker holds for UP_FRESH_S, not a few seconds: a user's
                 * first short process after a pause, on a loaded node
                 * (or the first a daemon just started answers, cold),
                 * waited FTIO_EXIT_WAIT_MS only and spooled what ftiod
                 * then merged anyway, with a notice.  Nor does a user's
                 * first process (no marker yet) when ftiod's own listener
                 * is there and its process runs, only not scheduled yet
                 * on a loaded node (link->peer_runs: a stopped daemon is
                 * not waited for; at load 6-8, 14 such first processes
                 * in 221 spooled: bench/README.md "exit11").  A daemon that
                 * stops answering is forgotten by the first process the
                 * longer wait does not serve (below): the others do not
                 * wait for it.  Whether it is up (a stat of the marker,
                 * SO_PEERCRED and a read of /proc) is asked only when the
                 * answer could extend the wait. */
                int64_t fresh = UP_FRESH_S * 1000000000ll;
                if (extended || ftio_cfg.exit_wait_ms == 0 || start + UP_WAIT_NS <= deadline)
                    break;
                if (!(sk.last_ack_ns && now - sk.last_ack_ns < fresh) &&
                    !ftio_spool_known_up(sk.endpoint, UP_FRESH_S) && !sk.link->peer_runs())
                    break;
                extended = 1;
                deadline = connect_deadline = sk.deadline_ns = start + UP_WAIT_NS;
                ftio_log("ftiod is up but has not answered yet: waiting up to %lld ms",
                         (long long)(UP_WAIT_NS / 1000000));
                continue;
            }
            if (!link_up() || sk.link->wait(unsent) < 0)
                break;
        }
    }
    if (sk.npend)
        ftio_log("%zu batches unacknowledged at exit: spooled", sk.npend);
    if (sk.npend && extended)
        ftio_spool_forget_up(sk.endpoint);   /* up no more: nobody waits for it again */
    spool_all();
    pend_release();
    sk.bytes = 0;
    /* What it holds is spooled now.  At the process's end a ZMTP socket
     * is not closed here: exit_group closes it a moment later, and the
     * close woke ftiod's I/O thread (the end of the connection) while the
     * exiting thread was about to be woken on the same two cores
     * (bench/README.md "seventh round"); it is in our private descriptor
     * table, which nothing else uses. */
    if (final && zmtp_on())
        sk.link->abandon();
    else if (link_up())
        sk.link->close();
    sk.link = NULL;
    sk.deadline_ns = 0;
    sk.deferred = 0;
    return handed;
}

/* A failed exec: this image goes on, a new flusher thread opens a new
 * socket and takes back what it handed off. */
void ftio_sink_reset(void)
{
    sk.broken = 0;
    sk.stall_said = 0;
    if (sk.handoff_env[0])
        ftio_sink_handoff_accept(sk.handoff_env + sizeof "FTIO_HANDOFF=" - 1);
}

void ftio_sink_after_fork_child(void)
{
    /* The parent's connection belongs to threads that do not exist here:
     * abandoned (closing would touch the parent's session).  The parent's
     * copies are the parent's to deliver or spool.  The MUNGE
     * session is kept: the child has the parent's uid, which is all the
     * credential says. */
    if (link_up())
        sk.link->abandon();
    sk.link = NULL;
    sk.broken = 0;
    sk.deferred = 0;
    sk.zt_off = 0;
    /* Their memory is abandoned, not freed: the parent's flusher may have
     * been inside a realloc of it when we forked.  Kept reachable, so leak
     * checkers do not count it (it is never touched: copy-on-write). */
    if (sk.pend == pend_static) {          /* the child reuses the static array */
        memcpy(pend_forked, pend_static, sizeof pend_static);
        sk.pend = pend_forked;
    }
    sk.abandoned = sk.pend;
    sk.pend = NULL;
    sk.npend = sk.cap = sk.bytes = 0;
    copy_static_used = copy_static_live = 0;   /* a parent's copies there are abandoned too */
    sk.last_ack_ns = 0;
    sk.up_marked_ns = 0;
    sk.lost = 0;
    sk.stall_said = 0;
    sk.nspooled = 0;
    sk.nin = 0;                   /* a hand-off is the parent's to take */
    sk.handoff_env[0] = 0;
}
