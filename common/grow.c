/* SPDX-License-Identifier: BSD-3-Clause */
/* grow.c -- array growth with overflow checks, from the heap or from a
 * caller's first buffer (grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"

/* The capacity that holds `need` elements of `elem` bytes, grown from cap;
 * 0 when need * elem overflows. */
static size_t grown(size_t cap, size_t need, size_t elem)
{
    if (elem == 0 || need > SIZE_MAX / elem)
        return 0;
    size_t n = cap;
    if (n == 0) {
        /* A first size that spares the smallest arrays a realloc per append. */
        n = 1024 / elem;
        if (n < 16)
            n = 16;
    }
    while (n < need)
        n = n <= SIZE_MAX / 2 / elem ? n * 2 : need;
    return n;
}

int ftio_grow_parallel(size_t *cap, size_t need, size_t n, void **const arrays[],
                       const size_t elem[])
{
    if (need <= *cap)
        return 0;
    size_t widest = 0;
    for (size_t k = 0; k < n; k++)
        widest = elem[k] > widest ? elem[k] : widest;
    size_t to = grown(*cap, need, widest);
    if (to == 0) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        void *q = realloc(*arrays[k], to * elem[k]);
        if (!q) {
            errno = ENOMEM;
            return -1;
        }
        *arrays[k] = q;
    }
    *cap = to;
    return 0;
}

int ftio_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = grown(*cap, need, elem);
    if (n == 0) {
        errno = ENOMEM;
        return -1;
    }
    void *q = realloc(*p, n * elem);
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}

int ftio_grow_from(void **p, size_t *cap, size_t need, size_t elem, const void *first, size_t keep)
{
    if (need <= *cap)
        return 0;
    if (!first || *p != first)
        return ftio_grow(p, cap, need, elem);
    size_t n = grown(*cap, need, elem);
    void *q = n ? malloc(n * elem) : NULL;
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(q, first, keep * elem);
    *p = q;
    *cap = n;
    return 0;
}

void ftio_grow_release(void **p, const void *first)
{
    if (*p != first)
        free(*p);
    *p = NULL;
}
