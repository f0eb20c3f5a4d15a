/* SPDX-License-Identifier: BSD-3-Clause */
/* phase_track.c -- each I/O phase of a job, described (see phase_track.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "forecast/phase_track.h"
#include "bucket.h"
#include "grow.h"
#include "record.h"

/* min and max of times that are never NaN here (records with a time not
 * finite are refused at the door): what fmin/fmax give, without their
 * call per record. */
static inline double min_of(double a, double b) { return b < a ? b : a; }
static inline double max_of(double a, double b) { return b > a ? b : a; }

void ftio_pt_init(struct ftio_pt *t, double join)
{
    memset(t, 0, sizeof *t);
    t->join = join > 0 ? join : 0.2;
    for (int m = 0; m < FTIO_PT_NMODES; m++) {
        t->mode[m].next_seq = 1;
        t->mode[m].settled = -INFINITY;
        t->mode[m].seg_end_floor = INFINITY;
        t->mode[m].union_floor = INFINITY;     /* no segment: no union, whatever the gap */
        t->mode[m].union_gap = -INFINITY;
    }
}

void ftio_pt_free(struct ftio_pt *t)
{
    for (size_t p = 0; p < t->nproc; p++)
        free(t->proc[p].seg);
    free(t->proc);
    memset(t, 0, sizeof *t);
}

long ftio_pt_proc_add(struct ftio_pt *t)
{
    if (FTIO_GROW(t->proc, t->cap, t->nproc + 1) < 0)
        return -1;
    memset(&t->proc[t->nproc], 0, sizeof t->proc[0]);
    for (int m = 0; m < FTIO_PT_NMODES; m++)
        t->proc[t->nproc].top[m] = FTIO_PT_NOSEG;
    return (long)t->nproc++;
}

size_t ftio_pt_memory(const struct ftio_pt *t)
{
    return sizeof *t + t->cap * sizeof *t->proc + t->seg_bytes;
}

/* ---- the ring of described phases ----------------------------------------- */

static struct ftio_pt_phase *ring_at(struct ftio_pt_mode *m, size_t k)
{
    return &m->ring[(m->head + k) % FTIO_PT_HISTORY];
}

/* The described phase of sequence number seq, if the ring still has it. */
static struct ftio_pt_phase *phase_of_seq(struct ftio_pt_mode *m, uint64_t seq)
{
    if (m->n == 0 || seq == 0)
        return NULL;
    uint64_t first = ring_at(m, 0)->seq;
    if (seq < first || seq - first >= m->n)
        return NULL;
    return ring_at(m, (size_t)(seq - first));
}

static void confirm_if_done(struct ftio_pt_phase *ph)
{
    if (ph->waiting == 0)
        ph->confirmed = true;
}

/* Process P leaves the last phase it moved data in (it sent something
 * later, or its final batch). */
static void move_on(struct ftio_pt *t, struct ftio_pt_proc *P)
{
    if (!P->in_last)
        return;
    P->in_last = false;
    struct ftio_pt_phase *ph = phase_of_seq(&t->mode[P->last_mode], P->last_seq);
    if (ph && ph->waiting > 0) {
        ph->waiting--;
        confirm_if_done(ph);
    }
}

/* ---- segments of one process ---------------------------------------------- */

/* A mode's top is the first of its segments that ends last: does segment k,
 * ending at te, come before the top so far (index top, ending at end)?  The
 * one rule of the three places that keep tops: a segment that changed or
 * came (top_consider), a scan in index order (top_recompute, seg_new's pass;
 * there k never comes first, so a tie keeps the earlier).  Each caller
 * takes the first segment of a mode without asking (no top yet). */
static inline bool top_before(size_t k, double te, size_t top, double end)
{
    return te > end || (te == end && k < top);
}

/* Segment k changed or came: is it now its mode's top?  (inline: the record
 * path, ftio_pt_data, asks once per record) */
static inline void top_consider(struct ftio_pt_proc *P, size_t k)
{
    const struct ftio_pt_seg *c = &P->seg[k];
    uint8_t *top = &P->top[c->mode];
    if (*top == FTIO_PT_NOSEG || top_before(k, c->te, *top, P->seg[*top].te))
        *top = (uint8_t)k;
}

/* The tops anew, after a settle freed segments, with the ends so far in
 * registers. */
static void top_recompute(struct ftio_pt_proc *P)
{
    uint8_t top[FTIO_PT_NMODES];
    double end[FTIO_PT_NMODES];
    for (int m = 0; m < FTIO_PT_NMODES; m++) {
        top[m] = FTIO_PT_NOSEG;
        end[m] = -INFINITY;
    }
    for (size_t k = 0; k < P->nseg; k++) {
        const struct ftio_pt_seg *c = &P->seg[k];
        if (top[c->mode] == FTIO_PT_NOSEG || top_before(k, c->te, top[c->mode], end[c->mode])) {
            top[c->mode] = (uint8_t)k;
            end[c->mode] = c->te;
        }
    }
    memcpy(P->top, top, sizeof top);
}

static void seg_add_fid(struct ftio_pt_seg *s, uint32_t fid)
{
    if (fid == 0)
        return;
    for (unsigned k = 0; k < s->nfid; k++)
        if (s->fid[k] == fid)
            return;
    if (s->nfid < FTIO_PT_FIDS) {
        s->fid[s->nfid++] = fid;
    } else if (fid != s->last_more) {
        s->more_files++;
        s->last_more = fid;
    }
}

/* b into a (same mode). */
static void seg_merge(struct ftio_pt_seg *a, const struct ftio_pt_seg *b)
{
    if (b->bytes > a->bytes)
        a->fs = b->fs;
    a->ts = min_of(a->ts, b->ts);
    a->te = max_of(a->te, b->te);
    a->bytes += b->bytes;
    a->records += b->records;
    a->opens += b->opens;
    a->meta += b->meta;
    a->syncs += b->syncs;
    for (unsigned k = 0; k < b->nfid; k++)
        seg_add_fid(a, b->fid[k]);
    a->more_files += b->more_files;
}

/* Room for a new segment: the set grows up to FTIO_PT_SEGS_MAX; a full
 * one merges its two segments of one mode that are closest in time (in
 * start order; there are always two of one mode among more than 2), and
 * is left in start order.
 *
 * That order is the stable sort by start of the set with s appended, had in
 * place: the set is in it already (the last full set's merge left it so)
 * unless segments were appended since or a record moved a start down; the
 * scan for the closest pair checks it on the way and, when it was not, a
 * stable insertion sort restores it (as the sort would) and the scan runs
 * again; s goes after every start <= its own (a binary search).  So a full
 * set's new segment (a replay adds every segment of a process's history
 * beyond FTIO_PT_SEGS_MAX here) costs one pass over the set's one array and
 * a memmove, not a copy, a sort and a copy back of all of them. */

/* The virtual set: the segments with s at index pos. */
static inline const struct ftio_pt_seg *seg_or_new(const struct ftio_pt_proc *P, size_t pos,
                                                   const struct ftio_pt_seg *s, size_t i)
{
    return i < pos ? &P->seg[i] : i == pos ? s : &P->seg[i - 1];
}

/* The segments in the stable order by start. */
static void seg_sort_by_start(struct ftio_pt_proc *P)
{
    struct ftio_pt_seg *a = P->seg;
    size_t n = P->nseg, up = 1;
    while (up < n && a[up - 1].ts <= a[up].ts)
        up++;
    for (size_t i = up; i < n; i++) {           /* stable: strict comparison */
        if (!(a[i].ts < a[i - 1].ts))
            continue;
        struct ftio_pt_seg x = a[i];
        size_t k = i;
        for (; k > 0 && x.ts < a[k - 1].ts; k--)
            a[k] = a[k - 1];
        a[k] = x;
    }
}

static struct ftio_pt_seg *seg_new(struct ftio_pt *t, struct ftio_pt_proc *P,
                                   const struct ftio_pt_seg *s)
{
    if (P->nseg == P->segcap && P->segcap < FTIO_PT_SEGS_MAX) {
        size_t cap = P->segcap ? 2u * P->segcap : FTIO_PT_SEGS;
        if (cap > FTIO_PT_SEGS_MAX)
            cap = FTIO_PT_SEGS_MAX;
        struct ftio_pt_seg *n = realloc(P->seg, cap * sizeof *n);
        if (n) {
            t->seg_bytes += (cap - P->segcap) * sizeof *n;
            P->seg = n;
            P->segcap = (uint8_t)cap;
        }
    }
    if (P->nseg < P->segcap) {
        P->seg[P->nseg] = *s;
        top_consider(P, P->nseg);
        return &P->seg[P->nseg++];
    }
    if (P->nseg == 0)
        return NULL;                          /* out of memory before the first one */
    /* pos, then the closest pair: each segment and the next of its mode,
     * the first in start order of the closest; the scan also checks the
     * order the search assumed (once more after a sort when it was not),
     * and finds each mode's first latest end (top, n: none). */
    size_t nseg = P->nseg, n = nseg + 1, pos, best, pair, top[FTIO_PT_NMODES];
    double end[FTIO_PT_NMODES];
    for (bool sorted = false;; sorted = true) {
        size_t lo = 0, hi = nseg;
        while (lo < hi) {                     /* after every start <= s's */
            size_t mid = (lo + hi) / 2;
            if (s->ts < P->seg[mid].ts)
                hi = mid;
            else
                lo = mid + 1;
        }
        pos = lo;
        best = pair = n;
        size_t last[FTIO_PT_NMODES];
        for (int m = 0; m < FTIO_PT_NMODES; m++)
            last[m] = top[m] = n;
        double best_gap = INFINITY, prev = -INFINITY;
        bool in_order = true;
        for (size_t k = 0; k < n; k++) {
            const struct ftio_pt_seg *c = seg_or_new(P, pos, s, k);
            in_order &= prev <= c->ts;
            prev = c->ts;
            if (top[c->mode] == n || top_before(k, c->te, top[c->mode], end[c->mode])) {
                top[c->mode] = k;
                end[c->mode] = c->te;
            }
            size_t i = last[c->mode];
            if (i != n) {
                double g = c->ts - seg_or_new(P, pos, s, i)->te;
                if (g < best_gap || (g == best_gap && i < best)) {
                    best_gap = g;
                    best = i;
                    pair = k;
                }
            }
            last[c->mode] = k;
        }
        if (in_order || sorted)
            break;
        seg_sort_by_start(P);
    }
    struct ftio_pt_seg *out;
    if (pair == pos) {                        /* s into the one before it */
        out = &P->seg[best];
        seg_merge(out, s);
    } else if (best == pos) {                 /* the next of its mode into s */
        struct ftio_pt_seg x = *s;
        seg_merge(&x, &P->seg[pair - 1]);
        memmove(&P->seg[pos + 1], &P->seg[pos], (pair - 1 - pos) * sizeof x);
        out = &P->seg[pos];
        *out = x;
    } else {                                  /* two others: s takes the freed room */
        size_t b = best < pos ? best : best - 1, q = pair < pos ? pair : pair - 1;
        seg_merge(&P->seg[b], &P->seg[q]);
        if (q < pos) {
            memmove(&P->seg[q], &P->seg[q + 1], (pos - 1 - q) * sizeof *s);
            out = &P->seg[pos - 1];
        } else {
            memmove(&P->seg[pos + 1], &P->seg[pos], (q - pos) * sizeof *s);
            out = &P->seg[pos];
        }
        *out = *s;
    }
    /* The tops after the merge: the one merged (now at best) ends as the
     * later of its two, so its mode's latest end is the same; it is the
     * first such when it has that end and comes no later than the first
     * before; the others move down past the pair gone. */
    for (int m = 0; m < FTIO_PT_NMODES; m++) {
        size_t j = top[m];
        if (j == n)
            P->top[m] = FTIO_PT_NOSEG;
        else if (P->seg[best].mode == m && P->seg[best].te == end[m] && best <= j)
            P->top[m] = (uint8_t)best;
        else
            P->top[m] = (uint8_t)(j - (j > pair));
    }
    return out;
}

/* ---- records ---------------------------------------------------------------- */

/* A data record of a phase already described: it goes to the phase it falls
 * in, if the ring still holds it. */
static void late_data(struct ftio_pt *t, struct ftio_pt_proc *P, int mode, double ts, double te,
                      double bytes)
{
    struct ftio_pt_mode *m = &t->mode[mode];
    for (size_t k = m->n; k-- > 0;) {
        struct ftio_pt_phase *ph = ring_at(m, k);
        if (ts > ph->end + t->join || te < ph->start - t->join)
            continue;
        ph->bytes += bytes;
        ph->records++;
        ph->start = min_of(ph->start, ts);
        ph->end = max_of(ph->end, te);
        if (P->last_seq == ph->seq && P->last_mode == mode) {
            P->last_bytes += bytes;
        } else {
            ph->ranks++;
            if (P->last_seq < ph->seq || P->last_mode != mode) {
                move_on(t, P);
                P->last_seq = ph->seq;
                P->last_mode = (uint8_t)mode;
                P->last_bytes = bytes;
                P->in_last = !P->final && !ph->confirmed;
                ph->waiting += P->in_last;
            }
        }
        if (P->last_seq == ph->seq && P->last_bytes > ph->skew_bytes)
            ph->skew_bytes = P->last_bytes;
        return;
    }
    m->late_records++;
    m->late_bytes += bytes;
}

void ftio_pt_data(struct ftio_pt *t, size_t p, int mode, double ts, double te, double bytes,
                  uint32_t fid, uint16_t fs)
{
    if (p >= t->nproc || mode < 0 || mode >= FTIO_PT_NMODES || !isfinite(ts) || !isfinite(te))
        return;
    struct ftio_pt_proc *P = &t->proc[p];
    struct ftio_pt_mode *m = &t->mode[mode];
    if (te < ts)
        te = ts;
    /* Anything it sends after its last phase's end: it moved on. */
    if (P->in_last) {
        struct ftio_pt_phase *ph = phase_of_seq(&t->mode[P->last_mode], P->last_seq);
        if (!ph || ts > ph->end + t->join)
            move_on(t, P);
    }
    if (ts <= m->settled) {
        late_data(t, P, mode, ts, te, bytes);
        return;
    }
    /* Its segment of this mode that the record touches (the latest, the
     * first such): the mode's top when it touches; none when the record
     * starts after the top's end and the join (every other ends no later);
     * else a search. */
    struct ftio_pt_seg *s = NULL;
    if (P->top[mode] != FTIO_PT_NOSEG) {
        struct ftio_pt_seg *c = &P->seg[P->top[mode]];
        if (ts <= c->te + t->join && te >= c->ts - t->join)
            s = c;
        else if (ts <= c->te + t->join)
            for (size_t k = 0; k < P->nseg; k++) {
                c = &P->seg[k];
                if (c->mode == mode && ts <= c->te + t->join && te >= c->ts - t->join &&
                    (!s || c->te > s->te))
                    s = c;
            }
    }
    if (s) {
        s->ts = min_of(s->ts, ts);
        s->te = max_of(s->te, te);
        top_consider(P, (size_t)(s - P->seg));
        if (bytes > 0 && s->bytes <= 0)
            s->fs = fs;
    } else {
        struct ftio_pt_seg n = { .ts = ts, .te = te, .fs = fs, .mode = (uint8_t)mode };
        m->seg_end_floor = min_of(m->seg_end_floor, te);   /* a segment's end only grows */
        m->union_floor = min_of(m->union_floor, te);       /* the first union's end: as much */
        if (!(s = seg_new(t, P, &n))) {
            m->late_records++;                /* out of memory: counted, not described */
            m->late_bytes += bytes;
            return;
        }
    }
    s->bytes += bytes;
    s->records++;
    seg_add_fid(s, fid);
    /* Metadata that came just before it (the open of this output). */
    if (P->p_opens + P->p_meta + P->p_syncs > 0) {
        if (ts - P->p_te <= min_of(FTIO_PT_ATTACH, t->join + FTIO_PT_ATTACH)) {
            s->opens += P->p_opens;
            s->meta += P->p_meta;
            s->syncs += P->p_syncs;
            s->ts = min_of(s->ts, P->p_ts);
        } else {
            t->meta_between += P->p_opens + P->p_meta + P->p_syncs;
        }
        P->p_opens = P->p_meta = P->p_syncs = 0;
    }
}

void ftio_pt_meta(struct ftio_pt *t, size_t p, int op, double ts, double te)
{
    if (p >= t->nproc || op == FTIO_OP_SEEK || ftio_op_is_data(op) || !isfinite(ts) ||
        !isfinite(te))
        return;
    struct ftio_pt_proc *P = &t->proc[p];
    if (te < ts)
        te = ts;
    uint32_t opens = op == FTIO_OP_OPEN, syncs = op == FTIO_OP_SYNC, meta = !syncs;
    /* Next to one of its segments: part of it. */
    struct ftio_pt_seg *s = NULL;
    for (size_t k = 0; k < P->nseg; k++) {
        struct ftio_pt_seg *c = &P->seg[k];
        if (ts <= c->te + FTIO_PT_ATTACH && te >= c->ts - FTIO_PT_ATTACH && (!s || c->te > s->te))
            s = c;
    }
    if (s) {
        s->opens += opens;
        s->meta += meta;
        s->syncs += syncs;
        s->ts = min_of(s->ts, ts);
        s->te = max_of(s->te, te);
        top_consider(P, (size_t)(s - P->seg));
        return;
    }
    /* Right after its last described phase (the fsync that ended it,
     * arriving after the phase was described): part of that phase. */
    if (P->in_last) {
        struct ftio_pt_phase *ph = phase_of_seq(&t->mode[P->last_mode], P->last_seq);
        if (ph && ts <= ph->end + FTIO_PT_ATTACH && te >= ph->start) {
            ph->opens += opens;
            ph->meta += meta;
            ph->syncs += syncs;
            ph->end = max_of(ph->end, te);
            return;
        }
        if (ph && ts > ph->end + FTIO_PT_ATTACH)
            move_on(t, P);
    }
    /* Else it waits for the process's next data (an open before writes). */
    if (P->p_opens + P->p_meta + P->p_syncs > 0 && ts - P->p_te > FTIO_PT_ATTACH) {
        t->meta_between += P->p_opens + P->p_meta + P->p_syncs;
        P->p_opens = P->p_meta = P->p_syncs = 0;
    }
    if (P->p_opens + P->p_meta + P->p_syncs == 0) {
        P->p_ts = ts;
        P->p_te = te;
    }
    P->p_ts = min_of(P->p_ts, ts);
    P->p_te = max_of(P->p_te, te);
    P->p_opens += opens;
    P->p_meta += meta;
    P->p_syncs += syncs;
}

void ftio_pt_final(struct ftio_pt *t, size_t p)
{
    if (p >= t->nproc)
        return;
    t->proc[p].final = true;
    move_on(t, &t->proc[p]);
}

/* ---- phases ----------------------------------------------------------------- */

double ftio_pt_gap(const struct ftio_pt *t, double period, double duration)
{
    if (!(period > 0) || !isfinite(period))
        return FTIO_PT_GAP_UNKNOWN;
    double compute = isfinite(duration) && duration >= 0 && duration < period
                         ? period - duration : 0.5 * period;
    return max_of(0.5 * compute, 2 * t->join);
}

struct item { double ts, te; uint32_t proc; uint8_t seg; };   /* seg < FTIO_PT_SEGS_MAX */

/* Stable sort of it[0..n) by start, tmp (n items) as scratch: runs of 16
 * by insertion, then merged pairwise (no comparator call: ftio walks a
 * trace's every second through ftio_pt_settle). */
#define ITEM_RUN 16
static void merge_sort_items(struct item *it, struct item *tmp, size_t n)
{
    for (size_t r = 0; r < n; r += ITEM_RUN) {
        size_t end = r + ITEM_RUN < n ? r + ITEM_RUN : n;
        for (size_t i = r + 1; i < end; i++) {
            struct item x = it[i];
            size_t j = i;
            for (; j > r && it[j - 1].ts > x.ts; j--)
                it[j] = it[j - 1];
            it[j] = x;
        }
    }
    struct item *src = it, *dst = tmp;
    for (size_t w = ITEM_RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {      /* ties: the left; no branch on the
                                                 times (they alternate unpredictably) */
                bool right = src[j].ts < src[i].ts;
                dst[o++] = *(right ? &src[j] : &src[i]);
                j += right;
                i += !right;
            }
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        struct item *x = src;
        src = dst;
        dst = x;
    }
    if (src != it)
        memcpy(it, src, n * sizeof *it);
}

/* The same order in fewer passes (a settle sorts every segment, thousands
 * at 1,024 processes): the items spread over n / ITEM_FILL buckets by linear
 * interpolation of the start between the earliest and the latest (a monotone
 * function of it: equal starts share a bucket), scattered in input order and
 * each bucket sorted by insertion (strict: stable), a crowded one spread
 * again (the settle's segments bunch at a phase's start); so the result is
 * that of any stable sort by start.  The merge sort for few items, deep
 * levels or a start not finite.
 *
 * The buckets' counts: at, the caller's (ITEM_AT(n) entries for n items),
 * this level's first and the deeper levels' after them: a level's n is at
 * most its caller's, so each of the ITEM_DEPTH levels takes at most
 * n / ITEM_FILL + 2 (one scratch per settle, not a calloc per call: a walk
 * makes ~11,500 of these calls).  Returns the array that holds the sorted
 * items, it or tmp (the scatter leaves them in tmp: the caller reads them
 * there rather than this copying them back). */
#define ITEM_FILL 4
#define ITEM_DEPTH 4                 /* levels of buckets, then the merge sort */
#define ITEM_AT(n) (ITEM_DEPTH * ((n) / ITEM_FILL + 2))
static struct item *sort_items(struct item *it, struct item *tmp, size_t n, int depth, size_t *at)
{
    double lo = INFINITY, hi = -INFINITY, nan = 0;
    for (size_t i = 0; i < n; i++) {
        nan = ftio_finite_acc(nan, it[i].ts);
        lo = it[i].ts < lo ? it[i].ts : lo;
        hi = it[i].ts > hi ? it[i].ts : hi;
    }
    size_t nb = n / ITEM_FILL + 1;
    double scale = (double)nb / (hi - lo);
    if (!(n > 2 * ITEM_RUN && depth < ITEM_DEPTH && nan == 0 && scale > 0 && isfinite(scale))) {
        merge_sort_items(it, tmp, n);
        return it;
    }
    memset(at, 0, (nb + 1) * sizeof *at);
    FTIO_BUCKET_SCATTER(it, tmp, n, ts, lo, scale, nb, at);
    for (size_t b = 0, from = 0; b < nb; from = at[b++]) {   /* at[b]: one past bucket b */
        size_t len = at[b] - from, up = 1;
        while (up < len && tmp[from + up - 1].ts <= tmp[from + up].ts)
            up++;
        if (up == len)                       /* in order (one start: processes in step) */
            continue;
        if (len > ITEM_RUN) {                /* spread again over its own span */
            struct item *in = sort_items(tmp + from, it + from, len, depth + 1,
                                         at + nb + 1);                  /* it: scratch */
            if (in != tmp + from)
                memcpy(tmp + from, in, len * sizeof *in);
            continue;
        }
        for (size_t i = from + 1; i < at[b]; i++) {
            struct item x = tmp[i];
            size_t j = i;
            for (; j > from && tmp[j - 1].ts > x.ts; j--)
                tmp[j] = tmp[j - 1];
            tmp[j] = x;
        }
    }
    return tmp;
}

/* A small open-addressing set of file ids (cap a power of two). */
static bool fid_insert(uint32_t *set, size_t cap, uint32_t id)
{
    size_t i = (id * 2654435761u) & (cap - 1);
    while (set[i] && set[i] != id)
        i = (i + 1) & (cap - 1);
    if (set[i])
        return false;
    set[i] = id;
    return true;
}

#define FS_SLOTS 8

/* Describe the cluster items[0..n) as the next phase of m. */
static void describe(struct ftio_pt *t, int mode, const struct item *it, size_t n,
                     double *per_proc, uint32_t *touched, uint32_t *fset, size_t fcap)
{
    struct ftio_pt_mode *m = &t->mode[mode];
    struct ftio_pt_phase ph = { .seq = m->next_seq++, .start = INFINITY, .end = -INFINITY,
                                .files_exact = true, .fs = FTIO_PT_FS_UNKNOWN };
    uint16_t fsid[FS_SLOTS];
    double fsb[FS_SLOTS];
    size_t nfs = 0, ntouched = 0;
    memset(fset, 0, fcap * sizeof *fset);
    for (size_t i = 0; i < n; i++) {
        const struct ftio_pt_seg *s = &t->proc[it[i].proc].seg[it[i].seg];
        ph.start = min_of(ph.start, s->ts);
        ph.end = max_of(ph.end, s->te);
        ph.bytes += s->bytes;
        ph.records += s->records;
        ph.opens += s->opens;
        ph.meta += s->meta;
        ph.syncs += s->syncs;
        for (unsigned k = 0; k < s->nfid; k++)
            ph.files += fid_insert(fset, fcap, s->fid[k]);
        ph.files += s->more_files;
        if (s->more_files)
            ph.files_exact = false;
        if (s->bytes > 0) {
            size_t f = 0;
            while (f < nfs && fsid[f] != s->fs)
                f++;
            if (f == nfs && nfs < FS_SLOTS) {
                fsid[nfs] = s->fs;
                fsb[nfs++] = 0;
            }
            if (f < nfs)
                fsb[f] += s->bytes;
        }
        if (per_proc[it[i].proc] == 0 && s->bytes > 0)
            touched[ntouched++] = it[i].proc;
        per_proc[it[i].proc] += s->bytes;
    }
    for (size_t k = 0; k < ntouched; k++) {
        struct ftio_pt_proc *P = &t->proc[touched[k]];
        double b = per_proc[touched[k]];
        per_proc[touched[k]] = 0;
        ph.ranks++;
        if (b > ph.skew_bytes)
            ph.skew_bytes = b;
        move_on(t, P);
        P->last_seq = ph.seq;
        P->last_mode = (uint8_t)mode;
        P->last_bytes = b;
        P->in_last = !P->final;
        ph.waiting += P->in_last;
    }
    for (size_t f = 0; f < nfs; f++)
        if (ph.fs == FTIO_PT_FS_UNKNOWN || fsb[f] > ph.fs_share) {
            ph.fs = fsid[f];
            ph.fs_share = fsb[f];
        }
    ph.fs_share = ph.bytes > 0 ? ph.fs_share / ph.bytes : 0;
    confirm_if_done(&ph);
    if (m->n == FTIO_PT_HISTORY) {
        m->head = (m->head + 1) % FTIO_PT_HISTORY;
        m->n--;
    }
    *ring_at(m, m->n++) = ph;
}

int ftio_pt_settle(struct ftio_pt *t, int mode, double upto, double gap)
{
    if (mode < 0 || mode >= FTIO_PT_NMODES)
        return 0;
    struct ftio_pt_mode *m = &t->mode[mode];
    for (size_t k = 0; k < m->n; k++) {
        struct ftio_pt_phase *ph = ring_at(m, k);
        if (!ph->confirmed && upto >= ph->end + FTIO_PT_CONFIRM)
            ph->confirmed = true;
    }
    /* Every segment ends at or after the floor, or the first union does:
     * none can be described. */
    if (!(m->seg_end_floor + gap < upto) ||
        (gap >= m->union_gap && !(m->union_floor + gap < upto)))   /* a wider gap only joins */
        return 0;
    size_t n = 0;
    double first_end = INFINITY;
    for (size_t p = 0; p < t->nproc; p++)
        for (size_t k = 0; k < t->proc[p].nseg; k++)
            if (t->proc[p].seg[k].mode == mode) {
                n++;
                first_end = min_of(first_end, t->proc[p].seg[k].te);
            }
    m->seg_end_floor = first_end;
    if (gap >= m->union_gap) {                  /* both lower bounds of it */
        m->union_floor = max_of(m->union_floor, first_end);
    } else {                                    /* first_end bounds it for any gap */
        m->union_floor = first_end;
        m->union_gap = -INFINITY;
    }
    /* Only a prefix of the unions in start order is described, and the
     * first one ends no sooner than the earliest segment: when that is
     * within the gap of upto, nothing is (no sort: ftio walks a trace's
     * every second through here, ftiod each job's every boundary). */
    if (n == 0 || !(first_end + gap < upto))
        return 0;
    struct item *it = malloc(2 * n * sizeof *it);
    double *per_proc = calloc(t->nproc, sizeof *per_proc);
    uint32_t *touched = malloc(t->nproc * sizeof *touched);
    size_t fcap = 16;
    while (fcap < 2 * FTIO_PT_FIDS * n)
        fcap *= 2;
    uint32_t *fset = malloc(fcap * sizeof *fset);
    size_t *at = malloc(ITEM_AT(n) * sizeof *at);
    if (!it || !per_proc || !touched || !fset || !at) {
        free(it);
        free(per_proc);
        free(touched);
        free(fset);
        free(at);
        return -1;
    }
    n = 0;
    for (size_t p = 0; p < t->nproc; p++)
        for (size_t k = 0; k < t->proc[p].nseg; k++)
            if (t->proc[p].seg[k].mode == mode)
                it[n++] = (struct item){ t->proc[p].seg[k].ts, t->proc[p].seg[k].te,
                                         (uint32_t)p, (uint8_t)k };
    const struct item *in = sort_items(it, it + n, n, 0, at);   /* it or it + n */
    free(at);
    int described = 0;
    size_t i = 0;
    m->union_floor = INFINITY;          /* no segment left, unless one is below */
    m->union_gap = -INFINITY;
    while (i < n) {
        double end = in[i].te;
        size_t j = i + 1;
        while (j < n && in[j].ts <= end + gap)
            end = max_of(end, in[j++].te);
        if (!(end + gap < upto)) {
            m->union_floor = end;       /* the first union left, exactly */
            m->union_gap = gap;
            break;
        }
        describe(t, mode, in + i, j - i, per_proc, touched, fset, fcap);
        for (size_t k = i; k < j; k++)
            t->proc[in[k].proc].seg[in[k].seg].te = NAN;   /* described: freed below */
        m->settled = max_of(m->settled, end + min_of(gap, t->join));
        described++;
        i = j;
    }
    if (described)
        for (size_t p = 0; p < t->nproc; p++) {
            struct ftio_pt_proc *P = &t->proc[p];
            size_t keep = 0;
            for (size_t k = 0; k < P->nseg; k++)
                if (!isnan(P->seg[k].te))
                    P->seg[keep++] = P->seg[k];
            P->nseg = (uint8_t)keep;
            top_recompute(P);
        }
    free(it);
    free(per_proc);
    free(touched);
    free(fset);
    return described;
}

size_t ftio_pt_count(const struct ftio_pt *t, int mode)
{
    return mode >= 0 && mode < FTIO_PT_NMODES ? t->mode[mode].n : 0;
}

const struct ftio_pt_phase *ftio_pt_phase_at(const struct ftio_pt *t, int mode, size_t k)
{
    if (k >= ftio_pt_count(t, mode))
        return NULL;
    const struct ftio_pt_mode *m = &t->mode[mode];
    return &m->ring[(m->head + k) % FTIO_PT_HISTORY];
}

const struct ftio_pt_phase *ftio_pt_take_confirmed(struct ftio_pt *t, int mode, double before)
{
    if (mode < 0 || mode >= FTIO_PT_NMODES)
        return NULL;
    struct ftio_pt_mode *m = &t->mode[mode];
    for (size_t k = 0; k < m->n; k++) {
        struct ftio_pt_phase *ph = ring_at(m, k);
        if (ph->confirmed && !ph->taken && ph->end <= before) {
            ph->taken = true;
            return ph;
        }
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static bool alike(const struct ftio_pt_phase *ph, double like)
{
    return !(like > 0) || (ph->bytes >= 0.5 * like && ph->bytes <= 2 * like);
}

bool ftio_pt_typical(const struct ftio_pt *t, int mode, size_t last, double like_bytes,
                     struct ftio_pt_phase *out)
{
    size_t n = ftio_pt_count(t, mode), confirmed = 0, similar = 0;
    if (n == 0 || last == 0)
        return false;
    for (size_t k = 0; k < n; k++) {
        const struct ftio_pt_phase *ph = ftio_pt_phase_at(t, mode, k);
        confirmed += ph->confirmed;
        similar += alike(ph, like_bytes);
    }
    if (similar == 0)
        like_bytes = NAN;
    else if (like_bytes > 0) {
        confirmed = 0;
        for (size_t k = 0; k < n; k++) {
            const struct ftio_pt_phase *ph = ftio_pt_phase_at(t, mode, k);
            confirmed += ph->confirmed && alike(ph, like_bytes);
        }
    }
    const struct ftio_pt_phase *sel[FTIO_PT_HISTORY];
    size_t m = 0;
    for (size_t k = n; k-- > 0 && m < last;) {
        const struct ftio_pt_phase *ph = ftio_pt_phase_at(t, mode, k);
        if ((ph->confirmed || confirmed == 0) && alike(ph, like_bytes))
            sel[m++] = ph;
    }
    double v[9][FTIO_PT_HISTORY];
    uint16_t fs[FTIO_PT_HISTORY];
    for (size_t k = 0; k < m; k++) {
        const struct ftio_pt_phase *ph = sel[k];
        v[0][k] = ph->end - ph->start;
        v[1][k] = ph->bytes;
        v[2][k] = ph->ranks;
        v[3][k] = ph->skew_bytes;
        v[4][k] = ph->files;
        v[5][k] = ph->opens;
        v[6][k] = ph->meta;
        v[7][k] = ph->syncs;
        v[8][k] = (double)ph->records;
        fs[k] = ph->fs;
    }
    *out = *sel[0];    /* the newest: seq, confirmed, files_exact */
    out->start = 0;                /* a typical phase has no date: [0, its duration] */
    out->end = median(v[0], m);
    out->bytes = median(v[1], m);
    out->ranks = (uint32_t)llround(median(v[2], m));
    out->skew_bytes = median(v[3], m);
    out->files = (uint32_t)llround(median(v[4], m));
    out->opens = (uint32_t)llround(median(v[5], m));
    out->meta = (uint32_t)llround(median(v[6], m));
    out->syncs = (uint32_t)llround(median(v[7], m));
    out->records = (uint64_t)llround(median(v[8], m));
    size_t best = 0, best_n = 0;
    for (size_t k = 0; k < m; k++) {
        size_t c = 0;
        for (size_t q = 0; q < m; q++)
            c += fs[q] == fs[k];
        if (c > best_n) {
            best_n = c;
            best = k;
        }
    }
    out->fs = fs[best];
    return true;
}
