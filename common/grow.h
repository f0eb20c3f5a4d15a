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

/* An array that starts on memory of the caller's, `first` (a static buffer:
 * the shim's flusher allocates nothing on a short process's path, where its
 * first malloc made glibc build a malloc arena for the thread), and moves to
 * the heap when it outgrows it.  Makes *p hold `need` elements by the rule
 * of ftio_grow: while *p is `first`, the `keep` elements in use are copied
 * into a new heap array and `first` is left as it is (never reallocated or
 * freed); from then on it is ftio_grow.  Returns 0, or -1 with errno ENOMEM
 * and *p, *cap untouched.  ftio_grow_release() frees what the heap holds. */
int ftio_grow_from(void **p, size_t *cap, size_t need, size_t elem, const void *first, size_t keep);
/* Frees *p unless it is `first` (NULL: always); *p becomes NULL. */
void ftio_grow_release(void **p, const void *first);

/* The two for a typed pointer, e.g. `FTIO_GROW_FROM(v, cap, n + 1, v_static, n)`. */
#define FTIO_GROW_FROM(ptr, cap, need, first, keep) \
    ftio_grow_from((void **)&(ptr), &(cap), (need), sizeof *(ptr), (first), (keep))
#define FTIO_GROW_RELEASE(ptr, first) ftio_grow_release((void **)&(ptr), (first))

#endif
