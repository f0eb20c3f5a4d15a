/* SPDX-License-Identifier: BSD-3-Clause */
/* history_thread.c -- the thread of ftiod's memory of runs (history_glue.h):
 * the only one that touches the store (predictor/history/), fed through a
 * bounded queue by the ingest thread (a job's first batch: look its
 * application up), the analysis threads (a job's `.end`: record its run) and
 * the control socket (`ftio history`).  So a slow, locked or lost database
 * delays nothing but itself: a full queue drops the work and counts it.
 *
 * The store is opened by this thread, at its start and again (at most once a
 * minute) after a failure that needs it (a damaged file, a server that is
 * gone): ftiod starts at once whatever the store does, and says once that
 * jobs get no prior until it works again.  At shutdown the runs still queued
 * are written within a bounded time (what is left is counted).
 *
 * Replies of the control socket: its REP socket belongs to the ingest
 * thread, which must answer one request before it takes the next.  So it
 * leaves the socket waiting (ftiod_control_waiting) while this thread
 * answers, and sends the reply when an eventfd says it is ready, or an
 * error when it took too long (ftiod_control_late): a busy store never
 * holds the control socket, and claims, for more than a few seconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>
#include "daemon.h"
#include "history_glue.h"
#include "timeutil.h"

#define QUEUE_CAP 4096          /* requests waiting */
#define BUSY_MS 1000            /* each wait for another process's lock */
#define REOPEN_S 60.0           /* a store that could not be opened: tried again after */
#define REPLY_S 3.0             /* a control reply the thread did not give by then: an error */
#define STOP_WRITE_S 0.3        /* the shutdown's time for the queued runs */

char ftiod_reply_later[] = "";

struct ftiod_history {
    struct ftiod *d;
    char spec[4096], shown[4096];     /* the store, and as said in logs (no password) */
    pthread_t th;
    pthread_mutex_t mu;               /* everything below */
    pthread_cond_t cv;
    bool stop;
    double stop_by;                   /* monotonic s: the queued runs are dropped after */
    struct history_req *q[QUEUE_CAP];
    size_t qhead, qn;
    /* the thread's own (no lock needed) */
    struct ftio_store *store;
    double next_open;
    bool complained[2];               /* said: [0] no lookups (open, read), [1] no records */
    struct ftio_analyzer *an;
    /* counters: what --status shows */
    uint64_t lookups, known, recorded, record_failures, lookup_failures, dropped, forgotten;
    /* the control socket's late reply */
    int efd;
    bool waiting;
    double deadline;
    uint64_t generation;
    char *reply;
};

void history_req_free(struct history_req *r)
{
    if (!r)
        return;
    free(r->job);
    history_key_free(&r->key);
    free(r->exe_id);
    free(r->answers);
    for (int m = 0; m < JOB_NMODES; m++)
        ftio_samples_free(&r->x[m]);
    free(r);
}

const char *ftiod_history_spec(const char *history, const char *state_dir, char *buf, size_t cap)
{
    if (!history || !strcmp(history, "none") || !*history)
        return NULL;
    if (strcmp(history, "auto") != 0)
        return history;
    if (!state_dir)
        return NULL;
    snprintf(buf, cap, "%s/history.sqlite", state_dir);
    return buf;
}

/* ---- the store ------------------------------------------------------------------------- */

/* Said once until it works again, apart for reading (a store that cannot
 * be opened, or read: no priors) and writing (locked: no records; in WAL
 * mode lookups go on meanwhile). */
enum { READING = 0, WRITING = 1 };
static void trouble(struct ftiod_history *h, int how, const char *what)
{
    if (h->complained[how])
        return;
    h->complained[how] = true;
    ftiod_log_at(FTIOD_WARNING, "memory of runs %s: %s; %s until it works again", h->shown, what,
                 how == WRITING ? "runs are not recorded" : "jobs get no prior");
}

static void works(struct ftiod_history *h, int how)
{
    if (!h->complained[how])
        return;
    h->complained[how] = false;
    ftiod_log_at(FTIOD_NOTICE, "memory of runs %s works again%s", h->shown,
                 how == WRITING ? " (runs are recorded)" : "");
}

static bool store_ready(struct ftiod_history *h)
{
    if (h->store)
        return true;
    double now = ftiod_now();
    if (now < h->next_open)
        return false;
    char err[512];
    double t0 = now;
    h->store = ftio_store_open(h->spec, BUSY_MS, false, err, sizeof err);
    if (!h->store) {
        h->next_open = now + REOPEN_S;
        trouble(h, READING, err);
        return false;
    }
    ftiod_log_at(FTIOD_NOTICE, "memory of runs: %s (opened in %.0f ms)", h->shown,
                 1e3 * (ftiod_now() - t0));
    works(h, READING);
    return true;
}

/* After a failed statement: a busy store stays open (the lock will go); a
 * damaged one is closed and opened again later (it may be replaced). */
static void store_failed(struct ftiod_history *h, int how, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s: %s", what, ftio_store_error(h->store));
    trouble(h, how, msg);
    if (ftio_store_damaged(h->store)) {
        ftio_store_close(h->store);
        h->store = NULL;
        h->next_open = ftiod_now() + REOPEN_S;
    }
}

/* ---- the work ---------------------------------------------------------------------------- */

static void do_lookup(struct ftiod_history *h, struct history_req *r)
{
    struct ftio_store_match m = { 0 };
    int rc = ftio_store_lookup(h->store, &r->key, &m);
    pthread_mutex_lock(&h->mu);
    h->lookups++;
    h->lookup_failures += rc != 0;
    h->known += rc == 0 && m.level != FTIO_PRIOR_NONE;
    pthread_mutex_unlock(&h->mu);
    if (rc != 0) {
        store_failed(h, READING, "lookup");
    } else {
        works(h, READING);
        ftiod_history_install(h->d, r->job, r->serial, &m);
    }
    ftio_store_match_free(&m);
}

static void do_record(struct ftiod_history *h, struct history_req *r)
{
    /* each answer's first phase: where its train begins in the job's signal */
    struct ftio_store_answer *a = r->answers;
    for (size_t i = 0; i < r->nanswers; i++) {
        double onset = ftio_prior_first_onset(h->an, &r->x[a[i].mode], a[i].period, a[i].bytes);
        a[i].first_offset = onset - r->job_start >= -1.0 ? onset - r->job_start : NAN;
    }
    struct ftio_store_run run = {
        .app = r->key, .job = r->job, .source = "ftiod", .exe_id = r->exe_id, .start = r->start,
        .end = r->end, .nranks = r->nranks, .nanswers = r->nanswers, .answers = a,
    };
    size_t forgotten = 0;
    int rc = ftio_store_record(h->store, &run, h->d->cfg.history_apps, r->end, &forgotten);
    pthread_mutex_lock(&h->mu);
    h->recorded += rc == 0;
    h->record_failures += rc != 0;
    h->forgotten += forgotten;
    pthread_mutex_unlock(&h->mu);
    if (rc != 0)
        store_failed(h, WRITING, "recording a run");
    else
        works(h, WRITING);
    if (forgotten)
        ftiod_log_at(FTIOD_INFO, "memory of runs: uid %" PRId64 " has more than %zu applications: "
                     "%zu least recently used forgotten", r->key.uid, h->d->cfg.history_apps, forgotten);
}

static void do_query(struct ftiod_history *h, struct history_req *r)
{
    json_t *o;
    int64_t uid = r->admin ? -1 : r->asker;
    if (!store_ready(h))
        o = json_pack("{s:s}", "error", "the memory of runs is not available (see ftiod's log)");
    else if (r->verb == FTIO_CTL_APPS)
        o = ftio_store_reply_apps(h->store, uid);
    else if (r->verb == FTIO_CTL_APP)
        o = ftio_store_reply_app(h->store, r->id, uid);
    else
        o = ftio_store_reply_forget(h->store, r->id, uid);
    if (r->verb == FTIO_CTL_FORGET && json_is_integer(json_object_get(o, "forgotten")))
        ftiod_log_at(FTIOD_INFO, "memory of runs: %s asked to forget %s: %" JSON_INTEGER_FORMAT
                     " forgotten", r->admin ? "an admin" : "a user", r->id < 0 ? "all" : "one",
                     json_integer_value(json_object_get(o, "forgotten")));
    char *doc = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    pthread_mutex_lock(&h->mu);
    if (h->waiting && r->generation == h->generation && doc) {
        free(h->reply);
        h->reply = doc;
        doc = NULL;
        uint64_t one = 1;
        if (write(h->efd, &one, sizeof one) < 0) {
            /* the ingest loop still looks every 200 ms */
        }
    }
    pthread_mutex_unlock(&h->mu);
    free(doc);
}

static void *history_main(void *arg)
{
    struct ftiod_history *h = arg;
    store_ready(h);
    for (;;) {
        pthread_mutex_lock(&h->mu);
        while (!h->qn && !h->stop)
            pthread_cond_wait(&h->cv, &h->mu);
        if (!h->qn) {
            pthread_mutex_unlock(&h->mu);
            break;
        }
        struct history_req *r = h->q[h->qhead];
        h->qhead = (h->qhead + 1) % QUEUE_CAP;
        h->qn--;
        bool stopping = h->stop, late = stopping && ftiod_now() > h->stop_by;
        h->dropped += late;
        pthread_mutex_unlock(&h->mu);
        /* stopping: only the runs matter, and only for a while */
        if (!late && (!stopping || r->kind == HREQ_RECORD)) {
            if (r->kind == HREQ_QUERY)
                do_query(h, r);
            else if (r->kind == HREQ_REPUBLISH)
                ftiod_history_install(h->d, r->job, r->serial, NULL);
            else if (store_ready(h))
                r->kind == HREQ_LOOKUP ? do_lookup(h, r) : do_record(h, r);
        }
        history_req_free(r);
    }
    return NULL;
}

bool ftiod_history_queue(struct ftiod *d, struct history_req *r)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return false;
    pthread_mutex_lock(&h->mu);
    bool room = h->qn < QUEUE_CAP && !h->stop;
    if (room) {
        h->q[(h->qhead + h->qn) % QUEUE_CAP] = r;
        h->qn++;
        pthread_cond_signal(&h->cv);
    } else {
        h->dropped++;
    }
    pthread_mutex_unlock(&h->mu);
    return room;
}

/* ---- start and stop ------------------------------------------------------------------------ */

int ftiod_history_start(struct ftiod *d)
{
    char buf[4096];
    const char *spec = ftiod_history_spec(d->cfg.history, d->cfg.state_dir, buf, sizeof buf);
    if (!spec) {
        ftiod_log_at(FTIOD_INFO, "no memory of runs (--history %s%s): every job is predicted from "
                     "its own data only", d->cfg.history ? d->cfg.history : "none",
                     d->cfg.history && !strcmp(d->cfg.history, "auto") ? " without --state-dir" : "");
        return 0;
    }
    struct ftiod_history *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    h->d = d;
    snprintf(h->spec, sizeof h->spec, "%s", spec);
    ftio_store_spec_redacted(spec, h->shown, sizeof h->shown);
    h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    h->an = ftio_analyzer_new();
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    if (h->efd < 0 || !h->an || pthread_create(&h->th, NULL, history_main, h) != 0) {
        if (h->efd >= 0)
            close(h->efd);
        ftio_analyzer_free(h->an);
        free(h);
        return -1;
    }
    d->history = h;
    return 0;
}

void ftiod_history_stop(struct ftiod *d)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stop = true;
    h->stop_by = ftiod_now() + STOP_WRITE_S;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    if (h->dropped)
        ftiod_log_at(FTIOD_NOTICE, "memory of runs: %" PRIu64 " lookups or runs dropped (queue full "
                     "or out of time at the stop)", h->dropped);
    /* the lock: an analysis thread that outlived the stop may still look */
    pthread_mutex_lock(&d->lock);
    d->history = NULL;
    pthread_mutex_unlock(&d->lock);
    ftio_store_close(h->store);
    ftio_analyzer_free(h->an);
    free(h->reply);
    close(h->efd);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

json_t *ftiod_history_status(struct ftiod *d)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return json_null();
    pthread_mutex_lock(&h->mu);
    json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "store", h->shown,
                          "trouble", h->complained[READING] || h->complained[WRITING], "lookups", (json_int_t)h->lookups,
                          "known", (json_int_t)h->known, "lookup_failures",
                          (json_int_t)h->lookup_failures, "recorded", (json_int_t)h->recorded,
                          "record_failures", (json_int_t)h->record_failures, "dropped",
                          (json_int_t)h->dropped, "forgotten", (json_int_t)h->forgotten,
                          "queued", (json_int_t)h->qn);
    pthread_mutex_unlock(&h->mu);
    return o;
}

/* ---- the control socket ----------------------------------------------------------------------- */

static char *error_doc(const char *msg)
{
    json_t *o = json_pack("{s:s}", "error", msg);
    char *doc = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return doc;
}

char *ftiod_history_request(struct ftiod *d, bool admin, int64_t uid, enum ftio_control_verb v,
                            const char *arg)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return error_doc("this ftiod keeps no memory of runs (--history)");
    if (!admin && uid < 0) {
        pthread_mutex_lock(&d->lock);
        d->stats.queries_refused++;
        pthread_mutex_unlock(&d->lock);
        return error_doc("not allowed: the memory of runs (a MUNGE credential: a user sees "
                         "their own applications)");
    }
    int64_t id = -1;
    if (v != FTIO_CTL_APPS && !(v == FTIO_CTL_FORGET && !strcmp(arg, "all"))) {
        char *end;
        errno = 0;
        long long x = strtoll(arg, &end, 10);
        if (errno || *end || x < 0)
            return error_doc(v == FTIO_CTL_FORGET ? "forget: an application's id or all"
                                                  : "app: an application's id");
        id = x;
    }
    struct history_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = HREQ_QUERY;
    r->verb = v;
    r->admin = admin;
    r->asker = uid;
    r->id = id;
    pthread_mutex_lock(&h->mu);
    r->generation = ++h->generation;
    h->waiting = true;
    h->deadline = ftiod_now() + REPLY_S;
    pthread_mutex_unlock(&h->mu);
    if (!ftiod_history_queue(d, r)) {
        history_req_free(r);
        pthread_mutex_lock(&h->mu);
        h->waiting = false;
        pthread_mutex_unlock(&h->mu);
        return error_doc("the memory of runs is busy: try again");
    }
    return FTIOD_REPLY_LATER;
}

bool ftiod_control_waiting(struct ftiod *d)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return false;
    pthread_mutex_lock(&h->mu);
    bool w = h->waiting;
    pthread_mutex_unlock(&h->mu);
    return w;
}

int ftiod_control_late_fd(struct ftiod *d)
{
    return d->history ? d->history->efd : -1;
}

void ftiod_control_late(struct ftiod *d)
{
    struct ftiod_history *h = d->history;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    if (!h->waiting) {
        pthread_mutex_unlock(&h->mu);
        return;
    }
    uint64_t n;
    if (read(h->efd, &n, sizeof n) < 0) {
        /* nothing signalled: the deadline may still be up */
    }
    char *doc = h->reply;
    h->reply = NULL;
    bool send = h->waiting && (doc || ftiod_now() > h->deadline);
    if (send)
        h->waiting = false;
    pthread_mutex_unlock(&h->mu);
    if (send) {
        if (!doc)
            doc = error_doc("the memory of runs did not answer in time (a busy store): try again");
        const char *fallback = "{\"error\":\"out of memory\"}";
        zmq_send(d->rep, doc ? doc : fallback, strlen(doc ? doc : fallback), ZMQ_DONTWAIT);
    }
    free(doc);
}
