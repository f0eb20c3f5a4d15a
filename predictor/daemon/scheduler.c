/* SPDX-License-Identifier: BSD-3-Clause */
/* scheduler.c -- the analysis threads of ftiod (--threads, default one per
 * core).
 *
 * Each thread loops: take a job from the queue (sched_queue.c: live jobs
 * first, round robin, one thread per job at a time), give it one turn
 * (sched_step.c), give it back; when nothing is due, sleep until the ingest
 * thread signals a mark or a final, or 20 ms pass (the wall-clock due time
 * of live boundaries).  The lock is held only to pick, copy and store; the
 * analyses run in parallel outside it, and ftiod_publish() serialises the
 * PUB socket and --log (publish.c).
 *
 * Stopping (SIGTERM, SIGINT) is bounded: with --state-dir the threads leave
 * after the turn in progress (the next ftiod continues the jobs); without,
 * each job gets its end message with its latest answers (no new analysis
 * but for a mode that has none, while there is time: sched.h), the main
 * thread helping once the ingest loop is over, for SCHED_STOP_BUDGET
 * seconds at most; ftiod_analysis_stop says in the log how many ends went
 * out and counts the jobs left without one, if any.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sched.h"

struct ftiod_pool {
    size_t n;
    pthread_t *th;
    struct analysis **a;
};

static void *analysis_main(void *arg)
{
    struct analysis *a = arg;
    struct ftiod *d = a->d;
    bool woken = false;
    ftiod_lock_analysis(d);
    for (;;) {
        if (d->reopen) {          /* SIGHUP: between two --log lines */
            d->reopen = 0;
            pthread_mutex_unlock(&d->lock);
            ftiod_publish_reopen(d);
            ftiod_lock_analysis(d);
        }
        bool stopping = d->stop;
        double now = ftiod_now();
        if (stopping && d->stop_at == 0)
            d->stop_at = now;
        if (stopping && (d->state || now - d->stop_at > SCHED_STOP_BUDGET))
            break;
        struct job *j = sched_take(d, now, stopping, woken);
        woken = false;
        if (j) {
            if (++d->stats.turns_now > d->stats.turns_max)
                d->stats.turns_max = d->stats.turns_now;
            sched_turn(a, j, now, stopping);
            d->stats.turns_now--;
            sched_give_back(d, j);
            continue;
        }
        if (stopping)
            break;                /* every job has its end, or another thread has it */
        /* Nothing due: sleep until woken by a mark/final or 20 ms pass (the
         * --min-interval granularity). */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        woken = pthread_cond_timedwait(&d->wake, &d->lock, &ts) == 0;
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static void analysis_free(struct analysis *a)
{
    if (!a)
        return;
    ftio_stream_work_free(a->work);
    ftio_analyzer_free(a->an);
    free(a);
}

/* One thread's private buffers, or NULL out of memory. */
static struct analysis *analysis_new(struct ftiod *d)
{
    struct analysis *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->d = d;
    if (!(a->an = ftio_analyzer_new()) || !(a->work = ftio_stream_work_new())) {
        analysis_free(a);
        return NULL;
    }
    return a;
}

int ftiod_analysis_start(struct ftiod *d)
{
    struct ftiod_pool *p = calloc(1, sizeof *p);
    size_t n = d->cfg.threads;
    if (n == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        n = cores > 0 ? (size_t)cores : 1;
    }
    if (!p || !(p->th = calloc(n, sizeof *p->th)) || !(p->a = calloc(n, sizeof *p->a))) {
        if (p)
            free(p->th);
        free(p);
        return -1;
    }
    d->pool = p;
    for (size_t i = 0; i < n; i++) {
        struct analysis *a = analysis_new(d);
        if (!a)
            break;
        if (pthread_create(&p->th[i], NULL, analysis_main, a) != 0) {
            analysis_free(a);
            break;
        }
        p->a[p->n++] = a;
    }
    pthread_mutex_lock(&d->lock);
    d->stats.threads = p->n;
    pthread_mutex_unlock(&d->lock);
    if (p->n == 0)
        return -1;
    if (p->n < n)
        ftiod_log_at(FTIOD_WARNING, "%zu analysis threads of the %zu asked", p->n, n);
    return 0;
}

void ftiod_analysis_stop(struct ftiod *d)
{
    struct ftiod_pool *p = d->pool;
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    if (d->stop_at == 0)
        d->stop_at = ftiod_now();
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&d->lock);
    if (!p)
        return;
    /* Without --state-dir the ends are this thread's work too: the ingest
     * loop is over (a third thread on two cores also gets a larger share of
     * a loaded machine). */
    struct analysis *helper = d->state ? NULL : analysis_new(d);
    if (helper) {
        analysis_main(helper);
        analysis_free(helper);
    }
    for (size_t i = 0; i < p->n; i++) {
        pthread_join(p->th[i], NULL);
        analysis_free(p->a[i]);
    }
    free(p->th);
    free(p->a);
    free(p);
    d->pool = NULL;
    size_t open = 0, ends, short_ends;
    for (size_t i = 0; i < d->jobs.n; i++)
        open += !d->jobs.job[i]->closed;
    sched_stop_counts(d, &ends, &short_ends);
    if (ends) {
        char tail[160] = "";
        if (short_ends)
            snprintf(tail, sizeof tail, "; %zu of them short of what there was no time "
                     "left for (a mode never analysed, batches held for their clock)", short_ends);
        ftiod_log_at(short_ends ? FTIOD_WARNING : FTIOD_NOTICE,
                     "stopping: %zu end messages in %.2f s%s", ends, ftiod_now() - d->stop_at,
                     tail);
    }
    if (open && !d->state)
        ftiod_log_at(FTIOD_WARNING,
                     "stopped before %zu of %zu jobs got their end summary (SIGTERM gives "
                     "them %.1f s; --state-dir leaves them to the next ftiod instead)",
                     open, d->jobs.n, SCHED_STOP_BUDGET);
    else if (open)
        ftiod_log_at(FTIOD_NOTICE, "%zu jobs left to the next ftiod (--state-dir)", open);
    sched_queue_free(d);
}
