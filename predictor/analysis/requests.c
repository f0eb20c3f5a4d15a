/* SPDX-License-Identifier: BSD-3-Clause */
/* requests.c -- the growable store of I/O requests (§1).
 *
 * Readers push (t_start, t_end, rate) here; signal.c turns the requests into
 * the application bandwidth signal.  One record per request (analysis.h
 * says why), grown as a big array (bigarray.h: a trace's requests are
 * mapped on huge pages).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "bigarray.h"
#include "analysis/analysis_internal.h"

/* Every record up to the capacity is kept: a reader filling records in
 * place past n (readers/tmio_json.c: a field of each, array by array)
 * keeps what it wrote when the store moves from the heap to a mapping
 * (which copies only what it is told is used; mappings move without a
 * copy). */
int ftio_requests_reserve(struct ftio_requests *r, size_t want)
{
    return FTIO_BIG_GROW(r->rec, r->cap, r->cap, want);
}

/* Appends a checked request. */
static inline int push(struct ftio_requests *r, double t_start, double t_end, double rate)
{
    if (r->n == r->cap && ftio_requests_reserve(r, r->n + 1) != 0)
        return -1;
    r->rec[r->n++] = (struct ftio_request){ t_start, t_end, rate, 0, 0 };
    return 0;
}

int ftio_requests_push_rate(struct ftio_requests *r, double t_start, double t_end, double rate)
{
    if (!isfinite(t_start) || !isfinite(t_end) || !isfinite(rate) || t_end < t_start) {
        errno = EINVAL;
        return -1;
    }
    return push(r, t_start, t_end, rate);
}

/* What push_rate() would check again, less what holds already: the start
 * stays finite and the end after it; a zero length's end (start + 1 us) and
 * the rate may overflow. */
int ftio_requests_push_bytes(struct ftio_requests *r, double t_start, double t_end, double bytes)
{
    if (!isfinite(t_start) || !isfinite(t_end) || !isfinite(bytes) || t_end < t_start) {
        errno = EINVAL;
        return -1;
    }
    t_end = ftio_request_end(t_start, t_end);
    double rate = bytes / (t_end - t_start);
    if (!isfinite(t_end) || !isfinite(rate)) {
        errno = EINVAL;
        return -1;
    }
    return push(r, t_start, t_end, rate);
}

void ftio_requests_free(struct ftio_requests *r)
{
    FTIO_BIG_FREE(r->rec, r->cap);
    memset(r, 0, sizeof *r);
}
