/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_job.c -- one file of a scan: read it once (mmap), decide by content
 * whether it is a trace (files found in directories that are none are
 * skipped; named files always get a row), read it with the readers library
 * into its own trace set, and make one row per job: job context, bytes,
 * signal source, then per mode the offline analysis of `ftio` (requests ->
 * step signal -> samples -> ftio_analyze, as predictor/cli/offline.c does)
 * and the temporal class from the same signals (scan_temporal.c).
 *
 * Long jobs are sampled at a lower rate than -f when span x fs would exceed
 * --max-samples, so one week-long job cannot stall a scan; the row says the
 * rate used.  Whatever goes wrong with one file goes into its row.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "scan/scan.h"
#include "activities.h"
#include "analysis/prior.h"
#include "answer.h"

struct scan_worker {
    struct ftio_analyzer *a;
    struct ftio_samples x;
    char err[1024], warn[1024];
};

struct scan_worker *scan_worker_new(void)
{
    struct scan_worker *w = calloc(1, sizeof *w);
    if (w && !(w->a = ftio_analyzer_new())) {
        free(w);
        return NULL;
    }
    return w;
}

void scan_worker_free(struct scan_worker *w)
{
    if (!w)
        return;
    ftio_analyzer_free(w->a);
    ftio_samples_free(&w->x);
    free(w);
}

static const char *source_name(const struct ftio_trace *t)
{
    if (!t->source)
        return "records";
    if (strstr(t->source, "DXT"))
        return "dxt";
    if (strstr(t->source, "HEATMAP"))
        return "heatmap";
    if (strstr(t->source, "counters"))
        return "counters";
    return "records";
}

/* The sampling rate of one mode: ftio's rule (ftio_sampling_rate), the rate
 * of -f unless the job would take more than --max-samples samples.  Under
 * --compat the published rate as it is.  (FFT sizes need no rounding of the
 * rate: the robust detector's spectrum takes a 7-smooth length itself.) */
static double mode_fs(const struct scan_opts *o, const struct ftio_signal *sig)
{
    double fs = o->analysis.fs;
    if (sig->n < 2 || o->analysis.detector == FTIO_DETECTOR_COMPAT)
        return fs;
    return ftio_sampling_rate(fs, sig->t[sig->n - 1] - sig->t[0], o->max_samples);
}

/* The answer res into the row's mode. */
static void put_answer(struct scan_mode *m, const struct ftio_result *res)
{
    m->cls = res->cls;
    m->has_period = res->has_period;
    if (res->has_period) {
        m->period = res->dominant.period;
        m->confidence = res->dominant.confidence;
    }
    if (res->metrics.valid) {
        m->phase_bytes = res->metrics.phase_bytes;
        m->phase_duration = res->metrics.phase_duration;
    }
}

/* The mode's whole signal analysed (its result into *whole, for the
 * job-level answer of analyse_activities). */
static void analyse_mode(struct scan_worker *w, const struct scan_opts *o, const struct ftio_signal *sig,
                         size_t nreq, struct scan_mode *m, struct ftio_result *whole)
{
    m->phase_bytes = m->phase_duration = m->first_onset = NAN;
    if (nreq == 0) {
        snprintf(m->note, sizeof m->note, "no I/O");
        return;
    }
    if (!sig->n) {
        snprintf(m->note, sizeof m->note, "out of memory for the signal");
        return;
    }
    char err[256];
    struct ftio_result res;
    struct ftio_options ao = o->analysis;
    ao.fs = m->fs = mode_fs(o, sig);
    if (ftio_analyze_signal(w->a, sig, &ao, &w->x, &res, err, sizeof err) != 0) {
        size_t n = strlen(err);   /* the reason, cut to the note's size */
        if (n >= sizeof m->note)
            n = sizeof m->note - 1;
        memcpy(m->note, err, n);
        m->note[n] = 0;
        return;
    }
    m->analysed = true;
    put_answer(m, &res);
    if (res.reason && strcmp(res.reason, FTIO_REASON_TOO_SHORT) == 0)   /* class none, and why */
        snprintf(m->note, sizeof m->note, "too short");
    if (res.detector == FTIO_DETECTOR_ROBUST)
        m->phases = res.nphases;
    else if (res.has_period && res.dominant.period > 0)
        m->phases = (size_t)floor((w->x.t1 - w->x.t0) / res.dominant.period);
    m->periodic = res.has_period && m->phases >= 3;
    if (res.metrics.valid) {
        m->phase_bytes = res.metrics.phase_bytes;
        m->phase_duration = res.metrics.phase_duration;
    }
    /* the memory of runs: where the period's phases begin (analysis/prior.h) */
    if (o->hist && res.has_period)
        m->first_onset = ftio_prior_first_onset(w->a, &w->x, res.dominant.period,
                                                res.metrics.valid ? res.metrics.phase_bytes : NAN);
    *whole = res;
    whole->phases = NULL;           /* the analyzer's, reused below */
    whole->nphases = 0;
}

/* The activities of mode d (ALGORITHM.md §10), analysed at the mode's
 * sampling rate (one activity of all the requests is the mode itself), the
 * two largest into the row, and the mode's answer the job-level one of
 * `ftio` (answer.h: the heaviest activity's): the others are analysed only
 * when the rule needs them (the heaviest has no period of its own). */
static void analyse_activities(struct scan_worker *w, const struct scan_opts *o,
                               const struct ftio_trace *t, int d, const struct ftio_signal *sig,
                               struct scan_mode *m, const struct ftio_result *whole)
{
    struct ftio_activity_set set;
    if (!m->analysed ||
        ftio_trace_activities(t, d == SCAN_READ ? FTIO_MODE_READ : FTIO_MODE_WRITE, NULL, sig,
                              &set) != 0)
        return;
    m->nact = set.n;
    struct ftio_options ao = o->analysis;
    ao.fs = m->fs;
    bool self = set.n == 1 && set.a[0].shape == FTIO_SHAPE_ALL;
    struct ftio_result *res = calloc(set.n ? set.n : 1, sizeof *res);
    struct ftio_answer_part *part = calloc(set.n ? set.n : 1, sizeof *part);
    if (!res || !part) {
        free(res);
        free(part);
        ftio_activities_free(&set);
        return;
    }
    size_t done = 0;
    for (int pass = 0; pass < 2 && !self; pass++) {
        for (size_t k = done; k < set.n && (pass == 1 || k < 2); k++, done++) {
            char err[256];
            part[k] = (struct ftio_answer_part){ set.a[k].pattern, set.a[k].bytes, NULL };
            if (ftio_activity_analyze(w->a, &set.a[k], &ao, &res[k], err, sizeof err) == 0)
                part[k].res = &res[k];
        }
        for (size_t k = done; k < set.n; k++)
            part[k] = (struct ftio_answer_part){ set.a[k].pattern, set.a[k].bytes, NULL };
        struct ftio_result top;
        int chosen = ftio_job_answer(whole, part, set.n, NAN, &top);
        if (chosen == 0 || done == set.n) {   /* the heaviest's, or every one known */
            bool moved = top.has_period != whole->has_period ||
                         (top.has_period && top.dominant.period != whole->dominant.period);
            put_answer(m, &top);
            /* the memory of runs: where the answer's own phases begin */
            if (o->hist && moved)
                m->first_onset = top.has_period
                    ? ftio_prior_first_onset(w->a, &w->x, top.dominant.period,
                                             top.metrics.valid ? top.metrics.phase_bytes : NAN)
                    : NAN;
            break;
        }
    }
    for (size_t k = 0; k < set.n && k < 2; k++) {
        struct scan_activity *s = &m->act[k];
        snprintf(s->pattern, sizeof s->pattern, "%.150s%s%s", set.a[k].pattern, set.a[k].shape ? " " : "",
                 set.a[k].shape ? ftio_activity_shape_name(set.a[k].shape) : "");
        const struct ftio_result *r = self ? whole : part[k].res;
        if (r && r->has_period) {
            s->has_period = true;
            s->period = r->dominant.period;
            s->confidence = r->dominant.confidence;
        }
    }
    free(part);
    free(res);
    ftio_activities_free(&set);
}

static void job_row(struct scan_worker *w, const struct scan_opts *o, const struct ftio_trace *t,
                    struct scan_row *r)
{
    snprintf(r->job, sizeof r->job, "%s", t->job);
    r->start = t->origin > 0 ? t->origin : NAN;
    r->uid = t->uid;
    r->nprocs = t->ranks > 0 ? t->ranks : -1;
    r->exe = t->exe;
    r->run_time = t->run_time;
    r->bytes[SCAN_READ] = t->read.bytes;
    r->bytes[SCAN_WRITE] = t->write.bytes;
    r->source = source_name(t);
    const struct ftio_requests *req[2] = { &t->read.req, &t->write.req };
    struct ftio_signal sig[2];
    memset(sig, 0, sizeof sig);
    double first = INFINITY, last = -INFINITY;
    for (int d = 0; d < 2; d++) {
        if (req[d]->n == 0 || ftio_signal_build(req[d], &sig[d]) != 0 || sig[d].n == 0)
            continue;
        first = fmin(first, sig[d].t[0]);
        last = fmax(last, sig[d].t[sig[d].n - 1]);
    }
    /* the run: the job's own when the trace says it (Darshan: times are
     * relative to the job start), else the span of its I/O */
    double t0 = 0, run = t->run_time;
    if (!(run > 0) && first < last) {
        t0 = first;
        run = last - first;
    }
    /* the end: the job's run time, else its last I/O (times from its start) */
    r->end = r->start + (t->run_time > 0 ? t->run_time : last > 0 ? last : NAN);
    r->temporal_note = scan_temporal_class(&sig[SCAN_READ], &sig[SCAN_WRITE], t0, run, r->temporal);
    bool want[2] = { o->do_read, o->do_write };
    for (int d = 0; d < 2; d++)
        if (want[d]) {
            struct ftio_result whole;
            analyse_mode(w, o, &sig[d], req[d]->n, &r->mode[d], &whole);
            analyse_activities(w, o, t, d, &sig[d], &r->mode[d], &whole);
        }
    ftio_signal_free(&sig[0]);
    ftio_signal_free(&sig[1]);
}

/* A file found in a directory is taken when its content says what it is:
 * binary formats by their magic, text formats only when the head is text
 * (a gzip'd parser output can look like CSV by chance). */
static bool plausible(enum ftio_trace_format fmt, const unsigned char *p, size_t len)
{
    switch (fmt) {
    case FTIO_FORMAT_AUTO:
        return false;
    case FTIO_FORMAT_TMIO_JSON:
    case FTIO_FORMAT_DXT:
    case FTIO_FORMAT_CSV:
        for (size_t i = 0; i < len && i < 4096; i++)
            if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
                return false;
        return true;
    default:
        return true;
    }
}

/* Does job t pass the filters of o?  Checked before the analysis, which a
 * job filtered out is spared. */
static bool passes(const struct scan_opts *o, const struct ftio_trace *t)
{
    if (o->filter_uid >= 0 && t->uid != o->filter_uid)
        return false;
    if (o->filter_exe && (!t->exe || !strstr(t->exe, o->filter_exe)))
        return false;
    double start = t->origin > 0 ? t->origin : NAN;
    if (!isnan(o->since) && !(start >= o->since))
        return false;
    if (!isnan(o->until) && !(start < o->until))
        return false;
    if (o->min_bytes > 0 && !(t->read.bytes + t->write.bytes >= o->min_bytes))
        return false;
    return true;
}

static void init_row(struct scan_row *r, const char *path, size_t index)
{
    memset(r, 0, sizeof *r);
    r->index = index;
    r->file = path;
    r->uid = r->nprocs = -1;
    r->start = r->end = NAN;
    r->format = "";
    r->source = "";
    for (int d = 0; d < 2; d++)
        r->mode[d].phase_bytes = r->mode[d].phase_duration = r->mode[d].first_onset = NAN;
}

int scan_file(struct scan_worker *w, const struct scan_opts *o, const char *path, bool named,
              size_t index, scan_emit_fn emit, void *ctx)
{
    struct scan_row r;
    init_row(&r, path, index);
    w->err[0] = w->warn[0] = 0;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(w->err, sizeof w->err, "%s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(w->err, sizeof w->err, "%s: not a regular file", path);
    }
    if (w->err[0]) {
        if (fd >= 0)
            close(fd);
        r.error = w->err;
        emit(ctx, &r);
        return 0;
    }
    size_t len = (size_t)st.st_size;
    void *map = NULL;
    if (len > 0) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(w->err, sizeof w->err, "%s: %s", path, strerror(errno));
            close(fd);
            r.error = w->err;
            emit(ctx, &r);
            return 0;
        }
    }
    close(fd);
    /* what it is: content first, the name for an empty file */
    enum ftio_trace_format fmt = o->read.format;
    if (fmt == FTIO_FORMAT_AUTO)
        fmt = len ? ftio_trace_detect(map, len, path) : ftio_trace_detect(" ", 1, path);
    if (!named && !plausible(fmt, map, len)) {
        if (map)
            munmap(map, len);
        return 1;
    }
    r.format = ftio_trace_format_name(fmt);
    struct ftio_read_options ro = o->read;
    ro.format = fmt;
    struct ftio_trace_set set = { 0 };
    int rc;
    if (len == 0) {
        snprintf(w->err, sizeof w->err, "%s: offset 0: empty file", path);
        rc = -1;
    } else {
        rc = ftio_trace_read_buffer(&set, map, len, path, &ro, w->err, sizeof w->err, w->warn,
                                    sizeof w->warn);
    }
    if (map)
        munmap(map, len);
    if (rc == 0 && set.n == 0) {
        snprintf(w->err, sizeof w->err, "%s: no job in the trace", path);
        rc = -1;
    }
    if (rc != 0) {
        r.error = w->err;
        emit(ctx, &r);
    } else {
        ftio_trace_set_finish(&set, &ro);
        if (w->warn[0])
            r.warning = w->warn;
        for (size_t j = 0; j < set.n; j++) {
            struct scan_row jr = r;
            char dropped[sizeof w->warn];
            if (set.job[j].dropped_long) {
                /* never silent: the row says what --max-span dropped */
                snprintf(dropped, sizeof dropped, "%s%s%llu requests longer than %g s dropped",
                         r.warning ? r.warning : "", r.warning ? "; " : "",
                         (unsigned long long)set.job[j].dropped_long, ro.max_span);
                jr.warning = dropped;
            }
            if (passes(o, &set.job[j])) {
                job_row(w, o, &set.job[j], &jr);
                if (o->hist)        /* --history: the run, into the memory of runs */
                    scan_history_add(o->hist, &set.job[j], &jr);
            } else {
                jr.filtered = true;
            }
            emit(ctx, &jr);
        }
    }
    ftio_trace_set_free(&set);
    return 0;
}
