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
#include "bigarray.h"
#include "analysis/analysis_internal.h"

/* The three columns share one capacity; each grows as a big array
 * (bigarray.h: a trace's columns are mapped on huge pages).  A column
 * grown before another one's failure keeps its larger size until freed
 * (its capacity is the shared one then: the tail of its mapping is lost
 * until the process ends, only on that out-of-memory path). */
int ftio_requests_reserve(struct ftio_requests *r, size_t want)
{
    double **const cols[] = { &r->t_start, &r->t_end, &r->rate };
    size_t cap = r->cap;
    for (size_t k = 0; k < 3; k++) {
        size_t c = r->cap;
        if (ftio_big_grow((void **)cols[k], &c, r->n, want, sizeof **cols[k]) != 0)
            return -1;
        cap = c;
    }
    r->cap = cap;
    return 0;
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
    ftio_big_free(r->t_start, r->cap, sizeof *r->t_start);
    ftio_big_free(r->t_end, r->cap, sizeof *r->t_end);
    ftio_big_free(r->rate, r->cap, sizeof *r->rate);
    memset(r, 0, sizeof *r);
}
