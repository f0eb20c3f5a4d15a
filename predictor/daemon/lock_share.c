/* SPDX-License-Identifier: BSD-3-Clause */
/* lock_share.c -- the analysis threads get their turn at the daemon's lock
 * while the ingest thread is flooded.
 *
 * The ingest thread takes `lock` once per batch (admit.c), decodes the next
 * one outside it and takes it again.  A glibc mutex is not fair: the thread
 * woken by an unlock finds the lock taken again before it runs.  While
 * 10,000 jobs' hours of history were merged (1 ms or more a batch, page
 * faults included), the analysis threads waited for `lock` in 75 % of their
 * switches (perf, sched_switch) and ran at 3-15 % of a core: the jobs' first
 * analyses began only once the whole history was in, 15-40 s into the live
 * part, and the pages the first analyses forget could not serve the next
 * histories (bench/README.md, issue 27 fifth round).
 *
 * So an analysis thread that has to wait says so (`waiting`), and counts its
 * grants; the ingest thread, before taking the lock, lets a waiting analysis
 * thread in first when none got the lock for SHARE_AFTER: it sleeps on the
 * grant count (a futex) until the next grant, at most SHARE_WAIT.  Without a
 * flood the analysis threads get the lock on their own and the ingest never
 * waits; on a loaded machine a woken thread may wait for a core for
 * milliseconds, and the ingest's wait is what bounds its loss (at most
 * SHARE_WAIT in every SHARE_AFTER + SHARE_WAIT: a 2-ms wait each time cost
 * the ingest seconds of a 10,000-job history at load 12).  The lock itself is
 * unchanged (a condition variable waits on it).
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "daemon.h"
#include "timeutil.h"

#define SHARE_AFTER_NS 2000000   /* 2 ms without a grant while one waits */
#define SHARE_WAIT_NS  500000    /* the ingest waits 0.5 ms at most */

static void futex_wait(atomic_uint *word, unsigned seen, long ns)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ns};
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void ftiod_lock_analysis(struct ftiod *d)
{
    struct ftiod_lock_share *s = &d->share;
    if (pthread_mutex_trylock(&d->lock) != 0) {
        atomic_fetch_add(&s->waiting, 1);
        pthread_mutex_lock(&d->lock);
        atomic_fetch_sub(&s->waiting, 1);
    }
    atomic_store(&s->granted_ns, (long long)ftio_mono_ns());
    atomic_fetch_add(&s->grants, 1);
    if (atomic_load(&s->yielding))
        futex_wake(&s->grants);
}

void ftiod_lock_ingest(struct ftiod *d)
{
    struct ftiod_lock_share *s = &d->share;
    if (atomic_load(&s->waiting) > 0) {
        int64_t t0 = ftio_mono_ns();
        if (t0 - atomic_load(&s->granted_ns) >= SHARE_AFTER_NS) {
            unsigned g = atomic_load(&s->grants);
            atomic_store(&s->yielding, 1);
            for (int64_t t = t0; atomic_load(&s->waiting) > 0 && atomic_load(&s->grants) == g &&
                                 t - t0 < SHARE_WAIT_NS;
                 t = ftio_mono_ns())
                futex_wait(&s->grants, g, SHARE_WAIT_NS - (t - t0));
            atomic_store(&s->yielding, 0);
        }
    }
    pthread_mutex_lock(&d->lock);
}
