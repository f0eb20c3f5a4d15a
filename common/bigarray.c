/* SPDX-License-Identifier: BSD-3-Clause */
/* bigarray.c -- arrays of many megabytes on huge pages (see bigarray.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "bigarray.h"
#include "grow.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t mapped_bytes(size_t cap, size_t elem)
{
    return (cap * elem + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

static int is_mapped(size_t cap, size_t elem)
{
    return cap * elem >= FTIO_BIG_BYTES;
}

/* Freed mappings kept for reuse (ftio_big_keep): at most KEPT_MAX, their
 * lengths summing to at most keep_limit. */
#define KEPT_MAX 16
static struct { char *p; size_t len; } kept[KEPT_MAX];
static size_t nkept, kept_bytes, keep_limit;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

void ftio_big_keep(size_t bytes)
{
    pthread_mutex_lock(&kept_lock);
    keep_limit = bytes;
    while (nkept > 0 && kept_bytes > keep_limit) {
        nkept--;
        munmap(kept[nkept].p, kept[nkept].len);
        kept_bytes -= kept[nkept].len;
    }
    pthread_mutex_unlock(&kept_lock);
}

/* The smallest kept mapping of at least len bytes, cut to len (its tail
 * goes back to the kernel), or NULL. */
static void *take_kept(size_t len)
{
    pthread_mutex_lock(&kept_lock);
    size_t best = nkept;
    for (size_t i = 0; i < nkept; i++)
        if (kept[i].len >= len && (best == nkept || kept[i].len < kept[best].len))
            best = i;
    char *p = NULL;
    if (best < nkept) {
        p = kept[best].p;
        if (kept[best].len > len)
            munmap(p + len, kept[best].len - len);
        kept_bytes -= kept[best].len;
        kept[best] = kept[--nkept];
    }
    pthread_mutex_unlock(&kept_lock);
    return p;
}

/* Keeps a freed mapping if there is room; 0 when it did not. */
static int keep(void *p, size_t len)
{
    int kept_it = 0;
    pthread_mutex_lock(&kept_lock);
    if (nkept < KEPT_MAX && kept_bytes + len <= keep_limit) {
        kept[nkept].p = p;
        kept[nkept++].len = len;
        kept_bytes += len;
        kept_it = 1;
    }
    pthread_mutex_unlock(&kept_lock);
    return kept_it;
}

/* A fresh mapping of len bytes (a multiple of HUGE_PAGE), HUGE_PAGE
 * aligned so that every 2 MiB of it can be one huge page. */
static void *map_aligned(size_t len)
{
    size_t over = len + HUGE_PAGE;
    char *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + len < m + over)
        munmap(a + len, (size_t)(m + over - (a + len)));
    madvise(a, len, MADV_HUGEPAGE);        /* a hint: without THP, plain pages */
    return a;
}

int ftio_big_grow(void **p, size_t *cap, size_t used, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    if (elem == 0 || need > SIZE_MAX / 2 / elem) {
        errno = ENOMEM;
        return -1;
    }
    if (!is_mapped(*cap, elem) && !is_mapped(2 * need, elem))
        return ftio_grow(p, cap, need, elem);   /* grows to at most 2 need: stays malloc'd */
    size_t to = *cap ? *cap : 1;
    while (to < need)
        to *= 2;
    if (!is_mapped(to, elem))
        to = (FTIO_BIG_BYTES + elem - 1) / elem;
    to = mapped_bytes(to, elem) / elem;     /* the whole mapping is usable */
    if (is_mapped(*cap, elem)) {             /* the kernel moves the pages: no copy */
        void *q = mremap(*p, mapped_bytes(*cap, elem), mapped_bytes(to, elem), MREMAP_MAYMOVE);
        if (q != MAP_FAILED) {
            madvise(q, mapped_bytes(to, elem), MADV_HUGEPAGE);
            *p = q;
            *cap = to;
            return 0;
        }
    }
    void *q = take_kept(mapped_bytes(to, elem));
    if (!q)
        q = map_aligned(mapped_bytes(to, elem));
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    if (used)
        memcpy(q, *p, (used < *cap ? used : *cap) * elem);
    ftio_big_free(*p, *cap, elem);
    *p = q;
    *cap = to;
    return 0;
}

static void *big_alloc(size_t n, size_t elem, int zero)
{
    if (elem == 0 || n > SIZE_MAX / 2 / elem)
        return NULL;
    if (!is_mapped(n, elem))
        return zero ? calloc(n ? n : 1, elem) : malloc((n ? n : 1) * elem);
    void *p = take_kept(mapped_bytes(n, elem));
    if (p) {
        if (zero)
            memset(p, 0, n * elem);
        return p;
    }
    return map_aligned(mapped_bytes(n, elem));   /* fresh pages are zero */
}

void *ftio_big_calloc(size_t n, size_t elem)
{
    return big_alloc(n, elem, 1);
}

void *ftio_big_alloc(size_t n, size_t elem)
{
    return big_alloc(n, elem, 0);
}

void ftio_big_free(void *p, size_t cap, size_t elem)
{
    if (!p)
        return;
    if (is_mapped(cap, elem)) {
        if (!keep(p, mapped_bytes(cap, elem)))
            munmap(p, mapped_bytes(cap, elem));
    }
    else
        free(p);
}
