/* ingest.c -- the main thread of ftiod: receive batches on PULL, decode them,
 * merge them into their job (job.c), and answer status requests (status.c).
 *
 * Every message is hostile until decoded: multi-frame, malformed, truncated
 * or wrong-version messages are counted and dropped with a rate-limited log
 * line.  Oversized ones never reach us: ZMQ_MAXMSGSIZE (main.c) makes libzmq
 * drop them, and the connection that sent them, before allocating them, so
 * they are not in our counters.  Decoding happens outside the lock; the lock is held
 * only for the merge, so the analysis thread never waits long and we never
 * wait for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "daemon.h"
#include "timeutil.h"

/* Drain at most this many messages per poll turn, so status requests and the
 * stop flag are still looked at under a flood. */
#define DRAIN_MAX 1024

struct ingest {
    struct ftiod *d;
    struct ftio_batch batch;          /* reused across messages */
    struct ftiod_ratelimit rl_bad, rl_jobs, rl_procs, rl_dup;
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

static void merge(struct ingest *in)
{
    struct ftiod *d = in->d;
    const struct ftio_batch *b = &in->batch;
    bool wake = false;
    enum job_merge_status st = JOB_MERGED;
    size_t max_jobs = 0;

    pthread_mutex_lock(&d->lock);
    d->stats.messages++;
    struct job *j = job_table_find(&d->jobs, b->h.job);
    bool is_new = false;
    if (!j) {
        j = job_table_add(&d->jobs, b->h.job, &d->cfg.limits);
        if (!j) {
            d->stats.over_jobs++;
            max_jobs = d->jobs.max;
        }
        is_new = j != NULL;
    }
    if (j) {
        st = job_merge(j, b, &d->cfg.limits, ftiod_now(), ftio_real_ns());
        if (st == JOB_MERGED) {
            d->stats.batches++;
            d->stats.records += b->n;
            wake = b->h.mark != NULL || j->ended;
        } else if (st == JOB_DUPLICATE) {
            d->stats.duplicates++;
        } else if (st == JOB_BAD_SEQ) {
            d->stats.bad_seq++;
        } else {
            d->stats.over_procs++;
        }
    }
    if (wake)
        pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);

    if (!j)
        ftiod_log_rl(&in->rl_jobs, "job table full (--max-jobs %zu): dropping batch of job %s",
                     max_jobs, b->h.job);
    else if (st == JOB_TOO_MANY_PROCS)
        ftiod_log_rl(&in->rl_procs, "job %s: more than %zu processes (--max-procs): "
                     "dropping batch of %s:%lld", b->h.job, d->cfg.limits.max_procs,
                     b->h.host ? b->h.host : "?", (long long)b->h.pid);
    else if (st == JOB_BAD_SEQ)
        ftiod_log_rl(&in->rl_bad, "job %s: batch with an absurd sequence number %llu from %s:%lld, "
                     "dropped", b->h.job, (unsigned long long)b->h.seq,
                     b->h.host ? b->h.host : "?", (long long)b->h.pid);
    else if (st == JOB_DUPLICATE && d->cfg.verbose)
        ftiod_log_rl(&in->rl_dup, "job %s: batch %llu of %s:%lld seen before, dropped",
                     b->h.job, (unsigned long long)b->h.seq,
                     b->h.host ? b->h.host : "?", (long long)b->h.pid);
    if (is_new && d->cfg.verbose)
        ftiod_log("job %s: first batch (from %s:%lld, rank %d of %d)", b->h.job,
                  b->h.host ? b->h.host : "?", (long long)b->h.pid, b->h.rank, b->h.nranks);
}

static void handle_message(struct ingest *in, zmq_msg_t *msg, bool more)
{
    struct ftiod *d = in->d;
    if (more) {
        reject(in, &d->stats.multipart, "more than one frame");
        return;
    }
    char err[256];
    size_t used = 0;
    size_t len = zmq_msg_size(msg);
    int rc = ftio_wire_decode(zmq_msg_data(msg), len, &in->batch, &used, err, sizeof err);
    if (rc == 1) {
        reject(in, &d->stats.truncated, "truncated batch");
        return;
    }
    if (rc < 0) {
        char why[320];
        snprintf(why, sizeof why, "malformed batch (%s)", err);
        reject(in, &d->stats.malformed, why);
        return;
    }
    if (used != len) {
        reject(in, &d->stats.malformed, "trailing bytes after the batch");
        return;
    }
    if (!job_id_ok(in->batch.h.job)) {
        reject(in, &d->stats.malformed, "empty or unprintable job id");
        return;
    }
    merge(in);
}

/* Receive everything queued (bounded), skipping the frames of multi-part
 * messages. */
static void drain(struct ingest *in)
{
    for (int i = 0; i < DRAIN_MAX; i++) {
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, in->d->pull, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&msg);
            return;
        }
        bool more = zmq_msg_more(&msg);
        handle_message(in, &msg, more);
        zmq_msg_close(&msg);
        while (more) {   /* discard the rest of a multi-part message */
            zmq_msg_init(&msg);
            if (zmq_msg_recv(&msg, in->d->pull, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&msg);
                return;
            }
            more = zmq_msg_more(&msg);
            zmq_msg_close(&msg);
        }
    }
}

/* `end JOB` (ftio end): mark the job to be ended by the analysis thread.
 * Returns the reply document. */
static char *end_request(struct ftiod *d, const char *req, size_t len)
{
    char job[FTIO_WIRE_MAX_STR + 1];
    size_t n = len - 4;
    if (n == 0 || n > FTIO_WIRE_MAX_STR || memchr(req + 4, '\0', n))
        return strdup("{\"error\":\"end: no job id\"}");
    memcpy(job, req + 4, n);
    job[n] = 0;
    pthread_mutex_lock(&d->lock);
    struct job *j = job_table_find(&d->jobs, job);
    if (j) {
        j->told = true;
        pthread_cond_signal(&d->wake);
    }
    pthread_mutex_unlock(&d->lock);
    json_t *o = j ? json_pack("{s:s}", "ending", job) : json_pack("{s:s, s:s}", "error", "no such job", "job", job);
    char *doc = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (j)
        ftiod_log("job %s: told to end", job);
    return doc;
}

static void serve_status(struct ftiod *d)
{
    /* REP: read the request, then always answer once: `end JOB` ends a
     * job, anything else gets the status document. */
    zmq_msg_t req;
    zmq_msg_init(&req);
    int rc = zmq_msg_recv(&req, d->rep, ZMQ_DONTWAIT);
    bool more = rc >= 0 && zmq_msg_more(&req);
    char *end_doc = NULL;
    bool is_end = false;
    if (rc >= 4 && !more && memcmp(zmq_msg_data(&req), "end ", 4) == 0) {
        is_end = true;
        end_doc = end_request(d, zmq_msg_data(&req), zmq_msg_size(&req));
    }
    zmq_msg_close(&req);
    if (rc < 0)
        return;
    if (is_end) {
        const char *fallback = "{\"error\":\"out of memory\"}";
        zmq_send(d->rep, end_doc ? end_doc : fallback, strlen(end_doc ? end_doc : fallback),
                 ZMQ_DONTWAIT);
        free(end_doc);
        return;
    }
    while (more) {
        zmq_msg_init(&req);
        if (zmq_msg_recv(&req, d->rep, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&req);
            break;
        }
        more = zmq_msg_more(&req);
        zmq_msg_close(&req);
    }
    pthread_mutex_lock(&d->lock);
    char *doc = ftiod_status_json(d);
    pthread_mutex_unlock(&d->lock);
    const char *fallback = "{\"error\":\"out of memory\"}";
    zmq_send(d->rep, doc ? doc : fallback, strlen(doc ? doc : fallback), ZMQ_DONTWAIT);
    free(doc);
}

int ftiod_ingest_loop(struct ftiod *d)
{
    struct ingest in = {.d = d};
    zmq_pollitem_t items[2] = {
        {.socket = d->pull, .events = ZMQ_POLLIN},
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
        if (items[1].revents & ZMQ_POLLIN)
            serve_status(d);
    }
    /* Take what is already queued before the final summaries. */
    drain(&in);
    ftio_batch_free(&in.batch);
    return rc;
}
