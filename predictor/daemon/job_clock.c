/* SPDX-License-Identifier: BSD-3-Clause */
/* job_clock.c -- each process's clock against ftiod's and the other ranks'
 * (see job_clock.h), and the batches held until it is decided.
 *
 * Target (issue 28): a rank 120 s or 3000 s behind whose first batch comes
 * first used to lay the job's time 0 where its clock said, so the summary
 * answered 121 s or 3001 s for a 1-s job; a behind rank whose first batch
 * came after the others had its records dropped before the job's grid.
 * Now its batches wait (in arrival order) until its clock is decided, which
 * every other process's batch or its own next one can do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "job_clock.h"
#include "grow.h"

/* One held batch: the records and what converts them (the anchor), whose
 * process it is and when it came. */
struct job_held {
    char    *host;
    int64_t  pid;
    int64_t  recv_ns;
    int64_t  off_ns;                  /* ftiod's clock - its anchor, at recv_ns */
    struct ftio_batch b;              /* header: clock fields only; records owned */
    bool     pooled;                  /* b.rec from ftio_bin_pool_run */
};

struct job_clock_hold {
    size_t n, cap;
    size_t records;
    bool   full;                      /* a batch was refused: release them all */
    struct job_held *h;
};

/* A batch made this long after the previous one (by the process's clock)
 * tells whether it came live. */
#define LIVE_MIN_MADE 0.5

static bool job_live(const struct job *j, int64_t at_ns)
{
    return j->has_live && fabs((double)(at_ns - j->live_ns) * 1e-9) <= JOB_CLOCK_LIVE_WINDOW;
}

/* The clock of p is behind by off_ns (> tolerance) and the batch was made
 * now: corrected up to JOB_CLOCK_MAX_FIX, flagged beyond. */
static void decide_behind(struct job *j, struct job_proc *p, int64_t off_ns)
{
    if (fabs((double)off_ns * 1e-9) <= JOB_CLOCK_MAX_FIX) {
        p->clock = JOB_CLOCK_FIXED;
        p->clock_fix_ns = off_ns;
        j->clock_fixed++;
    } else {
        p->clock = JOB_CLOCK_FLAGGED;
        j->clock_flagged++;
    }
}

/* Behind a backlog ftiod reads a batch seconds after it came: 10,000 jobs'
 * hours of history sent in 2 s took ftiod 10-20 s to merge, every batch
 * read after the first 5 s looked behind by the backlog's age, and the
 * histories were held (copied) until each job's next batch, which came
 * after the whole backlog: no job was analysed before all of it was in
 * (bench/README.md, issue 27).  Every batch read since the socket was last
 * found empty came after that moment, so an anchor in [quiet_ns, now_ns]
 * is what a right clock gives; the price is that a clock behind by less
 * than the backlog's age, on its first batch, is taken as right. */
int64_t job_clock_received(const struct ftio_batch_header *h, int64_t now_ns, int64_t quiet_ns)
{
    int64_t anchor;
    if (quiet_ns <= 0 || quiet_ns >= now_ns ||
        (double)(now_ns - quiet_ns) * 1e-9 <= JOB_CLOCK_TOLERANCE ||
        __builtin_add_overflow(h->clock_real, h->skew_ns, &anchor))
        return now_ns;
    return anchor < quiet_ns ? quiet_ns : anchor > now_ns ? now_ns : anchor;
}

/* off = ftiod's clock - the process's anchor (taken when the batch was
 * encoded).  Within JOB_CLOCK_TOLERANCE: fine.  Ahead (off < 0): no batch
 * arrives before it was made, so the clock is wrong.  Behind (off > 0): the
 * batch may be old instead; it was made now when it came live (as long
 * after the process's previous batch as the process's own clock says it was
 * made after it; a replay sends them back to back), or when the job runs
 * now (the other ranks' word).  The decision needs nothing but the batches
 * and their receive times, so a restarted ftiod (--state-dir, which
 * journals the receive time) takes it again identically. */
void job_clock_judge(struct job *j, struct job_proc *p, const struct ftio_batch_header *h,
                     int64_t now_real_ns)
{
    int64_t anchor, off;
    bool ok = !__builtin_add_overflow(h->clock_real, h->skew_ns, &anchor) &&
              !__builtin_sub_overflow(now_real_ns, anchor, &off);
    bool live = false, decisive = false;
    if (ok && p->has_last) {
        /* in double: hostile anchors must not overflow int64 */
        double made = ((double)h->clock_mono - (double)p->last_mono_ns) * 1e-9;
        double came = ((double)now_real_ns - (double)p->last_recv_ns) * 1e-9;
        live = made >= LIVE_MIN_MADE && fabs(came - made) <= 0.5 + 0.25 * made;
        /* an anchor that did not move was not taken live */
        decisive = made >= LIVE_MIN_MADE || made <= 0;
    }
    /* While batches are held, the test measures from the first of them
     * (batches sent closer than LIVE_MIN_MADE cannot tell). */
    if (!p->has_last || decisive || p->nheld == 0) {
        p->has_last = true;
        p->last_recv_ns = now_real_ns;
        p->last_mono_ns = h->clock_mono;
    }
    if (!ok)
        return;
    double o = (double)off * 1e-9;
    if (p->clock == JOB_CLOCK_UNKNOWN) {
        if (fabs(o) <= JOB_CLOCK_TOLERANCE)
            p->clock = JOB_CLOCK_OK;
        else if (o < 0 || live || job_live(j, now_real_ns))
            decide_behind(j, p, off);
        else if (decisive)
            p->replayed = j->replay = true;
    }
    /* This process's clock agrees with ftiod's (corrected or not): the job
     * runs now. */
    if ((p->clock == JOB_CLOCK_OK || p->clock == JOB_CLOCK_FIXED) &&
        fabs((double)(off - (p->clock == JOB_CLOCK_FIXED ? p->clock_fix_ns : 0)) * 1e-9) <=
            JOB_CLOCK_TOLERANCE) {
        j->has_live = true;
        j->live_ns = now_real_ns;
    }
}

static bool has_data(const struct ftio_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (ftio_op_is_data(b->rec[i].op))
            return true;
    return false;
}

/* The records' copy lives in the bins' pages (analysis/stream.h) when it
 * fits: 10,000 jobs' hours of history held at once took 500 MB of malloc's
 * heap, the bins built from them as much again in fresh pages, and a heap
 * trim of seconds gave it back while the ingest waited; now the bins reuse
 * the pages the held copies free. */
static struct ftio_record *held_records(size_t n, bool *pooled)
{
    size_t bytes = (n ? n : 1) * sizeof(struct ftio_record);
    struct ftio_record *r = ftio_bin_pool_run(bytes);
    *pooled = r != NULL;
    return r ? r : malloc(bytes);
}

static void held_free(struct job_held *x)
{
    free(x->host);
    if (x->pooled)
        ftio_bin_pool_run_free(x->b.rec, (x->b.n ? x->b.n : 1) * sizeof *x->b.rec);
    else
        free(x->b.rec);
}

bool job_clock_hold(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                    int64_t now_real_ns)
{
    const struct ftio_batch_header *h = &b->h;
    int64_t anchor, off;
    if (p->clock != JOB_CLOCK_UNKNOWN || p->replayed || j->replay || !has_data(b) ||
        __builtin_add_overflow(h->clock_real, h->skew_ns, &anchor) ||
        __builtin_sub_overflow(now_real_ns, anchor, &off) ||
        !((double)off * 1e-9 > JOB_CLOCK_TOLERANCE))
        return false;
    struct job_clock_hold *q = j->hold;
    if (!q && !(q = j->hold = calloc(1, sizeof *q)))
        return false;
    if (q->records + b->n > JOB_CLOCK_HOLD_RECORDS) {
        q->full = true;    /* the caller merges it after the held ones */
        return false;
    }
    if (FTIO_GROW(q->h, q->cap, q->n + 1) < 0)
        return false;
    struct job_held *x = &q->h[q->n];
    memset(x, 0, sizeof *x);
    x->host = strdup(p->host);
    x->b.rec = held_records(b->n, &x->pooled);
    x->b.n = b->n;                    /* held_free frees the run by its size */
    if (!x->host || !x->b.rec) {
        held_free(x);
        return false;
    }
    memcpy(x->b.rec, b->rec, b->n * sizeof *b->rec);
    x->b.h.clock_mono = h->clock_mono;
    x->b.h.clock_real = h->clock_real;
    x->b.h.skew_ns = h->skew_ns;
    x->b.h.host = x->host;
    x->b.h.pid = h->pid;
    x->b.h.born = p->born;            /* which of the pid's processes (job.h) */
    x->pid = h->pid;
    x->recv_ns = now_real_ns;
    x->off_ns = off;
    q->n++;
    q->records += b->n;
    p->nheld++;
    return true;
}

void job_clock_release(struct job *j, const struct job_limits *lim, bool all)
{
    struct job_clock_hold *q = j->hold;
    if (!q || q->n == 0)
        return;
    /* Full: what was held goes in as it is, before what was refused. */
    all |= q->full;
    q->full = false;
    size_t kept = 0;
    for (size_t i = 0; i < q->n; i++) {
        struct job_held *x = &q->h[i];
        struct job_proc *p = job_find_proc(j, x->host, x->pid, x->b.h.born);
        bool go = all || !p;
        if (p && p->clock == JOB_CLOCK_UNKNOWN && !p->replayed && job_live(j, x->recv_ns))
            decide_behind(j, p, x->off_ns);   /* the other ranks' word */
        go |= p && (p->clock != JOB_CLOCK_UNKNOWN || p->replayed || j->replay);
        if (!go) {
            q->h[kept++] = *x;
            continue;
        }
        if (p) {
            p->nheld--;
            job_merge_data(j, p, &x->b, lim, x->recv_ns);
        }
        q->records -= x->b.n;
        held_free(x);
    }
    q->n = kept;
}

bool job_clock_holding(const struct job *j)
{
    return j->hold && j->hold->n > 0;
}

size_t job_clock_memory(const struct job *j)
{
    const struct job_clock_hold *q = j->hold;
    return q ? sizeof *q + q->cap * sizeof *q->h + q->records * sizeof(struct ftio_record) : 0;
}

void job_clock_free(struct job *j)
{
    struct job_clock_hold *q = j->hold;
    if (!q)
        return;
    for (size_t i = 0; i < q->n; i++)
        held_free(&q->h[i]);
    free(q->h);
    free(q);
    j->hold = NULL;
}
