/* scheduler.c -- the analysis thread of ftiod (ALGORITHM.md §5, §6).
 *
 * Each (job, mode) runs the online loop of the analysis library
 * (ftio_online_step): one analysis per data-time boundary, every --step
 * seconds of the job's data, the same boundaries `ftio --window` uses, so a
 * replayed trace gives the messages the offline tool prints.  A boundary is
 * due once the data has passed it by --settle seconds (the records of every
 * rank for that window have arrived), at once after a `mark` (the
 * application flushed), or, for live data, once the wall clock has passed
 * it by --settle; boundaries are taken in order, and those whose last step
 * holds no data are skipped by the loop (nothing new to say).  Under the
 * lock the thread copies the window's bins and the loop's state, drops the
 * lock to analyse, takes it again to store the result and build the JSON,
 * and publishes outside it: ingest never waits for an analysis.  Jobs whose
 * processes all sent `final`, that were silent for --job-timeout, or all
 * jobs at shutdown get their remaining boundaries, then a last analysis of
 * the whole job and their `ftio.<job>.end` summary; an ended job is kept
 * --late-batches seconds for a corrected end, then removed (see daemon.h for
 * who removes what).  The summary is laid on the mode's earliest
 * record when the live grid has no edge there (relay_summary), so it is what
 * the offline `ftio` says of the complete trace.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon.h"
#include "jobid.h"
#include "report.h"
#include "timeutil.h"

/* Data whose end lags the wall clock by more than this is not live. */
#define LIVE_LAG 300.0
/* Late batches of an ended job are taken together: the corrected end waits
 * until none came for this long (a replay sends them back to back). */
#define REVISION_SETTLE 1.0

struct analysis {
    struct ftiod *d;
    struct ftio_analyzer *an;
    struct ftio_samples x;
    struct ftio_bins bins;           /* private copy of a window's bins */
    struct ftio_online online;       /* private copy of a mode's loop */
    struct ftio_online_update upd;
    struct ftio_result res;
    struct ftiod_ratelimit rl_err;
};

/* ---- JSON of one (job, mode) ---------------------------------------------- */

/* Phase referred to relative time 0 -> referred to the Unix epoch. */
static double epoch_phase(double phase, double f, double origin)
{
    double turns = fmod(f * origin, 1.0);
    double p = phase - 2.0 * M_PI * turns;
    p = fmod(p, 2.0 * M_PI);
    if (p > M_PI)
        p -= 2.0 * M_PI;
    else if (p <= -M_PI)
        p += 2.0 * M_PI;
    return p;
}

/* "job" (the id as sent, topics use it) plus "jobid" and "step": a
 * step-qualified id "<job>.<step>" (Slurm, common/jobid.h) split, else the
 * id and null (PROTOCOL.md §2). */
static void set_job_fields(json_t *o, const char *id)
{
    size_t cap = strlen(id) + 1;
    char job[cap], step[cap];
    int stepped = ftio_job_split(id, job, cap, step, cap);
    json_object_set_new(o, "job", json_string(id));
    json_object_set_new(o, "jobid", json_string(job));
    json_object_set_new(o, "step", stepped ? json_string(step) : json_null());
}

/* The §2 prediction object of mode m (caller holds the lock). */
json_t *ftiod_prediction_json(const struct job *j, int mode)
{
    const struct job_mode_state *m = &j->mode[mode];
    double origin = (double)j->origin_ns * 1e-9;
    struct ftio_result r = m->last;   /* shifted copy: epoch times */
    r.t0 += origin;
    r.t1 += origin;
    if (r.next.valid) {
        r.next.start += origin;
        r.next.end += origin;
    }
    if (r.has_period)
        r.dominant.phase = epoch_phase(r.dominant.phase, r.dominant.frequency, origin);
    for (size_t i = 0; i < r.ncand && i < FTIO_MAX_CANDIDATES; i++)
        r.cand[i].phase = epoch_phase(r.cand[i].phase, r.cand[i].frequency, origin);
    for (size_t i = 0; i < r.ntop && i < FTIO_MAX_CANDIDATES; i++)
        r.top[i].phase = epoch_phase(r.top[i].phase, r.top[i].frequency, origin);

    json_t *o = ftio_report_json(&r, job_mode_name(mode));
    if (!o)
        return NULL;
    set_job_fields(o, j->id);
    json_object_set_new(o, "seq", json_integer((json_int_t)m->pub_seq));
    json_object_set_new(o, "published", json_real((double)ftio_real_ns() * 1e-9));
    struct ftio_online_update u = m->update;
    if (u.stale)
        u.since += origin;
    ftio_report_json_online(o, &u);
    struct ftio_report_totals t = {
        .ranks = (int64_t)j->nprocs, .bytes = m->bytes,
        .records = (int64_t)m->records, .lost = j->lost,
    };
    ftio_report_json_totals(o, &t);
    return o;
}

static char *topic_of(const char *job, const char *what)
{
    size_t n = strlen(job) + strlen(what) + 7;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "ftio.%s.%s", job, what);
    return t;
}

/* ---- one analysis ------------------------------------------------------------ */

/* The last edge of the mode's grid at or before t (1e-9 bins of slack for
 * times computed as sums). */
static double grid_floor(const struct ftio_bins *b, double t)
{
    return b->origin + floor((t - b->origin) * b->fs + 1e-9) / b->fs;
}

/* The summary of a mode whose earliest record is not on its grid (it came
 * after the first one: a late rank, an out-of-order replay): lay a grid on
 * the earliest record from the mode's record log and sample [t_min, t_max]
 * from it, as the offline `ftio` samples the complete trace from its t_0.
 * Only when the log is complete and nothing fell off the horizon; false
 * otherwise (the caller stays on the live grid).  Caller holds the lock: it
 * costs O(records + bins), once per job and mode. */
static bool relay_summary(struct analysis *a, const struct job *j, int mode)
{
    const struct job_mode_state *m = &j->mode[mode];
    const struct ftiod_config *c = &a->d->cfg;
    const struct job_record_log *l = &m->log;
    const struct ftio_bins *live = &m->bins;
    if (m->t_min == m->grid_t0 || l->overflow || l->n == 0 ||
        m->t_min < live->origin + (double)live->first / live->fs || live->dropped_bytes > 0)
        return false;
    struct ftio_bins b;
    size_t cap = (size_t)ceil((m->t_max - m->t_min) * c->limits.fs) + 2;
    if (ftio_bins_init(&b, c->limits.fs, m->t_min, cap) < 0)
        return false;
    for (size_t i = 0; i < l->n; i++)
        ftio_bins_add(&b, l->t_start[i], l->t_end[i], l->bytes[i]);
    bool ok = b.dropped_bytes == 0 &&
              ftio_bins_samples_mode(&b, m->t_min, m->t_max, c->opts.sampling, &a->x) == 0 &&
              a->x.n > 0;
    ftio_bins_free(&b);
    if (ok && c->verbose)
        ftiod_log_at(FTIOD_DEBUG,
                     "job %s %s: summary re-laid on the earliest record, %.9f s before "
                     "the grid's", j->id, job_mode_name(mode), m->grid_t0 - m->t_min);
    return ok;
}

/* The mode's online loop, its boundaries laid from its first record (the
 * grid's edge 0), as `ftio --window` lays them from the trace's first event. */
static void online_ready(const struct ftiod_config *c, struct job_mode_state *m)
{
    if (m->online_init)
        return;
    ftio_online_init(&m->online, &c->opts, c->step, c->window, m->grid_t0);
    m->boundary = ftio_online_next_boundary(&m->online, m->grid_t0);
    m->online_init = true;
    /* Rebuilt from --state-dir: the daemon that died published the boundaries
     * up to the data's end; go on from there. */
    if (m->restored && m->boundary <= m->t_max)
        m->boundary = ftio_online_next_boundary(&m->online, m->t_max);
    m->restored = false;
}

/* Job-relative wall clock, and whether the job's data is live (its end
 * lags the clock by less than LIVE_LAG: not a replay of old spool files). */
static double job_now(const struct job *j)
{
    return (double)(ftio_real_ns() - j->origin_ns) * 1e-9;
}

static bool is_live(const struct job_mode_state *m, double now_rel)
{
    return now_rel - m->t_max < LIVE_LAG;
}

/* Boundaries whose window's data has left the horizon (the ring of bins
 * keeps --horizon seconds behind the data's end) are not analysed one by
 * one: the next is the first whose last step the bins still hold.  This
 * bounds the boundaries of any job by horizon / step however far apart its
 * records lie (a clock that jumps, a replay of a long job), in O(1).  Caller
 * holds the lock. */
static void skip_lost_boundaries(const struct ftiod_config *c, struct job_mode_state *m)
{
    double kept = m->t_max - c->limits.horizon + m->online.step;
    if (m->boundary < kept)
        m->boundary = ftio_online_next_boundary(&m->online, kept);
}

/* Is the next boundary of (j, mode) due (after skipping those the horizon
 * lost)?  Caller holds the lock. */
static bool boundary_due(const struct ftiod *d, const struct job *j,
                         struct job_mode_state *m, double now_mono, bool ending)
{
    if (!m->has_data || !m->online_init)
        return false;
    skip_lost_boundaries(&d->cfg, m);
    double b = m->boundary;
    if (ending)                       /* every boundary up to the data's end */
        return b < m->t_max + m->online.step;
    if (m->t_max >= b + d->cfg.settle || (m->flush && m->t_max >= b))
        return true;
    double now_rel = job_now(j);
    return is_live(m, now_rel) && m->dirty && now_rel >= b + d->cfg.settle &&
           now_mono - m->last_run >= d->cfg.min_interval;
}

/* --verbose: the analysis in the words of `ftio` (ftio_report_line) as one
 * debug line. */
static void log_result(const struct job *j, const struct ftio_result *r, int mode)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    ftio_report_line(f, r, job_mode_name(mode));
    if (fclose(f) == 0 && text) {
        while (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
        ftiod_log_at(FTIOD_DEBUG, "job %s %s", j->id, text);
    }
    free(text);
}

/* One step of the online loop of (j, mode) at its next boundary; publish
 * what it says.  Enters and leaves with the lock held; drops it while
 * computing and publishing. */
static void analyse_boundary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    struct job_mode_state *m = &j->mode[mode];
    double b = m->boundary;
    double ts = ftio_online_window_start(&m->online, b);
    bool ok = ftio_bins_copy(&m->bins, ts - m->online.step, b, &a->bins) == 0;
    a->online = m->online;
    m->boundary = ftio_online_next_boundary(&m->online, b);
    if (m->t_max <= b)
        m->dirty = false;             /* everything received is in this window */
    if (m->boundary > m->t_max)
        m->flush = false;
    /* The next phase is predicted after "now": the wall clock while the job
     * is live (between bursts the data end lags behind; the daemon's clock
     * is the shims' on one host, NTP-close across nodes), the boundary for
     * old data (a replay of last week's spool files), as `ftio --window`. */
    double now_rel = job_now(j);
    double now = is_live(m, now_rel) && now_rel > b ? now_rel : b;
    pthread_mutex_unlock(&d->lock);

    char err[256] = "";
    int rc = ok ? ftio_online_step(&a->online, a->an, &a->bins, b, now, &a->x, &a->upd,
                                   err, sizeof err)
                : -1;
    if (!ok)
        snprintf(err, sizeof err, "out of memory copying the window");

    pthread_mutex_lock(&d->lock);
    m->online = a->online;
    m->last_run = ftiod_now();
    if (rc != 0) {
        if (rc < 0 && d->cfg.verbose) {
            pthread_mutex_unlock(&d->lock);
            ftiod_log_rl_at(&a->rl_err, FTIOD_DEBUG, "job %s %s: no analysis at %.3f s: %s",
                            j->id, job_mode_name(mode), b, err);
            pthread_mutex_lock(&d->lock);
        }
        return;
    }
    d->stats.analyses++;
    m->last = a->upd.res;
    m->update = a->upd;
    m->has_result = true;
    m->pub_seq++;
    json_t *o = ftiod_prediction_json(j, mode);
    char *topic = topic_of(j->id, job_mode_name(mode));
    pthread_mutex_unlock(&d->lock);

    if (o && topic)
        ftiod_publish(d, topic, o);
    else
        json_decref(o);
    free(topic);
    if (d->cfg.verbose)
        log_result(j, &a->upd.res, mode);
    pthread_mutex_lock(&d->lock);
}

/* The summary of (j, mode): the whole job, whole bins, like the offline
 * `ftio` on the complete trace, on a grid from its earliest record when the
 * live grid has no edge there.  Caller holds the lock; it is dropped while
 * computing. */
static void analyse_summary(struct analysis *a, struct job *j, int mode)
{
    struct ftiod *d = a->d;
    const struct ftiod_config *c = &d->cfg;
    struct job_mode_state *m = &j->mode[mode];
    const struct ftio_bins *bins = &m->bins;
    bool ok = relay_summary(a, j, mode);
    if (!ok) {
        double ts = grid_floor(bins, m->t_min);
        double oldest = grid_floor(bins, m->t_max) - c->limits.horizon;   /* kept bins */
        if (ts < oldest)
            ts = oldest;
        ok = ftio_bins_samples_mode(bins, ts, m->t_max, c->opts.sampling, &a->x) == 0 &&
             a->x.n > 0;
    }
    if (!ok)
        return;
    pthread_mutex_unlock(&d->lock);
    char err[256] = "";
    int rc = ftio_analyze(a->an, &a->x, &c->opts, a->x.t1, &a->res, err, sizeof err);
    pthread_mutex_lock(&d->lock);
    d->stats.analyses++;
    if (rc != 0) {
        if (c->verbose)
            ftiod_log_at(FTIOD_DEBUG, "job %s %s: no summary: %s", j->id, job_mode_name(mode), err);
        return;
    }
    m->last = a->res;
    m->last.phases = NULL;
    m->last.nphases = 0;
    m->update.res = m->last;
    m->update.stale = false;
    m->update.since = NAN;
    m->update.has_error = m->online.has_error;
    m->update.last_error = m->online.last_error;
    m->update.p_periodic = ftio_history_p_periodic(&m->online.hist);
    m->has_result = true;
    if (c->verbose)
        log_result(j, &m->last, mode);
}

/* The remaining boundaries of every mode, the summary of the whole job, the
 * end message.  The job is then kept --late-batches seconds: batches that
 * arrive in that time (a spool file replayed) are merged into it and lead to
 * a corrected end message, the next `revision` (PROTOCOL.md §2). */
static void end_job(struct analysis *a, struct job *j, const char *why)
{
    struct ftiod *d = a->d;
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        struct job_mode_state *m = &j->mode[mode];
        if (!m->has_data)
            continue;
        online_ready(&d->cfg, m);
        /* A daemon told to stop without --state-dir gives each job its
         * summary at once, not the boundaries still queued. */
        while (!d->stop && boundary_due(d, j, m, ftiod_now(), true))
            analyse_boundary(a, j, mode);
        analyse_summary(a, j, mode);
    }
    json_t *o = json_object();
    json_t *sum = json_object();
    set_job_fields(o, j->id);
    for (int mode = 0; mode < JOB_NMODES; mode++)
        if (j->mode[mode].has_result)
            json_object_set_new(sum, job_mode_name(mode), ftiod_prediction_json(j, mode));
    json_object_set_new(o, "summary", sum);
    /* What the summary is worth (PROTOCOL.md §2): decided by job.c. */
    struct job_verdict v = job_end_verdict(j, why);
    why = v.ended_by;
    uint64_t without_final = j->nprocs - j->nfinal;
    json_object_set_new(o, "complete", json_boolean(v.complete));
    json_object_set_new(o, "incomplete", v.reason ? json_string(v.reason) : json_null());
    json_object_set_new(o, "ended_by", json_string(why));
    json_object_set_new(o, "missing_batches", json_integer((json_int_t)j->lost_batches));
    json_object_set_new(o, "lost_records", json_integer((json_int_t)j->lost));
    json_t *dropped = json_object();
    for (int k = 0; k < JOB_NDROPS; k++)
        json_object_set_new(dropped, job_drop_name(k), json_integer((json_int_t)j->dropped[k]));
    json_object_set_new(o, "dropped_records", dropped);
    json_object_set_new(o, "counters_clamped", json_boolean(j->clamped));
    json_object_set_new(o, "clocks_corrected", json_integer((json_int_t)j->clock_fixed));
    json_object_set_new(o, "clocks_flagged", json_integer((json_int_t)j->clock_flagged));
    json_object_set_new(o, "processes", json_integer((json_int_t)j->nprocs));
    json_object_set_new(o, "processes_without_final", json_integer((json_int_t)without_final));
    json_object_set_new(o, "revision", json_integer((json_int_t)j->revision));
    json_object_set_new(o, "bytes", json_real(j->bytes));
    char *topic = topic_of(j->id, "end");
    if (d->cfg.verbose || j->revision)
        ftiod_log("job %s: ended (%s%s): %llu records, %llu lost, %llu batches missing",
                  j->id, why, j->revision ? ", corrected by late batches" : "",
                  (unsigned long long)j->data_records,
                  (unsigned long long)j->lost, (unsigned long long)j->lost_batches);
    ftiod_ended_add(d, j, o);
    ftiod_state_end(d->state, j, j->revision, why);
    snprintf(j->ended_by, sizeof j->ended_by, "%s", why);
    j->closed = true;
    j->reopened = false;
    j->told = false;
    j->closed_at = ftiod_now();
    j->revision++;
    pthread_mutex_unlock(&d->lock);
    if (topic)
        ftiod_publish(d, topic, o);
    else
        json_decref(o);
    free(topic);
    pthread_mutex_lock(&d->lock);
}

/* One pass over the jobs: at most one piece of work, so the lock is released
 * often.  Returns true when it did something. */
static bool work_once(struct analysis *a, bool stopping)
{
    struct ftiod *d = a->d;
    double now = ftiod_now();
    for (size_t i = 0; i < d->jobs.n; i++) {
        struct job *j = d->jobs.job[i];
        if (j->closed) {
            /* Ended.  Late batches: a corrected end once they stop coming (a
             * replay sends many); else forgotten after --late-batches (--status and `last` still
             * know its end message: --keep-ended). */
            if (stopping)
                continue;
            if (j->reopened && now - j->last_activity > REVISION_SETTLE) {
                char why[sizeof j->ended_by];
                snprintf(why, sizeof why, "%s", j->ended_by);
                end_job(a, j, why);
                return true;
            }
            if (!j->reopened && now - j->closed_at > d->cfg.late_batches &&
                now - j->last_activity > d->cfg.late_batches) {
                ftiod_state_forget(d->state, j);
                job_table_remove(&d->jobs, j);
                return true;
            }
            continue;
        }
        /* With --state-dir a stopping daemon leaves its jobs to the next one. */
        if (stopping && d->state)
            continue;
        bool over = job_due_to_end(j, now, d->cfg.settle_end);
        if (stopping || over || j->told || now - j->last_activity > d->cfg.job_timeout) {
            end_job(a, j, stopping ? "shutdown" : over ? "final" : j->told ? "told" : "timeout");
            return true;
        }
        for (int mode = 0; mode < JOB_NMODES; mode++) {
            struct job_mode_state *m = &j->mode[mode];
            if (!m->has_data)
                continue;
            online_ready(&d->cfg, m);
            if (boundary_due(d, j, m, now, false)) {
                analyse_boundary(a, j, mode);
                return true;
            }
        }
    }
    return false;
}

static void *analysis_main(void *arg)
{
    struct analysis *a = arg;
    struct ftiod *d = a->d;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        if (d->reopen) {          /* SIGHUP: between two --log lines */
            d->reopen = 0;
            pthread_mutex_unlock(&d->lock);
            ftiod_publish_reopen(d);
            pthread_mutex_lock(&d->lock);
        }
        bool stopping = d->stop;
        if (work_once(a, stopping))
            continue;
        if (stopping)
            break;
        /* Nothing due: sleep until woken by a mark/final or 20 ms pass (the
         * --min-interval granularity). */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&d->wake, &d->lock, &ts);
    }
    d->analysis_done = true;
    pthread_mutex_unlock(&d->lock);
    ftio_samples_free(&a->x);
    ftio_bins_free(&a->bins);
    ftio_analyzer_free(a->an);
    free(a);
    return NULL;
}

int ftiod_analysis_start(struct ftiod *d, pthread_t *th)
{
    struct analysis *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    a->d = d;
    a->an = ftio_analyzer_new();
    if (!a->an) {
        free(a);
        return -1;
    }
    if (pthread_create(th, NULL, analysis_main, a) != 0) {
        ftio_analyzer_free(a->an);
        free(a);
        return -1;
    }
    return 0;
}
