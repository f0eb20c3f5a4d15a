/* SPDX-License-Identifier: BSD-3-Clause */
/* heap.c -- memory ftiod freed goes back to the system (issue 27).
 *
 * ftiod frees much of what it allocates: a job's first hour of bins once
 * its window forgets them, every batch once merged, the ended jobs.  glibc
 * keeps those pages in its arenas, among the live blocks, and the RSS stays
 * at the peak: 10,000 jobs with an hour of history each held 1.17 GB in the
 * main arena for 475 MB in use, an RSS of 130 KB per job for 43 KB that
 * ftiod counts (status `memory`).  malloc_trim() gives the free pages back
 * (madvise), without moving anything: the same daemon then held 644 MB.
 * (The bins' pages go back from a thread of their own: ftio_bin_pool_trim,
 * below.)  The ingest loop calls ftiod_heap_trim() once per poll turn; at most every
 * HEAP_EVERY seconds it asks malloc how much it holds free (mallinfo2: the
 * arenas' bins, not every block), and trims when that grew since the last
 * trim by more than HEAP_FREE_MIN bytes and a quarter of what is in use,
 * once what is in use stopped growing (free blocks stay free after a trim,
 * only their pages go: the count does not fall).  So it trims after a peak
 * (the history's ingest and first analyses), not in steady state: a
 * trim walks the heap and holds each arena meanwhile (1.3 GB, 400 MB of it
 * free: 3.1 s on a machine at load 33, during which the ingest waits; 680
 * MB free with 10,000 jobs x 1 h: 6.3 s at load 12).  On a thread of its
 * own the trim took 8.5-11.5 s instead, beside the ingest and the analyses
 * it competes with for the arenas' locks and the CPU, and the latencies of
 * 3,000 and 10,000 jobs were no better (bench/README.md, issue 27 third
 * round): it stays here.
 *
 * malloc's own thresholds are left at their defaults.  A trim threshold of
 * 8 MB and an mmap threshold of 4 MB (so an analysis thread's arena does not
 * give back and fault in its window's buffers at each analysis: ~10 % of
 * those threads' CPU at 3,000 jobs in TLB shootdowns, perf) were tried and
 * dropped: a daemon replaying a day-long job then kept 5.9 MB more resident
 * (tests/daemon/memory_bound.sh allows 3 MB), in half the runs.
 */
#include <malloc.h>
#include <time.h>
#include "daemon.h"
#include "timeutil.h"

#define HEAP_EVERY    10.0
#define POOL_EVERY    1.0     /* s between ftio_bin_pool_trim() calls */
#define HEAP_FREE_MIN (32u << 20)
#define HEAP_SAY      0.1     /* s: a trim that long is logged (info) */
/* Behind a backlog (the ingest has not found its socket empty for
 * BACKLOG_AFTER s) both wait, at most BACKLOG_DEFER s since the last: the
 * ingest is the critical path of a catch-up, and what a trim would give back
 * there the next merges take again.  10,000 jobs' hours of history: a heap
 * trim paused the ingest 0.65-0.9 s in the catch-up, and the pool's pages
 * given back were faulted in again (bench/README.md, issue 27 sixth round). */
#define BACKLOG_AFTER 1.0
#define BACKLOG_DEFER 30.0

bool ftiod_backlogged(const struct ftiod *d)
{
    return (double)(ftio_real_ns() - atomic_load(&d->router_quiet_ns)) * 1e-9 > BACKLOG_AFTER;
}

/* The bins' pages the windows forgot, those no job took again within a
 * second (analysis/stream.h), go back from a thread of their own: the
 * madvise calls wait for a TLB shootdown on every core running ftiod, 12-15 %
 * of the ingest thread's samples when it made them (perf, 3,000 and 10,000
 * jobs x 1 h), and the ingest is what a catch-up waits for.  The pool's lock
 * is not held during the calls (bin_pool.c), so nobody waits for them. */
static void *pool_trimmer_main(void *arg)
{
    struct ftiod *d = arg;
    double last = ftiod_now();
    while (!d->stop) {
        struct timespec ts = {0, 100000000};    /* d->stop is looked at 10 times a second */
        nanosleep(&ts, NULL);
        double now = ftiod_now();
        if (!d->stop && now - last >= (ftiod_backlogged(d) ? BACKLOG_DEFER : POOL_EVERY)) {
            last = now;
            ftio_bin_pool_trim();
        }
    }
    return NULL;
}

int ftiod_pool_trimmer_start(struct ftiod *d)
{
    d->pool_trimmer_up = pthread_create(&d->pool_trimmer, NULL, pool_trimmer_main, d) == 0;
    return d->pool_trimmer_up ? 0 : -1;
}

void ftiod_pool_trimmer_stop(struct ftiod *d)
{
    if (!d->pool_trimmer_up)
        return;
    d->stop = 1;
    pthread_join(d->pool_trimmer, NULL);
    d->pool_trimmer_up = false;
}

void ftiod_heap_trim(struct ftiod *d, double now)
{
    bool defer = ftiod_backlogged(d);
    if (now - d->heap_checked < (defer ? BACKLOG_DEFER : HEAP_EVERY) || d->stop)
        return;
    d->heap_checked = now;
    struct mallinfo2 mi = mallinfo2();
    size_t grown = mi.fordblks > d->heap_free ? mi.fordblks - d->heap_free : 0;
    /* Still taking: not past a peak.  A little growth is not a peak (FFT
     * plans of new window lengths, a few jobs more: spectrum.c). */
    size_t slack = mi.uordblks / 32 > HEAP_FREE_MIN / 4 ? mi.uordblks / 32 : HEAP_FREE_MIN / 4;
    bool growing = mi.uordblks > d->heap_used + slack;
    d->heap_used = mi.uordblks;
    if (mi.fordblks < d->heap_free)
        d->heap_free = mi.fordblks;          /* reused since: the base falls */
    if (growing || grown < HEAP_FREE_MIN || grown < mi.uordblks / 4)
        return;
    double t0 = ftiod_now();
    malloc_trim(0);
    d->heap_free = mi.fordblks;
    double took = ftiod_now() - t0;
    /* The ingest waited that long: said when it is noticeable. */
    if (d->cfg.verbose || took >= HEAP_SAY)
        ftiod_log_at(took >= HEAP_SAY ? FTIOD_INFO : FTIOD_DEBUG,
                     "heap: %zu MB free of %zu MB given back in %.1f ms",
                     mi.fordblks >> 20, (mi.fordblks + mi.uordblks) >> 20, took * 1e3);
}
