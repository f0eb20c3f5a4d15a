/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_engine.c -- the threads of a scan.  Worker threads (each with its own
 * ftio_analyzer, scan_job.c) claim work items from one atomic counter, turn
 * each file into its rows' text and count it in a thread-local summary; the
 * calling thread hands finished items to the sink strictly in work-list
 * order (so output does not depend on the number of threads or ranks) and,
 * when asked, prints a progress line on stderr at most once a second: files
 * done, rate, ETA.  Rows are kept only between their completion and their
 * turn to be written.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "scan/scan.h"

struct slot {
    char  *csv, *jsonl;
    size_t csv_len, jsonl_len;
    bool   done;
};

struct engine {
    const struct scan_opts  *o;
    const struct scan_files *f;
    const size_t *items;
    size_t nitems;
    atomic_size_t next;          /* next item to claim */
    pthread_mutex_t lock;
    pthread_cond_t  cond;        /* an item is done */
    struct slot *slot;
    size_t ndone;
    struct scan_summary sum;     /* merged from the workers as they end */
    bool failed;                 /* out of memory in a worker */
};

/* What a worker's emit callback appends to. */
struct worker_ctx {
    const struct scan_opts *o;
    struct scan_buf csv, jsonl;
    struct scan_summary sum;
};

static void emit(void *ctx, const struct scan_row *r)
{
    struct worker_ctx *w = ctx;
    if (w->o->csv)
        scan_format_csv(&w->csv, r, w->o);
    if (w->o->jsonl)
        scan_format_jsonl(&w->jsonl, r, w->o);
    scan_summary_add(&w->sum, r);
}

static char *take(struct scan_buf *b, size_t *len)
{
    *len = b->n;
    char *s = b->s;
    memset(b, 0, sizeof *b);
    return s;
}

static void *worker(void *arg)
{
    struct engine *e = arg;
    struct worker_ctx w;
    memset(&w, 0, sizeof w);
    w.o = e->o;
    struct scan_worker *sw = scan_worker_new();
    bool oom = !sw;
    for (size_t k; !oom && (k = atomic_fetch_add(&e->next, 1)) < e->nitems;) {
        size_t i = e->items ? e->items[k] : k;
        w.sum.files++;
        if (scan_file(sw, e->o, e->f->file[i].path, e->f->file[i].named, i, emit, &w) == 1)
            w.sum.skipped++;
        oom = w.csv.oom || w.jsonl.oom;
        pthread_mutex_lock(&e->lock);
        struct slot *s = &e->slot[k];
        s->csv = take(&w.csv, &s->csv_len);
        s->jsonl = take(&w.jsonl, &s->jsonl_len);
        s->done = true;
        e->ndone++;
        pthread_cond_signal(&e->cond);
        pthread_mutex_unlock(&e->lock);
    }
    scan_worker_free(sw);
    scan_buf_free(&w.csv);
    scan_buf_free(&w.jsonl);
    pthread_mutex_lock(&e->lock);
    scan_summary_merge(&e->sum, &w.sum);
    if (oom) {
        e->failed = true;
        atomic_store(&e->next, e->nitems);   /* the others stop claiming */
    }
    pthread_cond_signal(&e->cond);
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int scan_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void progress(size_t done, size_t total, double elapsed, int scale)
{
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "ftio scan: %zu/%zu files, %.0f files/s, ETA %.0f s\n", done * (size_t)scale,
            total * (size_t)scale, rate * scale, eta);
}

int scan_run(const struct scan_opts *o, const struct scan_files *f, const size_t *items,
             size_t nitems, scan_sink_fn sink, void *ctx, struct scan_summary *sum,
             int progress_scale)
{
    struct engine e;
    memset(&e, 0, sizeof e);
    e.o = o;
    e.f = f;
    e.items = items;
    e.nitems = items ? nitems : f->n;
    atomic_init(&e.next, 0);
    e.slot = calloc(e.nitems ? e.nitems : 1, sizeof *e.slot);
    if (!e.slot)
        return -1;
    pthread_mutex_init(&e.lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e.cond, &ca);
    pthread_condattr_destroy(&ca);

    int nthreads = o->threads > 0 ? o->threads : scan_online_cores();
    if ((size_t)nthreads > e.nitems)
        nthreads = e.nitems ? (int)e.nitems : 1;
    pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
    int started = 0;
    double t0 = now_s(), last_progress = t0;
    for (; tid && started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, &e) != 0)
            break;
    int rc = started > 0 ? 0 : -1;
    if (started == 0)
        atomic_store(&e.next, e.nitems);

    /* write in order as items complete */
    size_t next_write = 0;
    pthread_mutex_lock(&e.lock);
    while (started > 0 && next_write < e.nitems && !e.failed) {
        double t = o->progress ? now_s() : 0;
        if (o->progress && t - last_progress >= 1.0) {
            last_progress = t;
            size_t done = e.ndone;
            pthread_mutex_unlock(&e.lock);
            progress(done, e.nitems, t - t0, progress_scale);
            pthread_mutex_lock(&e.lock);
            continue;
        }
        if (!e.slot[next_write].done) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += 250000000;
            if (until.tv_nsec >= 1000000000) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&e.cond, &e.lock, &until);
            continue;
        }
        struct slot s = e.slot[next_write];
        memset(&e.slot[next_write], 0, sizeof s);
        pthread_mutex_unlock(&e.lock);
        if (rc == 0 && sink(ctx, items ? items[next_write] : next_write, s.csv ? s.csv : "", s.csv_len,
                            s.jsonl ? s.jsonl : "", s.jsonl_len) != 0) {
            rc = -1;
            atomic_store(&e.next, e.nitems);
        }
        free(s.csv);
        free(s.jsonl);
        next_write++;
        pthread_mutex_lock(&e.lock);
    }
    pthread_mutex_unlock(&e.lock);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (e.failed)
        rc = -1;
    for (size_t k = 0; k < e.nitems; k++) {
        free(e.slot[k].csv);
        free(e.slot[k].jsonl);
    }
    free(e.slot);
    free(tid);
    pthread_cond_destroy(&e.cond);
    pthread_mutex_destroy(&e.lock);
    if (o->progress && e.nitems > 0 && now_s() - t0 >= 1.0)
        progress(e.nitems, e.nitems, now_s() - t0, progress_scale);
    e.sum.seconds = now_s() - t0;
    e.sum.threads = started;
    e.sum.ranks = 1;
    scan_summary_merge(sum, &e.sum);
    return rc;
}
