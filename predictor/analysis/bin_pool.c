/* SPDX-License-Identifier: BSD-3-Clause */
/* bin_pool.c -- the memory of the bins' blocks (bins.c), in pages of their
 * own, so that what a window forgets goes back to the system whole.
 *
 * ftiod keeps the bins of thousands of jobs, 64 bins a block (520 B with
 * AVERAGE sampling, 1,544 B with HOLD).  A job's first hour arrives at once
 * (its history, or a restart), and its window then forgets most of it, block
 * by block.  From malloc, those freed blocks stayed in glibc's arenas among
 * live ones: the RSS stayed at the history's peak until a malloc_trim()
 * walked the whole heap, 2-6 s at 10,000 jobs x 1 h while the ingest waited
 * (bench/README.md, issue 27).  Here the blocks of one size share pages of
 * POOL_PAGE bytes (mapped POOL_CHUNK at a time, each page aligned to its
 * size, so a block finds its page by masking its address); a page whose
 * blocks are all free is a spare, kept resident for the next blocks.
 *
 * When spares go back to the system (madvise MADV_DONTNEED, one call per run
 * of neighbouring pages: the kernel takes their memory and gives zeroes when
 * they are used again):
 * - a caller with a clock (ftiod) calls ftio_bin_pool_trim() now and then:
 *   the spares no block was taken from since its previous call go back,
 *   but for spare_max() / 2 of them, a bounded number a call, outside the
 *   pool's lock.  While 10,000 jobs' histories are ingested, the pages the
 *   first analyses forget are the next histories' pages within moments:
 *   given back at once (the rule below) they were faulted in again, ~300,000
 *   page faults at 20-40 us each in this VM, in the ingest thread under the
 *   daemon's lock, and the catch-up after the history took twice as long
 *   (bench/README.md, issue 27 fifth round);
 * - until such a call, past spare_max() spares all but half of them go at
 *   once (`ftio --window`, tests).
 * A job's history fills its own run of pages, in time order, so the pages
 * its window forgets empty whole.  Blocks are given out zeroed, as calloc
 * did (memory fresh from the system is zero already: not written again).
 *
 * One mutex for the pool, taken once per block made or freed (a block is
 * 6.4 s of signal at 10 Hz): ftiod changes bins under its own lock anyway,
 * `ftio --window` from one thread.  Under AddressSanitizer the free blocks
 * are poisoned, so a use after free is still caught.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "analysis/analysis_internal.h"
#include "analysis/stream.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_PAGE    8192u          /* 15 blocks of 520 B, 5 of 1,544 B */
#define POOL_CHUNK   (2u << 20)     /* pages are mapped 256 at a time */
/* Empty pages resident before some go back: an eighth of the pages in use,
 * at least 512 KiB and at most 8 MiB; half of them stay then.  While a
 * history is ingested, the pages its window forgets serve the next job's
 * bins (given back at 2 MiB, they were faulted in again at once: a third of
 * the ingest thread's time at 3,000 jobs, perf); a daemon with a few jobs
 * keeps little (a fixed 8 MiB grew a two-job ftiod by 5.5 MB:
 * tests/daemon/memory_bound.sh). */
#define POOL_SPARE_MIN  64
/* Past this many bytes mapped, a new mapping comes with its memory
 * (MAP_POPULATE: one system call instead of 512 page faults).  A page fault
 * costs 15-20 us of the faulting thread in this VM, a populated page 5-9 us
 * (bench/README.md, issue 27 eighth round); 10,000 jobs' histories map ~200
 * chunks in the ingest thread, a third of whose time was page faults, the
 * pool's a third of those.  A daemon with a few jobs stays below it and
 * keeps only the pages it touches. */
#define POOL_POPULATE_AFTER (8u << 20)
#define POOL_SPARE_MAX  1024
#define POOL_CLASSES 4              /* block sizes (bins.c has two) */
/* ftio_bin_pool_trim() gives back at most this many pages a call (64 MiB):
 * its caller's thread waits for the madvise calls. */
#define POOL_TRIM_MAX 8192
#define POOL_ALIGN   16

/* At the start of each page in use. */
struct page {
    struct page *prev, *next;       /* in its class's list of pages with room */
    void *free;                     /* its freed blocks, linked through their first word */
    uint32_t used;                  /* blocks given out */
    uint32_t fresh;                 /* blocks never given out: the next one is at this index */
    uint32_t cls;
    uint32_t zero;                  /* its blocks not given out yet are zeroes (fresh memory) */
};
#define HEAD (((sizeof(struct page) + POOL_ALIGN - 1) / POOL_ALIGN) * POOL_ALIGN)

static struct {
    pthread_mutex_t lock;
    size_t nclasses;
    size_t size[POOL_CLASSES];      /* block size, rounded to POOL_ALIGN */
    uint32_t per_page[POOL_CLASSES];
    struct page *room[POOL_CLASSES];
    struct page **empty;            /* empty pages: spare (resident) ones first ... */
    size_t nempty, cap_empty;
    size_t nspare;                  /* ... the first nspare of them, the newest last */
    size_t idle;                    /* the first idle spares: none taken since the last trim */
    bool timed;                     /* ftio_bin_pool_trim() gives back, not page_retire */
    char *chunk;                    /* the newest mapping's pages not handed out yet */
    size_t chunk_left;
    struct ftio_bin_pool_stats st;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct page *page_of(const void *block)
{
    return (struct page *)((uintptr_t)block & ~(uintptr_t)(POOL_PAGE - 1));
}

static int class_of(size_t size)
{
    size = (size + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
    for (size_t c = 0; c < pool.nclasses; c++)
        if (pool.size[c] == size)
            return (int)c;
    if (pool.nclasses == POOL_CLASSES || size > POOL_PAGE - HEAD)
        return -1;
    pool.size[pool.nclasses] = size;
    pool.per_page[pool.nclasses] = (uint32_t)((POOL_PAGE - HEAD) / size);
    return (int)pool.nclasses++;
}

static void room_unlink(struct page *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        pool.room[p->cls] = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->prev = p->next = NULL;
}

static void room_push(struct page *p)
{
    p->prev = NULL;
    p->next = pool.room[p->cls];
    if (p->next)
        p->next->prev = p;
    pool.room[p->cls] = p;
}

/* A page for class c: a spare one, one given back (zeroes again when
 * touched), or the next of the newest mapping (a new one when it is used
 * up).  NULL out of memory. */
static struct page *page_new(int c)
{
    struct page *p;
    if (pool.nempty > 0) {
        /* The spare ones are the first nspare: take the last of them, else
         * the last of those given back. */
        size_t k = pool.nspare > 0 ? pool.nspare - 1 : pool.nempty - 1;
        bool spare = pool.nspare > 0;
        p = pool.empty[k];
        pool.empty[k] = pool.empty[pool.nempty - 1];
        pool.nempty--;
        if (spare) {
            pool.nspare--;
            if (pool.idle > pool.nspare)
                pool.idle = pool.nspare;
        } else {
            pool.st.released--;
        }
        UNPOISON(p, POOL_PAGE);
        memset(p, 0, HEAD);
        p->zero = !spare;               /* given back: zeroes when touched */
    } else {
        if (pool.chunk_left == 0) {
            int populate = pool.st.mapped >= POOL_POPULATE_AFTER ? MAP_POPULATE : 0;
            char *m = mmap(NULL, POOL_CHUNK, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
            if (m == MAP_FAILED)
                return NULL;
            /* Pages aligned to their size: the part before the first is
             * never touched (no memory, only addresses). */
            char *a = (char *)(((uintptr_t)m + POOL_PAGE - 1) & ~(uintptr_t)(POOL_PAGE - 1));
            pool.chunk = a;
            pool.chunk_left = (size_t)(m + POOL_CHUNK - a) / POOL_PAGE;
            pool.st.mapped += POOL_CHUNK;
        }
        p = (struct page *)pool.chunk;
        pool.chunk += POOL_PAGE;
        pool.chunk_left--;
        UNPOISON(p, POOL_PAGE);
        memset(p, 0, HEAD);
        p->zero = 1;
    }
    p->cls = (uint32_t)c;
    POISON((char *)p + HEAD, POOL_PAGE - HEAD);
    pool.st.pages++;
    return p;
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(struct page *const *)a, y = (uintptr_t)*(struct page *const *)b;
    return (x > y) - (x < y);
}

/* More than spare_max() empty pages resident: all but half of that go
 * back, in runs of neighbouring pages, one madvise each (each call costs a
 * TLB shootdown on every core running ftiod: in a VM the whole of a
 * malloc_trim's time went there, bench/README.md).  A window forgetting a
 * job's history empties a run of pages: one call. */
static size_t spare_max(void)
{
    size_t m = pool.st.pages / 8;
    return m < POOL_SPARE_MIN ? POOL_SPARE_MIN : m > POOL_SPARE_MAX ? POOL_SPARE_MAX : m;
}

/* The n pages of p back to the system, sorted, one call per run. */
static void release(struct page **p, size_t n)
{
    qsort(p, n, sizeof *p, by_address);
    for (size_t i = 0, k; i < n; i = k) {
        for (k = i + 1; k < n && (char *)p[k] == (char *)p[k - 1] + POOL_PAGE; k++)
            ;
        madvise(p[i], (k - i) * POOL_PAGE, MADV_DONTNEED);
    }
}

static void give_back(void)
{
    size_t keep = spare_max() / 2;
    qsort(pool.empty, pool.nspare, sizeof *pool.empty, by_address);
    release(pool.empty + keep, pool.nspare - keep);
    size_t n = pool.nspare - keep;
    pool.st.released += n;
    pool.st.given_back += n * POOL_PAGE;
    pool.nspare = keep;                 /* [keep, nempty) are given back now */
    pool.idle = 0;
}

size_t ftio_bin_pool_trim(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.timed = true;
    /* The oldest spares, untouched since the last call, beyond the half of
     * spare_max() kept for the next blocks. */
    size_t keep = spare_max() / 2, n = pool.idle;
    if (n > pool.nspare - keep || pool.nspare < keep)
        n = pool.nspare > keep ? pool.nspare - keep : 0;
    if (n > POOL_TRIM_MAX)
        n = POOL_TRIM_MAX;
    static struct page *out[POOL_TRIM_MAX];   /* one trimming caller at a time: trim_lock */
    static pthread_mutex_t trim_lock = PTHREAD_MUTEX_INITIALIZER;
    if (n == 0 || pthread_mutex_trylock(&trim_lock) != 0) {
        pool.idle = pool.nspare;
        pthread_mutex_unlock(&pool.lock);
        return 0;
    }
    /* Out of the lists while the kernel takes them: no block is made there. */
    memcpy(out, pool.empty, n * sizeof *out);
    memmove(pool.empty, pool.empty + n, (pool.nempty - n) * sizeof *pool.empty);
    pool.nempty -= n;
    pool.nspare -= n;
    pool.idle = pool.nspare;
    pthread_mutex_unlock(&pool.lock);

    release(out, n);

    pthread_mutex_lock(&pool.lock);
    if (pool.nempty + n > pool.cap_empty) {
        size_t cap = pool.cap_empty ? pool.cap_empty : 256;
        while (cap < pool.nempty + n)
            cap *= 2;
        struct page **e = realloc(pool.empty, cap * sizeof *e);
        if (e) {
            pool.empty = e;
            pool.cap_empty = cap;
        }
    }
    /* Given back: after the spares and those given back before.  (Out of
     * memory for the list: they stay out of it, addresses without memory.) */
    size_t room = pool.cap_empty - pool.nempty, listed = n < room ? n : room;
    memcpy(pool.empty + pool.nempty, out, listed * sizeof *out);
    pool.nempty += listed;
    pool.st.released += listed;
    pool.st.given_back += n * POOL_PAGE;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&trim_lock);
    return n * POOL_PAGE;
}

/* Page p holds no block: a spare, resident until there are too many.
 * False when there is no memory to list it (it stays out, resident). */
static bool page_retire(struct page *p)
{
    if (pool.nempty == pool.cap_empty) {
        size_t cap = pool.cap_empty ? 2 * pool.cap_empty : 256;
        struct page **e = realloc(pool.empty, cap * sizeof *e);
        if (!e)
            return false;
        pool.empty = e;
        pool.cap_empty = cap;
    }
    pool.st.pages--;
    /* The spares come first: the first given-back page moves to the end. */
    if (pool.nspare < pool.nempty)
        pool.empty[pool.nempty] = pool.empty[pool.nspare];
    pool.empty[pool.nspare++] = p;
    pool.nempty++;
    POISON(p, POOL_PAGE);
    if (!pool.timed && pool.nspare > spare_max())
        give_back();
    return true;
}

void *ftio_bin_pool_alloc(size_t size)
{
    pthread_mutex_lock(&pool.lock);
    int c = class_of(size);
    struct page *p = c < 0 ? NULL : pool.room[c];
    if (c >= 0 && !p && (p = page_new(c)))
        room_push(p);
    if (!p) {
        pthread_mutex_unlock(&pool.lock);
        errno = ENOMEM;
        return NULL;
    }
    size_t sz = pool.size[c];
    char *b;
    bool zero = false;                  /* fresh memory: zeroes already */
    if (p->free) {
        b = p->free;
        UNPOISON(b, sz);
        p->free = *(void **)b;
    } else {
        b = (char *)p + HEAD + (size_t)p->fresh++ * sz;
        UNPOISON(b, sz);
        zero = p->zero;
    }
    if (++p->used == pool.per_page[c])
        room_unlink(p);
    pool.st.blocks++;
    pthread_mutex_unlock(&pool.lock);
    if (!zero)
        memset(b, 0, sz);
    return b;
}

void ftio_bin_pool_free(void *block)
{
    if (!block)
        return;
    struct page *p = page_of(block);
    pthread_mutex_lock(&pool.lock);
    bool was_full = p->used == pool.per_page[p->cls];
    *(void **)block = p->free;
    p->free = block;
    POISON(block, pool.size[p->cls]);
    p->used--;
    pool.st.blocks--;
    if (p->used == 0) {
        if (!was_full)
            room_unlink(p);
        if (!page_retire(p))
            room_push(p);             /* no room to list it: a page with room */
    } else if (was_full) {
        room_push(p);
    }
    pthread_mutex_unlock(&pool.lock);
}

/* A run of whole pages, from the newest mapping (a new one when it has too
 * few left: its rest become spares, never touched).  Freed, each page is an
 * empty page like any other: the bins' next blocks take them. */
#define POOL_RUN_MAX (POOL_CHUNK / 2)

void *ftio_bin_pool_run(size_t bytes)
{
    size_t k = (bytes + POOL_PAGE - 1) / POOL_PAGE;
    if (k == 0 || bytes > POOL_RUN_MAX)
        return NULL;
    pthread_mutex_lock(&pool.lock);
    if (pool.chunk_left < k) {
        /* The rest of this mapping: spares (fresh, so not resident). */
        while (pool.chunk_left > 0) {
            struct page *p = (struct page *)pool.chunk;
            pool.chunk += POOL_PAGE;
            pool.chunk_left--;
            pool.st.pages++;          /* page_retire counts it out again */
            if (!page_retire(p))
                pool.st.pages--;      /* unlisted: its addresses are lost, not memory */
        }
        char *m = mmap(NULL, POOL_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (m == MAP_FAILED) {
            pthread_mutex_unlock(&pool.lock);
            return NULL;
        }
        char *a = (char *)(((uintptr_t)m + POOL_PAGE - 1) & ~(uintptr_t)(POOL_PAGE - 1));
        pool.chunk = a;
        pool.chunk_left = (size_t)(m + POOL_CHUNK - a) / POOL_PAGE;
        pool.st.mapped += POOL_CHUNK;
    }
    char *r = pool.chunk;
    pool.chunk += k * POOL_PAGE;
    pool.chunk_left -= k;
    pool.st.pages += k;
    pthread_mutex_unlock(&pool.lock);
    UNPOISON(r, k * POOL_PAGE);
    return r;
}

void ftio_bin_pool_run_free(void *run, size_t bytes)
{
    if (!run)
        return;
    size_t k = (bytes + POOL_PAGE - 1) / POOL_PAGE;
    pthread_mutex_lock(&pool.lock);
    for (size_t i = 0; i < k; i++)
        if (!page_retire((struct page *)((char *)run + i * POOL_PAGE)))
            pool.st.pages--;          /* unlisted: stays resident, out of use */
    pthread_mutex_unlock(&pool.lock);
}

void ftio_bin_pool_stats(struct ftio_bin_pool_stats *s)
{
    pthread_mutex_lock(&pool.lock);
    *s = pool.st;
    s->spare = pool.nspare;
    pthread_mutex_unlock(&pool.lock);
}
