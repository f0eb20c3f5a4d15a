/* SPDX-License-Identifier: BSD-3-Clause */
/* stream.c -- one live stream (stream.h): a (job, mode)'s bins, online loop
 * and activities, driven by ftiod and by `ftio --window`.
 *
 * The mode and each activity are a `struct sub`: bins (the mode always; an
 * activity once the mode has two), an online loop, the latest answer,
 * totals.  An analysis copies each sub's window as samples (prepare: that
 * copy is all a lock protects), analyses them (run), and puts the loops and
 * answers back (commit), matching the subs by their index: activities are
 * only ever added, so an index stays valid across the three calls.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/stream.h"

/* Activities a stream can hold: ftiod's bound, or `ftio`'s offline groups
 * (each split in two by shape, ALGORITHM.md §10 rule 3). */
#define MAX_SUBS 32

/* An online loop and its latest answer (4-6 KB: only the subs with bins of
 * their own have one). */
struct loop {
    struct ftio_online online;
    bool     has_update;
    struct ftio_online_update update;
    uint64_t records_at;            /* the stream's records when the latest analysis
                                       copied its window (prepare) */
};

struct sub {
    char    *name;                  /* NULL: the mode */
    bool     has_bins;              /* and a loop: the mode always, an activity once
                                       the mode has two */
    struct ftio_bins bins;
    struct loop *loop;
    bool     forgetting;            /* its bins keep its window, not the whole job */
    uint64_t records;
    double   bytes;
    size_t   nfiles;
};

/* The records, while few, to lay the grid again (ftio_stream_relay, the
 * summary): one column each, act = the activity's index (-1 the mode's).
 *
 * A log of LOG_RUN_MIN bytes or more (a history: an hour of a job's records
 * merged at once; live, a few minutes of data) lies in one run of the bins'
 * pool (bin_pool.c), its four columns one after the other; smaller ones
 * come from malloc.  Such a log lives until the next analysis, which drops
 * it: with the bins it is past the stream's keep_bytes.  From malloc, the
 * logs of 10,000 jobs' histories were freed as holes between blocks that
 * stay (the jobs' other allocations of the same moments): after the
 * catch-up ftiod's RSS stayed 3-4 KB a job above what it holds
 * (bench/README.md, issue 27 seventh round); a run freed is whole pages for
 * the next bins, or given back (ftio_bin_pool_trim).  Smaller logs stay in
 * malloc: a live job's log grows by a few records a second, and each run
 * takes fresh pages (issue 27 fifth round: 65,000-96,000 page faults more
 * when every log was in runs). */
#define LOG_RECORD  (3 * sizeof(double) + sizeof(int8_t))
#define LOG_RUN_MIN (16u << 10)
struct record_log {
    size_t  n, cap;
    double *ts, *te, *bytes;
    int8_t *act;
    void   *run;                    /* the run the columns lie in, NULL: malloc'd */
    bool    overflow;               /* past log_records: forgotten for good */
};

struct ftio_stream {
    struct ftio_stream_config c;
    struct ftio_stream_totals tot;
    struct sub mode;
    size_t nact;
    struct sub *act[MAX_SUBS];
    int other;                      /* index of "other", -1 before it is needed */
    struct record_log log;
};

/* ---- bins and loops ---------------------------------------------------------- */

/* The ring's slots: the horizon, and the early margin before the origin. */
static size_t ring_bins(const struct ftio_stream_config *c)
{
    return (size_t)ceil(c->horizon * c->opts.fs) + (size_t)ceil(c->early * c->opts.fs) + 2;
}

/* Bins on the stream's grid at `origin`, empty, with room for early records. */
static int bins_lay(const struct ftio_stream_config *c, double origin, struct ftio_bins *b)
{
    int64_t early = (int64_t)ceil(c->early * c->opts.fs);
    if (ftio_bins_init_for(b, c->opts.fs, origin, ring_bins(c), c->opts.sampling) != 0)
        return -1;
    b->first = b->last = -early;
    return 0;
}

static void loop_init(const struct ftio_stream *s, struct ftio_online *o, double origin)
{
    ftio_online_init(o, &s->c.opts, s->c.step, s->c.fixed_window, origin);
}

static void sub_free(struct sub *u)
{
    if (u->has_bins)
        ftio_bins_free(&u->bins);
    free(u->loop);
    free(u->name);
}

struct ftio_stream *ftio_stream_new(const struct ftio_stream_config *c, double origin)
{
    if (!(c->opts.fs > 0) || !isfinite(c->opts.fs) || !(c->step > 0) || !(c->horizon > 0) ||
        !isfinite(c->horizon) || !(c->early >= 0) || !isfinite(origin)) {
        errno = EINVAL;
        return NULL;
    }
    struct ftio_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->c = *c;
    if (s->c.max_activities == 0 || s->c.max_activities > MAX_SUBS)
        s->c.max_activities = MAX_SUBS;
    s->other = -1;
    if (!(s->mode.loop = calloc(1, sizeof *s->mode.loop)) ||
        bins_lay(&s->c, origin, &s->mode.bins) != 0) {
        free(s->mode.loop);
        free(s);
        return NULL;
    }
    s->mode.has_bins = true;
    loop_init(s, &s->mode.loop->online, origin);
    s->tot.t_min = INFINITY;
    s->tot.t_max = -INFINITY;
    return s;
}

static void log_columns_free(struct record_log *l)
{
    if (l->run) {
        ftio_bin_pool_run_free(l->run, l->cap * LOG_RECORD);
    } else {
        free(l->ts);
        free(l->te);
        free(l->bytes);
        free(l->act);
    }
}

static void log_free(struct record_log *l)
{
    log_columns_free(l);
    l->ts = l->te = l->bytes = NULL;
    l->act = NULL;
    l->run = NULL;
    l->n = l->cap = 0;
}

static size_t log_memory(const struct record_log *l)
{
    return l->cap * LOG_RECORD;
}

/* The four columns of l for ftio_grow_parallel, and their elements' sizes. */
#define LOG_COLS(l) {(void **)&(l)->ts, (void **)&(l)->te, (void **)&(l)->bytes, (void **)&(l)->act}
static const size_t log_elem[] = {sizeof(double), sizeof(double), sizeof(double), sizeof(int8_t)};

/* Room for `need` records: the capacity doubled until it holds them, in a
 * run once that is LOG_RUN_MIN bytes or more, back in malloc past a run's
 * largest size (--summary-records beyond ~40,000) or when the pool has no
 * memory; the records so far are copied over.  0, or -1 out of memory. */
static int log_grow(struct record_log *l, size_t need)
{
    size_t cap = l->cap ? l->cap : 128;
    while (cap < need)
        cap = cap <= SIZE_MAX / 2 ? 2 * cap : SIZE_MAX;
    if (cap > SIZE_MAX / LOG_RECORD) {
        errno = ENOMEM;
        return -1;
    }
    char *run = cap * LOG_RECORD >= LOG_RUN_MIN ? ftio_bin_pool_run(cap * LOG_RECORD) : NULL;
    if (!run && !l->run) {          /* small, or past a run's size: malloc */
        void **const cols[] = LOG_COLS(l);
        return ftio_grow_parallel(&l->cap, need, 4, cols, log_elem);
    }
    /* Into new columns (a run, or from a run back to malloc: empty columns
     * grown to cap), then the records so far copied over. */
    struct record_log to = {.n = l->n, .overflow = l->overflow};
    if (run) {
        to.ts = (double *)run;
        to.te = to.ts + cap;
        to.bytes = to.te + cap;
        to.act = (int8_t *)(to.bytes + cap);
        to.run = run;
        to.cap = cap;
    } else {
        void **const cols[] = LOG_COLS(&to);
        if (ftio_grow_parallel(&to.cap, cap, 4, cols, log_elem) != 0) {
            log_columns_free(&to);
            return -1;
        }
    }
    if (l->n > 0) {                 /* an empty log (ftio_stream_expect) has no columns */
        memcpy(to.ts, l->ts, l->n * sizeof *to.ts);
        memcpy(to.te, l->te, l->n * sizeof *to.te);
        memcpy(to.bytes, l->bytes, l->n * sizeof *to.bytes);
        memcpy(to.act, l->act, l->n * sizeof *to.act);
    }
    log_columns_free(l);
    *l = to;
    return 0;
}

void ftio_stream_free(struct ftio_stream *s)
{
    if (!s)
        return;
    sub_free(&s->mode);
    for (size_t k = 0; k < s->nact; k++) {
        sub_free(s->act[k]);
        free(s->act[k]);
    }
    log_free(&s->log);
    free(s);
}

/* ---- data ----------------------------------------------------------------------- */

/* Activity k gets bins of its own on the mode's grid: the first one a copy
 * of the mode's (everything so far was its), with the mode's loop. */
static int own_bins(struct ftio_stream *s, struct sub *a, bool first)
{
    if (!(a->loop = malloc(sizeof *a->loop)))
        return -1;
    if (first) {
        if (ftio_bins_clone(&s->mode.bins, &a->bins) != 0)
            return -1;
        *a->loop = *s->mode.loop;
    } else {
        if (bins_lay(&s->c, s->mode.bins.origin, &a->bins) != 0)
            return -1;
        a->bins.first = a->bins.last = s->mode.bins.first;
        memset(a->loop, 0, sizeof *a->loop);
        loop_init(s, &a->loop->online, s->mode.loop->online.job_start);
    }
    a->has_bins = true;
    return 0;
}

int ftio_stream_activity(struct ftio_stream *s, const char *name)
{
    for (size_t k = 0; k < s->nact; k++)
        if (strcmp(s->act[k]->name, name) == 0)
            return (int)k;
    bool full = s->nact + 1 >= s->c.max_activities;
    if (full && s->other >= 0)
        return s->other;
    if (s->nact >= s->c.max_activities)
        return -1;
    struct sub *a = calloc(1, sizeof *a);
    if (!a || !(a->name = strdup(full ? "other" : name))) {
        free(a);
        return -1;
    }
    /* The second activity: from now on each has bins (and a loop) of its own. */
    if (s->nact >= 1) {
        if ((s->nact == 1 && own_bins(s, s->act[0], true) != 0) || own_bins(s, a, false) != 0) {
            sub_free(a);
            free(a);
            return -1;
        }
    }
    s->act[s->nact] = a;
    if (full)
        s->other = (int)s->nact;
    return (int)s->nact++;
}

int ftio_stream_rename_activity(struct ftio_stream *s, int act, const char *name)
{
    if (act < 0 || (size_t)act >= s->nact || act == s->other)
        return -1;
    char *n = strdup(name);
    if (!n)
        return -1;
    free(s->act[act]->name);
    s->act[act]->name = n;
    return 0;
}

void ftio_stream_set_files(struct ftio_stream *s, int act, size_t nfiles)
{
    if (act >= 0 && (size_t)act < s->nact)
        s->act[act]->nfiles = nfiles;
}

/* Keep one record for the grid's relaying; past log_records (or out of
 * memory) forget them all: an incomplete log is of no use. */
static void log_record(struct ftio_stream *s, int act, double ts, double te, double bytes)
{
    struct record_log *l = &s->log;
    if (l->overflow)
        return;
    if (l->n >= s->c.log_records) {
        log_free(l);
        l->overflow = true;
        return;
    }
    if (l->n == l->cap && log_grow(l, l->n + 1) != 0) {
        log_free(l);
        l->overflow = true;
        return;
    }
    l->ts[l->n] = ts;
    l->te[l->n] = te;
    l->bytes[l->n] = bytes;
    l->act[l->n] = (int8_t)act;
    l->n++;
}

void ftio_stream_expect(struct ftio_stream *s, size_t n)
{
    struct record_log *l = &s->log;
    /* Past log_records the log is forgotten anyway; a failure leaves it to
     * log_record. */
    if (!l->overflow && l->n + n > l->cap && l->n + n <= s->c.log_records)
        (void)log_grow(l, l->n + n);
}

double ftio_stream_first_time(const struct ftio_stream *s)
{
    const struct ftio_bins *b = &s->mode.bins;
    return b->origin + (double)b->first / b->fs;
}

int ftio_stream_add(struct ftio_stream *s, int act, double ts, double te, double bytes)
{
    /* Before the mode's first bin (the early margin): no bin was ever laid
     * there. */
    if (ts < ftio_stream_first_time(s) && s->mode.bins.first <= 0)
        return -1;
    if (te <= ts)
        te = ts + FTIO_ZERO_LENGTH_DURATION;
    ftio_bins_add(&s->mode.bins, ts, te, bytes);
    struct sub *a = act >= 0 && (size_t)act < s->nact ? s->act[act] : NULL;
    if (a) {
        if (a->has_bins)
            ftio_bins_add(&a->bins, ts, te, bytes);
        a->records++;
        a->bytes += bytes;
    }
    if (s->c.log_records)
        log_record(s, a ? act : -1, ts, te, bytes);
    s->tot.t_min = ftio_fmin(s->tot.t_min, ts);
    s->tot.t_max = ftio_fmax(s->tot.t_max, te);
    s->tot.records++;
    s->tot.bytes += bytes;
    return 0;
}

void ftio_stream_add_activity(struct ftio_stream *s, int act, double ts, double te, double bytes)
{
    if (act < 0 || (size_t)act >= s->nact)
        return;
    struct sub *a = s->act[act];
    if (a->has_bins)
        ftio_bins_add(&a->bins, ts, te, bytes);
    a->records++;
    a->bytes += bytes;
}

/* Bins laid on `origin` holding the logged records of sub `act` (-1: the
 * mode's, which is all of them). */
static int bins_from_log(const struct ftio_stream *s, int act, double origin, struct ftio_bins *b)
{
    if (bins_lay(&s->c, origin, b) != 0)
        return -1;
    const struct record_log *l = &s->log;
    for (size_t i = 0; i < l->n; i++)
        if (act < 0 || l->act[i] == act)
            ftio_bins_add(b, l->ts[i], l->te[i], l->bytes[i]);
    return 0;
}

int ftio_stream_relay(struct ftio_stream *s, double t0)
{
    if (!(t0 < s->mode.bins.origin) || s->mode.loop->online.hist.analyses > 0 || s->log.overflow ||
        s->log.n != s->tot.records || !isfinite(t0))
        return -1;
    /* Everything new first, so that out of memory changes nothing. */
    size_t n = 1 + s->nact;
    struct ftio_bins fresh[1 + MAX_SUBS];
    memset(fresh, 0, sizeof fresh);
    for (size_t k = 0; k < n; k++) {
        struct sub *u = k ? s->act[k - 1] : &s->mode;
        if ((u->has_bins || k == 0) && bins_from_log(s, k ? (int)k - 1 : -1, t0, &fresh[k]) != 0) {
            for (size_t i = 0; i < k; i++)
                ftio_bins_free(&fresh[i]);
            return -1;
        }
    }
    for (size_t k = 0; k < n; k++) {
        struct sub *u = k ? s->act[k - 1] : &s->mode;
        if (u->has_bins || k == 0) {
            ftio_bins_free(&u->bins);
            u->bins = fresh[k];
        }
        /* Nothing was analysed: the loops start again from the new origin. */
        if (u->loop)
            loop_init(s, &u->loop->online, t0);
    }
    return 0;
}

const struct ftio_stream_totals *ftio_stream_totals(const struct ftio_stream *s)
{
    return &s->tot;
}

double ftio_stream_origin(const struct ftio_stream *s)
{
    return s->mode.bins.origin;
}

const struct ftio_online *ftio_stream_online(const struct ftio_stream *s)
{
    return &s->mode.loop->online;
}

double ftio_stream_bytes(const struct ftio_stream *s, int act, double ts, double te)
{
    const struct sub *u = act >= 0 && (size_t)act < s->nact ? s->act[act] : &s->mode;
    return ftio_bins_bytes(u->has_bins ? &u->bins : &s->mode.bins, ts, te);
}

double ftio_stream_last_data(const struct ftio_stream *s, double ts, double te)
{
    return ftio_bins_last_data(&s->mode.bins, ts, te);
}

const struct ftio_bins *ftio_stream_mode_bins(const struct ftio_stream *s)
{
    return &s->mode.bins;
}

long ftio_stream_logged(const struct ftio_stream *s)
{
    return s->log.overflow ? -1 : (long)s->log.n;
}

int ftio_stream_logged_record(const struct ftio_stream *s, size_t i, double *ts, double *te,
                              double *bytes)
{
    if (s->log.overflow || i >= s->log.n)
        return -1;
    *ts = s->log.ts[i];
    *te = s->log.te[i];
    *bytes = s->log.bytes[i];
    return 0;
}

size_t ftio_stream_memory(const struct ftio_stream *s)
{
    size_t m = sizeof *s + sizeof *s->mode.loop + ftio_bins_memory(&s->mode.bins) +
               log_memory(&s->log);
    for (size_t k = 0; k < s->nact; k++)
        m += sizeof *s->act[k] + strlen(s->act[k]->name) + 1 +
             (s->act[k]->has_bins ? ftio_bins_memory(&s->act[k]->bins) + sizeof *s->act[k]->loop : 0);
    return m;
}

/* ---- analysis ------------------------------------------------------------------- */

/* One sub's part of an analysis. */
struct work_item {
    int    sub;                    /* -1: the mode, else the activity's index */
    struct ftio_online online;     /* its loop (copy) */
    struct ftio_samples x;         /* its window (copy) */
    uint64_t records;              /* the stream's records then */
    bool   reused;                 /* a summary: its last window's answer (upd) */
    int    rc;
    struct ftio_online_update upd;
    char   err[256];
};

struct ftio_stream_work {
    double t_end;
    bool   final;
    size_t n;
    struct work_item item[1 + MAX_SUBS];
};

struct ftio_stream_work *ftio_stream_work_new(void)
{
    return calloc(1, sizeof(struct ftio_stream_work));
}

void ftio_stream_work_free(struct ftio_stream_work *w)
{
    if (!w)
        return;
    for (size_t k = 0; k < sizeof w->item / sizeof w->item[0]; k++)
        ftio_samples_free(&w->item[k].x);
    free(w);
}

/* The last edge of the grid at or before t (1e-9 bins of slack for times
 * computed as sums). */
static double grid_floor(const struct ftio_bins *b, double t)
{
    return b->origin + floor((t - b->origin) * b->fs + 1e-9) / b->fs;
}

/* The summary's samples of sub k (-1: the mode) into x: the whole job
 * [t_min, t_max] of the mode (activities share its time base, as offline),
 * on a grid laid on t_min from the records when the live grid has no edge
 * there and every record was kept (a late rank, an out-of-order replay: the
 * offline tool samples from the earliest event), else from the live grid's
 * last edge before t_min (or the oldest kept bin).  0, or -1 when there is
 * no whole bin. */
static int summary_samples(const struct ftio_stream *s, int k, struct ftio_samples *x)
{
    const struct sub *u = k < 0 ? &s->mode : s->act[k];
    const struct ftio_bins *live = &u->bins;
    const struct ftio_bins *mode = &s->mode.bins;
    double t_min = s->tot.t_min, t_max = s->tot.t_max;
    enum ftio_sampling how = s->c.opts.sampling;
    if (t_min != mode->origin && !s->log.overflow && s->log.n == s->tot.records &&
        t_min >= ftio_stream_first_time(s) && mode->dropped_bytes == 0) {
        struct ftio_bins b;
        if (bins_from_log(s, k, t_min, &b) == 0) {
            int rc = b.dropped_bytes == 0 ? ftio_bins_samples_mode(&b, t_min, t_max, how, x) : -1;
            ftio_bins_free(&b);
            if (rc == 0 && x->n > 0)
                return 0;
        }
    }
    double ts = grid_floor(live, t_min);
    double oldest = grid_floor(live, t_max) - s->c.horizon;    /* kept bins */
    if (ts < oldest)
        ts = oldest;
    return ftio_bins_samples_mode(live, ts, t_max, how, x) == 0 && x->n > 0 ? 0 : -1;
}

/* The summary of a sub whose bins forgot the job's start (memory follows
 * its window: forget_behind) is what it keeps, its last window, and the
 * analysis of that window is at hand when it holds all the data (no record
 * since it was copied, none after its end) and was published as it came
 * (not stale: the answer is that analysis's own).  Its answer is then the
 * summary's, bit for bit, but for the next phase, predicted after the
 * window's end (ftio_result_predict).  Not for an `uncertain` period, which
 * end_of_run() may replace (it needs the phases).  A job of thousands that
 * end together: each end costs a copy, not a whole-window analysis. */
static bool summary_reuses(const struct ftio_stream *s, const struct sub *u)
{
    const struct loop *l = u->loop;
    const struct ftio_result *r = &l->update.res;
    return u->forgetting && l->has_update && !l->update.stale && l->records_at == s->tot.records &&
           s->tot.t_max <= r->t1 &&
           (!r->has_period || r->cls == FTIO_CLASS_PERIODIC || r->detector == FTIO_DETECTOR_COMPAT);
}

int ftio_stream_prepare(struct ftio_stream *s, double t_end, bool final,
                        struct ftio_stream_work *w)
{
    w->t_end = t_end;
    w->final = final;
    w->n = 0;
    /* The test the online loop makes first: no data in the last step, no
     * analysis (and nothing copied). */
    if (!final && s->mode.loop->online.hist.analyses > 0 &&
        !(ftio_bins_bytes(&s->mode.bins, t_end - s->c.step, t_end) > 0))
        return 1;
    for (int k = -1; k < (int)s->nact; k++) {
        struct sub *u = k < 0 ? &s->mode : s->act[k];
        if (!u->has_bins)
            continue;
        struct work_item *it = &w->item[w->n];
        it->sub = k;
        it->online = u->loop->online;
        it->err[0] = '\0';
        it->records = s->tot.records;
        it->reused = final && summary_reuses(s, u);
        it->x.n = 0;
        if (it->reused) {
            it->upd = u->loop->update;
            it->rc = 0;
        } else if (final)
            it->rc = summary_samples(s, k, &it->x) == 0 ? 0 : -1;
        else
            it->rc = ftio_online_window(&u->loop->online, &u->bins, t_end, &it->x, it->err,
                                        sizeof it->err);
        if (it->rc < 0 && !it->err[0])
            snprintf(it->err, sizeof it->err, "no whole bin to summarise");
        w->n++;
    }
    return 0;
}

/* An end-of-run output is not a phase of the period (issue 28): a code
 * that writes a last checkpoint or its final state when it stops (GROMACS'
 * final checkpoint, 2.5 s after the one before for a 6-s period) ends the
 * record with a phase off the period's lattice, and the whole job's answer
 * takes it in (a short last interval: the period comes out shorter, the
 * intervals irregular).  When the summary r is not `periodic` and its last
 * phase starts off the lattice the phase before it and r's period predict
 * (by more than a tenth of the period), the record up to that phase is
 * analysed too; its answer replaces r when it is `periodic` (its next phase
 * still after the job's end).  A `periodic` r stands: the record is what the
 * offline tool says.  Only the robust detector has phases. */
#define OFF_LATTICE 0.1
static void end_of_run(struct ftio_analyzer *a, const struct ftio_samples *x,
                       const struct ftio_options *o, struct ftio_result *r)
{
    if (!r->has_period || r->cls == FTIO_CLASS_PERIODIC || r->nphases < 4 ||
        !(r->dominant.period > 0))
        return;
    const struct ftio_phase *last = &r->phases[r->nphases - 1], *prev = last - 1;
    double T = r->dominant.period, off = fabs(last->start - prev->start - T);
    double kept = floor((last->start - x->t0) * x->fs);
    if (off <= OFF_LATTICE * T || !(kept >= 3) || kept >= (double)x->n)
        return;
    struct ftio_samples before = *x;
    before.n = (size_t)kept;
    before.t1 = x->t0 + kept / x->fs;
    before.exact_volume = NAN;
    struct ftio_result b;
    char err[64];
    if (ftio_analyze(a, &before, o, x->t1, &b, err, sizeof err) != 0 ||
        b.cls != FTIO_CLASS_PERIODIC)
        return;
    *r = b;
}

int ftio_stream_run(struct ftio_stream_work *w, struct ftio_analyzer *a, double now, char *err,
                    size_t errlen)
{
    for (size_t i = 0; i < w->n; i++) {
        struct work_item *it = &w->item[i];
        if (it->rc != 0)
            continue;
        if (!w->final) {
            it->rc = ftio_online_analyse(&it->online, a, &it->x, w->t_end, now, &it->upd, it->err,
                                         sizeof it->err);
            continue;
        }
        /* The summary: the whole job (or, when it is longer than the bins
         * keep, the last window: summary_reuses), predicting after its end
         * (what the offline tool says of the complete trace), with the
         * loop's scoring and P(periodic). */
        struct ftio_result r;
        double after = it->x.t1;
        if (it->reused) {
            r = it->upd.res;
            after = r.t1;
            ftio_result_predict(&r, after);
        } else {
            it->rc = ftio_analyze(a, &it->x, &it->online.opts, it->x.t1, &r, it->err,
                                  sizeof it->err);
            if (it->rc != 0)
                continue;
            end_of_run(a, &it->x, &it->online.opts, &r);
        }
        r.phases = NULL;
        r.nphases = 0;
        it->upd = (struct ftio_online_update){
            .res = r, .stale = false, .since = NAN, .has_error = it->online.has_error,
            .last_error = it->online.last_error,
            .p_periodic = ftio_history_p_periodic(&it->online.hist), .after = after,
        };
    }
    /* The mode's is item 0. */
    int rc = w->n ? w->item[0].rc : -1;
    if (rc < 0 && err)
        snprintf(err, errlen, "%s", w->n ? w->item[0].err : "nothing to analyse");
    return rc;
}

/* The records kept for the summary are of no use once the bins no longer
 * hold the whole job: forgotten. */
static void log_drop(struct ftio_stream *s)
{
    if (!s->log.overflow) {
        log_free(&s->log);
        s->log.overflow = true;
    }
}

/* Memory bounded by the window, not the job (the caller's keep_bytes: ftiod
 * keeps thousands of jobs; `ftio --window` reads a whole trace anyway).  A
 * sub keeps its whole record (every bin, and the mode its records for the
 * summary's grid) while that takes at most keep_bytes.  Beyond, the mode's
 * records go first, then the bins before the window of the next boundary
 * (and one step and two bins for the hold and the quiet test), from then on
 * at every analysis, once the loop's window forgets (a period established,
 * or a fixed window; without, the window is the whole job, up to the
 * horizon).  A window that grows again later (a longer period, or an early
 * answer dropped: noise before the first phases taken for a short period)
 * starts at the oldest bin kept.  --compat's window goes back to the job's
 * start at every miss: it keeps the horizon. */
static void forget_behind(struct ftio_stream *s, struct sub *u, double t_end)
{
    const struct ftio_online *o = &u->loop->online;
    size_t keep = s->c.keep_bytes;
    if (o->opts.detector == FTIO_DETECTOR_COMPAT || keep == 0)
        return;
    size_t bins = ftio_bins_memory(&u->bins);
    if (u == &s->mode && bins + log_memory(&s->log) > keep)
        log_drop(s);
    /* Once over the bound, for good: memory then follows the window. */
    if (!u->forgetting && bins <= keep)
        return;
    u->forgetting = true;
    double from = ftio_online_window_start(o, ftio_online_next_boundary(o, t_end));
    if (!(from > o->job_start))
        return;
    int64_t first = u->bins.first;
    ftio_bins_forget(&u->bins, from - o->step - 2.0 / u->bins.fs);
    if (u == &s->mode && u->bins.first != first)
        log_drop(s);
}

int ftio_stream_commit(struct ftio_stream *s, struct ftio_stream_work *w)
{
    for (size_t i = 0; i < w->n; i++) {
        struct work_item *it = &w->item[i];
        if (it->sub >= (int)s->nact)
            continue;
        struct sub *u = it->sub < 0 ? &s->mode : s->act[it->sub];
        if (!w->final) {
            u->loop->online = it->online;
            u->loop->records_at = it->records;
        }
        if (it->rc == 0) {
            u->loop->update = it->upd;
            u->loop->has_update = true;
        }
        if (!w->final)
            forget_behind(s, u, w->t_end);
    }
    /* Bins that fell off the horizon: no whole record to lay again. */
    if (s->mode.bins.dropped_bytes > 0)
        log_drop(s);
    return w->n ? w->item[0].rc : -1;
}

size_t ftio_stream_samples(const struct ftio_stream_work *w)
{
    return w->n && w->item[0].rc >= 0 ? w->item[0].x.n : 0;
}

int ftio_stream_step(struct ftio_stream *s, struct ftio_analyzer *a, struct ftio_stream_work *w,
                     double t_end, double now, char *err, size_t errlen)
{
    int rc = ftio_stream_prepare(s, t_end, false, w);
    if (rc != 0) {
        if (rc < 0)
            snprintf(err, errlen, "out of memory copying the window");
        return rc;
    }
    ftio_stream_run(w, a, now, err, errlen);
    return ftio_stream_commit(s, w);
}

double ftio_stream_next_boundary(const struct ftio_stream *s, double t)
{
    return ftio_online_next_boundary(&s->mode.loop->online, t);
}

/* ---- answers ----------------------------------------------------------------------- */

static struct ftio_stream_answer answer_of(const struct ftio_stream *s, const struct sub *u, int act)
{
    /* One activity: its answer is the mode's (it has no bins of its own). */
    const struct loop *from = u->has_bins ? u->loop : s->mode.loop;
    return (struct ftio_stream_answer){
        act, u->name, u == &s->mode ? s->tot.bytes : u->bytes,
        u == &s->mode ? s->tot.records : u->records, u->nfiles,
        from->has_update ? &from->update : NULL,
    };
}

size_t ftio_stream_nactivities(const struct ftio_stream *s)
{
    return s->nact;
}

struct ftio_stream_answer ftio_stream_activity_answer(const struct ftio_stream *s, int act)
{
    bool valid = act >= 0 && (size_t)act < s->nact;
    return answer_of(s, valid ? s->act[act] : &s->mode, valid ? act : -1);
}

size_t ftio_stream_answers(const struct ftio_stream *s, struct ftio_stream_answer *out, size_t max)
{
    if (max == 0)
        return 0;
    out[0] = answer_of(s, &s->mode, -1);
    /* Largest bytes first (insertion sort of a few; ties keep their order). */
    size_t order[MAX_SUBS];
    for (size_t k = 0; k < s->nact; k++) {
        size_t i = k;
        for (; i > 0 && s->act[order[i - 1]]->bytes < s->act[k]->bytes; i--)
            order[i] = order[i - 1];
        order[i] = k;
    }
    size_t filled = 1;
    for (size_t i = 0; i < s->nact && filled < max; i++)
        out[filled++] = answer_of(s, s->act[order[i]], (int)order[i]);
    return filled;
}
