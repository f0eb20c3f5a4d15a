/* SPDX-License-Identifier: BSD-3-Clause */
/* grow.h -- the one growth rule of ftio's arrays: make room for `need`
 * elements by doubling (amortised O(1) appends), with the multiplications
 * checked so that a huge count fails cleanly instead of wrapping around to
 * a small buffer.  Used by the readers, the scanner, the wire codec, the
 * option parser, the test tools and the benches instead of hand-written
 * realloc loops. */
#ifndef FTIO_GROW_H
#define FTIO_GROW_H

#include <stddef.h>

/* Makes *p (an array of *cap elements of `elem` bytes, or NULL with *cap 0)
 * hold at least `need` elements: nothing when it does already; else
 * reallocates to the first of max(16, 1 KiB worth), doubled, that holds
 * `need` (exactly `need` when doubling would overflow).  Returns 0, or -1
 * with errno ENOMEM and *p, *cap untouched (the old array still valid). */
int ftio_grow(void **p, size_t *cap, size_t need, size_t elem);

/* Parallel arrays that share one capacity (t_start[], t_end[], bytes[]):
 * makes each of the n arrays *arrays[k] (elements of elem[k] bytes) hold
 * `need` elements, by the same rule as ftio_grow.  Returns 0, or -1 with
 * errno ENOMEM and *cap untouched; the arrays grown before the failure are
 * larger but hold what they held, so every array is still valid for *cap. */
int ftio_grow_parallel(size_t *cap, size_t need, size_t n, void **const arrays[],
                       const size_t elem[]);

/* FTIO_GROW(ptr, cap, need): ftio_grow for a typed pointer and its size_t
 * capacity, e.g. `if (FTIO_GROW(v, cap, n + 1) < 0) return -1;`. */
#define FTIO_GROW(ptr, cap, need) ftio_grow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

#endif
