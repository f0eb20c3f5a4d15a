/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_history.c -- `ftio scan --history STORE`: each job of an archive
 * becomes a run of its application in the memory of runs (predictor/history/,
 * docs/ALGORITHM.md §11), so that a site's ftiod starts with the memory of
 * its archive: a run of an application it only knows from there gets a prior
 * at its first batch.
 *
 * The application: a Darshan log's uid and command line (one space-joined
 * string: the program, then the arguments, hashed by common/app_key.c as the
 * shim hashes its argv), a spool file's `app` identity (the shim's own); a
 * job with neither is not recorded (counted).  Its answers: each mode's as
 * the scan's analysis found them (period, confidence, class, bytes and
 * duration of a phase, the first phase of the train after the job's start)
 * and the two largest activities' periods.  Worker threads record under one
 * lock (a store is one connection); a job scanned again replaces its run.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "app_key.h"
#include "history/history.h"
#include "scan/scan.h"

#define BUSY_MS 10000     /* a scan waits for a daemon's write: it is not live */

struct scan_history {
    pthread_mutex_t lock;
    struct ftio_store *store;
    char shown[1024];
    unsigned long recorded, unknown, failed;
    char first_error[256];
};

struct scan_history *scan_history_open(const char *spec)
{
    struct scan_history *h = calloc(1, sizeof *h);
    char err[512];
    if (!h) {
        fprintf(stderr, "ftio scan: out of memory\n");
        return NULL;
    }
    ftio_store_spec_redacted(spec, h->shown, sizeof h->shown);
    if (!(h->store = ftio_store_open(spec, BUSY_MS, false, err, sizeof err))) {
        fprintf(stderr, "ftio scan: --history: %s\n", err);
        free(h);
        return NULL;
    }
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

void scan_history_counts(const struct scan_history *h, double c[3])
{
    c[0] = (double)h->recorded;
    c[1] = (double)h->unknown;
    c[2] = (double)h->failed;
}

void scan_history_report(const struct scan_history *h, const double c[3])
{
    fprintf(stderr, "ftio scan: memory of runs %s: %.0f runs recorded, %.0f jobs without a user and "
            "a command line, %.0f failed%s%s%s\n", h->shown, c[0], c[1], c[2],
            h->first_error[0] ? " (" : "", h->first_error, h->first_error[0] ? ")" : "");
}

int scan_history_close(struct scan_history *h)
{
    if (!h)
        return 0;
    int rc = h->failed ? -1 : 0;
    ftio_store_close(h->store);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return rc;
}

static void answer(struct ftio_store_answer *a, int mode, const char *pattern, bool has_period,
                   double period, double conf, int cls, double bytes, double duration, double offset)
{
    memset(a, 0, sizeof *a);
    a->mode = mode;
    snprintf(a->pattern, sizeof a->pattern, "%s", pattern);
    a->period = has_period ? period : NAN;
    a->confidence = has_period ? conf : NAN;
    a->cls = cls;
    a->bytes = bytes;
    a->duration = duration;
    a->first_offset = offset;
}

void scan_history_add(struct scan_history *h, const struct ftio_trace *t, const struct scan_row *r)
{
    char exe[4096], args[FTIO_ARGS_HASH_HEX], norm[FTIO_ARGS_HASH_HEX];
    struct ftio_store_app key = { .uid = -1 };
    const char *exe_id = "";
    double start = r->start;
    if (t->app) {
        key = (struct ftio_store_app){ t->app->uid, ftio_app_prog(t->app->exe), t->app->exe,
                                       t->app->args, t->app->args_norm, t->app->name };
        exe_id = t->app->exe_id;
        /* an MPI job: when its last rank was through MPI_Init (spool_read.c) */
        int64_t s = t->app->start_ns, last = 0;
        for (size_t i = 0; i < t->rank_mpi_n && last >= 0; i++)
            last = t->rank_mpi_ns[i] > 0 ? (t->rank_mpi_ns[i] > last ? t->rank_mpi_ns[i] : last) : -1;
        if (t->rank_mpi_n > 0 && last > 0)
            s = last;
        if (s > 0)
            start = (double)s * 1e-9;
    } else if (t->exe && t->uid >= 0) {
        ftio_app_split_cmdline(t->exe, exe, sizeof exe, args, norm);
        key = (struct ftio_store_app){ t->uid, ftio_app_prog(exe), exe, args, norm, "" };
    }
    if (key.uid < 0 || !key.prog || !*key.prog) {
        pthread_mutex_lock(&h->lock);
        h->unknown++;
        pthread_mutex_unlock(&h->lock);
        return;
    }
    /* the job's start on the trace's time axis (Darshan: 0) */
    double job_start = t->origin > 0 && isfinite(start) ? start - t->origin : 0;
    struct ftio_store_answer a[2 * 3];
    size_t n = 0;
    for (int d = 0; d < 2; d++) {
        const struct scan_mode *m = &r->mode[d];
        if (!m->analysed)
            continue;
        int mode = d == SCAN_WRITE ? 0 : 1;   /* the store's: 0 write, 1 read */
        answer(&a[n++], mode, "", m->has_period, m->period, m->confidence, m->cls, m->phase_bytes,
               m->phase_duration, m->first_onset - job_start);
        for (size_t k = 0; m->nact > 1 && k < 2 && m->act[k].pattern[0]; k++)
            answer(&a[n++], mode, m->act[k].pattern, m->act[k].has_period, m->act[k].period,
                   m->act[k].confidence,
                   !m->act[k].has_period ? FTIO_CLASS_NONE
                   : m->act[k].confidence >= FTIO_PRIOR_PERIODIC_CONF ? FTIO_CLASS_PERIODIC
                                                                       : FTIO_CLASS_UNCERTAIN,
                   NAN, NAN, NAN);
    }
    if (n == 0)
        return;
    char job[4096];
    snprintf(job, sizeof job, "%s", r->job[0] ? r->job : r->file);
    struct ftio_store_run run = {
        .app = key, .job = job, .source = "scan", .exe_id = exe_id, .start = start,
        .end = isfinite(r->end) ? r->end : start, .nranks = r->nprocs, .nanswers = n, .answers = a,
    };
    double used = isfinite(run.end) ? run.end : (double)time(NULL);
    pthread_mutex_lock(&h->lock);
    if (ftio_store_record(h->store, &run, 0, used, NULL) == 0) {
        h->recorded++;
    } else {
        if (!h->failed)
            snprintf(h->first_error, sizeof h->first_error, "%s", ftio_store_error(h->store));
        h->failed++;
    }
    pthread_mutex_unlock(&h->lock);
}
