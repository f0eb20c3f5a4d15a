/* SPDX-License-Identifier: BSD-3-Clause */
/* report_cmd.c -- `ftio report LOG.jsonl [--job J] [-o FILE.html]`: the
 * page of a finished live job, like darshan-job-summary, from what ftiod
 * wrote to its --log (JSON Lines {"topic": ..., "message": ...}, every
 * message of PROTOCOL.md §2).  Per mode: the prediction history (period,
 * confidence, next-phase error, bytes per phase of every published message)
 * and the job's final answer (the end summary, else its last message) in the
 * header.  The page itself is predictor/plot/'s.
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
#include "jobid.h"
#include "plot/plot.h"

static const char report_usage[] =
    "usage: ftio report LOG.jsonl [--job J] [-o FILE.html]\n";

static const char report_help[] =
    "Write the HTML page of a finished live job from ftiod's --log (JSON Lines):\n"
    "the prediction history per mode (period and confidence over time, next-phase\n"
    "error, bytes per phase) and the end-of-job summary.\n"
    "\n"
    "  -j, --job J         the job (needed when the log holds several)\n"
    "  -o, --output FILE   the page (default: ftio-report-<job>.html here)\n"
    "  -h, --help          this help\n";

#define NMODES 2
static const char *const mode_names[NMODES] = { "write", "read" };

struct mode_data {
    struct ftio_plot_history hist;
    json_t *last;                /* the latest message */
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
    *s = (struct ftio_plot_step){
        .t = num2(m, "window", "end"),
        .period = period > 0 ? period : NAN,
        .confidence = period > 0 ? num(m, "confidence") : NAN,
        .cls = class_of(json_string_value(json_object_get(m, "class"))),
        .stale = json_is_true(stale),
        .last_error = num2(m, "last_error", "start"),
        .phase_bytes = period > 0 ? num2(m, "phase", "bytes") : NAN,
        .bytes_total = num(m, "bytes"),
    };
}

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;        /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
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
    if (rp->njobs == rp->cap) {
        size_t cap = rp->cap ? 2 * rp->cap : 16;
        char **p = realloc(rp->jobs, cap * sizeof *p);
        if (!p)
            return NULL;
        rp->jobs = p;
        rp->cap = cap;
    }
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
    if (mode < 0) {
        json_decref(rp->end);
        rp->end = json_incref(m);
    } else {
        struct ftio_plot_step s;
        step_of(m, &s);
        if (isfinite(s.t) && ftio_plot_history_add(&rp->mode[mode].hist, &s) != 0) {
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

static int write_page(struct report *rp, const char *log, const char *out)
{
    char err[512], title[600], sub[700], a[48], b[48], note[400];
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
    end_note(note, sizeof note, rp->end);
    json_t *summary = json_object_get(rp->end, "summary");
    unsigned sections = 0;
    for (int i = 0; i < NMODES; i++) {
        struct mode_data *md = &rp->mode[i];
        json_t *final = json_object_get(summary, mode_names[i]);
        if (!json_is_object(final))
            final = md->last;
        if (!final)
            continue;
        struct ftio_result res;
        result_of(final, &res);
        double lost = num(final, "lost");
        struct ftio_report_totals tot = {
            .ranks = num(final, "ranks") >= 0 ? (int64_t)num(final, "ranks") : -1,
            .bytes = num(final, "bytes"),
            .records = num(final, "records") >= 0 ? (int64_t)num(final, "records") : -1,
            .lost = lost > 0 ? (uint64_t)lost : 0,
        };
        struct ftio_plot_section s = {
            .job = rp->chosen, .mode = mode_names[i], .result = &res, .history = &md->hist,
            .totals = &tot, .p_periodic = num(final, "p_periodic"),
            .note = sections == 0 ? note : NULL,
        };
        if (ftio_plot_page_add(page, &s) != 0) {
            ftio_plot_page_discard(page);
            fprintf(stderr, "ftio report: cannot write %s\n", out);
            return 1;
        }
        sections++;
    }
    if (sections == 0) {
        ftio_plot_page_discard(page);
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
    }
    json_decref(rp->end);
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
    const char *log = NULL, *out = NULL, *job = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(report_usage, stdout);
            fputs(report_help, stdout);
            return 0;
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
                return 2;
            }
            if (!**dst) {
                fprintf(stderr, "ftio report: %s needs a value\n%s", a, report_usage);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ftio report: unknown option: %s\n%s", a, report_usage);
            return 2;
        } else if (log) {
            fprintf(stderr, "ftio report: one log at a time (%s and %s)\n%s", log, a, report_usage);
            return 2;
        } else {
            log = a;
        }
    }
    if (!log) {
        fprintf(stderr, "ftio report: no log given\n%s", report_usage);
        return 2;
    }
    struct report rp = { .want = job, .first_published = NAN, .last_published = NAN };
    int rc = read_log(&rp, log) != 0 ? 1 : 0;
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
            return 1;
        }
        if (nsteps == 1 && strcmp(log, "-") != 0) {
            report_free(&rp);
            rp = (struct report){ .want = only, .first_published = NAN, .last_published = NAN };
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
        rc = write_page(&rp, log, out);
    }
    report_free(&rp);
    return rc;
}
