/* SPDX-License-Identifier: BSD-3-Clause */
/* ingest.c -- the main thread of ftiod: receive batches on the ROUTER, check
 * who sent them (auth.c), decode them, find their job by the ownership rules
 * (claims.c), merge them into it (job.c), acknowledge them
 * (common/transport.h).  Its poll loop also hands each request of the
 * control socket to control_serve.c: the loop stays here because the
 * ingest state (the reused batch, the log limiters) lives as long as it,
 * and the control socket needs nothing of it.
 *
 * Every message is hostile until decoded: multi-frame, malformed, truncated
 * or wrong-version messages are counted and dropped with a rate-limited log
 * line.  Oversized ones never reach us: ZMQ_MAXMSGSIZE (main.c) makes libzmq
 * drop them, and the connection that sent them, before allocating them, so
 * they are not in our counters.  Decoding happens outside the lock; the lock is held
 * only for the merge, so the analysis threads never wait long and we never
 * wait for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>
#include "auth.h"
#include "daemon.h"
#include "message.h"
#include "timeutil.h"
#include "transport.h"
#include "wire.h"

/* Drain at most this many messages per poll turn, so status requests and the
 * stop flag are still looked at under a flood. */
#define DRAIN_MAX 1024

struct ingest {
    struct ftiod *d;
    struct ftio_batch batch;          /* reused across messages */
    struct ftiod_ratelimit rl_bad, rl_jobs, rl_procs, rl_dup, rl_auth, rl_quota;
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

/* Each message takes the lock once: reject() or merge() counts it. */
static void reject(struct ingest *in, uint64_t *counter, const char *why)
{
    pthread_mutex_lock(&in->d->lock);
    in->d->stats.messages++;
    (*counter)++;
    pthread_mutex_unlock(&in->d->lock);
    ftiod_log_rl(&in->rl_bad, "dropped message: %s", why);
}

static const char *quota_reason(enum quota_verdict v)
{
    switch (v) {
    case QUOTA_JOBS: return "user owns --user-jobs jobs already";
    case QUOTA_PROCS: return "user has --user-procs processes already";
    case QUOTA_RATE: return "user is over --user-rate records per second";
    case QUOTA_MEMORY: return "over --max-memory";
    default: return "";
    }
}

/* Merge a decoded batch sent by uid (-1: unauthenticated, --auth none).
 * Returns its acknowledgement: merged (or had it already) or refused. */
static int merge(struct ingest *in, int64_t uid, const void *raw, size_t rawlen)
{
    struct ftiod *d = in->d;
    const struct ftio_batch *b = &in->batch;
    bool wake = false, foreign = false, journal_failed = false;
    enum job_merge_status st = JOB_MERGED;
    enum quota_verdict quota = QUOTA_OK;
    size_t max_jobs = 0;
    int64_t owner = -1;

    char idbuf[FTIOD_ID_MAX + 1];
    pthread_mutex_lock(&d->lock);
    d->stats.messages++;
    /* Whose id: the owner's claim, else the sender's namespace (claims.c). */
    const char *id = ftiod_claim_resolve(d, b->h.job, uid, idbuf, sizeof idbuf);
    struct job *j = job_table_find(&d->jobs, id);
    bool is_new = false;
    if (!j) {
        quota = ftiod_quota_job(d, uid);
        if (quota == QUOTA_OK) {
            /* A full table makes room by forgetting its oldest ended job. */
            struct job *old = d->jobs.n >= d->jobs.max ? job_table_oldest_closed(&d->jobs) : NULL;
            if (old) {
                ftiod_state_forget(d->state, old);
                job_table_remove(&d->jobs, old);
            }
            j = job_table_add(&d->jobs, id, &d->cfg.limits);
            if (!j) {
                d->stats.over_jobs++;
                max_jobs = d->jobs.max;
            } else {
                j->uid = uid;    /* its id is the sender's (claims.c) */
            }
            is_new = j != NULL;
        }
    } else if (j->uid != uid) {
        /* Someone else's job under an id claims.c gave this sender (a
         * journal of an --auth none daemon, an ended job whose id Slurm
         * reused): never merged, whatever the batch says. */
        foreign = true;
        owner = j->uid;
        j->foreign_batches++;
        d->stats.foreign++;
    }
    if (j && !foreign && quota == QUOTA_OK &&
        !job_find_proc(j, b->h.host ? b->h.host : "", b->h.pid))
        quota = ftiod_quota_proc(d, uid);
    if (j && !foreign && quota == QUOTA_OK)
        quota = ftiod_quota_records(d, uid, b->n, ftiod_now());
    if (j && !foreign && quota == QUOTA_OK) {
        int64_t recv_ns = ftio_real_ns();
        st = job_merge(j, b, &d->cfg.limits, ftiod_now(), recv_ns);
        job_table_account(&d->jobs, j);
        if (st == JOB_MERGED) {
            d->stats.batches++;
            d->stats.records += b->n;
            wake = b->h.mark != NULL || j->ended;
            if (j->closed)
                j->reopened = true;    /* a corrected .end follows */
            /* Journaled before the acknowledgement: what the sender forgets
             * survives the daemon (state.c). */
            if (ftiod_state_batch(d->state, j, uid, recv_ns, raw, rawlen) != 0)
                journal_failed = true;
        } else if (st == JOB_DUPLICATE) {
            d->stats.duplicates++;
        } else if (st == JOB_BAD_SEQ) {
            d->stats.bad_seq++;
        } else {
            d->stats.over_procs++;
        }
    } else if (j && quota != QUOTA_OK) {
        j->rejected_batches++;
    }
    if (wake)
        pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);

    const char *host = b->h.host ? b->h.host : "?";
    if (foreign)
        ftiod_log_rl(&in->rl_auth, "job %s belongs to uid %lld: dropped a batch from uid %lld "
                     "(%s:%lld)", id, (long long)owner, (long long)uid, host,
                     (long long)b->h.pid);
    else if (quota != QUOTA_OK && quota != QUOTA_MEMORY)
        ftiod_log_rl(&in->rl_quota, "job %s: dropped a batch of uid %lld (%s:%lld): %s", id,
                     (long long)uid, host, (long long)b->h.pid, quota_reason(quota));
    else if (!j && quota == QUOTA_OK)
        ftiod_log_rl(&in->rl_jobs, "job table full (--max-jobs %zu): dropping batch of job %s; "
                     "raise --max-jobs", max_jobs, id);
    else if (st == JOB_TOO_MANY_PROCS)
        ftiod_log_rl(&in->rl_procs, "job %s: more than %zu processes (--max-procs): "
                     "dropping batch of %s:%lld", id, d->cfg.limits.max_procs,
                     host, (long long)b->h.pid);
    else if (st == JOB_BAD_SEQ)
        ftiod_log_rl(&in->rl_bad, "job %s: batch with an absurd sequence number %llu from %s:%lld, "
                     "dropped", id, (unsigned long long)b->h.seq, host,
                     (long long)b->h.pid);
    else if (st == JOB_DUPLICATE && d->cfg.verbose)
        ftiod_log_rl(&in->rl_dup, "job %s: batch %llu of %s:%lld seen before, dropped",
                     id, (unsigned long long)b->h.seq, host, (long long)b->h.pid);
    if (is_new && d->cfg.verbose)
        ftiod_log("job %s: first batch (from %s:%lld, rank %d of %d, uid %lld)", id, host,
                  (long long)b->h.pid, b->h.rank, b->h.nranks, (long long)uid);
    return j && !foreign && quota == QUOTA_OK && !journal_failed &&
                   (st == JOB_MERGED || st == JOB_DUPLICATE)
               ? FTIO_ACK_MERGED : FTIO_ACK_REFUSED;
}

/* One batch message: the batch frame and, when authenticated, its auth
 * frame.  Returns the acknowledgement status, or -1 when the batch could not
 * be decoded (no sequence number to acknowledge: the sender's copy times out
 * into its spool file). */
static int handle_message(struct ingest *in, zmq_msg_t *msg, zmq_msg_t *auth, bool extra)
{
    struct ftiod *d = in->d;
    if (extra) {
        reject(in, &d->stats.multipart, "more than two frames");
        return -1;
    }
    char err[256];
    size_t used = 0;
    size_t len = zmq_msg_size(msg);
    /* Authenticate before decoding: an unauthenticated sender gets no
     * further than one hash. */
    int64_t uid = -1;
    const char *why = NULL;
    if (ftiod_auth_batch(d->auth, zmq_msg_data(msg), len, auth ? zmq_msg_data(auth) : NULL,
                         auth ? zmq_msg_size(auth) : 0, &uid, &why) != 0) {
        reject(in, &d->stats.unauthenticated, why);
        return -1;
    }
    int rc = ftio_wire_decode(zmq_msg_data(msg), len, &in->batch, &used, err, sizeof err);
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
    return merge(in, uid, zmq_msg_data(msg), len);
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
    int status = handle_message(in, &m->f[delim + 1], payload > 1 ? &m->f[delim + 2] : NULL,
                                m->extra || payload > 2);
    if (status < 0)
        return;
    unsigned char ack[FTIO_ACK_LEN];
    ftio_ack_encode(ack, in->batch.h.seq, status);
    /* A sender that went away or does not read: ROUTER drops the reply. */
    for (int i = 0; i < delim; i++)
        zmq_send(in->d->router, zmq_msg_data(&m->f[i]), zmq_msg_size(&m->f[i]),
                 ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(in->d->router, "", 0, ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(in->d->router, ack, sizeof ack, ZMQ_DONTWAIT);
}

/* Receive everything queued (bounded). */
static void drain(struct ingest *in)
{
    for (int i = 0; i < DRAIN_MAX; i++) {
        struct ftiod_message m;
        if (ftiod_message_recv(in->d->router, &m) < 0)
            return;
        ingest_message(in, &m);
        ftiod_message_close(&m);
    }
}

int ftiod_ingest_loop(struct ftiod *d)
{
    struct ingest in = {.d = d};
    zmq_pollitem_t items[2] = {
        {.socket = d->router, .events = ZMQ_POLLIN},
        {.socket = d->rep, .events = ZMQ_POLLIN},
    };
    int rc = 0;
    while (!d->stop) {
        if (zmq_poll(items, 2, 200) < 0) {
            if (errno == EINTR)
                continue;
            ftiod_log("poll: %s", zmq_strerror(errno));
            rc = -1;
            break;
        }
        if (items[0].revents & ZMQ_POLLIN)
            drain(&in);
        ftiod_state_sync(d, ftiod_now());
        if (items[1].revents & ZMQ_POLLIN)
            ftiod_control_serve(d);
    }
    /* Take what is already queued before the final summaries. */
    drain(&in);
    ftio_batch_free(&in.batch);
    return rc;
}
