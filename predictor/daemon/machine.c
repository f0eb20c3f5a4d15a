/* SPDX-License-Identifier: BSD-3-Clause */
/* machine.c -- ftiod's view of the whole machine (see machine.h): the
 * machine thread and its topic `ftio.machine`, the file systems, the
 * observed series, the duration model's fits, the latest forecast.
 *
 * Each second (on the wall clock's second), with d->lock held for the
 * copying only: every job's bytes of the seconds now complete (MACHINE_LAG
 * s back: the shims flush every second) go into the observed series, and
 * every live job's predicted phase trains into an array
 * (job_machine_trains); then, without the lock, the forecast
 * (forecast/forecast.h) and the message; then, with the lock, the forecast
 * replaces the previous one (the analysis threads read it for the load a
 * job's next phase will meet) and the message becomes the one the control
 * socket and the metrics show.  The message goes out on PUB every second
 * and into --log every --machine-log s.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon.h"
#include "grow.h"
#include "job_activities.h"
#include "job_machine.h"
#include "machine.h"
#include "publish/report.h"
#include "timeutil.h"

/* s the observed series stays behind the clock: a shim flushes every
 * second, and its batch takes a moment. */
#define MACHINE_LAG 2
/* Probability below which a phase is no collision. */
#define COLLISION_MIN_P 0.5
#define COLLISIONS_PER_FS 64
/* Trains per job at most: each mode's answer or its activities. */
#define TRAINS_PER_JOB (JOB_NMODES * (1 + JOB_MAX_ACTIVITIES))
#define PHASES_PER_JOB 64
/* Buckets (s) of the latency histogram (metrics). */
static const double lat_bounds[] = { 0.5, 1, 1.5, 2, 2.5, 3, 5, 10, 30 };
#define NLAT (sizeof lat_bounds / sizeof lat_bounds[0])

struct app_fit { uint64_t key; struct ftio_dm_fit *fit; };

/* What the metrics show of each file system (machine thread, each tick). */
struct fs_summary {
    double observed[JOB_NMODES];     /* B/s, mean of the last 10 complete s */
    double expected[JOB_NMODES];     /* B/s, mean of the next 60 s */
    double active[JOB_NMODES];       /* jobs in a phase, mean of the next 10 s */
    uint64_t collisions;
};

struct ftiod_machine {
    size_t   steps;                  /* --machine-horizon, s */
    size_t   hist;                   /* --machine-history, s */
    char    *fs_name[MACHINE_MAX_FS];
    int      nfs;
    double  *obs;                    /* [fs][mode][hist], ring by Unix second */
    int64_t  obs_end;                /* seconds before it are complete; 0: not started */
    struct ftio_dm_fit site;
    struct app_fit apps[MACHINE_APPS];
    size_t   napps;
    struct ftio_fc fc;               /* the latest forecast */
    bool     has_fc;
    json_t  *last;                   /* the latest message */
    int64_t *last_uid;               /* the owner of each of its "jobs" */
    /* metrics */
    uint64_t lat[NLAT + 1], lat_n;
    double   lat_sum;
    double   cost;                   /* CPU s of the last tick's work */
    uint64_t ticks;
    struct fs_summary sum[MACHINE_MAX_FS];
    int      nsum;
    uint64_t collisions;
    size_t   live_jobs, trains;
    uint64_t rec_prev;               /* d->stats.records at the last tick */
    double   rec_t, rec_rate;
    /* the thread */
    pthread_t th;
    bool     running;
};

struct ftiod_machine *ftiod_machine_new(double horizon, double history)
{
    struct ftiod_machine *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->steps = (size_t)ceil(horizon);
    m->hist = (size_t)ceil(history);
    if (m->hist < 10)
        m->hist = 10;
    m->obs = calloc((size_t)MACHINE_MAX_FS * JOB_NMODES * m->hist, sizeof *m->obs);
    if (!m->obs) {
        free(m);
        return NULL;
    }
    ftio_dm_fit_init(&m->site);
    return m;
}

void ftiod_machine_free(struct ftiod_machine *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nfs; i++)
        free(m->fs_name[i]);
    for (size_t i = 0; i < m->napps; i++)
        free(m->apps[i].fit);
    free(m->obs);
    ftio_fc_free(&m->fc);
    json_decref(m->last);
    free(m->last_uid);
    free(m);
}

/* ---- what the jobs share ------------------------------------------------- */

int ftiod_machine_fs(struct ftiod_machine *m, const char *name)
{
    if (!name)
        name = "unknown";
    for (int i = 0; i < m->nfs; i++)
        if (strcmp(m->fs_name[i], name) == 0)
            return i;
    if (m->nfs == MACHINE_MAX_FS - 1 && strcmp(name, "other") != 0)
        return ftiod_machine_fs(m, "other");
    char *s = strdup(name);
    if (!s)
        return m->nfs > 0 ? 0 : -1;
    m->fs_name[m->nfs] = s;
    return m->nfs++;
}

const char *ftiod_machine_fs_name(const struct ftiod_machine *m, int fs)
{
    return fs >= 0 && fs < m->nfs ? m->fs_name[fs] : "unknown";
}

static double *obs_at(const struct ftiod_machine *m, int fs, int mode, int64_t sec)
{
    return &m->obs[((size_t)fs * JOB_NMODES + (size_t)mode) * m->hist + (uint64_t)sec % m->hist];
}

double ftiod_machine_complete(const struct ftiod_machine *m)
{
    return m->obs_end ? (double)m->obs_end : -INFINITY;
}

double ftiod_machine_observed(const struct ftiod_machine *m, int fs, double a, double b)
{
    if (!m->obs_end || fs < 0 || fs >= m->nfs || a < (double)(m->obs_end - (int64_t)m->hist) ||
        b > (double)m->obs_end || !(b >= a))
        return NAN;
    double sum = 0;
    for (int64_t s = (int64_t)floor(a); (double)s < b; s++) {
        double o = fmin(b, (double)(s + 1)) - fmax(a, (double)s);
        if (o > 0)
            for (int md = 0; md < JOB_NMODES; md++)
                sum += *obs_at(m, fs, md, s) * o;
    }
    return sum;
}

double ftiod_machine_expected(const struct ftiod_machine *m, int fs, double a, double b)
{
    return m->has_fc ? ftio_fc_mean(&m->fc, (size_t)fs, a, b) : NAN;
}

struct ftio_dm_fit *ftiod_machine_site_fit(struct ftiod_machine *m)
{
    return &m->site;
}

struct ftio_dm_fit *ftiod_machine_app_fit(struct ftiod_machine *m, uint64_t app)
{
    if (!app)
        return NULL;
    for (size_t i = 0; i < m->napps; i++)
        if (m->apps[i].key == app)
            return m->apps[i].fit;
    if (m->napps == MACHINE_APPS)
        return NULL;
    struct ftio_dm_fit *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    ftio_dm_fit_init(f);
    m->apps[m->napps++] = (struct app_fit){ app, f };
    return f;
}

void ftiod_machine_note_latency(struct ftiod_machine *m, double latency)
{
    if (!m || !(latency >= 0))
        return;
    size_t k = 0;
    while (k < NLAT && latency > lat_bounds[k])
        k++;
    m->lat[k]++;
    m->lat_n++;
    m->lat_sum += latency;
}

/* ---- one tick --------------------------------------------------------------- */

/* The observed series moves on to `end` (its new seconds empty). */
static void obs_advance(struct ftiod_machine *m, int64_t end)
{
    if (!m->obs_end || end - m->obs_end >= (int64_t)m->hist) {
        memset(m->obs, 0, (size_t)MACHINE_MAX_FS * JOB_NMODES * m->hist * sizeof *m->obs);
    } else {
        for (int64_t s = m->obs_end; s < end; s++)
            for (int fs = 0; fs < MACHINE_MAX_FS; fs++)
                for (int md = 0; md < JOB_NMODES; md++)
                    *obs_at(m, fs, md, s) = 0;
    }
    if (end > m->obs_end)
        m->obs_end = end;
}

static void obs_add(void *ctx, int fs, int mode, int64_t sec, double bytes)
{
    struct ftiod_machine *m = ctx;
    if (fs < 0 || fs >= MACHINE_MAX_FS || sec >= m->obs_end || sec < m->obs_end - (int64_t)m->hist)
        return;                        /* replayed old data: not the machine's load now */
    *obs_at(m, fs, mode, sec) += bytes;
}

/* What a tick copies under the lock. */
struct snapshot {
    struct ftio_fc_train *tr;
    size_t ntr, trcap;
    char   **job;                      /* id of each train's job (by train.job) */
    int64_t *uid;
    size_t   njob, jobcap;
    double  *obs;                      /* [fs][mode][hist] in time order */
    int      nfs;
    int64_t  obs_end;
    char    *fs_name[MACHINE_MAX_FS];
};

static void snapshot_free(struct snapshot *s)
{
    for (size_t i = 0; i < s->njob; i++)
        free(s->job[i]);
    for (int i = 0; i < s->nfs; i++)
        free(s->fs_name[i]);
    free(s->tr);
    free(s->job);
    free(s->uid);
    free(s->obs);
    memset(s, 0, sizeof *s);
}

static int take_snapshot(struct ftiod *d, struct ftiod_machine *m, double now, struct snapshot *s)
{
    int64_t before = (int64_t)floor(now) - MACHINE_LAG + 1;
    obs_advance(m, before);
    double t = ftiod_now();
    if (m->rec_t > 0 && t > m->rec_t)
        m->rec_rate = (double)(d->stats.records - m->rec_prev) / (t - m->rec_t);
    m->rec_prev = d->stats.records;
    m->rec_t = t;
    m->live_jobs = 0;
    for (size_t i = 0; i < d->jobs.n; i++) {
        struct job *j = d->jobs.job[i];
        job_machine_drain(j, m, before, obs_add, m);
        if (j->closed || !j->mach)
            continue;
        m->live_jobs++;
        if (FTIO_GROW(s->tr, s->trcap, s->ntr + TRAINS_PER_JOB) < 0 ||
            FTIO_GROW(s->job, s->jobcap, s->njob + 1) < 0 ||
            !(s->uid = realloc(s->uid, s->jobcap * sizeof *s->uid)))
            return -1;
        size_t n = job_machine_trains(j, m, (uint32_t)s->njob, now, s->tr + s->ntr,
                                      TRAINS_PER_JOB);
        if (n == 0)
            continue;
        if (!(s->job[s->njob] = strdup(j->id)))
            return -1;
        s->uid[s->njob++] = j->uid;
        s->ntr += n;
    }
    s->nfs = m->nfs;
    s->obs_end = m->obs_end;
    for (int i = 0; i < m->nfs; i++)
        if (!(s->fs_name[i] = strdup(m->fs_name[i]))) {
            s->nfs = i;
            return -1;
        }
    size_t n = (size_t)s->nfs * JOB_NMODES * m->hist;
    if (!(s->obs = malloc((n ? n : 1) * sizeof *s->obs)))
        return -1;
    for (int fs = 0; fs < s->nfs; fs++)
        for (int md = 0; md < JOB_NMODES; md++)
            for (size_t k = 0; k < m->hist; k++)
                s->obs[((size_t)fs * JOB_NMODES + (size_t)md) * m->hist + k] =
                    *obs_at(m, fs, md, m->obs_end - (int64_t)m->hist + (int64_t)k);
    return 0;
}

/* A series as JSON: bytes/s as integers (whole bytes: the numbers stay
 * short), job counts with 3 decimals. */
static json_t *series(const double *v, size_t n, bool counts)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < n; k++)
        json_array_append_new(a, counts ? json_real(round(v[k] * 1000) / 1000)
                                        : json_integer((json_int_t)llround(v[k])));
    return a;
}

static const char *mode_word(int mode)
{
    return job_mode_name(mode);
}

/* Expected bytes of a train over the forecast. */
static double train_bytes(const struct ftio_fc_train *t, double t0, double t1)
{
    return ftio_fc_train_mean(t, t0, t1) * (t1 - t0);
}

struct rank { double bytes; size_t train; };

static int cmp_rank(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    return x->bytes > y->bytes ? -1 : x->bytes < y->bytes;
}

/* The message of a tick (PROTOCOL.md §2, Version 4 "machine"); *uids gets
 * the owner of each entry of "jobs". */
struct tick_cost { double cpu, held; };   /* CPU s of the tick so far, s the lock was held */

static json_t *message(const struct ftiod *d, const struct ftiod_machine *m,
                       const struct snapshot *s, const struct ftio_fc *fc, double now,
                       const struct tick_cost *cost, int64_t **uids)
{
    json_t *o = json_object(), *fsa = json_array(), *coll = json_array(), *jobs = json_array();
    if (!o || !fsa || !coll || !jobs) {
        json_decref(o);
        json_decref(fsa);
        json_decref(coll);
        json_decref(jobs);
        return NULL;
    }
    json_object_set_new(o, "v", json_integer(FTIO_PREDICTION_VERSION));
    json_object_set_new(o, "published", json_real(now));
    json_object_set_new(o, "step", json_real(1));
    for (int fs = 0; fs < s->nfs; fs++) {
        json_t *e = json_object(), *ob = json_object(), *fo = json_object();
        json_object_set_new(e, "fs", json_string(s->fs_name[fs]));
        json_object_set_new(ob, "start", json_integer((json_int_t)(s->obs_end - (int64_t)m->hist)));
        json_object_set_new(ob, "step", json_real(1));
        json_object_set_new(fo, "start", json_integer((json_int_t)llround(fc->t0)));
        json_object_set_new(fo, "step", json_real(1));
        uint64_t nc = 0;
        for (size_t c = 0; c < fc->ncoll; c++)
            nc += fc->coll[c].fs == fs;
        for (int md = 0; md < JOB_NMODES; md++) {
            json_object_set_new(ob, mode_word(md),
                                series(s->obs + ((size_t)fs * JOB_NMODES + (size_t)md) * m->hist,
                                       m->hist, false));
            json_object_set_new(fo, mode_word(md),
                                series(ftio_fc_rate(fc, (size_t)fs, md), fc->steps, false));
            json_object_set_new(fo, md == JOB_WRITE ? "writers" : "readers",
                                series(ftio_fc_active(fc, (size_t)fs, md), fc->steps, true));
        }
        json_object_set_new(e, "observed", ob);
        json_object_set_new(e, "forecast", fo);
        json_object_set_new(e, "collisions", json_integer((json_int_t)nc));
        json_array_append_new(fsa, e);
    }
    json_object_set_new(o, "fs", fsa);
    for (size_t c = 0; c < fc->ncoll; c++) {
        const struct ftio_fc_collision *k = &fc->coll[c];
        const struct ftio_fc_train *a = &s->tr[k->train[0]], *b = &s->tr[k->train[1]];
        json_array_append_new(
            coll, json_pack("{s:s, s:f, s:f, s:[s,s], s:[s,s], s:[f,f], s:f}", "fs",
                            s->fs_name[k->fs], "start", k->start, "end", k->end, "jobs",
                            s->job[a->job], s->job[b->job], "modes", mode_word(a->mode),
                            mode_word(b->mode), "bytes", k->bytes[0], k->bytes[1], "p", k->p));
    }
    json_object_set_new(o, "collisions", coll);
    json_object_set_new(o, "collisions_total", json_integer((json_int_t)fc->ncoll_total));
    /* The jobs of the largest expected bytes, each with its phases (the
     * bands of `ftio report --machine`). */
    struct rank *rk = malloc((s->ntr ? s->ntr : 1) * sizeof *rk);
    size_t listed = 0;
    *uids = malloc((d->cfg.machine_jobs ? d->cfg.machine_jobs : 1) * sizeof **uids);
    if (rk && *uids) {
        double t1 = fc->t0 + (double)fc->steps;
        for (size_t i = 0; i < s->ntr; i++)
            rk[i] = (struct rank){ train_bytes(&s->tr[i], fc->t0, t1), i };
        qsort(rk, s->ntr, sizeof *rk, cmp_rank);
        struct ftio_fc_phase ph[PHASES_PER_JOB];
        for (size_t i = 0; i < s->ntr && listed < d->cfg.machine_jobs; i++) {
            const struct ftio_fc_train *t = &s->tr[rk[i].train];
            size_t n = ftio_fc_train_phases(t, fc->t0, t1, ph, PHASES_PER_JOB);
            json_t *pa = json_array();
            for (size_t k = 0; k < n; k++)
                json_array_append_new(pa, json_pack("[f,f,f,f]", ph[k].start, ph[k].end,
                                                    ph[k].bytes, ph[k].p));
            json_array_append_new(
                jobs, json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:o}", "job", s->job[t->job],
                                "mode", mode_word(t->mode), "fs", s->fs_name[t->fs], "period",
                                ftio_json_number(t->period > 0 ? t->period : NAN), "confidence",
                                t->confidence, "expected_bytes", rk[i].bytes, "phases", pa));
            (*uids)[listed++] = s->uid[t->job];
        }
    }
    free(rk);
    json_object_set_new(o, "jobs", jobs);
    json_object_set_new(o, "jobs_live", json_integer((json_int_t)m->live_jobs));
    json_object_set_new(o, "trains", json_integer((json_int_t)s->ntr));
    json_object_set_new(o, "cost", json_real(cost->cpu));
    json_object_set_new(o, "lock", json_real(cost->held));
    return o;
}

static double mean_of(const double *v, size_t a, size_t b)
{
    double s = 0;
    for (size_t k = a; k < b; k++)
        s += v[k];
    return b > a ? s / (double)(b - a) : 0;
}

/* CPU seconds of the calling thread: what a tick costs ftiod, whatever
 * else runs on the machine. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void tick(struct ftiod *d, struct ftiod_machine *m, struct ftio_fc *fc)
{
    double now = (double)ftio_real_ns() * 1e-9, cpu_begin = thread_cpu();
    struct snapshot s = { 0 };
    pthread_mutex_lock(&d->lock);
    double held = ftiod_now();
    int rc = take_snapshot(d, m, now, &s);
    held = ftiod_now() - held;
    pthread_mutex_unlock(&d->lock);
    if (rc != 0 || ftio_fc_compute(fc, s.tr, s.ntr, (size_t)s.nfs, floor(now), m->steps,
                                   COLLISIONS_PER_FS, COLLISION_MIN_P) != 0) {
        ftiod_log_at(FTIOD_WARNING, "machine forecast: out of memory");
        snapshot_free(&s);
        return;
    }
    int64_t *uids = NULL;
    struct tick_cost tc = { thread_cpu() - cpu_begin, held };
    json_t *msg = message(d, m, &s, fc, now, &tc, &uids);
    double cost = thread_cpu() - cpu_begin;
    bool log = d->cfg.machine_log > 0 &&
               (m->ticks == 0 || (uint64_t)floor(now) % (uint64_t)d->cfg.machine_log == 0);

    pthread_mutex_lock(&d->lock);
    struct ftio_fc old = m->fc;            /* the analysis threads read the new one */
    m->fc = *fc;
    *fc = old;
    m->has_fc = true;
    json_decref(m->last);
    m->last = json_incref(msg);
    free(m->last_uid);
    m->last_uid = uids;
    m->cost = cost;
    m->ticks++;
    m->trains = s.ntr;
    m->nsum = s.nfs;
    m->collisions = m->fc.ncoll_total;
    for (int fs = 0; fs < s.nfs; fs++) {
        struct fs_summary *u = &m->sum[fs];
        memset(u, 0, sizeof *u);
        for (int md = 0; md < JOB_NMODES; md++) {
            const double *ob = s.obs + ((size_t)fs * JOB_NMODES + (size_t)md) * m->hist;
            u->observed[md] = mean_of(ob, m->hist - 10, m->hist);
            u->expected[md] = mean_of(ftio_fc_rate(&m->fc, (size_t)fs, md), 0,
                                      m->steps < 60 ? m->steps : 60);
            u->active[md] = mean_of(ftio_fc_active(&m->fc, (size_t)fs, md), 0,
                                    m->steps < 10 ? m->steps : 10);
        }
        for (size_t c = 0; c < m->fc.ncoll; c++)
            u->collisions += m->fc.coll[c].fs == fs;
    }
    pthread_mutex_unlock(&d->lock);
    snapshot_free(&s);
    if (msg)
        ftiod_publish_to(d, MACHINE_TOPIC, msg, log ? FTIOD_PUB_LOG : 0);
}

static void *machine_main(void *arg)
{
    struct ftiod *d = arg;
    struct ftiod_machine *m = d->machine;
    struct ftio_fc fc = { 0 };
    while (!d->stop) {
        /* On the wall clock's next second (a little after it). */
        double now = (double)ftio_real_ns() * 1e-9, next = floor(now) + 1.02;
        while (!d->stop && now < next) {
            double w = fmin(0.1, next - now);
            struct timespec ts = { 0, (long)(w * 1e9) };
            nanosleep(&ts, NULL);
            now = (double)ftio_real_ns() * 1e-9;
        }
        if (!d->stop)
            tick(d, m, &fc);
    }
    ftio_fc_free(&fc);
    return NULL;
}

int ftiod_machine_start(struct ftiod *d)
{
    if (!d->machine)
        return 0;
    if (pthread_create(&d->machine->th, NULL, machine_main, d) != 0)
        return -1;
    d->machine->running = true;
    return 0;
}

void ftiod_machine_stop(struct ftiod *d)
{
    if (!d->machine || !d->machine->running)
        return;
    d->stop = 1;
    pthread_join(d->machine->th, NULL);
    d->machine->running = false;
}

/* ---- who sees what ------------------------------------------------------------ */

json_t *ftiod_machine_view(struct ftiod *d, bool admin, int64_t uid)
{
    struct ftiod_machine *m = d->machine;
    pthread_mutex_lock(&d->lock);
    json_t *o = m && m->last ? json_deep_copy(m->last) : NULL;
    size_t nj = o ? json_array_size(json_object_get(o, "jobs")) : 0;
    int64_t *uids = NULL;
    if (nj && (uids = malloc(nj * sizeof *uids)))
        memcpy(uids, m->last_uid, nj * sizeof *uids);
    pthread_mutex_unlock(&d->lock);
    if (!o) {
        free(uids);
        return json_pack("{s:s}", "error", "no machine forecast yet (one comes every second)");
    }
    if (!admin) {
        /* A user: the totals, their own jobs' phases, and their own
         * collisions without the other job's name. */
        json_t *jobs = json_object_get(o, "jobs"), *mine = json_array(), *keep = json_array();
        for (size_t i = 0; i < nj; i++)
            if (uids && uid >= 0 && uids[i] == uid)
                json_array_append(mine, json_array_get(jobs, i));
        json_t *coll = json_object_get(o, "collisions");
        size_t k;
        json_t *c;
        json_array_foreach(coll, k, c) {
            json_t *js = json_object_get(c, "jobs");
            bool a = false, b = false;
            for (size_t i = 0; i < json_array_size(mine); i++) {
                const char *id = json_string_value(json_object_get(json_array_get(mine, i), "job"));
                a |= id && json_string_value(json_array_get(js, 0)) &&
                     strcmp(id, json_string_value(json_array_get(js, 0))) == 0;
                b |= id && json_string_value(json_array_get(js, 1)) &&
                     strcmp(id, json_string_value(json_array_get(js, 1))) == 0;
            }
            if (!a && !b)
                continue;
            json_t *x = json_deep_copy(c);
            json_array_set_new(json_object_get(x, "jobs"), a ? 1 : 0, json_null());
            json_array_append_new(keep, x);
        }
        json_object_set_new(o, "jobs", mine);
        json_object_set_new(o, "collisions", keep);
        json_object_set_new(o, "view", json_string("user"));
    } else {
        json_object_set_new(o, "view", json_string("admin"));
    }
    free(uids);
    return o;
}

/* ---- metrics ------------------------------------------------------------------ */

/* A label value in the text format: backslash, quote and newline escaped. */
static void label(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
}

double ftiod_machine_records_rate(const struct ftiod_machine *m)
{
    return m ? m->rec_rate : 0;
}

void ftiod_machine_metrics(const struct ftiod_machine *m, FILE *f)
{
    if (!m)
        return;
    fputs("# HELP ftiod_prediction_latency_seconds From the end of an analysis window to its "
          "prediction (--settle included).\n# TYPE ftiod_prediction_latency_seconds histogram\n", f);
    uint64_t cum = 0;
    for (size_t k = 0; k < NLAT; k++) {
        cum += m->lat[k];
        fprintf(f, "ftiod_prediction_latency_seconds_bucket{le=\"%g\"} %llu\n", lat_bounds[k],
                (unsigned long long)cum);
    }
    fprintf(f, "ftiod_prediction_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
            (unsigned long long)m->lat_n);
    fprintf(f, "ftiod_prediction_latency_seconds_sum %.6f\n", m->lat_sum);
    fprintf(f, "ftiod_prediction_latency_seconds_count %llu\n", (unsigned long long)m->lat_n);
    fprintf(f, "# HELP ftiod_machine_forecast_seconds CPU time the last machine forecast took.\n"
               "# TYPE ftiod_machine_forecast_seconds gauge\nftiod_machine_forecast_seconds %.6f\n",
            m->cost);
    fprintf(f, "# HELP ftiod_machine_trains Predicted phase trains in the last forecast.\n"
               "# TYPE ftiod_machine_trains gauge\nftiod_machine_trains %zu\n", m->trains);
    fprintf(f, "# HELP ftiod_collisions_predicted Phases of two jobs predicted to overlap on one "
               "file system within the horizon.\n# TYPE ftiod_collisions_predicted gauge\n"
               "ftiod_collisions_predicted %llu\n", (unsigned long long)m->collisions);
    static const struct { const char *name, *help; int what; } series[] = {
        { "ftiod_observed_bytes_per_second", "Aggregate bandwidth of every job, mean of the last "
          "10 complete seconds.", 0 },
        { "ftiod_forecast_bytes_per_second", "Predicted aggregate bandwidth, mean of the next 60 "
          "s.", 1 },
        { "ftiod_forecast_jobs_in_phase", "Predicted number of jobs in an I/O phase, mean of the "
          "next 10 s.", 2 },
    };
    for (size_t q = 0; q < sizeof series / sizeof series[0]; q++) {
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", series[q].name, series[q].help,
                series[q].name);
        for (int fs = 0; fs < m->nsum; fs++)
            for (int md = 0; md < JOB_NMODES; md++) {
                const struct fs_summary *u = &m->sum[fs];
                double v = series[q].what == 0 ? u->observed[md]
                           : series[q].what == 1 ? u->expected[md] : u->active[md];
                fprintf(f, "%s{fs=\"", series[q].name);
                label(f, m->fs_name[fs]);
                fprintf(f, "\",mode=\"%s\"} %.6g\n", mode_word(md), v);
            }
    }
}
