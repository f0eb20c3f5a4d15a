/* SPDX-License-Identifier: BSD-3-Clause */
/* grow.c -- array growth with overflow checks (grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "grow.h"

int ftio_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    if (elem == 0 || need > SIZE_MAX / elem) {
        errno = ENOMEM;
        return -1;
    }
    size_t n = *cap;
    if (n == 0) {
        /* A first size that spares the smallest arrays a realloc per append. */
        n = 1024 / elem;
        if (n < 16)
            n = 16;
    }
    while (n < need)
        n = n <= SIZE_MAX / 2 / elem ? n * 2 : need;
    void *q = realloc(*p, n * elem);
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}
