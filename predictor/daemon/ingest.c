/* SPDX-License-Identifier: BSD-3-Clause */
/* ingest.c -- the main thread of ftiod: receive batches on the ROUTER, check
 * who sent them (auth.c), decode them, find their job by the ownership rules
 * (claims.c), merge them into it (job.c), acknowledge them
 * (common/transport.h), and answer the control socket: status, end, last,
 * claim (requests decoded by common/control.c, one dispatch table here).
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
#include "control.h"
#include "daemon.h"
#include "jobid.h"
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

/* A whole message: every frame up to MSG_FRAMES kept, the rest counted in
 * `extra` and discarded. */
#define MSG_FRAMES (FTIO_ENVELOPE_MAX + 3)
struct message {
    zmq_msg_t f[MSG_FRAMES];
    int  n;
    bool extra;
};

/* Returns -1 when nothing is queued. */
static int recv_message(void *sock, struct message *m)
{
    m->n = 0;
    m->extra = false;
    zmq_msg_init(&m->f[0]);
    if (zmq_msg_recv(&m->f[0], sock, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&m->f[0]);
        return -1;
    }
    m->n = 1;
    bool more = zmq_msg_more(&m->f[0]);
    while (more) {   /* the frames of a message arrive together */
        zmq_msg_t x;
        zmq_msg_init(&x);
        if (zmq_msg_recv(&x, sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&x);
            break;
        }
        more = zmq_msg_more(&x);
        if (m->n < MSG_FRAMES) {
            m->f[m->n++] = x;
        } else {
            m->extra = true;
            zmq_msg_close(&x);
        }
    }
    return 0;
}

static void close_message(struct message *m)
{
    for (int i = 0; i < m->n; i++)
        zmq_msg_close(&m->f[i]);
}

/* One message of the ROUTER: [identity...] [empty] [batch] [auth]; the
 * acknowledgement goes back along the same identities. */
static void ingest_message(struct ingest *in, struct message *m)
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
        struct message m;
        if (recv_message(in->d->router, &m) < 0)
            return;
        ingest_message(in, &m);
        close_message(&m);
    }
}

/* ---- control (status) socket ------------------------------------------- */

/* Who asks: an admin sees every job: a CURVE key in the allow-list, a MUNGE
 * credential of root or of the daemon's own uid, or anyone when the daemon
 * runs --auth none without CURVE (nothing to tell users apart by).  A user
 * proven by a MUNGE credential of the request sees the jobs they own. */
struct asker {
    bool    admin;
    int64_t uid;          /* -1 unknown */
    const char *why;      /* why the credential was refused, if it was */
};

static bool may_see(const struct asker *a, const struct job *j)
{
    return a->admin || (a->uid >= 0 && a->uid == j->uid);
}

static char *dump(json_t *o)
{
    char *doc = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return doc;
}

static char *refuse_for(struct ftiod *d, const struct asker *a, const char *what,
                        const char *who)
{
    pthread_mutex_lock(&d->lock);
    d->stats.queries_refused++;
    pthread_mutex_unlock(&d->lock);
    char msg[512];
    snprintf(msg, sizeof msg, "not allowed: %s (%s)", what, a->why ? a->why : who);
    return dump(json_pack("{s:s}", "error", msg));
}

static char *refuse(struct ftiod *d, const struct asker *a, const char *what)
{
    return refuse_for(d, a, what, "an admin CURVE key, or a MUNGE credential of the job's owner");
}

/* The id a request names: an admin names any job by its id in the table;
 * a user names their jobs as they sent them (claims.c resolves it) or by
 * the full "u<uid>:..." of their namespace. */
static const char *request_id(struct ftiod *d, const struct asker *a, const char *job, char *out,
                              size_t cap)
{
    if (a->admin || a->uid < 0)
        return job;
    char ns[32];
    int n = snprintf(ns, sizeof ns, "u%lld:", (long long)a->uid);
    if (n > 0 && strncmp(job, ns, (size_t)n) == 0)
        return job;
    return ftiod_claim_resolve(d, job, a->uid, out, cap);
}

/* The job a request names, or NULL; *rid the id it resolved to.  When the
 * asker's resolution finds nothing but a job of that very id exists, that
 * job is returned (may_see then refuses it: "another user's job"). */
static struct job *request_job(struct ftiod *d, const struct asker *a, const char *job,
                               char *buf, size_t cap, const char **rid)
{
    *rid = request_id(d, a, job, buf, cap);
    struct job *j = job_table_find(&d->jobs, *rid);
    if (!j && *rid != job)
        j = job_table_find(&d->jobs, job);
    return j;
}

/* Is j a step "<ns>JOB.<step>" of the Slurm job id `job` (jobid.h), ns a
 * namespace prefix or ""? */
static bool step_of(const struct job *j, const char *ns, const char *job, size_t len)
{
    char jobid[FTIO_WIRE_MAX_STR + 1];
    size_t nl = strlen(ns);
    if (strncmp(j->id, ns, nl) != 0)
        return false;
    const char *id = j->id + nl;
    return strncmp(id, job, len) == 0 && id[len] == '.' &&
           ftio_job_split(id, jobid, sizeof jobid, NULL, 0) && strcmp(jobid, job) == 0;
}

/* The latest prediction of each mode of j, under "job", "write", "read"
 * (caller holds the lock). */
static json_t *last_of(const struct job *j)
{
    json_t *o = json_pack("{s:s}", "job", j->id);
    for (int m = 0; o && m < JOB_NMODES; m++)
        if (j->mode[m].has_result)
            json_object_set_new(o, job_mode_name(m), ftiod_prediction_json(j, m));
    return o;
}

/* A request about a Slurm job id without its step, when there is no job of
 * that id: each of its steps "JOB.<step>" (and, for a user, "u<uid>:JOB.<step>"
 * of their namespace) the asker may see gets told to end (told), or its
 * latest predictions appended to `lasts`.  Returns how many; *others counts
 * the steps of other users.  Caller holds the lock. */
static size_t for_steps(struct ftiod *d, const struct asker *a, const char *job, bool tell,
                        json_t *lasts, size_t *others)
{
    size_t n = 0, len = strlen(job);
    char ns[32] = "";
    if (!a->admin && a->uid >= 0 && d->cfg.auth != FTIO_AUTH_NONE)
        snprintf(ns, sizeof ns, "u%lld:", (long long)a->uid);
    *others = 0;
    for (size_t i = 0; i < d->jobs.n; i++) {
        struct job *j = d->jobs.job[i];
        if (!step_of(j, "", job, len) && !(ns[0] && step_of(j, ns, job, len)))
            continue;
        if (!may_see(a, j)) {
            (*others)++;
            continue;
        }
        if (tell)
            j->told = true;
        if (lasts)
            json_array_append_new(lasts, last_of(j));
        n++;
    }
    return n;
}

/* `end JOB` (ftio end): mark the job to be ended by the analysis threads; a
 * Slurm job id without a step ends all of its steps (an epilog's
 * `ftio end $SLURM_JOB_ID`). */
static char *end_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    char buf[FTIOD_ID_MAX + 1];
    const char *rid;
    pthread_mutex_lock(&d->lock);
    struct job *j = request_job(d, a, job, buf, sizeof buf, &rid);
    bool allowed = j && may_see(a, j);
    size_t steps = 0, others = 0;
    char id[FTIOD_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", j ? j->id : rid);
    if (allowed)
        j->told = true;
    else if (!j)
        steps = for_steps(d, a, job, true, NULL, &others);
    if (allowed || steps)
        pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    if (steps) {
        ftiod_log("job %s: told to end (%zu steps)", job, steps);
        return dump(json_pack("{s:s, s:I}", "ending", job, "steps", (json_int_t)steps));
    }
    if ((j && !allowed) || others)
        return refuse(d, a, "ending another user's job");
    if (j)
        ftiod_log("job %s: told to end", id);
    return dump(j ? json_pack("{s:s}", "ending", id)
                  : json_pack("{s:s, s:s}", "error", "no such job", "job", job));
}

/* `last JOB` (ftio sub --last): the latest prediction of each mode; for a
 * Slurm job id without its step, {"job": JOB, "steps": [one such object per
 * step]}. */
static char *last_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    char buf[FTIOD_ID_MAX + 1];
    const char *rid;
    pthread_mutex_lock(&d->lock);
    struct job *j = request_job(d, a, job, buf, sizeof buf, &rid);
    if (j && j->closed)
        j = NULL;     /* ended: its end message answers (status "ended", --keep-ended) */
    json_t *o = NULL, *lasts = NULL;
    bool allowed = j && may_see(a, j);
    size_t steps = 0, others = 0;
    if (allowed) {
        o = last_of(j);
    } else if (!j && (lasts = json_array())) {
        steps = for_steps(d, a, job, false, lasts, &others);
    }
    pthread_mutex_unlock(&d->lock);
    if (steps)
        return dump(json_pack("{s:s, s:o}", "job", job, "steps", lasts));
    json_decref(lasts);
    if ((j && !allowed) || others)
        return refuse(d, a, "another user's job");
    if (!j)
        return dump(json_pack("{s:s, s:s}", "error", "no such job", "job", job));
    return dump(o);
}

/* `claim JOB UID` (the SPANK plugin, before a step's tasks start): JOB is
 * UID's (claims.c).  Only root or ftiod's own uid, proven by MUNGE; under
 * --auth none anyone (there are no owners to protect, the claim changes no
 * id). */
static char *claim_request(struct ftiod *d, const struct asker *a, const char *job, int64_t uid)
{
    if (d->cfg.auth != FTIO_AUTH_NONE && !ftiod_trusted_uid(a->uid))
        return refuse_for(d, a, "claiming a job id", "root or ftiod's user, proven by MUNGE");
    const char *why = NULL;
    pthread_mutex_lock(&d->lock);
    int rc = ftiod_claim(d, job, uid, &why);
    pthread_mutex_unlock(&d->lock);
    if (rc != 0) {
        ftiod_log_at(FTIOD_WARNING, "claim of job %s for uid %lld refused: %s", job,
                     (long long)uid, why);
        return dump(json_pack("{s:s, s:s}", "error", why, "job", job));
    }
    if (d->cfg.verbose)
        ftiod_log("job %s: claimed for uid %lld", job, (long long)uid);
    return dump(json_pack("{s:s, s:I}", "claimed", job, "uid", (json_int_t)uid));
}

static char *status_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)job;
    (void)arg;
    if (!a->admin && a->uid < 0)
        return refuse(d, a, "the status of every job");
    pthread_mutex_lock(&d->lock);
    char *doc = ftiod_status_json(d, a->admin ? -1 : a->uid);
    pthread_mutex_unlock(&d->lock);
    return doc;
}

/* The control socket's one dispatch table (requests: common/control.h). */
static char *(*const handlers[FTIO_CTL_NVERBS])(struct ftiod *, const struct asker *,
                                                 const char *, int64_t) = {
    [FTIO_CTL_STATUS] = status_request,
    [FTIO_CTL_END] = end_request,
    [FTIO_CTL_LAST] = last_request,
    [FTIO_CTL_CLAIM] = claim_request,
};

static void serve_status(struct ftiod *d)
{
    /* REP: read the request [text, optional MUNGE credential], then always
     * answer once. */
    struct message m;
    if (recv_message(d->rep, &m) < 0)
        return;
    zmq_msg_t *f = m.f;
    int n = m.n;
    bool extra = m.extra || n > 2;
    const char *req = zmq_msg_data(&f[0]);
    size_t len = zmq_msg_size(&f[0]);
    const char *peer = zmq_msg_gets(&f[0], "User-Id");
    struct asker a = {
        .admin = d->cfg.curve_secret ? peer && strcmp(peer, "admin") == 0
                                     : d->cfg.auth == FTIO_AUTH_NONE,
        .uid = -1,
    };
    if (n > 1 && !extra &&
        ftiod_auth_query(d->auth, req, len, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), &a.uid,
                         &a.why) != 0)
        a.uid = -1;
    if (ftiod_trusted_uid(a.uid))
        a.admin = true;
    char *doc;
    enum ftio_control_verb verb;
    char job[FTIO_CONTROL_JOB_MAX + 1], err[160];
    int64_t arg;
    if (extra)
        doc = strdup("{\"error\":\"too many frames\"}");
    else if (ftio_control_decode(req, len, &verb, job, sizeof job, &arg, err, sizeof err) != 0)
        doc = dump(json_pack("{s:s}", "error", err));
    else
        doc = handlers[verb](d, &a, job, arg);
    close_message(&m);
    const char *fallback = "{\"error\":\"out of memory\"}";
    zmq_send(d->rep, doc ? doc : fallback, strlen(doc ? doc : fallback), ZMQ_DONTWAIT);
    free(doc);
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
            serve_status(d);
    }
    /* Take what is already queued before the final summaries. */
    drain(&in);
    ftio_batch_free(&in.batch);
    return rc;
}
