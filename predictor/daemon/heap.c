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
 * The ingest loop calls ftiod_heap_trim() once per poll turn; at most every
 * HEAP_EVERY seconds it asks malloc how much it holds free (mallinfo2: the
 * arenas' bins, not every block), and trims when that grew since the last
 * trim by more than HEAP_FREE_MIN bytes and a quarter of what is in use,
 * once what is in use stopped growing (free blocks stay free after a trim,
 * only their pages go: the count does not fall).  So it trims after a peak
 * (the history's ingest and first analyses), not in steady state: a
 * trim walks the heap and holds each arena meanwhile (1.3 GB, 400 MB of it
 * free: 3.1 s on a machine at load 33; 680 MB free, 6.3 s at load 12), on a
 * thread of its own, so that the ingest goes on.
 */
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include "daemon.h"

#define HEAP_EVERY    10.0
#define HEAP_FREE_MIN (32u << 20)
#define HEAP_SAY      0.1     /* s: a trim that long is logged (info) */

/* A trim runs on a thread of its own, one at a time: the ingest loop goes
 * on meanwhile (it waits only where it allocates from an arena the trim
 * holds), where it used to wait the whole trim (seconds at site scale). */
static atomic_bool trimming;

struct trim_job {
    bool   verbose;
    size_t free_mb, total_mb;
};

static void *trim_thread(void *arg)
{
    struct trim_job t = *(struct trim_job *)arg;
    free(arg);
    /* Not at a lower priority: the trim holds each arena's lock while it
     * walks it, and a thread at nice 19 on a loaded machine holds it for
     * long stretches it does not run (10,000 jobs x 1 h at load 15: p99 45 s
     * against 25 s, the trim 8.5 s). */
    double t0 = ftiod_now();
    malloc_trim(0);
    double took = ftiod_now() - t0;
    if (t.verbose || took >= HEAP_SAY)
        ftiod_log_at(took >= HEAP_SAY ? FTIOD_INFO : FTIOD_DEBUG,
                     "heap: %zu MB free of %zu MB given back in %.1f ms", t.free_mb, t.total_mb,
                     took * 1e3);
    atomic_store(&trimming, false);
    return NULL;
}

void ftiod_heap_trim(struct ftiod *d, double now)
{
    if (now - d->heap_checked < HEAP_EVERY || d->stop || atomic_load(&trimming))
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
    d->heap_free = mi.fordblks;
    struct trim_job *t = malloc(sizeof *t);
    if (!t)
        return;
    *t = (struct trim_job){ d->cfg.verbose, mi.fordblks >> 20, (mi.fordblks + mi.uordblks) >> 20 };
    /* Signals stay with the ingest loop (ftiod_main.c): blocked here. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_store(&trimming, true);
    pthread_t th;
    if (pthread_create(&th, &attr, trim_thread, t) != 0) {
        atomic_store(&trimming, false);
        free(t);
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
