/* SPDX-License-Identifier: BSD-3-Clause */
/* requests.c -- the growable column store of I/O requests (§1).
 *
 * Readers and the daemon push (t_start, t_end, rate) here; signal.c turns the
 * columns into the application bandwidth signal.  Columns rather than an
 * array of structs because the event sweep sorts starts and ends separately.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

int ftio_requests_reserve(struct ftio_requests *r, size_t want)
{
    void **const cols[] = { (void **)&r->t_start, (void **)&r->t_end, (void **)&r->rate };
    const size_t elem[] = { sizeof *r->t_start, sizeof *r->t_end, sizeof *r->rate };
    return ftio_grow_parallel(&r->cap, want, 3, cols, elem);
}

int ftio_requests_push_rate(struct ftio_requests *r, double t_start, double t_end, double rate)
{
    if (!isfinite(t_start) || !isfinite(t_end) || !isfinite(rate) || t_end < t_start) {
        errno = EINVAL;
        return -1;
    }
    if (r->n == r->cap && ftio_requests_reserve(r, r->n + 1) != 0)
        return -1;
    r->t_start[r->n] = t_start;
    r->t_end[r->n] = t_end;
    r->rate[r->n] = rate;
    r->n++;
    return 0;
}

int ftio_requests_push_bytes(struct ftio_requests *r, double t_start, double t_end, double bytes)
{
    if (!isfinite(t_start) || !isfinite(t_end) || !isfinite(bytes) || t_end < t_start) {
        errno = EINVAL;
        return -1;
    }
    t_end = ftio_request_end(t_start, t_end);
    return ftio_requests_push_rate(r, t_start, t_end, bytes / (t_end - t_start));
}

void ftio_requests_free(struct ftio_requests *r)
{
    free(r->t_start);
    free(r->t_end);
    free(r->rate);
    memset(r, 0, sizeof *r);
}
