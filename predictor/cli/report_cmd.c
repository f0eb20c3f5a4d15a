/* SPDX-License-Identifier: BSD-3-Clause */
/* report_cmd.c -- `ftio report LOG.jsonl [--job J] [--trace FILES...]
 * [-o FILE.html]`: the page of a finished live job, like
 * darshan-job-summary, from what ftiod wrote to its --log (JSON Lines
 * {"topic": ..., "message": ...}, every message of PROTOCOL.md §2).  Both
 * modes on one page; per mode:
 *   - the bytes the job moved over time as a bandwidth signal with its
 *     phases: from the job's spool files when --trace gives them (sampled and
 *     analysed like `ftio`), else derived from the cumulative "bytes" of
 *     ftiod's messages (the difference between consecutive windows' ends);
 *   - the prediction history by publish time (so that a stale answer
 *     repeated for one window is one mark per publication, not a pile at
 *     the window's end), each activity (protocol v3) in its own colour;
 *   - the job's final answer (the end summary, else its last message) in
 *     the header, with what the log says of the job (ranks, first and last
 *     publication).
 * The page itself is predictor/plot/'s.  report_page_last() draws a `last`
 * answer of the status socket (`ftio sub --last --plot`, commands.h).
 *
 * A log holds every job the daemon saw: without --job it must hold exactly
 * one, else the jobs are listed.  --job J of a Slurm job that ran as steps
 * (J.0, J.batch ...; `ftio sub --job J` follows them all) finds its one
 * step, or lists them when there are several (the page is one step's).  Lines that are not messages (a line cut by
 * a full disk or a crash, foreign text) are skipped with one warning.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "commands.h"
#include "grow.h"
#include "jobid.h"
#include "plot/plot.h"
#include "trace.h"
#include "hash.h"

static const char report_usage[] =
    "usage: ftio report LOG.jsonl [--job J] [--trace FILE...] [-o FILE.html]\n"
    "       ftio report --machine LOG.jsonl [--at UNIX_TIME] [-o FILE.html]\n";

static const char report_help[] =
    "Write the HTML page of a finished live job from ftiod's --log (JSON Lines):\n"
    "per mode the bytes the job moved over time (bandwidth and phases), the\n"
    "prediction history by publish time (period and confidence, next-phase error,\n"
    "bytes per phase; each activity in its colour) and the end-of-job summary.\n"
    "\n"
    "  -j, --job J         the job (needed when the log holds several)\n"
    "  -t, --trace FILE... the job's spool files (FTIO_SPOOL=tee): the bandwidth\n"
    "                      signal and phases from them instead of from the\n"
    "                      cumulative bytes of ftiod's messages; every argument\n"
    "                      after --trace up to the next option is a file\n"
    "  -o, --output FILE   the page (default: ftio-report-<job>.html here)\n"
    "  -h, --help          this help\n";

#define NMODES 2
static const char *const mode_names[NMODES] = { "write", "read" };

#define MAX_ACTIVITIES 16

struct mode_data {
    struct ftio_plot_history hist;
    json_t *last;                /* the latest message */
    /* (window end, cumulative bytes) of every message: the signal without --trace */
    double *bt, *bb;
    size_t nb, bcap;
    struct ftio_plot_activity_history act[MAX_ACTIVITIES];
    size_t nact;
};

struct report {
    const char *want;            /* --job, or NULL */
    char **jobs;                 /* every job in the log, in order of appearance */
    size_t njobs, cap;
    size_t *slot, nslots;        /* hash of jobs: index + 1, 0 = empty (a site's
                                    log holds thousands of jobs) */
    const char *chosen;          /* the job collected (want, or the first) */
    struct mode_data mode[NMODES];
    json_t *end;                 /* the job's end message */
    size_t messages, skipped, first_bad;
    char bad_why[160];
    double first_published, last_published;
    double first_start, last_end;    /* the job's span as ftiod's windows saw it */
    int64_t ranks;                   /* the most "ranks" any message said */
    bool end_known;                  /* a log: no end message means the job was running */
};

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double num2(json_t *o, const char *obj, const char *key)
{
    return num(json_object_get(o, obj), key);
}

static enum ftio_class class_of(const char *c)
{
    if (!c)
        return FTIO_CLASS_NONE;
    /* Version 1 of the protocol said high / moderate. */
    if (strcmp(c, "periodic") == 0 || strcmp(c, "high") == 0)
        return FTIO_CLASS_PERIODIC;
    if (strcmp(c, "uncertain") == 0 || strcmp(c, "moderate") == 0)
        return FTIO_CLASS_UNCERTAIN;
    return FTIO_CLASS_NONE;
}

/* The answer of a §2 prediction object, as far as the page shows it. */
static void result_of(json_t *m, struct ftio_result *r)
{
    memset(r, 0, sizeof *r);
    r->t0 = num2(m, "window", "start");
    r->t1 = num2(m, "window", "end");
    r->fs = num2(m, "window", "fs");
    double n = num2(m, "window", "samples");
    r->samples = n >= 0 ? (size_t)n : 0;
    const char *det = json_string_value(json_object_get(m, "detector"));
    r->detector = det && strcmp(det, "compat") == 0 ? FTIO_DETECTOR_COMPAT : FTIO_DETECTOR_ROBUST;
    r->cls = class_of(json_string_value(json_object_get(m, "class")));
    double period = num(m, "period");
    r->has_period = period > 0;
    r->reason = json_string_value(json_object_get(m, "reason"));
    r->abstraction_error = num2(m, "metrics", "abstraction_error");
    if (r->has_period) {
        r->dominant.period = period;
        r->dominant.frequency = 1 / period;
        r->dominant.confidence = num(m, "confidence");
        r->metrics.valid = true;
        r->metrics.phase_bytes = num2(m, "phase", "bytes");
        r->metrics.phase_duration = num2(m, "phase", "duration");
    } else if (!r->reason) {
        r->reason = "no period";
    }
    r->next.start = num2(m, "next", "start");
    r->next.end = num2(m, "next", "end");
    r->next.bytes = num2(m, "next", "bytes");
    r->next.valid = isfinite(r->next.start) && isfinite(r->next.end);
}

static void step_of(json_t *m, struct ftio_plot_step *s)
{
    double period = num(m, "period");
    json_t *stale = json_object_get(m, "stale");
    double pub = num(m, "published");
    *s = (struct ftio_plot_step){
        .t = isfinite(pub) ? pub : num2(m, "window", "end"),
        .period = period > 0 ? period : NAN,
        .confidence = period > 0 ? num(m, "confidence") : NAN,
        .cls = class_of(json_string_value(json_object_get(m, "class"))),
        .stale = json_is_true(stale),
        .last_error = num2(m, "last_error", "start"),
        .phase_bytes = period > 0 ? num2(m, "phase", "bytes") : NAN,
        .bytes_total = num(m, "bytes"),
    };
}

/* The (window end, cumulative bytes) point of message m. */
static int note_bytes(struct mode_data *md, json_t *m)
{
    double t = num2(m, "window", "end"), b = num(m, "bytes");
    if (!isfinite(t) || !isfinite(b))
        return 0;
    void **const cols[] = { (void **)&md->bt, (void **)&md->bb };
    const size_t elem[] = { sizeof *md->bt, sizeof *md->bb };
    if (ftio_grow_parallel(&md->bcap, md->nb + 1, 2, cols, elem) < 0)
        return -1;
    md->bt[md->nb] = t;
    md->bb[md->nb++] = b;
    return 0;
}

/* Each activity's prediction in m (protocol v3 "activities"), into its own
 * history (by pattern; at most MAX_ACTIVITIES, later ones left out). */
static int note_activities(struct mode_data *md, json_t *m, double t)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(m, "activities"), i, a) {
        const char *pat = json_string_value(json_object_get(a, "pattern"));
        if (!pat)
            continue;
        size_t k = 0;
        while (k < md->nact && strcmp(md->act[k].name, pat) != 0)
            k++;
        if (k == md->nact) {
            if (k == MAX_ACTIVITIES)
                continue;
            if (!(md->act[k].name = strdup(pat)))
                return -1;
            md->nact++;
        }
        double period = num(a, "period");
        struct ftio_plot_step st = {
            .t = t, .period = period > 0 ? period : NAN,
            .confidence = period > 0 ? num(a, "confidence") : NAN,
            .cls = class_of(json_string_value(json_object_get(a, "class"))),
            .stale = json_is_true(json_object_get(a, "stale")),
            .last_error = NAN, .phase_bytes = period > 0 ? num2(a, "phase", "bytes") : NAN,
            .bytes_total = num(a, "bytes"),
        };
        if (ftio_plot_history_add(&md->act[k].hist, &st) != 0)
            return -1;
    }
    return 0;
}

static size_t hash(const char *s)
{
    return (size_t)ftio_fnv_str(FTIO_FNV_BASIS_NAMES, s);
}

/* The stored name of job (added on first sight); NULL when out of memory. */
static const char *note_job(struct report *rp, const char *job)
{
    if (2 * (rp->njobs + 1) > rp->nslots) {            /* keep the table half empty */
        size_t n = rp->nslots ? 2 * rp->nslots : 64;
        size_t *slot = calloc(n, sizeof *slot);
        if (!slot)
            return NULL;
        for (size_t i = 0; i < rp->njobs; i++) {
            size_t k = hash(rp->jobs[i]) & (n - 1);
            while (slot[k])
                k = (k + 1) & (n - 1);
            slot[k] = i + 1;
        }
        free(rp->slot);
        rp->slot = slot;
        rp->nslots = n;
    }
    size_t k = hash(job) & (rp->nslots - 1);
    for (; rp->slot[k]; k = (k + 1) & (rp->nslots - 1))
        if (strcmp(rp->jobs[rp->slot[k] - 1], job) == 0)
            return rp->jobs[rp->slot[k] - 1];
    if (FTIO_GROW(rp->jobs, rp->cap, rp->njobs + 1) < 0)
        return NULL;
    if (!(rp->jobs[rp->njobs] = strdup(job)))
        return NULL;
    rp->slot[k] = ++rp->njobs;
    return rp->jobs[rp->njobs - 1];
}

static void skip(struct report *rp, size_t line, const char *why)
{
    if (rp->skipped++ == 0) {
        rp->first_bad = line;
        snprintf(rp->bad_why, sizeof rp->bad_why, "%s", why);
    }
}

/* One line of the log: -1 only when out of memory. */
static int take_line(struct report *rp, const char *text, size_t lineno)
{
    json_error_t e;
    json_t *line = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    json_t *m = json_object_get(line, "message");
    const char *topic = json_string_value(json_object_get(line, "topic"));
    if (!line || !json_is_object(m) || !topic || strncmp(topic, "ftio.", 5) != 0) {
        skip(rp, lineno, line ? "not a ftiod message" : e.text);
        json_decref(line);
        return 0;
    }
    /* ftio.<job>.<mode|end>: the job may hold dots, the suffix does not. */
    const char *dot = strrchr(topic, '.');
    const char *kind = dot + 1, *job = json_string_value(json_object_get(m, "job"));
    char jobbuf[512];
    if (!job) {
        size_t len = (size_t)(dot - topic) - 5;
        if (dot <= topic + 5 || len >= sizeof jobbuf) {
            skip(rp, lineno, "topic without a job");
            json_decref(line);
            return 0;
        }
        memcpy(jobbuf, topic + 5, len);
        jobbuf[len] = 0;
        job = jobbuf;
    }
    int mode = -1;
    for (int i = 0; i < NMODES; i++)
        if (strcmp(kind, mode_names[i]) == 0)
            mode = i;
    if (mode < 0 && strcmp(kind, "end") != 0) {
        skip(rp, lineno, "unknown topic");
        json_decref(line);
        return 0;
    }
    const char *name = note_job(rp, job);
    if (!name) {
        json_decref(line);
        return -1;
    }
    rp->messages++;
    if (!rp->chosen && (!rp->want || strcmp(rp->want, job) == 0))
        rp->chosen = name;
    if (!rp->chosen || strcmp(rp->chosen, job) != 0) {
        json_decref(line);
        return 0;
    }
    double pub = num(m, "published");
    if (isfinite(pub)) {
        if (!(rp->first_published <= pub))
            rp->first_published = pub;
        if (!(rp->last_published >= pub))
            rp->last_published = pub;
    }
    double ws = num2(m, "window", "start"), we = num2(m, "window", "end"), rk = num(m, "ranks");
    if (isfinite(ws) && !(rp->first_start <= ws))
        rp->first_start = ws;
    if (isfinite(we) && !(rp->last_end >= we))
        rp->last_end = we;
    if (rk > rp->ranks)
        rp->ranks = (int64_t)rk;
    if (mode < 0) {
        json_decref(rp->end);
        rp->end = json_incref(m);
    } else {
        struct ftio_plot_step s;
        step_of(m, &s);
        if (isfinite(s.t) && (ftio_plot_history_add(&rp->mode[mode].hist, &s) != 0 ||
                              note_activities(&rp->mode[mode], m, s.t) != 0 ||
                              note_bytes(&rp->mode[mode], m) != 0)) {
            json_decref(line);
            return -1;
        }
        json_decref(rp->mode[mode].last);
        rp->mode[mode].last = json_incref(m);
    }
    json_decref(line);
    return 0;
}

static int read_log(struct report *rp, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ftio report: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0)
            continue;
        if (take_line(rp, line, lineno) != 0) {
            fprintf(stderr, "ftio report: out of memory reading %s\n", path);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "ftio report: cannot read %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

/* A file name from a job id: what is not [A-Za-z0-9._-] becomes '_'. */
static void default_output(char *buf, size_t len, const char *job)
{
    int n = snprintf(buf, len, "ftio-report-");
    for (const char *p = job; *p && (size_t)n + 6 < len; p++)
        buf[n++] = isalnum((unsigned char)*p) || strchr("._-", *p) ? *p : '_';
    snprintf(buf + n, len - (size_t)n, ".html");
}

/* ---- the bandwidth signal ------------------------------------------------------ */

/* What a section draws of the job's bytes over time. */
struct signal_view {
    struct ftio_samples x;         /* x.n == 0: nothing to draw */
    struct ftio_phase *phase;      /* owned */
    size_t nphase;
    double background;
    char how[400];                 /* where it came from, for the header */
};

static void signal_view_free(struct signal_view *v)
{
    ftio_samples_free(&v->x);
    free(v->phase);
    memset(v, 0, sizeof *v);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Cumulative bytes B at time t: linear between the points (t sorted). */
static double bytes_at(const double *t, const double *b, size_t n, double at)
{
    if (at <= t[0])
        return b[0];
    if (at >= t[n - 1])
        return b[n - 1];
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (t[mid] <= at)
            lo = mid;
        else
            hi = mid;
    }
    return b[lo] + (b[hi] - b[lo]) * (at - t[lo]) / (t[hi] - t[lo]);
}

/* Without spool files: the job's bandwidth as the slope of the cumulative
 * bytes ftiod reported at each window's end, one sample per typical step
 * between windows (the log cannot resolve more), and its phases as the runs
 * of samples above a tenth of the peak.  -1 only when out of memory; an
 * empty view when there are fewer than three distinct points. */
static int totals_signal(const struct mode_data *md, struct signal_view *v)
{
    memset(v, 0, sizeof *v);
    size_t n = 0;
    double *t = malloc((md->nb + 1) * sizeof *t), *b = malloc((md->nb + 1) * sizeof *b);
    double *d = malloc((md->nb + 1) * sizeof *d);
    if (!t || !b || !d) {
        free(t); free(b); free(d);
        return -1;
    }
    /* ftiod publishes a window's end more than once (stale repeats) and may
     * publish a boundary late: sorted, one point per end, its largest count. */
    for (size_t i = 0; i < md->nb; i++) {
        size_t k = n;
        while (k > 0 && t[k - 1] > md->bt[i])
            k--;
        if (k > 0 && t[k - 1] == md->bt[i]) {
            b[k - 1] = fmax(b[k - 1], md->bb[i]);
            continue;
        }
        memmove(t + k + 1, t + k, (n - k) * sizeof *t);
        memmove(b + k + 1, b + k, (n - k) * sizeof *b);
        t[k] = md->bt[i];
        b[k] = md->bb[i];
        n++;
    }
    for (size_t i = 1; i < n; i++)            /* a count never goes down */
        b[i] = fmax(b[i], b[i - 1]);
    int rc = 0;
    if (n >= 3) {
        for (size_t i = 1; i < n; i++)
            d[i - 1] = t[i] - t[i - 1];
        qsort(d, n - 1, sizeof *d, cmp_double);
        double dt = d[(n - 1) / 2], span = t[n - 1] - t[0];
        if (span / dt > 4000)
            dt = span / 4000;
        size_t ns = (size_t)ceil(span / dt);
        v->x.x = malloc(ns * sizeof *v->x.x);
        v->phase = malloc(ns * sizeof *v->phase);
        if (!v->x.x || !v->phase) {
            rc = -1;
            goto out;
        }
        v->x.n = v->x.cap = ns;
        v->x.fs = 1 / dt;
        v->x.t0 = t[0];
        v->x.t1 = t[0] + (double)ns * dt;
        v->x.exact_volume = b[n - 1] - b[0];
        double peak = 0;
        for (size_t k = 0; k < ns; k++) {
            double a = t[0] + (double)k * dt;
            v->x.x[k] = (bytes_at(t, b, n, a + dt) - bytes_at(t, b, n, a)) / dt;
            peak = fmax(peak, v->x.x[k]);
        }
        for (size_t k = 0; k < ns && peak > 0;) {
            if (v->x.x[k] <= 0.1 * peak) {
                k++;
                continue;
            }
            struct ftio_phase *ph = &v->phase[v->nphase++];
            ph->start = v->x.t0 + (double)k * dt;
            ph->bytes = 0;
            ph->flags = 0;
            for (; k < ns && v->x.x[k] > 0.1 * peak; k++)
                ph->bytes += v->x.x[k] * dt;
            ph->end = v->x.t0 + (double)k * dt;
        }
        char a[48];
        snprintf(a, sizeof a, "%.3g s", dt);
        snprintf(v->how, sizeof v->how, "Bandwidth from the cumulative bytes of ftiod's %zu "
                 "window ends (one sample per %s; phases: above a tenth of the peak). "
                 "ftio report --trace with the job's spool files draws the full signal.", n, a);
    }
out:
    free(t); free(b); free(d);
    if (rc)
        signal_view_free(v);
    return rc;
}

/* With spool files: the job's requests of mode, sampled and analysed as
 * `ftio` does (default options), the phases it finds.  -1 with err. */
static int trace_signal(const struct ftio_trace *tr, int mode, struct signal_view *v,
                        char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    struct ftio_options o;
    ftio_options_default(&o);
    struct ftio_requests scratch = { 0 };
    const struct ftio_requests *r = ftio_trace_requests(tr, mode ? FTIO_MODE_READ : FTIO_MODE_WRITE,
                                                        &scratch);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (r->n == 0)
        return 0;                              /* nothing in this mode */
    size_t nreq = r->n;
    struct ftio_signal sig;
    int built = ftio_signal_build(r, &sig);
    ftio_requests_free(&scratch);
    if (built != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct ftio_analyzer *an = ftio_analyzer_new();
    struct ftio_result res;
    int rc = -1;
    if (!an)
        snprintf(err, errlen, "out of memory");
    else
        rc = ftio_analyze_signal(an, &sig, &o, &v->x, &res, err, errlen);
    ftio_signal_free(&sig);
    if (rc != 0) {
        ftio_analyzer_free(an);
        signal_view_free(v);
        return -1;
    }
    if (res.nphases) {
        v->phase = malloc(res.nphases * sizeof *v->phase);
        if (v->phase) {
            memcpy(v->phase, res.phases, res.nphases * sizeof *v->phase);
            v->nphase = res.nphases;
        }
    }
    v->background = res.background;
    ftio_analyzer_free(an);
    snprintf(v->how, sizeof v->how, "Bandwidth and phases from the job's spool files (%zu "
             "requests, sampled at %g Hz, phases found by ftio's analysis of the whole trace).",
             nreq, o.fs);
    return 0;
}

static void end_note(char *buf, size_t len, json_t *end)
{
    if (!end) {
        snprintf(buf, len, "No end message in the log: the job was still running, or ftiod "
                 "stopped before it ended. The header shows the latest prediction.");
        return;
    }
    const char *by = json_string_value(json_object_get(end, "ended_by"));
    const char *why = json_string_value(json_object_get(end, "incomplete"));
    double dropped = 0;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(end, "dropped_records"), key, v)
        dropped += json_number_value(v);
    snprintf(buf, len, "Job ended (%s): %s%s%s%s; %.0f processes (%.0f without a final batch), "
             "%.0f batches missing, %.0f records lost, %.0f dropped.",
             by ? by : "?", json_is_true(json_object_get(end, "complete")) ? "complete" : "incomplete",
             why ? " (" : "", why ? why : "", why ? ")" : "",
             num(end, "processes"), num(end, "processes_without_final"),
             num(end, "missing_batches"), num(end, "lost_records"), dropped);
}

/* The sections of rp's job (both modes) on page; how many, -1 (said) on failure. */
static int add_sections(struct ftio_plot_page *page, struct report *rp,
                        const struct ftio_trace *tr, const char *out)
{
    char err[512], note[400];
    end_note(note, sizeof note, rp->end);
    char user[48] = "";
    if (tr && tr->uid >= 0)
        snprintf(user, sizeof user, "uid %lld", (long long)tr->uid);
    struct ftio_plot_job meta = {
        .exe = tr ? tr->exe : NULL, .user = user[0] ? user : NULL, .nodes = -1,
        .ranks = rp->ranks > 0 ? rp->ranks : tr && tr->ranks > 0 ? tr->ranks : -1,
        .start = rp->first_start, .run_time = rp->last_end - rp->first_start,
        .source = "as ftiod's windows saw it",
    };
    json_t *summary = json_object_get(rp->end, "summary");
    int sections = 0;
    for (int i = 0; i < NMODES; i++) {
        struct mode_data *md = &rp->mode[i];
        json_t *final = json_object_get(summary, mode_names[i]);
        if (!json_is_object(final))
            final = md->last;
        if (!final)
            continue;
        struct signal_view sv;
        int src = tr ? trace_signal(tr, i, &sv, err, sizeof err) : totals_signal(md, &sv);
        if (src != 0) {
            fprintf(stderr, "ftio report: %s\n", tr ? err : "out of memory");
            return -1;
        }
        struct ftio_result res;
        result_of(final, &res);
        res.phases = sv.phase;
        res.nphases = sv.nphase;
        res.background = sv.background;
        double lost = num(final, "lost");
        struct ftio_report_totals tot = {
            .ranks = num(final, "ranks") >= 0 ? (int64_t)num(final, "ranks") : -1,
            .bytes = num(final, "bytes"),
            .records = num(final, "records") >= 0 ? (int64_t)num(final, "records") : -1,
            .lost = lost > 0 ? (uint64_t)lost : 0,
        };
        char notes[900];
        snprintf(notes, sizeof notes, "%s%s%s", sections == 0 && rp->end_known ? note : "",
                 sections == 0 && rp->end_known && sv.how[0] ? " " : "", sv.how);
        struct ftio_plot_section s = {
            /* One prediction (a `last` answer) makes no history to draw. */
            .job = rp->chosen, .mode = mode_names[i], .result = &res,
            .history = md->hist.n >= 2 ? &md->hist : NULL,
            .samples = sv.x.n ? &sv.x : NULL, .totals = &tot,
            .p_periodic = num(final, "p_periodic"), .meta = &meta,
            .activity = md->act, .nactivity = md->nact,
            .history_axis = "its publish time (a stale answer is one mark per publication)",
            .note = notes[0] ? notes : NULL,
        };
        int added = ftio_plot_page_add(page, &s);
        signal_view_free(&sv);
        if (added != 0) {
            fprintf(stderr, "ftio report: cannot write %s\n", out);
            return -1;
        }
        sections++;
    }
    return sections;
}

static int write_page(struct report *rp, const char *log, const struct ftio_trace *tr,
                      const char *out)
{
    char err[512], title[600], sub[700], a[48], b[48];
    snprintf(title, sizeof title, "ftio report: job %s", rp->chosen);
    if (isfinite(rp->first_published) && rp->first_published > 0) {
        time_t t0 = (time_t)rp->first_published, t1 = (time_t)rp->last_published;
        struct tm tm;
        strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", gmtime_r(&t0, &tm));
        strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t1, &tm));
        snprintf(sub, sizeof sub, "from ftiod's log %s: predictions published %s to %s", log, a, b);
    } else {
        snprintf(sub, sizeof sub, "from ftiod's log %s", log);
    }
    struct ftio_plot_page *page = ftio_plot_page_open(out, title, sub, err, sizeof err);
    if (!page) {
        fprintf(stderr, "ftio report: %s\n", err);
        return 1;
    }
    rp->end_known = true;
    int sections = add_sections(page, rp, tr, out);
    if (sections <= 0) {
        ftio_plot_page_discard(page);
        if (sections == 0)
            fprintf(stderr, "ftio report: job %s has no prediction in %s\n", rp->chosen, log);
        return 1;
    }
    if (ftio_plot_page_close(page, err, sizeof err) != 0) {
        fprintf(stderr, "ftio report: %s\n", err);
        return 1;
    }
    printf("wrote %s (job %s, %zu write and %zu read predictions)\n", out, rp->chosen,
           rp->mode[0].hist.n, rp->mode[1].hist.n);
    return 0;
}

static void report_free(struct report *rp)
{
    for (size_t i = 0; i < rp->njobs; i++)
        free(rp->jobs[i]);
    free(rp->jobs);
    free(rp->slot);
    for (int i = 0; i < NMODES; i++) {
        ftio_plot_history_free(&rp->mode[i].hist);
        json_decref(rp->mode[i].last);
        free(rp->mode[i].bt);
        free(rp->mode[i].bb);
        for (size_t k = 0; k < rp->mode[i].nact; k++) {
            free((char *)rp->mode[i].act[k].name);
            ftio_plot_history_free(&rp->mode[i].act[k].hist);
        }
    }
    json_decref(rp->end);
}

/* The job's spool files (or any trace ftio reads), with their epoch times
 * kept so that they line up with ftiod's windows.  *tr: the trace of job,
 * or the only one.  -1 (said) when they cannot be read or hold other jobs. */
static int read_traces(struct ftio_trace_set *set, const char *const *files, size_t n,
                       const char *job, const struct ftio_trace **tr)
{
    struct ftio_read_options o;
    ftio_read_options_default(&o);
    o.absolute_time = true;
    char err[512], warn[512];
    for (size_t i = 0; i < n; i++) {
        warn[0] = 0;
        if (ftio_trace_read_file(set, files[i], &o, err, sizeof err, warn, sizeof warn) != 0) {
            fprintf(stderr, "ftio report: %s\n", err);
            return -1;
        }
        if (warn[0])
            fprintf(stderr, "ftio report: warning: %s\n", warn);
    }
    ftio_trace_set_finish(set, &o);
    for (size_t j = 0; j < set->n; j++)
        if (strcmp(set->job[j].job, job) == 0)
            *tr = &set->job[j];
    if (!*tr && set->n == 1 && !set->job[0].job[0])
        *tr = &set->job[0];                 /* a format without job ids */
    if (!*tr) {
        fprintf(stderr, "ftio report: the --trace files hold no job %s (%zu job%s, the first %s)\n",
                job, set->n, set->n == 1 ? "" : "s", set->n ? set->job[0].job : "none");
        return -1;
    }
    return 0;
}

static void list_jobs(const struct report *rp, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < rp->njobs && n + 1 < len; i++) {
        if (i == 10) {
            snprintf(buf + n, len - n, " ... (%zu in all)", rp->njobs);
            break;
        }
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", rp->jobs[i]);
    }
}

int ftio_cmd_report(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--machine") == 0)
            return ftio_report_machine(argc, argv);   /* the machine forecast: report_machine.c */
    const char *log = NULL, *out = NULL, *job = NULL;
    const char **traces = calloc((size_t)argc + 1, sizeof *traces);
    size_t ntraces = 0;
    if (!traces) {
        fprintf(stderr, "ftio report: out of memory\n");
        return 1;
    }
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-t") == 0 || strcmp(a, "--trace") == 0 || strncmp(a, "--trace=", 8) == 0) {
            size_t before = ntraces;
            if (a[1] == '-' && a[7] == '=')
                traces[ntraces++] = a + 8;
            else
                while (i + 1 < argc && argv[i + 1][0] != '-')
                    traces[ntraces++] = argv[++i];
            if (ntraces == before || !*traces[ntraces - 1]) {
                fprintf(stderr, "ftio report: %s needs a file\n%s", a, report_usage);
                goto done;
            }
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(report_usage, stdout);
            fputs(report_help, stdout);
            rc = 0;
            goto done;
        }
        if (strcmp(a, "-j") == 0 || strcmp(a, "--job") == 0 || strncmp(a, "--job=", 6) == 0)
            dst = &job;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strncmp(a, "--output=", 9) == 0)
            dst = &out;
        if (dst) {
            const char *eq = strchr(a, '=');
            if (a[1] == '-' && eq) {
                *dst = eq + 1;
            } else if (i + 1 < argc) {
                *dst = argv[++i];
            } else {
                fprintf(stderr, "ftio report: %s needs a value\n%s", a, report_usage);
                goto done;
            }
            if (!**dst) {
                fprintf(stderr, "ftio report: %s needs a value\n%s", a, report_usage);
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ftio report: unknown option: %s\n%s", a, report_usage);
            goto done;
        } else if (log) {
            fprintf(stderr, "ftio report: one log at a time (%s and %s)\n%s", log, a, report_usage);
            goto done;
        } else {
            log = a;
        }
    }
    if (!log) {
        fprintf(stderr, "ftio report: no log given\n%s", report_usage);
        goto done;
    }
    struct report rp = { .want = job, .first_published = NAN, .last_published = NAN,
                         .first_start = NAN, .last_end = NAN, .ranks = -1 };
    struct ftio_trace_set set = { 0 };
    rc = read_log(&rp, log) != 0 ? 1 : 0;
    if (rc == 0 && job && !rp.chosen) {
        /* --job J, and the log has J's steps J.S: the one step, or say which */
        char steps[1024] = "", jb[256], st[32], only[512] = "";
        size_t nsteps = 0, n = 0;
        for (size_t i = 0; i < rp.njobs; i++)
            if (ftio_job_split(rp.jobs[i], jb, sizeof jb, st, sizeof st) && strcmp(jb, job) == 0) {
                if (n + 1 < sizeof steps)
                    n += (size_t)snprintf(steps + n, sizeof steps - n, "%s%s", nsteps ? ", " : "",
                                          rp.jobs[i]);
                snprintf(only, sizeof only, "%s", rp.jobs[i]);
                nsteps++;
            }
        if (nsteps > 1) {
            fprintf(stderr, "ftio report: job %s ran as %zu steps in %s, choose one with --job: %s\n",
                    job, nsteps, log, steps);
            report_free(&rp);
            rc = 1;
            goto done;
        }
        if (nsteps == 1 && strcmp(log, "-") != 0) {
            report_free(&rp);
            rp = (struct report){ .want = only, .first_published = NAN, .last_published = NAN,
                                  .first_start = NAN, .last_end = NAN, .ranks = -1 };
            rc = read_log(&rp, log) != 0 ? 1 : 0;
        }
    }
    char jobs[1024];
    list_jobs(&rp, jobs, sizeof jobs);
    if (rc == 0 && rp.skipped)
        fprintf(stderr, "ftio report: warning: %s: %zu line%s skipped (first: line %zu: %s)\n", log,
                rp.skipped, rp.skipped == 1 ? "" : "s", rp.first_bad, rp.bad_why);
    if (rc != 0) {
        /* said */
    } else if (rp.njobs == 0) {
        fprintf(stderr, "ftio report: %s holds no ftiod message\n", log);
        rc = 1;
    } else if (job && !rp.chosen) {
        fprintf(stderr, "ftio report: no job %s in %s (jobs: %s)\n", job, log, jobs);
        rc = 1;
    } else if (!job && rp.njobs > 1) {
        fprintf(stderr, "ftio report: %s holds %zu jobs, choose one with --job: %s\n", log,
                rp.njobs, jobs);
        rc = 1;
    } else {
        char path[600];
        if (!out) {
            default_output(path, sizeof path, rp.chosen);
            out = path;
        }
        const struct ftio_trace *tr = NULL;
        if (ntraces && read_traces(&set, traces, ntraces, rp.chosen, &tr) != 0)
            rc = 1;
        else
            rc = write_page(&rp, log, tr, out);
    }
    ftio_trace_set_free(&set);
    report_free(&rp);
done:
    free(traces);
    return rc;
}

/* One prediction object per mode of o ({"write": {...}, "read": {...}}),
 * as messages of job into rp: -1 when out of memory. */
static int take_modes(struct report *rp, json_t *o, const char *job, size_t *n)
{
    for (int i = 0; i < NMODES; i++) {
        json_t *m = json_object_get(o, mode_names[i]);
        if (!json_is_object(m))
            continue;
        const char *mj = json_string_value(json_object_get(m, "job"));
        char *topic = NULL;
        if (asprintf(&topic, "ftio.%s.%s", mj ? mj : job, mode_names[i]) < 0)
            return -1;
        json_t *wrap = json_pack("{s:s,s:O}", "topic", topic, "message", m);
        free(topic);
        char *text = wrap ? json_dumps(wrap, JSON_COMPACT) : NULL;
        json_decref(wrap);
        int rc = text ? take_line(rp, text, ++*n) : -1;
        free(text);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int ftio_report_last_page(json_t *answer, const char *job, const char *from, const char *out)
{
    struct report rp = { .first_published = NAN, .last_published = NAN, .first_start = NAN,
                         .last_end = NAN, .ranks = -1 };
    char err[512], title[600];
    size_t n = 0, i;
    int rc = 1, sections = 0;
    json_t *steps = json_object_get(answer, "steps"), *st;
    struct ftio_plot_page *page = NULL;
    snprintf(title, sizeof title, "ftio: job %s, latest prediction", job);
    if (!(page = ftio_plot_page_open(out, title, from, err, sizeof err))) {
        fprintf(stderr, "ftio sub: %s\n", err);
        return 1;
    }
    /* A Slurm job id without its step: the answer of each step, a page
     * section per step and mode. */
    size_t nsteps = json_is_array(steps) ? json_array_size(steps) : 1;
    for (i = 0; i < nsteps; i++) {
        st = json_is_array(steps) ? json_array_get(steps, i) : answer;
        report_free(&rp);
        rp = (struct report){ .first_published = NAN, .last_published = NAN, .first_start = NAN,
                              .last_end = NAN, .ranks = -1 };
        json_t *sum = json_object_get(st, "summary");
        if (take_modes(&rp, json_is_object(sum) ? sum : st, job, &n) != 0) {
            fprintf(stderr, "ftio sub: out of memory\n");
            goto out;
        }
        if (!rp.chosen)
            continue;
        int k = add_sections(page, &rp, NULL, out);
        if (k < 0)
            goto out;
        sections += k;
    }
    if (sections == 0) {
        fprintf(stderr, "ftio sub: job %s has no prediction to draw\n", job);
        goto out;
    }
    if (ftio_plot_page_close(page, err, sizeof err) != 0) {
        page = NULL;
        fprintf(stderr, "ftio sub: %s\n", err);
        goto out;
    }
    page = NULL;
    printf("wrote %s (job %s, %d section%s)\n", out, job, sections, sections == 1 ? "" : "s");
    rc = 0;
out:
    ftio_plot_page_discard(page);
    report_free(&rp);
    return rc;
}
