/* SPDX-License-Identifier: BSD-3-Clause */
/* control_serve.c -- ftiod's side of the control socket (--status-endpoint,
 * PROTOCOL.md §3): who asks (a CURVE admin key, a MUNGE credential of the
 * request, auth_verify.c), what they may see (their own jobs, or all of
 * them), and one dispatch table from the verbs of common/control.h
 * (status, end, last, claim, machine) to their handlers.  The ingest thread calls
 * ftiod_control_serve() from its poll loop (ingest.c) whenever a request
 * is queued; every request gets exactly one JSON object back.
 */
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "auth.h"
#include "control.h"
#include "daemon.h"
#include "history_glue.h"
#include "jobid.h"
#include "machine.h"
#include "message.h"

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
        if (job_mode_update(&j->mode[m]))
            json_object_set_new(o, job_mode_name(m), ftiod_prediction_json(j, m));
    return o;
}

/* A request about a Slurm job id without its step, when there is no job of
 * that id: `each` is called for each of its steps "JOB.<step>" (and, for a
 * user, "u<uid>:JOB.<step>" of their namespace) the asker may see.  Returns
 * how many; *others counts the steps of other users.  Caller holds the
 * lock. */
static size_t for_steps(struct ftiod *d, const struct asker *a, const char *job,
                        void (*each)(struct job *, void *), void *ctx, size_t *others)
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
        each(j, ctx);
        n++;
    }
    return n;
}

/* What a request about JOB (end, last) names, decided in this one place. */
struct named {
    enum { NAMED_NONE, NAMED_JOB, NAMED_STEPS, NAMED_REFUSED } what;
    size_t steps;                  /* NAMED_STEPS: how many */
    char id[FTIOD_ID_MAX + 1];     /* NAMED_JOB: its id */
};

/* The job the asker names JOB by (request_id), or, when the asker's
 * resolution finds nothing, a job of that very id (someone else's: refused);
 * with no job of either id, the steps of the Slurm job id JOB (for_steps).
 * `each` is called on the job, or the steps, the asker may see: NAMED_JOB or
 * NAMED_STEPS; NAMED_REFUSED when only other users' jobs are named.  An
 * ended job (closed) counts as none when skip_closed.  Caller holds the
 * lock. */
static struct named name_jobs(struct ftiod *d, const struct asker *a, const char *job,
                              bool skip_closed, void (*each)(struct job *, void *), void *ctx)
{
    char buf[FTIOD_ID_MAX + 1];
    const char *rid = request_id(d, a, job, buf, sizeof buf);
    struct job *j = job_table_find(&d->jobs, rid);
    if (!j && rid != job)
        j = job_table_find(&d->jobs, job);
    if (j && skip_closed && j->closed)
        j = NULL;
    struct named n = {.what = NAMED_NONE};
    if (j && may_see(a, j)) {
        snprintf(n.id, sizeof n.id, "%s", j->id);
        each(j, ctx);
        n.what = NAMED_JOB;
    } else if (j) {
        n.what = NAMED_REFUSED;
    } else {
        size_t others;
        n.steps = for_steps(d, a, job, each, ctx, &others);
        n.what = n.steps ? NAMED_STEPS : others ? NAMED_REFUSED : NAMED_NONE;
    }
    return n;
}

static char *no_such_job(const char *job)
{
    return dump(json_pack("{s:s, s:s}", "error", "no such job", "job", job));
}

static void tell_to_end(struct job *j, void *ctx)
{
    (void)ctx;
    j->told = true;
}

/* `end JOB` (ftio end): mark the job to be ended by the analysis threads; a
 * Slurm job id without a step ends all of its steps (an epilog's
 * `ftio end $SLURM_JOB_ID`). */
static char *end_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    pthread_mutex_lock(&d->lock);
    struct named n = name_jobs(d, a, job, false, tell_to_end, NULL);
    if (n.what == NAMED_JOB || n.what == NAMED_STEPS)
        pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    switch (n.what) {
    case NAMED_STEPS:
        ftiod_log("job %s: told to end (%zu steps)", job, n.steps);
        return dump(json_pack("{s:s, s:I}", "ending", job, "steps", (json_int_t)n.steps));
    case NAMED_JOB:
        ftiod_log("job %s: told to end", n.id);
        return dump(json_pack("{s:s}", "ending", n.id));
    case NAMED_REFUSED:
        return refuse(d, a, "ending another user's job");
    default:
        return no_such_job(job);
    }
}

static void append_last(struct job *j, void *lasts)
{
    json_array_append_new(lasts, last_of(j));
}

/* `last JOB` (ftio sub --last): the latest prediction of each mode; for a
 * Slurm job id without its step, {"job": JOB, "steps": [one such object per
 * step]}.  An ended job is none here: its end message answers (status
 * "ended", --keep-ended). */
static char *last_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    json_t *lasts = json_array();
    if (!lasts)
        return NULL;
    pthread_mutex_lock(&d->lock);
    struct named n = name_jobs(d, a, job, true, append_last, lasts);
    pthread_mutex_unlock(&d->lock);
    json_t *one = json_incref(json_array_get(lasts, 0));
    switch (n.what) {
    case NAMED_STEPS:
        json_decref(one);
        return dump(json_pack("{s:s, s:o}", "job", job, "steps", lasts));
    case NAMED_JOB:
        json_decref(lasts);
        return dump(one);
    case NAMED_REFUSED:
        json_decref(lasts);
        return refuse(d, a, "another user's job");
    default:
        json_decref(lasts);
        return no_such_job(job);
    }
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
    /* The document is made under the lock, its text outside it: 10,000 jobs
     * are megabytes of text, which the ingest and the analyses need not wait
     * for (the document shares nothing with the jobs). */
    pthread_mutex_lock(&d->lock);
    json_t *doc = ftiod_status_doc(d, a->admin ? -1 : a->uid);
    pthread_mutex_unlock(&d->lock);
    return dump(doc);
}

/* `machine`: the machine forecast (machine.c says who sees what); anyone
 * proven (an admin, or a user by MUNGE) may ask. */
static char *machine_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)job;
    (void)arg;
    if (!a->admin && a->uid < 0)
        return refuse(d, a, "the machine forecast");
    return dump(ftiod_machine_view(d, a->admin, a->uid));
}

/* `apps`, `app ID`, `forget ID|all`: the memory of runs, answered by its
 * own thread (history_thread.c: the reply comes later, ftiod_control_late). */
static char *apps_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    return ftiod_history_request(d, a->admin, a->uid, FTIO_CTL_APPS, job);
}

static char *app_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    return ftiod_history_request(d, a->admin, a->uid, FTIO_CTL_APP, job);
}

static char *forget_request(struct ftiod *d, const struct asker *a, const char *job, int64_t arg)
{
    (void)arg;
    return ftiod_history_request(d, a->admin, a->uid, FTIO_CTL_FORGET, job);
}

/* The control socket's one dispatch table (requests: common/control.h). */
static char *(*const handlers[FTIO_CTL_NVERBS])(struct ftiod *, const struct asker *,
                                                 const char *, int64_t) = {
    [FTIO_CTL_STATUS] = status_request,
    [FTIO_CTL_END] = end_request,
    [FTIO_CTL_LAST] = last_request,
    [FTIO_CTL_CLAIM] = claim_request,
    [FTIO_CTL_MACHINE] = machine_request,
    [FTIO_CTL_APPS] = apps_request,
    [FTIO_CTL_APP] = app_request,
    [FTIO_CTL_FORGET] = forget_request,
};

void ftiod_control_serve(struct ftiod *d)
{
    /* REP: read the request [text, optional MUNGE credential], then always
     * answer once. */
    struct ftiod_message m;
    if (ftiod_message_recv(d->rep, &m) < 0)
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
    ftiod_message_close(&m);
    if (doc == FTIOD_REPLY_LATER)
        return;                  /* the memory of runs answers (ftiod_control_late) */
    const char *fallback = "{\"error\":\"out of memory\"}";
    zmq_send(d->rep, doc ? doc : fallback, strlen(doc ? doc : fallback), ZMQ_DONTWAIT);
    free(doc);
}

