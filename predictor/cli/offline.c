/* SPDX-License-Identifier: BSD-3-Clause */
/* offline.c -- the offline analysis of `ftio`: for each job of the merged
 * trace set, build the application signal of the selected mode (or take
 * TMIO's pre-merged one), sample it, run the analysis and print the result,
 * either once over the whole trace or, with --window, as a sliding analysis
 * that mimics ftiod (one line or JSON object per step).  --plot and
 * --export-* hand each job's samples, answer and spectrum (and the steps of a
 * sliding analysis) to predictor/plot/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "answer.h"
#include "publish/report.h"
#include "plot/plot.h"
#include "analysis/stream.h"

static const char *mode_name(enum ftio_io_mode m)
{
    return m == FTIO_MODE_READ ? "read" : m == FTIO_MODE_ALL ? "all" : "write";
}

/* Build the step signal of one job.  TMIO may give the merged signal
 * directly (b_overlap_avr/t_overlap): use it as is, unless some part of the
 * data came without one (then the requests are the complete truth).
 * lazy: a single analysis of one mode's requests samples them as the sweep
 * goes (ftio_sample_requests) and needs no signal: *req is then set and the
 * signal left empty, its span in *first and *last. */
static int job_signal(const struct ftio_trace *t, enum ftio_io_mode mode, bool lazy,
                      struct ftio_signal *sig, const struct ftio_requests **req, double *first,
                      double *last, int64_t *records, char *err, size_t errlen)
{
    const struct ftio_trace_dir *d = mode == FTIO_MODE_READ ? &t->read : &t->write;
    memset(sig, 0, sizeof *sig);
    *req = NULL;
    if (mode != FTIO_MODE_ALL && d->has_overlap && !d->overlap_missing && d->overlap.n > 0) {
        sig->n = d->overlap.n;
        sig->t = malloc(sig->n * sizeof *sig->t);
        sig->b = malloc(sig->n * sizeof *sig->b);
        if (!sig->t || !sig->b) {
            ftio_signal_free(sig);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(sig->t, d->overlap.t, sig->n * sizeof *sig->t);
        memcpy(sig->b, d->overlap.b, sig->n * sizeof *sig->b);
        *records = (int64_t)d->req.n;
        *first = sig->t[0];
        *last = sig->t[sig->n - 1];
        return 0;
    }
    if (lazy && mode != FTIO_MODE_ALL) {
        *records = (int64_t)d->req.n;
        if (d->req.n == 0) {
            snprintf(err, errlen, "no %s requests in the trace", mode_name(mode));
            return -1;
        }
        /* The signal's first and last points: the earliest start, the
         * latest end (every end is at or after its start). */
        double a = INFINITY, b = -INFINITY;
        for (size_t i = 0; i < d->req.n; i++) {
            const struct ftio_request *q = &d->req.rec[i];
            a = q->t_start < a ? q->t_start : a;   /* finite */
            b = q->t_end > b ? q->t_end : b;
        }
        *req = &d->req;
        *first = a;
        *last = b;
        return 0;
    }
    struct ftio_requests scratch = { 0 };
    const struct ftio_requests *r = ftio_trace_requests(t, mode, &scratch);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *records = (int64_t)r->n;
    int rc = 0;
    if (r->n == 0) {
        snprintf(err, errlen, "no %s requests in the trace", mode_name(mode));
        rc = -1;
    } else if (ftio_signal_build(r, sig) != 0) {
        snprintf(err, errlen, "cannot build the bandwidth signal (out of memory)");
        rc = -1;
    } else {
        *first = sig->t[0];
        *last = sig->t[sig->n - 1];
    }
    ftio_requests_free(&scratch);
    return rc;
}

/* --json: JSON Lines, one compact object per line (per job and mode, or per
 * step of --window), so several jobs read back line by line
 * (PROTOCOL.md §2, ftio(1)). */
static void print_json(json_t *o)
{
    json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fputc('\n', stdout);
}

static void add_job_fields(json_t *o, const struct ftio_trace *t,
                           const struct ftio_report_totals *tot)
{
    ftio_report_json_totals(o, tot);
    json_object_set_new(o, "job", t->job[0] ? json_string(t->job) : json_null());
    json_object_set_new(o, "time_origin", t->origin != 0 ? json_real(t->origin) : json_null());
}

/* One (job, mode) being analysed: what every step below works with. */
struct job_run {
    const struct ftio_cli *cli;            /* cli->mode: the mode analysed */
    struct ftio_plot_files *pf;            /* --plot / --export-*, or NULL */
    struct ftio_analyzer *a;
    const struct ftio_trace *t;
    const struct ftio_signal *sig;         /* the mode's signal, or empty: */
    const struct ftio_requests *req;       /* its requests, sampled as swept */
    const struct ftio_report_totals *tot;
};

/* A job's activities and their answers (acts_compute below). */
struct job_acts {
    struct ftio_activity_set set;
    struct ftio_result *res;
    struct ftio_phase **phases;
    struct ftio_plot_activity *plot;
};

/* What the trace knows of its job, for the page's header (user: a buffer
 * of the caller's for "uid N"). */
static struct ftio_plot_job trace_meta(const struct ftio_trace *t, char *user, size_t len)
{
    user[0] = '\0';
    if (t->uid >= 0)
        snprintf(user, len, "uid %lld", (long long)t->uid);
    return (struct ftio_plot_job){
        .exe = t->exe, .user = user[0] ? user : NULL, .nodes = -1,
        .ranks = t->ranks > 0 ? t->ranks : -1, .start = t->origin > 0 ? t->origin : NAN,
        .run_time = t->run_time > 0 ? t->run_time : NAN, .source = "from the trace",
    };
}

/* Section s of the job r (its analysis just made by r->a) handed to add:
 * the job, its metadata and the analyzer's spectrum filled in. */
typedef int plot_add_fn(struct ftio_plot_files *pf, const struct ftio_plot_section *s, char *err,
                        size_t errlen);
static int plot_section(const struct job_run *r, struct ftio_plot_section *s, plot_add_fn *add,
                        char *err, size_t errlen)
{
    struct ftio_spectrum_view v;
    char user[48];
    struct ftio_plot_job meta = trace_meta(r->t, user, sizeof user);
    s->job = r->t->job;
    s->epoch_origin = r->t->origin;
    s->meta = &meta;
    s->spectrum = ftio_analyzer_spectrum(r->a, &r->cli->analysis, &v) == 0 ? &v : NULL;
    return add(r->pf, s, err, errlen);
}

/* The job's section of --plot / --export-*: the analysis res of x, and the
 * steps of a sliding analysis when h is given; note: a line for its header. */
static int plot_job(const struct job_run *r, const struct ftio_samples *x,
                    const struct ftio_result *res, const struct ftio_plot_history *h,
                    double p_periodic, const struct job_acts *ja, const char *note,
                    char *err, size_t errlen)
{
    struct ftio_plot_section s = {
        .mode = mode_name(r->cli->mode), .samples = x, .result = res, .history = h,
        .totals = r->tot, .p_periodic = p_periodic,
        .activities = ja ? ja->plot : NULL, .nactivities = ja ? ja->set.n : 0, .note = note,
    };
    return plot_section(r, &s, ftio_plot_files_add, err, errlen);
}

/* --plot: the job's other mode (read when writes were asked for, and the
 * reverse) on the same page, analysed once over the whole trace, when the
 * trace has requests of it; the text, JSON and exports keep to the mode
 * asked for.  0 when there is nothing to draw. */
static int plot_other_mode(const struct job_run *r, char *err, size_t errlen)
{
    const struct ftio_cli *cli = r->cli;
    const struct ftio_trace *t = r->t;
    if (!r->pf || !cli->plot || cli->mode == FTIO_MODE_ALL)
        return 0;
    enum ftio_io_mode other = cli->mode == FTIO_MODE_WRITE ? FTIO_MODE_READ : FTIO_MODE_WRITE;
    if (!(ftio_trace_bytes(t, other) > 0))
        return 0;
    struct ftio_signal sig;
    struct ftio_report_totals tot = { t->ranks > 0 ? t->ranks : -1, ftio_trace_bytes(t, other),
                                      0, t->lost };
    struct ftio_samples x = { 0 };
    struct ftio_result res;
    const struct ftio_requests *req;
    double first, last;
    int rc = job_signal(t, other, false, &sig, &req, &first, &last, &tot.records, err, errlen);
    if (rc == 0) {
        rc = ftio_analyze_signal(r->a, &sig, &cli->analysis, &x, &res, err, errlen);
        ftio_signal_free(&sig);
    }
    if (rc != 0) {          /* the page still has the mode asked for */
        fprintf(stderr, "ftio: warning: %s%s%s mode not drawn: %s\n", t->job, t->job[0] ? ": " : "",
                mode_name(other), err);
        ftio_samples_free(&x);
        return 0;
    }
    struct ftio_plot_section s = {
        .mode = mode_name(other), .samples = &x, .result = &res, .totals = &tot, .p_periodic = NAN,
        .note = cli->sliding ? "This mode is analysed once over the whole trace (the "
                               "step-by-step analysis is of the mode asked for)." : NULL,
    };
    rc = plot_section(r, &s, ftio_plot_files_add_page, err, errlen);
    ftio_samples_free(&x);
    return rc;
}

/* The job's activities (activities.h, ALGORITHM.md §10), each analysed like
 * the job over the job's span, with an analyzer of their own (the job's
 * keeps its spectrum for the pictures) and their phases copied for them.
 * One activity holding all the requests is the job itself: its answer is the
 * job's (no second analysis). */

static void acts_free(struct job_acts *ja)
{
    for (size_t k = 0; ja->phases && k < ja->set.n; k++)
        free(ja->phases[k]);
    free(ja->phases);
    free(ja->res);
    free(ja->plot);
    ftio_activities_free(&ja->set);
    memset(ja, 0, sizeof *ja);
}

static int acts_compute(const struct ftio_cli *cli, const struct ftio_trace *t,
                        const struct ftio_signal *sig, const struct ftio_result *job,
                        struct job_acts *ja, char *err, size_t errlen)
{
    memset(ja, 0, sizeof *ja);
    struct ftio_activity_options ao;
    ftio_activity_options_default(&ao);
    ao.whole_unused = sig->n == 0;         /* analysed from its requests */
    if (ftio_trace_activities(t, cli->mode, &ao, sig->n ? sig : NULL, &ja->set) != 0) {
        snprintf(err, errlen, "out of memory grouping the activities");
        return -1;
    }
    size_t n = ja->set.n ? ja->set.n : 1;
    ja->res = calloc(n, sizeof *ja->res);
    ja->phases = calloc(n, sizeof *ja->phases);
    ja->plot = calloc(n, sizeof *ja->plot);
    struct ftio_analyzer *an = ja->set.n > 1 || (ja->set.n == 1 && ja->set.a[0].shape)
                                   ? ftio_analyzer_new() : NULL;
    bool need = ja->set.n > 1 || (ja->set.n == 1 && ja->set.a[0].shape);
    if (!ja->res || !ja->phases || !ja->plot || (need && !an)) {
        ftio_analyzer_free(an);
        acts_free(ja);
        snprintf(err, errlen, "out of memory analysing the activities");
        return -1;
    }
    for (size_t k = 0; k < ja->set.n; k++) {
        struct ftio_result *r = &ja->res[k];
        char why[256];
        if (!need)
            *r = *job;
        else if (ftio_activity_analyze(an, &ja->set.a[k], &cli->analysis, r, why, sizeof why) != 0) {
            memset(r, 0, sizeof *r);   /* too short for one sample: no period */
            r->reason = "activity too short to analyse";
        }
        if (r->nphases && r->phases && (ja->phases[k] = malloc(r->nphases * sizeof *r->phases)))
            memcpy(ja->phases[k], r->phases, r->nphases * sizeof *r->phases);
        r->phases = ja->phases[k];
        if (!r->phases)
            r->nphases = 0;
        ja->plot[k] = (struct ftio_plot_activity){ ja->set.a[k].pattern, r };
    }
    ftio_analyzer_free(an);
    return 0;
}

/* Activity k's answer r beside the job's: an entry of the JSON array arr
 * (with "stale" when stale >= 0), or without arr a text line after indent. */
static void put_activity(json_t *arr, const char *indent, size_t k, const struct ftio_activity *act,
                         const struct ftio_result *r, const struct ftio_result *job, int stale)
{
    bool m = ftio_activity_matches(job, r);
    if (!arr) {
        fputs(indent, stdout);
        ftio_report_activity_text(stdout, k, act, r, m);
        return;
    }
    json_t *o = ftio_report_json_activity(act, r, m);
    if (o && stale >= 0)
        json_object_set_new(o, "stale", json_boolean(stale));
    json_array_append_new(arr, o);
}

/* The job-level answer (answer.h) from the whole signal's (job) and the
 * activities' answers: into *top; the activity's index or -1, its name
 * (ftio_activity_name) into name. */
static int job_level(const struct ftio_activity_set *set, const struct ftio_result *const *res,
                     const struct ftio_result *job, double now, struct ftio_result *top, char *name,
                     size_t len)
{
    struct ftio_answer_part part[2 * FTIO_MAX_ACTIVITIES];
    size_t n = set->n < 2 * FTIO_MAX_ACTIVITIES ? set->n : 2 * FTIO_MAX_ACTIVITIES;
    for (size_t k = 0; k < n; k++)
        part[k] = (struct ftio_answer_part){ set->a[k].pattern, set->a[k].bytes, res[k] };
    int k = ftio_job_answer(job, part, n, now, top);
    name[0] = '\0';
    if (k >= 0)
        ftio_activity_name(&set->a[k], name, len);
    return k;
}

/* The share of mode m's I/O that the trace's signal holds (trace.h
 * `unread`: Darshan modules ftio does not read), for ftio_answer_cap_share. */
static double seen_share(const struct ftio_trace *t, enum ftio_io_mode m)
{
    double seen = 0, unread = 0;
    for (int d = 0; d < 2; d++)
        if (m == FTIO_MODE_ALL || (d == 1) == (m == FTIO_MODE_WRITE)) {
            seen += ftio_trace_bytes(t, d ? FTIO_MODE_WRITE : FTIO_MODE_READ);
            unread += t->unread_bytes[d];
        }
    if (isnan(unread))
        return t->unread[0] ? 0.5 : 1;      /* a module of unknown bytes: at most even odds */
    return unread > 0 ? seen / (seen + unread) : 1;
}

/* "activity": which activity the top-level answer is (PROTOCOL.md §2 v4). */
static void put_job_level(json_t *j, const char *name)
{
    json_object_set_new(j, "activity", name[0] ? json_string(name) : json_null());
}

/* The activities into the JSON object j ("activities"), or as text. */
static void report_activities(const struct job_acts *ja, const struct ftio_result *job, json_t *j)
{
    json_t *arr = j ? json_array() : NULL;
    if (!j)
        printf("activities    %zu\n", ja->set.n);
    for (size_t k = 0; k < ja->set.n; k++)
        put_activity(arr, "", k, &ja->set.a[k], &ja->res[k], job, -1);
    if (arr)
        json_object_set_new(j, "activities", arr);
}

static int analyze_once(const struct job_run *r, char *err, size_t errlen)
{
    const struct ftio_cli *cli = r->cli;
    struct ftio_samples x = { 0 };
    struct ftio_result res;
    int rc = r->req ? ftio_analyze_request_samples(r->a, r->req, &cli->analysis, &x, &res, err, errlen)
                    : ftio_analyze_signal(r->a, r->sig, &cli->analysis, &x, &res, err, errlen);
    struct job_acts ja;
    memset(&ja, 0, sizeof ja);
    if (rc == 0)
        rc = acts_compute(cli, r->t, r->sig, &res, &ja, err, errlen);
    struct ftio_result top;
    char activity[FTIO_PATTERN_MAX + 16] = "";
    if (rc == 0) {
        const struct ftio_result *ares[2 * FTIO_MAX_ACTIVITIES];
        for (size_t k = 0; k < ja.set.n && k < 2 * FTIO_MAX_ACTIVITIES; k++)
            ares[k] = &ja.res[k];
        job_level(&ja.set, ares, &res, NAN, &top, activity, sizeof activity);
        ftio_answer_cap_share(&top, seen_share(r->t, cli->mode));
    }
    if (rc == 0 && r->pf) {
        /* The page draws the whole signal's analysis; the job's answer is
         * the heaviest activity's when there are several (answer.h). */
        char note[FTIO_PATTERN_MAX + 256] = "";
        if (activity[0] && ja.set.n > 1 && top.has_period)
            snprintf(note, sizeof note, "The job's answer is the activity that moves the most "
                     "bytes, %s: period %.6g s, confidence %.3f (%s). The charts show the "
                     "analysis of the whole signal.", activity, top.dominant.period,
                     top.dominant.confidence, ftio_class_name(top.cls));
        rc = plot_job(r, &x, &res, NULL, NAN, &ja, note[0] ? note : NULL, err, errlen);
    }
    ftio_samples_free(&x);
    if (rc != 0) {
        acts_free(&ja);
        return -1;
    }
    const char *mode = mode_name(cli->mode);
    if (cli->json) {
        json_t *j = ftio_report_json(&top, mode);
        if (!j) {
            acts_free(&ja);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        add_job_fields(j, r->t, r->tot);
        put_job_level(j, activity);
        ftio_cli_phases(r->t, cli->mode, &res, res.fs, j, NULL);   /* each phase described */
        report_activities(&ja, &top, j);
        print_json(j);
        json_decref(j);
    } else {
        ftio_report_text(stdout, &top, mode, r->tot);
        if (activity[0] && ja.set.n > 1)
            printf("answer of     %s, the activity that moves the most bytes\n", activity);
        ftio_cli_phases(r->t, cli->mode, &res, res.fs, NULL, stdout);
        report_activities(&ja, &top, NULL);
    }
    acts_free(&ja);
    return 0;
}

/* The steps of a signal as requests into the stream (act < 0: the mode's
 * own bins; else activity act's alone): each step of rate b over
 * [t_i, t_i+1).  The sweep leaves rounding residue (1e-16 of the peak) where
 * the signal is idle: that is no data. */
static void feed_signal(struct ftio_stream *s, int act, const struct ftio_signal *sig)
{
    double peak = 0;
    for (size_t i = 0; i < sig->n; i++)
        peak = fmax(peak, sig->b[i]);
    for (size_t i = 0; i + 1 < sig->n; i++) {
        if (!(sig->b[i] > 1e-9 * peak && sig->t[i + 1] > sig->t[i]))
            continue;
        double bytes = sig->b[i] * (sig->t[i + 1] - sig->t[i]);
        if (act < 0)
            ftio_stream_add(s, -1, sig->t[i], sig->t[i + 1], bytes);
        else
            ftio_stream_add_activity(s, act, sig->t[i], sig->t[i + 1], bytes);
    }
}

/* The job's live stream (analysis/stream.h), as ftiod keeps it: the mode's
 * signal in its bins, on a grid from its first event (ftiod lays it on a
 * mode's first record), and each activity's own signal in its bins (one
 * activity holding all the requests has none: its answer is the mode's). */
static struct ftio_stream *job_stream(const struct ftio_cli *cli, const struct ftio_signal *sig,
                                      const struct ftio_activity_set *set)
{
    double first = sig->t[0], last = sig->t[sig->n - 1];
    struct ftio_stream_config c = {
        .opts = cli->analysis, .step = cli->step, .fixed_window = cli->window,
        .horizon = fmax(last - first, 0) + 1.0 / cli->analysis.fs, .max_activities = set->n + 1,
    };
    struct ftio_stream *s = ftio_stream_new(&c, first);
    for (size_t k = 0; s && k < set->n; k++) {
        /* Offline activities may share a pattern (rule 3's small and large
         * phases of one file): the stream's names are their indices. */
        char name[32];
        snprintf(name, sizeof name, "%zu", k);
        if (ftio_stream_activity(s, name) != (int)k) {
            ftio_stream_free(s);
            return NULL;
        }
    }
    feed_signal(s, -1, sig);
    for (size_t k = 0; s && set->n > 1 && k < set->n; k++)
        if (set->a[k].sig.n >= 2)
            feed_signal(s, (int)k, &set->a[k].sig);
    return s;
}

/* Every activity's latest answer beside the job's u; into j (JSON) or as
 * text lines. */
static void put_activities(const struct ftio_stream *s, const struct ftio_activity_set *set,
                           const struct ftio_online_update *job, json_t *j)
{
    json_t *arr = j ? json_array() : NULL;
    for (size_t k = 0; k < set->n; k++) {
        struct ftio_stream_answer a = ftio_stream_activity_answer(s, (int)k);
        struct ftio_result r;
        memset(&r, 0, sizeof r);
        if (a.update)
            r = a.update->res;
        ftio_activity_roll_next(&r, job->after);
        if (arr || set->n > 1)     /* one activity in text: the job's line says it */
            put_activity(arr, "  ", k, &set->a[k], &r, &job->res, a.update && a.update->stale);
    }
    if (arr)
        json_object_set_new(j, "activities", arr);
}

/* The job-level answer of one boundary (answer.h) from the job's update and
 * the activities' (with the chosen one's online fields); its name into name. */
static void stream_job_level(const struct ftio_stream *s, const struct ftio_activity_set *set,
                             const struct ftio_online_update *job,
                             struct ftio_online_update *top, char *name, size_t len)
{
    const struct ftio_result *res[2 * FTIO_MAX_ACTIVITIES];
    const struct ftio_online_update *up[2 * FTIO_MAX_ACTIVITIES];
    for (size_t k = 0; k < set->n && k < 2 * FTIO_MAX_ACTIVITIES; k++) {
        up[k] = ftio_stream_activity_answer(s, (int)k).update;
        res[k] = up[k] ? &up[k]->res : NULL;
    }
    struct ftio_result r;
    int k = job_level(set, res, &job->res, job->after, &r, name, len);
    *top = k >= 0 && set->n > 1 && up[k] ? *up[k] : *job;
    top->res = r;
    top->after = job->after;
}

/* Sliding analysis: the online loop of ftiod (analysis/stream.h, the same
 * code) over the whole trace, one analysis per data-time boundary every
 * `step` seconds, so that its lines are the messages ftiod publishes for the
 * same trace. */
static int analyze_sliding(const struct job_run *r, char *err, size_t errlen)
{
    const struct ftio_cli *cli = r->cli;
    const struct ftio_signal *sig = r->sig;
    struct ftio_analyzer *a = r->a;
    const struct ftio_options *o = &cli->analysis;
    struct ftio_activity_set aset;
    if (ftio_trace_activities(r->t, cli->mode, NULL, sig, &aset) != 0) {
        snprintf(err, errlen, "out of memory grouping the activities");
        return -1;
    }
    struct ftio_stream *st = job_stream(cli, sig, &aset);
    struct ftio_stream_work *w = ftio_stream_work_new();
    if (!st || !w) {
        ftio_stream_free(st);
        ftio_stream_work_free(w);
        ftio_activities_free(&aset);
        snprintf(err, errlen, "out of memory for the bins of the signal");
        return -1;
    }
    double first = sig->t[0], last = sig->t[sig->n - 1];
    const char *mode = mode_name(cli->mode);
    unsigned steps = 0;
    int rc = 0;
    struct ftio_plot_history hist = { 0 };
    for (double end = ftio_stream_next_boundary(st, first);; end = ftio_stream_next_boundary(st, end)) {
        if (isfinite(o->t_end) && end > o->t_end)
            break;
        int stepped = ftio_stream_step(st, a, w, end, end, err, errlen);
        if (stepped < 0 && steps > 0) {
            rc = -1;
            break;
        }
        if (stepped == 0 && !(isfinite(o->t_start) && end < o->t_start)) {
            steps++;
            const struct ftio_online_update *u = ftio_stream_activity_answer(st, -1).update;
            struct ftio_plot_step ps;
            ftio_plot_step_from_update(&ps, u, end);
            if (r->pf && ftio_plot_history_add(&hist, &ps) != 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            struct ftio_online_update top;
            char activity[FTIO_PATTERN_MAX + 16];
            stream_job_level(st, &aset, u, &top, activity, sizeof activity);
            ftio_answer_cap_share(&top.res, seen_share(r->t, cli->mode));
            if (cli->json) {
                json_t *j = ftio_report_json(&top.res, mode);
                if (j) {
                    add_job_fields(j, r->t, r->tot);
                    put_job_level(j, activity);
                    ftio_report_json_online(j, &top);
                    put_activities(st, &aset, &top, j);
                    print_json(j);
                    json_decref(j);
                }
            } else {
                ftio_report_line(stdout, &top.res, mode);
                put_activities(st, &aset, &top, NULL);
            }
        }
        if (end >= last)
            break;
    }
    ftio_stream_work_free(w);
    ftio_activities_free(&aset);
    struct ftio_history h = ftio_stream_online(st)->hist;
    ftio_stream_free(st);
    if (rc == 0 && steps == 0) {
        snprintf(err, errlen, "no window held a whole sample at fs=%g; raise -f or --step", o->fs);
        rc = -1;
    }
    /* The page shows the whole trace analysed once, and the steps. */
    struct ftio_samples x = { 0 };
    if (rc == 0 && r->pf) {
        struct ftio_result res;
        rc = ftio_analyze_signal(a, sig, o, &x, &res, err, errlen);
        if (rc == 0)
            rc = plot_job(r, &x, &res, &hist, ftio_history_p_periodic(&h), NULL, NULL, err, errlen);
    }
    ftio_plot_history_free(&hist);
    ftio_samples_free(&x);
    if (rc != 0)
        return -1;
    if (!cli->json) {
        printf("P(periodic) %.3f over %u analyses", ftio_history_p_periodic(&h), h.analyses);
        for (size_t g = 0; g < h.ngroups; g++)
            printf("%s [%.6g, %.6g] Hz %.0f%%", g ? "," : ";", h.group[g].f_min, h.group[g].f_max,
                   h.analyses ? 100.0 * h.group[g].count / h.analyses : 0.0);
        putchar('\n');
    }
    return 0;
}

/* What the input can justify: a trace of R records analysed at fs needs
 * span x fs samples (and the DFT's buffers, ~48 B per sample in all).  A
 * tiny file claiming a year-long span would otherwise take gigabytes: the
 * samples are capped at max(4 Mi, 64 per record) and by --max-memory. */
#define BYTES_PER_SAMPLE 48.0
static int check_samples(const struct ftio_cli *cli, double first, double last, int64_t records,
                         char *err, size_t errlen)
{
    if (isfinite(cli->analysis.t_start) && cli->analysis.t_start > first)
        first = cli->analysis.t_start;
    if (isfinite(cli->analysis.t_end) && cli->analysis.t_end < last)
        last = cli->analysis.t_end;
    double n = (last - first) * cli->analysis.fs;
    double justified = fmax(4194304.0, 64.0 * (double)records);
    double allowed = cli->max_memory_mb * 1048576.0 / BYTES_PER_SAMPLE;
    if (n > justified) {
        snprintf(err, errlen, "the trace spans %.6g s: %.3g samples at %g Hz for %lld records; "
                 "lower -f or select a window with -ts/-te", last - first, n, cli->analysis.fs,
                 (long long)records);
        return -1;
    }
    if (n > allowed) {
        snprintf(err, errlen, "%.3g samples at %g Hz need %.0f MB, over --max-memory %g MB",
                 n, cli->analysis.fs, n * BYTES_PER_SAMPLE / 1048576.0, cli->max_memory_mb);
        return -1;
    }
    return 0;
}

int ftio_cli_analyze(const struct ftio_cli *cli, const struct ftio_trace_set *set)
{
    struct ftio_analyzer *a = ftio_analyzer_new();
    if (!a) {
        fprintf(stderr, "ftio: out of memory\n");
        return 1;
    }
    int status = 0;
    struct ftio_plot_files *pf = NULL;
    if (cli->plot || cli->export_signal || cli->export_spectrum) {
        char err[512], title[256], sub[256];
        snprintf(title, sizeof title, "ftio: %s%s", cli->files[0], cli->nfiles > 1 ? " ..." : "");
        snprintf(sub, sizeof sub, "%s mode, %s detector, %g Hz sampling%s",
                 cli->both ? "write and read" : mode_name(cli->mode),
                 ftio_detector_name(cli->analysis.detector), cli->analysis.fs,
                 cli->sliding ? ", sliding analysis" : "");
        pf = ftio_plot_files_open(cli->plot, cli->export_signal, cli->export_spectrum, title, sub,
                                  err, sizeof err);
        if (!pf) {
            fprintf(stderr, "ftio: %s\n", err);
            ftio_analyzer_free(a);
            return 1;
        }
    }
    /* -m both: each job's write, then its read analysis */
    enum ftio_io_mode modes[2] = {cli->mode, FTIO_MODE_READ};
    int nmodes = cli->both ? 2 : 1;
    for (size_t j = 0; j < set->n; j++) {
        const struct ftio_trace *t = &set->job[j];
        if (!cli->json && set->n > 1)
            printf("%sjob %s\n", j ? "\n" : "", t->job[0] ? t->job : "(unnamed)");
        int analysed = 0;
        for (int m = 0; m < nmodes; m++) {
            struct ftio_cli c = *cli;
            c.mode = modes[m];
            char err[512];
            struct ftio_signal sig;
            struct ftio_report_totals tot = { t->ranks > 0 ? t->ranks : -1,
                                              ftio_trace_bytes(t, c.mode), 0, t->lost };
            if (!c.json && m > 0)
                putchar('\n');
            const struct ftio_requests *req;
            double first, last;
            if (job_signal(t, c.mode, !c.sliding, &sig, &req, &first, &last, &tot.records, err,
                           sizeof err) != 0) {
                if (cli->both && tot.records == 0) {
                    /* one of the two modes may have no requests */
                    if (!c.json)
                        printf("mode          %s: no requests\n", mode_name(c.mode));
                    continue;
                }
                fprintf(stderr, "ftio: %s%s%s\n", t->job[0] ? t->job : "", t->job[0] ? ": " : "", err);
                status = 1;
                continue;
            }
            struct job_run run = { &c, pf, a, t, &sig, req, &tot };
            int rc = check_samples(&c, first, last, tot.records, err, sizeof err);
            if (rc == 0)
                rc = c.sliding ? analyze_sliding(&run, err, sizeof err) : analyze_once(&run, err, sizeof err);
            if (rc == 0 && !cli->both)   /* -m both analysed the other mode already */
                rc = plot_other_mode(&run, err, sizeof err);
            if (rc != 0) {
                fprintf(stderr, "ftio: %s%s%s\n", t->job[0] ? t->job : "", t->job[0] ? ": " : "", err);
                status = 1;
            } else {
                analysed++;
            }
            ftio_signal_free(&sig);
        }
        if (cli->both && analysed == 0 && status == 0) {
            fprintf(stderr, "ftio: %s%sno read or write requests in the trace\n",
                    t->job[0] ? t->job : "", t->job[0] ? ": " : "");
            status = 1;
        }
    }
    ftio_analyzer_free(a);
    if (pf) {
        char err[512];
        if (ftio_plot_files_close(pf, err, sizeof err) != 0) {
            fprintf(stderr, "ftio: %s\n", err);
            status = 1;
        }
    }
    fflush(stdout);
    return status;
}
