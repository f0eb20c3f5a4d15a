/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c -- the application bandwidth signal by event sweep (§1).
 *
 * Every request adds +rate at its start and -rate at its end.  Sorting the
 * starts and the ends separately and merging them gives the step function
 * B(t).  The sorts avoid comparator callbacks: a stable recursive bucket
 * sort by linear interpolation of the time (a counting pass and a scatter
 * per level; the second level already runs in cache) with an LSD radix sort
 * on the IEEE bits as the fallback for pathologically skewed times.  The
 * starts and the ends are sorted on two threads (the machine has two cores),
 * which keeps 10^7 requests well under a second.  Stability means requests
 * with equal times keep their input order: the running sum is reproducible.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct event {
    double t;
    double rate;
};

/* ---- radix sort (fallback for crowded buckets) ---------------------------- */

/* Maps a double to an unsigned integer with the same order. */
static inline uint64_t time_key(double t)
{
    uint64_t u;
    memcpy(&u, &t, sizeof u);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/* Stable LSD radix sort of ev[0..n) with tmp as scratch; result in ev.
 * Passes where every key has the same digit are skipped. */
static int radix_sort(struct event *ev, struct event *tmp, size_t n)
{
    size_t (*count)[RADIX_SIZE] = calloc(RADIX_PASSES, sizeof *count);
    if (!count)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = time_key(ev[i].t);
        for (unsigned p = 0; p < RADIX_PASSES; p++)
            count[p][(k >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
    }
    struct event *src = ev, *dst = tmp;
    for (unsigned p = 0; p < RADIX_PASSES; p++) {
        unsigned shift = p * RADIX_BITS;
        size_t *c = count[p];
        if (c[(time_key(src[0].t) >> shift) & (RADIX_SIZE - 1)] == n)
            continue;
        size_t sum = 0;
        for (unsigned d = 0; d < RADIX_SIZE; d++) {
            size_t v = c[d];
            c[d] = sum;
            sum += v;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(time_key(src[i].t) >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        struct event *t = src;
        src = dst;
        dst = t;
    }
    if (src != ev)
        memcpy(ev, src, n * sizeof *ev);
    free(count);
    return 0;
}

/* ---- bucket sort ------------------------------------------------------------ */

/* Buckets per level (the counts fit on the stack and the scatter targets stay
 * few enough for the cache), average bucket fill, the size below which
 * insertion sort wins, and the recursion depth after which a still crowded
 * bucket (pathologically skewed times) goes to the radix sort. */
#define BUCKETS_MAX 4096
#define BUCKET_FILL 4
#define SMALL_SORT 32
#define BUCKET_DEPTH_MAX 8

static void insertion_sort(struct event *ev, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct event e = ev[i];
        size_t j = i;
        while (j > 0 && ev[j - 1].t > e.t) {     /* strict: stable */
            ev[j] = ev[j - 1];
            j--;
        }
        ev[j] = e;
    }
}

/* Stable sort of ev[0..n) by time, tmp (n events) as scratch.  One level
 * spreads the events over up to BUCKETS_MAX buckets by linear interpolation
 * between the smallest and largest time; the bucket index is a monotone
 * function of t (rounding is monotone), so sorting each bucket (recursively,
 * now in cache) sorts the whole. */
static int sort_events(struct event *ev, struct event *tmp, size_t n, int depth)
{
    if (n <= SMALL_SORT) {
        insertion_sort(ev, n);
        return 0;
    }
    double lo = INFINITY, hi = -INFINITY;
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        double t = ev[i].t;
        if (i && t < ev[i - 1].t)
            sorted = false;
        lo = fmin(lo, t);
        hi = fmax(hi, t);
    }
    if (sorted)
        return 0;
    size_t nb = n / BUCKET_FILL + 1;
    if (nb > BUCKETS_MAX)
        nb = BUCKETS_MAX;
    double scale = isfinite(lo) && isfinite(hi) ? (double)nb / (hi - lo) : 0;
    if (depth >= BUCKET_DEPTH_MAX || !(scale > 0) || !isfinite(scale))
        return radix_sort(ev, tmp, n);

    size_t end[BUCKETS_MAX + 1];
    memset(end, 0, (nb + 1) * sizeof end[0]);
#define BUCKET_OF(t) ({ size_t b_ = (size_t)(((t) - lo) * scale); b_ < nb ? b_ : nb - 1; })
    for (size_t i = 0; i < n; i++)
        end[BUCKET_OF(ev[i].t) + 1]++;
    for (size_t b = 0; b < nb; b++)
        end[b + 1] += end[b];
    for (size_t i = 0; i < n; i++)
        tmp[end[BUCKET_OF(ev[i].t)]++] = ev[i];
#undef BUCKET_OF
    /* end[b] is now one past bucket b. */
    size_t from = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t len = end[b] - from;
        if (len > 1 && sort_events(tmp + from, ev + from, len, depth + 1) != 0)
            return -1;
        from = end[b];
    }
    memcpy(ev, tmp, n * sizeof *ev);
    return 0;
}

/* One column of events to sort: the starts or the ends of the requests
 * idx[0..n) of (t, rate) (idx NULL: the first n), then npad zero-rate events
 * at pad[] (an activity's padding to the job's span, activities.c). */
struct column {
    const double *t, *rate;
    const uint32_t *idx;
    size_t n, npad;
    double pad[2];
};

static inline double col_t(const struct column *c, size_t i)
{
    return i < c->n ? c->t[c->idx ? c->idx[i] : i] : c->pad[i - c->n];
}

static inline double col_rate(const struct column *c, size_t i)
{
    return i < c->n ? c->rate[c->idx ? c->idx[i] : i] : 0;
}

/* Sorts the events of column c into ev.  The first bucket level reads the
 * request columns directly, so the events are written once, already in
 * bucket order; the buckets are then sorted in place with a scratch buffer
 * the size of the largest bucket (small: it stays in cache). */
static int sort_columns(const struct column *c, struct event *ev)
{
    size_t n = c->n + c->npad;
    double lo = INFINITY, hi = -INFINITY, prev = -INFINITY;
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        double t = col_t(c, i);
        if (t < prev)
            sorted = false;
        prev = t;
        lo = fmin(lo, t);
        hi = fmax(hi, t);
    }
    size_t nb = n / BUCKET_FILL + 1;
    if (nb > BUCKETS_MAX)
        nb = BUCKETS_MAX;
    double scale = isfinite(lo) && isfinite(hi) ? (double)nb / (hi - lo) : 0;
    if (sorted || n <= SMALL_SORT || !(scale > 0) || !isfinite(scale)) {
        for (size_t i = 0; i < n; i++)
            ev[i] = (struct event){ col_t(c, i), col_rate(c, i) };
        if (sorted)
            return 0;
        struct event *scratch = malloc(n * sizeof *scratch);
        int rc = scratch ? sort_events(ev, scratch, n, 0) : -1;
        free(scratch);
        return rc;
    }
    size_t *end = calloc(nb + 1, sizeof *end);
    if (!end)
        return -1;
#define BUCKET_OF(x) ({ size_t b_ = (size_t)(((x) - lo) * scale); b_ < nb ? b_ : nb - 1; })
    for (size_t i = 0; i < n; i++)
        end[BUCKET_OF(col_t(c, i)) + 1]++;
    size_t largest = 0;
    for (size_t b = 0; b < nb; b++) {
        if (end[b + 1] > largest)
            largest = end[b + 1];
        end[b + 1] += end[b];
    }
    for (size_t i = 0; i < n; i++) {
        double t = col_t(c, i);
        ev[end[BUCKET_OF(t)]++] = (struct event){ t, col_rate(c, i) };
    }
#undef BUCKET_OF
    struct event *scratch = malloc((largest ? largest : 1) * sizeof *scratch);
    int rc = scratch ? 0 : -1;
    size_t from = 0;
    for (size_t b = 0; b < nb && rc == 0; b++) {
        if (end[b] - from > 1)
            rc = sort_events(ev + from, scratch, end[b] - from, 1);
        from = end[b];
    }
    free(scratch);
    free(end);
    return rc;
}

struct sort_job {
    struct column c;
    struct event *ev;
    int rc;
};

static void *sort_job_run(void *arg)
{
    struct sort_job *j = arg;
    j->rc = sort_columns(&j->c, j->ev);
    return NULL;
}

/* Below this many requests a second thread costs more than it saves. */
#define PARALLEL_MIN 100000

int ftio_signal_build(const struct ftio_requests *r, struct ftio_signal *out)
{
    return ftio_signal_build_view(r, NULL, r->n, NAN, NAN, out);
}

int ftio_signal_build_view(const struct ftio_requests *r, const uint32_t *idx, size_t nreq,
                           double pad_t0, double pad_t1, struct ftio_signal *out)
{
    memset(out, 0, sizeof *out);
    struct column cs = { r->t_start, r->rate, idx, nreq, 0, { 0, 0 } };
    if (!isnan(pad_t0))
        cs.pad[cs.npad++] = pad_t0;
    if (!isnan(pad_t1))
        cs.pad[cs.npad++] = pad_t1;
    struct column ce = cs;
    ce.t = r->t_end;
    size_t n = nreq + cs.npad;
    if (n == 0)
        return 0;
    if (n > ((size_t)-1) / (2 * sizeof(struct event))) {
        errno = ENOMEM;
        return -1;
    }
    /* The in-place merge below relies on every end being at or after its
     * start (ftio_requests_push_* guarantee it; the struct is public). */
    for (size_t i = 0; i < nreq; i++) {
        size_t k = idx ? idx[i] : i;
        if (!(r->t_end[k] >= r->t_start[k])) {
            errno = EINVAL;
            return -1;
        }
    }
    out->t = malloc(2 * n * sizeof *out->t);
    out->b = malloc(2 * n * sizeof *out->b);
    struct event *ends = malloc(n * sizeof *ends);
    if (!ends || !out->t || !out->b) {
        free(ends);
        ftio_signal_free(out);
        errno = ENOMEM;
        return -1;
    }
    /* Memory is what costs here (page faults): the sorted starts live in
     * out->t itself (2n doubles = n events), the merge overwrites them
     * from the front and never catches up (see below). */
    struct event *starts = (struct event *)(void *)out->t;
    struct sort_job js = { cs, starts, 0 };
    struct sort_job je = { ce, ends, 0 };
    pthread_t helper;
    bool threaded = n >= PARALLEL_MIN && pthread_create(&helper, NULL, sort_job_run, &je) == 0;
    sort_job_run(&js);
    if (threaded)
        pthread_join(helper, NULL);
    else
        sort_job_run(&je);
    if (js.rc != 0 || je.rc != 0) {
        free(ends);
        ftio_signal_free(out);
        errno = ENOMEM;
        return -1;
    }

    /* Merge: on equal times the start comes first (§1), so a request ending
     * exactly when another begins never shows a spurious dip.
     * In place: after i starts and j ends, output slot i+j-1 was written and
     * the unread starts begin at double index 2i.  The k-th smallest end is
     * never before the k-th smallest start, and ties go to starts, so j <= i
     * and the writes stay behind the reads.  Starts are loaded with memcpy,
     * which may alias the double stores, so no reordering can break that. */
    size_t i = 0, j = 0, o = 0;
    double level = 0;
    while (i < n || j < n) {
        struct event s;
        if (i < n)
            memcpy(&s, &starts[i], sizeof s);
        if (i < n && (j == n || s.t <= ends[j].t)) {
            level += s.rate;
            out->t[o] = s.t;
            i++;
        } else {
            level -= ends[j].rate;
            out->t[o] = ends[j].t;
            j++;
        }
        out->b[o++] = level;
    }
    out->n = o;
    free(ends);
    return 0;
}

void ftio_signal_free(struct ftio_signal *s)
{
    free(s->t);
    free(s->b);
    memset(s, 0, sizeof *s);
}

double ftio_signal_volume(const struct ftio_signal *s)
{
    double v = 0;
    for (size_t i = 0; i + 1 < s->n; i++)
        v += s->b[i] * (s->t[i + 1] - s->t[i]);
    return v;
}
