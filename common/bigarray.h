/* SPDX-License-Identifier: BSD-3-Clause */
/* bigarray.h -- the growth of arrays of many megabytes (a trace's request
 * columns, its per-request tags): by grow.h's rule, but each such array is
 * a mapping of its own, 2-MiB aligned and marked for transparent huge
 * pages.  Why: the first touch of a 4-KiB page is a page fault, and on a
 * virtual machine a fault costs microseconds (this project's 2-core VM:
 * ~15 us, so the 10^7-request trace's columns and tags, 320 MB, took ~1.2 s
 * of faults alone); a huge page is one fault per 2 MiB, and one TLB entry
 * for a walk that reads the columns out of order.  Arrays under
 * FTIO_BIG_BYTES stay malloc'd (ftiod's many small jobs).
 *
 * An array is described by its pointer and its capacity in elements; which
 * kind it is follows from cap * elem, so the capacity must always be the one
 * ftio_big_grow set (free with ftio_big_free and the same cap).
 */
#ifndef FTIO_BIGARRAY_H
#define FTIO_BIGARRAY_H

#include <stddef.h>

#define FTIO_BIG_BYTES ((size_t)1 << 20)   /* from this capacity in bytes on: mapped */

/* Like ftio_grow (grow.h): *p holds at least `need` elements of `elem`
 * bytes, its first `used` kept (only those are copied: an untouched page is
 * never read).  0, or -1 with errno ENOMEM and *p, *cap untouched. */
int ftio_big_grow(void **p, size_t *cap, size_t used, size_t need, size_t elem);
/* n elements of elem bytes, zeroed (calloc's contract, a scratch array's
 * huge pages), or NULL; free with ftio_big_free(p, n, elem). */
void *ftio_big_calloc(size_t n, size_t elem);
/* The same, not zeroed (a scratch array the caller writes whole before it
 * reads it: kept pages need no memset). */
void *ftio_big_alloc(size_t n, size_t elem);
/* Frees an array of ftio_big_grow (its cap) or ftio_big_calloc / _alloc (its n);
 * NULL is fine. */
void ftio_big_free(void *p, size_t cap, size_t elem);

/* A one-shot program (offline `ftio`) keeps up to `bytes` of freed big
 * arrays' pages and hands them out again (zeroed where calloc'd): a
 * page already touched costs a memset, a fresh one a fault and the
 * hypervisor's first touch (~3 ms per MB on this project's VM).  The
 * sweep's, the activities' and the phase walk's scratch come one after
 * the other and reuse the same pages.  0 (the default: ftiod, tests)
 * keeps nothing.  Thread-safe. */
void ftio_big_keep(size_t bytes);

#define FTIO_BIG_GROW(ptr, cap, used, need) \
    ftio_big_grow((void **)&(ptr), &(cap), (used), (need), sizeof *(ptr))
#define FTIO_BIG_FREE(ptr, cap) ftio_big_free((ptr), (cap), sizeof *(ptr))

#endif
