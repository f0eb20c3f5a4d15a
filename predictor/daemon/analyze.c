/* analyze.c -- the analysis thread of ftiod (ALGORITHM.md §5, §6).
 *
 * Loop: under the lock, pick the next due (job, mode) -- new data and either
 * --min-interval elapsed since its last analysis or a `mark` (explicit flush)
 * arrived -- copy its window of bins into a private sample buffer, and drop
 * the lock; run ftio_analyze() on the copy; score the previous prediction
 * against the fresh samples; take the lock again to store the result, advance
 * the adaptive window and the frequency history, and build the JSON; publish
 * outside the lock.  Jobs whose processes all sent `final`, that were silent
 * for --job-timeout, or all jobs at shutdown get a last analysis and their
 * `ftio.<job>.end` summary, then are removed (only this thread removes jobs).
 * Samples are taken with --sampling (average by default, hold for the
 * offline [compat] result); the summary is laid on the mode's earliest record
 * when the live grid has no edge there (relay_summary), so it is what the
 * offline `ftio` says of the complete trace.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon.h"
#include "report.h"
#include "timeutil.h"

enum score { SCORE_WAIT, SCORE_HIT, SCORE_MISS };

/* Data whose end lags the wall clock by more than this is not live. */
#define LIVE_LAG 300.0

struct analysis {
    struct ftiod *d;
    struct ftio_analyzer *an;
    struct ftio_samples x;
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

/* The §2 prediction object of mode m (caller holds the lock). */
static json_t *mode_json(const struct job *j, int mode)
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
    json_object_set_new(o, "job", json_string(j->id));
    json_object_set_new(o, "seq", json_integer((json_int_t)m->pub_seq));
    json_object_set_new(o, "published", json_real((double)ftio_real_ns() * 1e-9));
    if (m->has_error) {
        json_t *e = json_object();
        json_object_set_new(e, "start", ftio_json_number(m->last_error));
        json_object_set_new(o, "last_error", e);
    } else {
        json_object_set_new(o, "last_error", json_null());
    }
    json_object_set_new(o, "p_periodic", ftio_json_number(m->p_periodic));
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
        ftiod_log("job %s %s: summary re-laid on the earliest record, %.9f s before "
                  "the grid's", j->id, job_mode_name(mode), m->grid_t0 - m->t_min);
    return ok;
}

/* Copy the window of (j, mode) into a->x.  Caller holds the lock. */
static bool take_window(struct analysis *a, struct job *j, int mode, double now, bool final)
{
    const struct ftiod_config *c = &a->d->cfg;
    struct job_mode_state *m = &j->mode[mode];
    const struct ftio_bins *bins = &m->bins;
    if (!m->win_init) {
        ftio_window_init(&m->win, m->t_min, c->window);
        m->win_init = true;
    }
    if (m->t_min < m->win.job_start) {
        /* Earlier data from a late rank: widen the job's start. */
        if (m->win.start <= m->win.job_start)
            m->win.start = m->t_min;
        m->win.job_start = m->t_min;
    }
    m->dirty = false;
    m->flush = false;
    m->last_run = now;
    /* The final analysis (the job's summary) is over everything kept since
     * the job's start, whatever the live window: the job's complete trace,
     * as the offline `ftio` would analyse it, on a grid from its earliest
     * record when that is not the live grid's edge. */
    if (final && relay_summary(a, j, mode))
        return true;
    /* A fixed window is a whole number of bins ending at the last complete
     * one, so N stays the same from one analysis to the next (cached plans). */
    double ts = c->window > 0 ? grid_floor(bins, m->t_max) - c->window : m->win.start;
    if (final || ts <= m->t_min) {
        /* From the job's start: the whole bin holding it (an edge at the
         * mode's first record received, see job.h). */
        ts = grid_floor(bins, m->t_min);
    }
    double oldest = grid_floor(bins, m->t_max) - c->limits.horizon;   /* kept bins */
    if (ts < oldest)
        ts = oldest;
    /* Live, the newest bin is still filling but holds the burst that just
     * ended: include it.  The final analysis takes whole bins only, like the
     * offline `ftio` (N = floor((t_last - t_0) fs)), so that a job's summary
     * is what `ftio` says of its complete trace. */
    double te = final ? m->t_max : m->t_max + 1.0 / c->limits.fs;
    return ftio_bins_samples_mode(bins, ts, te, c->opts.sampling, &a->x) == 0 && a->x.n > 0;
}

/* Analyse (j, mode) now; publish unless the analysis failed.  Enters and
 * leaves with the lock held; drops it while computing and publishing. */
static void analyse(struct analysis *a, struct job *j, int mode, bool final)
{
    struct ftiod *d = a->d;
    struct job_mode_state *m = &j->mode[mode];
    double now = ftiod_now();
    if (!take_window(a, j, mode, now, final))
        return;
    /* The next phase is predicted after "now": the wall clock while the job
     * is live (between bursts the data end lags behind; the daemon's clock is
     * the shims' on one host, NTP-close across nodes), the end of the data
     * for the final analysis and for old data (a replay of last week's
     * spool files). */
    double now_rel = (double)(ftio_real_ns() - j->origin_ns) * 1e-9;
    bool pending = m->pending;
    struct ftio_next_phase pred = m->pred;
    double period = m->pred_period;
    pthread_mutex_unlock(&d->lock);

    char err[256] = "";
    double after = a->x.t1;
    if (!final && now_rel > after && now_rel - after < LIVE_LAG)
        after = now_rel;
    int rc = ftio_analyze(a->an, &a->x, &d->cfg.opts, after, &a->res, err, sizeof err);
    /* Score the pending prediction (§5); give up on it two periods after
     * its start without a substantial sample. */
    double actual, error = 0;
    enum score sc = SCORE_WAIT;
    if (pending) {
        /* "The first substantial sample after next.start", looked for from
         * half a period earlier: a burst that began a little before the
         * predicted start is an early arrival (small negative error), not a
         * miss scored against the following burst (error ~ +1 period). */
        struct ftio_next_phase from = pred;
        from.start -= period / 2;
        if (ftio_next_phase_score(&from, &a->x, &actual, &error) == 0) {
            error = actual - pred.start;
            sc = SCORE_HIT;
        } else if (a->x.t1 > pred.start + 2 * period) {
            sc = SCORE_MISS;
        }
    }

    pthread_mutex_lock(&d->lock);
    d->stats.analyses++;
    if (sc == SCORE_HIT) {
        m->has_error = true;
        m->last_error = error;
        m->scored++;
        m->pending = false;
    } else if (sc == SCORE_MISS) {
        m->missed++;
        m->pending = false;
    }
    if (rc < 0) {
        pthread_mutex_unlock(&d->lock);
        if (d->cfg.verbose)
            ftiod_log_rl(&a->rl_err, "job %s %s: no analysis: %s", j->id,
                         job_mode_name(mode), err);
        pthread_mutex_lock(&d->lock);
        return;
    }
    m->last = a->res;
    m->has_result = true;
    m->pub_seq++;
    ftio_window_update(&m->win, &a->res, a->res.t1);
    ftio_history_add(&m->hist, &a->res);
    m->p_periodic = ftio_history_p_periodic(&m->hist);
    if (!m->pending && a->res.has_period && a->res.next.valid) {
        m->pending = true;
        m->pred = a->res.next;
        m->pred_period = a->res.dominant.period;
    }
    json_t *o = mode_json(j, mode);
    char *topic = topic_of(j->id, job_mode_name(mode));
    pthread_mutex_unlock(&d->lock);

    if (o && topic)
        ftiod_publish(d, topic, o);
    else
        json_decref(o);
    free(topic);
    if (d->cfg.verbose) {
        fprintf(stderr, "ftiod: job %s ", j->id);
        ftio_report_line(stderr, &a->res, job_mode_name(mode));
    }
    pthread_mutex_lock(&d->lock);
}

/* The final analysis of every mode (whole job, whole bins), the end summary,
 * removal.  Batches of the job that arrive after this start a new job of the
 * same id. */
static void end_job(struct analysis *a, struct job *j, const char *why)
{
    struct ftiod *d = a->d;
    for (int mode = 0; mode < JOB_NMODES; mode++)
        if (j->mode[mode].has_data)
            analyse(a, j, mode, true);
    json_t *o = json_object();
    json_t *sum = json_object();
    json_object_set_new(o, "job", json_string(j->id));
    for (int mode = 0; mode < JOB_NMODES; mode++)
        if (j->mode[mode].has_result)
            json_object_set_new(sum, job_mode_name(mode), mode_json(j, mode));
    json_object_set_new(o, "summary", sum);
    char *topic = topic_of(j->id, "end");
    if (d->cfg.verbose)
        ftiod_log("job %s: ended (%s): %llu records, %llu lost, %llu batches missing",
                  j->id, why, (unsigned long long)j->data_records,
                  (unsigned long long)j->lost, (unsigned long long)j->lost_batches);
    job_table_remove(&d->jobs, j);
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
        if (stopping || j->ended || now - j->last_activity > d->cfg.job_timeout) {
            end_job(a, j, stopping ? "shutdown" : j->ended ? "all processes final"
                                                            : "timeout");
            return true;
        }
        for (int mode = 0; mode < JOB_NMODES; mode++) {
            struct job_mode_state *m = &j->mode[mode];
            if (m->has_data && m->dirty &&
                (m->flush || now - m->last_run >= d->cfg.min_interval)) {
                analyse(a, j, mode, false);
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
