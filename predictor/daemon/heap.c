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
 * arenas' bins, not every block), and trims when that is more than
 * HEAP_FREE_MIN bytes and a quarter of what is in use: rarely, and at most
 * once per HEAP_EVERY, since a trim walks the heap (a few ms per 100 MB).
 */
#include <malloc.h>
#include "daemon.h"

#define HEAP_EVERY    10.0
#define HEAP_FREE_MIN (32u << 20)

void ftiod_heap_trim(struct ftiod *d, double now)
{
    if (now - d->heap_checked < HEAP_EVERY)
        return;
    d->heap_checked = now;
    struct mallinfo2 mi = mallinfo2();
    if (mi.fordblks < HEAP_FREE_MIN || mi.fordblks < mi.uordblks / 4)
        return;
    double t0 = ftiod_now();
    malloc_trim(0);
    ftiod_log_at(FTIOD_DEBUG, "heap: %zu MB free of %zu MB given back in %.1f ms",
                 mi.fordblks >> 20, (mi.fordblks + mi.uordblks) >> 20, (ftiod_now() - t0) * 1e3);
}
