/* SPDX-License-Identifier: BSD-3-Clause */
/* phases.c -- find the I/O phases of a sampled bandwidth signal (robust
 * detector, ALGORITHM.md §9).
 *
 * A periodic application alternates computation (the signal sits at a
 * background: zero, or other jobs' and daemons' I/O) and I/O phases (the
 * signal stands well above it).  We split the samples into those two levels
 * with Otsu's threshold (the split of the sorted values that maximises the
 * between-class variance: no parameter, exact, O(N log N)), measure the
 * background and its spread robustly (median and MAD of the lower class),
 * and call a phase every run of samples above a low threshold that reaches
 * the high one (hysteresis: a phase's ragged edges stay in it, a noise
 * spike alone does not make one).  Runs separated by short dips are one
 * phase; runs that move little data compared with the others are noise and
 * are dropped.  Onset and end are refined inside their bins from how full
 * the first and last bins are, so a 10 Hz grid still places a phase to a
 * few milliseconds.  Only the bytes above the background count as the
 * phase's volume: noise is not the application's I/O.
 *
 * robust.c turns the phases into a period, a confidence and the next phase.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

/* A phase must stand this many background spreads above the background
 * (and the two levels must differ by this much) to be a phase at all. */
#define MIN_CONTRAST 4.0
/* The low (edge) threshold, as a share of the way from the background to
 * the typical in-phase level. */
#define EDGE_SHARE 0.3
/* Dips no longer than this share of the typical phase (and at least one
 * bin) do not split a phase. */
#define MERGE_SHARE 0.25
/* A run moving less than this share of a typical phase's volume is noise. */
#define MIN_VOLUME_SHARE 0.15
/* A middle level whose samples lie this much in stretches that reach the
 * phases is the phases' own plateau, not background. */
#define PLATEAU_HUG 0.8
/* Low phases (every other output at a quarter of the rate, a trajectory
 * frame next to a large final write): runs that never reach the high
 * threshold but rise above this share of the level (and MIN_CONTRAST
 * spreads); the volume filter judges them like any run. */
#define LOW_SHARE 0.05

/* Otsu's split of sorted v[0..n): returns i, the size of the lower class
 * (0 < i < n), maximising w0 w1 (m0 - m1)^2; 0 when all values are equal. */
static size_t otsu_split(const double *v, size_t n)
{
    /* A quiet signal's sorted samples begin with many zeros, which add
     * nothing to the sums (exactly) and offer no split among themselves:
     * start after them. */
    size_t zeros = 0;
    if (n > 0 && v[0] == 0) {
        size_t hi = n;
        while (zeros < hi) {
            size_t mid = zeros + (hi - zeros) / 2;
            if (v[mid] == 0)
                zeros = mid + 1;
            else
                hi = mid;
        }
    }
    double total = 0;
    for (size_t i = zeros; i < n; i++)
        total += v[i];
    double best = 0, low = 0;
    size_t split = 0;
    for (size_t i = zeros > 1 ? zeros : 1; i < n; i++) {
        low += v[i - 1];
        if (v[i] == v[i - 1])
            continue;                /* split only between distinct values */
        double w0 = (double)i, w1 = (double)(n - i);
        double d = low / w0 - (total - low) / w1;
        double between = w0 * w1 * d * d;
        if (between > best) {
            best = between;
            split = i;
        }
    }
    return split;
}

/* Room for the phases of n samples: runs are separated by at least one
 * sample, so there are at most ceil(n / 2) of them. */
#define PHASE_ROOM(n) ((n) / 2 + 2)

static int reserve(struct ftio_analyzer *a, size_t n)
{
    if (ftio_grow((void **)&a->scratch, &a->scratch_cap, 4 * n + 16, sizeof *a->scratch) != 0 ||
        ftio_grow((void **)&a->sorted, &a->sorted_cap, n, sizeof *a->sorted) != 0)
        return -1;
    return ftio_grow((void **)&a->phase_buf, &a->phase_cap, PHASE_ROOM(n), sizeof *a->phase_buf);
}

/* Robust standard deviation of sorted v[0..n) around c (1.4826 x MAD). */
static double mad(const double *v, size_t n, double c)
{
    return 1.4826 * ftio_deviation_median_sorted(v, n, c);
}

/* Share of the samples in (mid, top] that lie in stretches of samples
 * above mid reaching above top: how closely a middle level hugs the
 * phases. */
static double hugging(const struct ftio_samples *x, double mid, double top)
{
    size_t in = 0, all = 0;
    bool skip_zeros = mid >= 0;          /* a zero is then never above it */
    for (size_t k = 0; k < x->n;) {
        if (!(x->x[k] > mid)) {
            k++;
            if (skip_zeros)
                k = ftio_next_nonzero(x->x, k, x->n);
            continue;
        }
        size_t middle = 0;
        bool tall = false;
        for (; k < x->n && x->x[k] > mid; k++) {
            tall |= x->x[k] > top;
            middle += !(x->x[k] > top);
        }
        all += middle;
        in += tall ? middle : 0;
    }
    return all ? (double)in / (double)all : 0;
}

/* Background level and spread; the high (Otsu) and edge thresholds; the
 * typical in-phase level.  False when the signal has no two levels. */
static bool levels(struct ftio_analyzer *a, const struct ftio_samples *x,
                   struct ftio_phase_scan *s, double *hi, double *lo)
{
    /* Sorted once per window (a->sorted: phases_between_silences reads it
     * too); Otsu's split needs the order, the rest are medians. */
    double *v = a->sorted;
    size_t n = x->n;
    ftio_sort_copy(x->x, n, v, a->scratch);
    size_t split = otsu_split(v, n);
    if (split == 0)
        return false;
    s->background = ftio_median_sorted(v, split);
    double level = ftio_median_sorted(v + split, n - split);
    double thr = 0.5 * (v[split - 1] + v[split]);
    /* Spread of the background: MAD of the lower class as a std. */
    double spread = mad(v, split, s->background);
    /* A plateau of the job's own output (a page-cache spike, then a long
     * write at the file system's pace) can outnumber the quiet samples and
     * become the lower class's median.  When the lower class has two levels
     * of its own and the upper one hugs the phases (its samples lie in
     * stretches that reach the upper class), it is I/O, not background:
     * the background is the lower one. */
    size_t sub = otsu_split(v, split);
    if (sub > 0 && sub >= n / 10 && sub < split) {   /* 0: no split (short signals: n < 10) */
        double b0 = ftio_median_sorted(v, sub), m1 = ftio_median_sorted(v + sub, split - sub);
        double s0 = mad(v, sub, b0);
        if (m1 - b0 > MIN_CONTRAST * s0 && m1 - b0 > 1e-3 * fabs(m1) &&
            hugging(x, 0.5 * (v[sub - 1] + v[sub]), thr) >= PLATEAU_HUG) {
            s->background = b0;
            spread = s0;
        }
    }
    s->spread = spread;
    s->level = level;
    /* Two levels, not one level and its rounding noise. */
    if (!(level - s->background > MIN_CONTRAST * spread) ||
        !(level - s->background > 1e-3 * fabs(level)))
        return false;
    *lo = s->background + EDGE_SHARE * (level - s->background);
    if (*lo < s->background + 2 * spread)
        *lo = s->background + 2 * spread;
    *hi = thr > *lo ? thr : *lo;
    return true;
}

/* Share of bin k's width the phase occupies, judged by its height. */
static double fill(const struct ftio_phase_scan *s, double value, double level)
{
    double f = (value - s->background) / (level - s->background);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Fragmented phases: when the processes of one I/O phase start at scattered
 * times (stragglers, staggered ranks), the phase reaches the signal as
 * several runs with dips between them, each moving a fraction of what an
 * iteration moves.  The long gaps are computation (G: the median of the
 * longer half of the gaps); an iteration moves about V, the larger of the
 * largest run and the volume per long gap.  Regroup consecutive runs by dynamic programming over
 * contiguous groups, cost per group (log(v / V))^2 + sum (gap / G)^2 over
 * the gaps inside it (a group at either end of the window may be partial:
 * only an excess counts there), never across a gap longer than 4 times the
 * bursts on both sides when both move 30 % of V or more.  Only when fragments are there to mend: runs that
 * disagree in volume and a gap shorter than half of G; the whole
 * phases of steady applications, even of varying volume, are left alone.  Returns the new number of phases. */
#define GROUP_MAX_RUNS 64
/* Fragments of one phase are separated by gaps of at most this many times
 * the longer of the two bursts; bursts farther apart are separate outputs (a
 * simulation dumping for 0.1 s every 1-2 s with a restart file now and then:
 * the restart's larger volume must not make pairs of dumps look like one). */
#define FRAGMENT_GAP 4.0
/* ... when both move this share of an iteration's volume or more (a lone
 * straggler rank's burst, far behind the others, is still a fragment). */
#define WHOLE_SHARE 0.3
static size_t group_fragments(struct ftio_analyzer *a, struct ftio_phase *p, size_t np, double dt)
{
    if (np < 3)
        return np;
    /* vmax: the largest run the window holds whole (a job's last output,
     * cut by the end of the trace, is often an outlier: GROMACS' final
     * configuration is 7x a trajectory frame). */
    double total = 0, sq = 0, vmax = 0, vcut = 0;
    for (size_t i = 0; i < np; i++) {
        total += p[i].bytes;
        sq += p[i].bytes * p[i].bytes;
        if (p[i].flags)
            vcut = fmax(vcut, p[i].bytes);
        else
            vmax = fmax(vmax, p[i].bytes);
    }
    if (!(vmax > 0))
        vmax = vcut;
    double mean = total / (double)np;
    double cv = mean > 0 ? sqrt(fmax(sq / (double)np - mean * mean, 0)) / mean : 0;
    if (cv < 0.1 || !(vmax > 0))
        return np;
    double *gap = a->scratch, gmin = INFINITY;
    for (size_t i = 0; i + 1 < np; i++) {
        gap[i] = fmax(p[i + 1].start - p[i].end, 0);
        gmin = fmin(gmin, gap[i]);
    }
    double gref = ftio_median_rank(gap, np - 1, (np - 1) / 2, np - 1 - (np - 1) / 2);
    if (!(gref > 0) || !(gmin < 0.5 * gref))
        return np;
    /* What an iteration moves: the largest run, or the volume per long gap
     * when no run is a whole phase. */
    size_t long_gaps = 0;
    for (size_t i = 0; i + 1 < np; i++)
        long_gaps += gap[i] >= 0.5 * gref;
    vmax = fmax(vmax, total / (double)(long_gaps + 1));

    /* best[j]: cost of grouping runs [0, j); from[j]: start of the last
     * group.  Twice when the first pass's whole groups (all but the first
     * and the last) move more than V in the median: V was underestimated (a
     * partial phase at the end counts as an iteration in the volume per
     * gap), and the second pass uses their median. */
    double *best = a->scratch;
    double *from = a->scratch + np + 1;
    size_t *cut = (size_t *)(void *)(a->scratch + 2 * (np + 1));
    double *gv = a->scratch + 3 * (np + 1);
    size_t ng = 0, g;
    for (int pass = 0; pass < 2; pass++) {
        best[0] = 0;
        for (size_t j = 1; j <= np; j++) {
            best[j] = INFINITY;
            double vol = 0, idle = 0;
            for (size_t i = j; i-- > 0 && j - i <= GROUP_MAX_RUNS;) {
                vol += p[i].bytes;
                if (i + 1 < j) {
                    double gp = fmax(p[i + 1].start - p[i].end, 0);
                    double burst = fmax(fmax(p[i].end - p[i].start, p[i + 1].end - p[i + 1].start), dt);
                    if (gp > FRAGMENT_GAP * burst && p[i].bytes >= WHOLE_SHARE * vmax &&
                        p[i + 1].bytes >= WHOLE_SHARE * vmax)
                        break;        /* separate outputs, not fragments */
                    gp /= gref;
                    idle += gp * gp;
                }
                double r = log(vol / vmax);
                if ((i == 0 || j == np) && r < 0)
                    r = 0;
                double c = best[i] + r * r + idle;
                if (c < best[j]) {
                    best[j] = c;
                    from[j] = (double)i;
                }
            }
        }
        /* Walk back: the groups' first runs. */
        ng = 0;
        for (size_t j = np; j > 0; j = (size_t)from[j])
            ng++;
        g = ng;
        for (size_t j = np; j > 0; j = (size_t)from[j])
            cut[--g] = (size_t)from[j];
        if (pass == 1 || ng < 4)
            break;
        for (g = 1; g + 1 < ng; g++) {
            gv[g - 1] = 0;
            for (size_t i = cut[g]; i < cut[g + 1]; i++)
                gv[g - 1] += p[i].bytes;
        }
        double whole = ftio_median(gv, ng - 2);
        if (!(whole > 1.02 * vmax))
            break;
        vmax = whole;
    }
    for (g = 0; g < ng; g++) {
        size_t i0 = cut[g], i1 = g + 1 < ng ? cut[g + 1] : np;
        struct ftio_phase q = p[i0];
        for (size_t i = i0 + 1; i < i1; i++) {
            q.end = p[i].end;
            q.bytes += p[i].bytes;
        }
        q.flags = (p[i0].flags & FTIO_PHASE_CUT_START) | (p[i1 - 1].flags & FTIO_PHASE_CUT_END);
        p[g] = q;
    }
    return ng;
}

/* Bursts in groups: ranks that write one after the other (serialised HDF5,
 * rank-ordered output, ranks started a little apart) leave one burst per
 * rank, of equal volume, close together, then the computation's long pause.
 * group_fragments() leaves such equal bursts alone, and the onsets then
 * answer the ranks' spacing inside one output.  When the onsets' intervals
 * fall into two classes GROUP_GAP or more apart (the longest short one
 * against the shortest long one: a detector that misses phases misses one
 * or two in a row, not three), and the short intervals are at least as many
 * as the long ones (groups of two bursts or more), the bursts between two
 * long intervals are one phase: the output.  A first group that may have
 * begun before the window (no quiet before it, its first onset within a
 * short interval of the window start) is cut at the start; a last group
 * that may not be over (the window ends within a short interval of its last
 * burst) is cut at the end.  s->inner keeps the longest short interval: a
 * repetition that short is the group's inside, not a period of phases
 * (robust.c's arbiter).  Returns the new number of phases. */
#define GROUP_GAP 4.0
static size_t group_bursts(struct ftio_analyzer *a, const struct ftio_samples *x,
                           struct ftio_phase_scan *s, struct ftio_phase *p, size_t np)
{
    if (np < 3)
        return np;
    size_t nd = np - 1;
    double *d = a->scratch;
    for (size_t i = 0; i < nd; i++)
        d[i] = p[i + 1].start - p[i].start;
    ftio_sort(d, nd, a->scratch + nd);
    /* The widest ratio between consecutive sorted intervals. */
    size_t split = 0;
    double ratio = 0;
    for (size_t i = 0; i + 1 < nd; i++)
        if (d[i] > 0 && d[i + 1] / d[i] > ratio) {
            ratio = d[i + 1] / d[i];
            split = i + 1;                 /* intervals d[split..] are long */
        }
    if (ratio < GROUP_GAP || split < nd - split)
        return np;
    double short_max = d[split - 1], cut = sqrt(short_max * d[split]);
    s->inner = short_max;
    size_t g = 0;
    for (size_t i = 1; i < np; i++) {
        if (p[i].start - p[i - 1].start < cut) {
            p[g].end = fmax(p[g].end, p[i].end);
            p[g].bytes += p[i].bytes;
            p[g].flags = (p[g].flags & FTIO_PHASE_CUT_START) | (p[i].flags & FTIO_PHASE_CUT_END);
        } else {
            p[++g] = p[i];
        }
    }
    size_t ng = g + 1;
    if (!x->quiet_before && p[0].start - x->t0 <= short_max)
        p[0].flags |= FTIO_PHASE_CUT_START;
    if (x->t1 - p[ng - 1].end <= short_max)
        p[ng - 1].flags |= FTIO_PHASE_CUT_END;
    return ng;
}

/* Tails: ranks that finish one after the other leave each phase decaying
 * until the next begins (mpi-io-test's 32 ranks: 6e8 B/s down to 1e7 over
 * 2 s, then the next phase): the signal never settles between phases, the
 * lower Otsu class is made of tails, and its median, taken for a
 * background, was subtracted from every phase (bytes per phase -13 %) and
 * the tails left out.  When every gap between phases (at least two) is such
 * a tail -- its samples, TAIL_MIN or more, decrease all the way from one
 * phase to the next -- there is no background: each phase runs until the
 * next begins (the last one over its own decaying tail), its bytes all of
 * its samples'.  A gap that flattens (a background of other I/O, or
 * nothing) is no tail. */
#define TAIL_MIN 3
static size_t first_bin(const struct ftio_samples *x, double t)
{
    return (size_t)fmax(floor((t - x->t0) * x->fs + 1e-9), 0);
}

static size_t last_bin(const struct ftio_samples *x, double t)
{
    return (size_t)fmax(ceil((t - x->t0) * x->fs - 1e-9) - 1, 0);
}

static void absorb_tails(const struct ftio_samples *x, struct ftio_phase_scan *s, struct ftio_phase *p,
                         size_t np)
{
    if (np < 3)
        return;
    double dt = 1.0 / x->fs;
    const double *v = x->x;
    size_t n = x->n;
    for (size_t i = 0; i + 1 < np; i++) {
        size_t e = last_bin(x, p[i].end), b = first_bin(x, p[i + 1].start);
        if (b > n || e + TAIL_MIN + 1 > b)
            return;
        for (size_t k = e + 1; k < b; k++)
            if (!(v[k] < v[k - 1]) || !(v[k] > 0))
                return;
    }
    for (size_t i = 0; i < np; i++) {
        size_t first = first_bin(x, p[i].start), end;     /* bins [first, end) */
        if (i + 1 < np) {
            end = first_bin(x, p[i + 1].start);
            p[i].end = p[i + 1].start;
        } else {
            end = last_bin(x, p[i].end);
            while (end + 1 < n && v[end + 1] < v[end] && v[end + 1] > 0)
                end++;
            end++;
            p[i].end = fmax(p[i].end, x->t0 + (double)end * dt);
        }
        double vol = 0;
        for (size_t k = first; k < end && k < n; k++)
            vol += v[k] * dt;
        p[i].bytes = vol;
    }
    s->background = 0;
}

/* Two runs [.., e_a] and [b_b, ..] of la and lb samples separated by `gap`
 * samples below the edge threshold are one phase when the gap is a short dip
 * (at most gap_max) and shorter than the longer run: a gap as long as the
 * bursts on both sides is the computation between two separate outputs
 * (small periodic outputs, one or two bins each, one or two bins apart), never
 * a dip inside one. */
static bool one_phase(double gap, double la, double lb, double gap_max)
{
    return gap <= gap_max && gap < fmax(la, lb);
}

/* From bin ranges p[0..np) (start, end: bin indices) to phases: volume above
 * the background, onsets and ends refined inside their edge bins, flags, and
 * the noise runs dropped.  Returns the number of phases kept. */
static size_t finish(struct ftio_analyzer *a, const struct ftio_samples *x,
                     const struct ftio_phase_scan *s, struct ftio_phase *p, size_t np)
{
    const double *v = x->x;
    size_t n = x->n;
    double dt = 1.0 / x->fs;
    for (size_t i = 0; i < np; i++) {
        size_t b = (size_t)p[i].start, e = (size_t)p[i].end;
        double vol = 0;
        for (size_t k = b; k <= e; k++) {
            double above = v[k] - s->background;    /* fmax(above, 0), inline */
            vol += (above > 0 ? above : 0) * dt;
        }
        /* How full the edge bins are, judged against their inner
         * neighbours (the phase's level next to the edge: a phase need
         * not be flat). */
        double lev_b = e > b ? v[b + 1] : v[b], lev_e = e > b ? v[e - 1] : v[e];
        double t_b = x->t0 + (double)b * dt, t_e = x->t0 + (double)(e + 1) * dt;
        double onset = t_b + (1 - fill(s, v[b], lev_b)) * dt;
        double end = t_e - (1 - fill(s, v[e], lev_e)) * dt;
        if (end <= onset)
            end = onset + dt * fill(s, v[b], lev_b);
        p[i].start = onset;
        p[i].end = end;
        p[i].bytes = vol;
        p[i].flags = (b == 0 && !x->quiet_before ? FTIO_PHASE_CUT_START : 0) |
                     (e == n - 1 ? FTIO_PHASE_CUT_END : 0);
    }

    /* Drop runs that move little compared with a typical phase (the median
     * of the larger half, so that many noise runs cannot drag it down). */
    double *vols = a->scratch;
    for (size_t i = 0; i < np; i++)
        vols[i] = p[i].bytes;
    double typical = ftio_median_rank(vols, np, np / 2, np - np / 2);
    size_t m = 0;
    for (size_t i = 0; i < np; i++)
        if (p[i].bytes >= MIN_VOLUME_SHARE * typical)
            p[m++] = p[i];
    return m;
}

static size_t onsets(const struct ftio_phase *p, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += !(p[i].flags & FTIO_PHASE_CUT_START);
    return m;
}

/* Phases between silences: a job that writes nearly all the time (TMIO's
 * ranks flushing one after another, a burst whose ranks finish one by one
 * until the next burst) has no two levels for Otsu to split, but its
 * iterations are still marked by the moments when nobody writes.  Quiet =
 * below SILENCE_SHARE of the signal's 90th percentile; a phase = a run of
 * samples between quiet ones.  Used only when the levels find fewer than two
 * onsets, and kept only when it finds at least SILENCE_MIN_PHASES phases. */
#define SILENCE_SHARE 0.1
#define SILENCE_MIN_PHASES 4

/* The runs of samples above lo, in time order, as bin ranges [first, last]
 * into p (room for max; the scan stops when full): when tall, those that
 * reach above hi (-INFINITY: every run), else those that never do.  How
 * many. */
static size_t runs_above(const double *v, size_t n, double lo, double hi, bool tall,
                         struct ftio_phase *p, size_t max)
{
    size_t np = 0;
    bool skip_zeros = lo >= 0;           /* a zero is then never above it */
    for (size_t k = 0; k < n && np < max;) {
        if (!(v[k] > lo)) {
            k++;
            if (skip_zeros)
                k = ftio_next_nonzero(v, k, n);
            continue;
        }
        size_t b = k;
        bool above = false;
        while (k < n && v[k] > lo)
            above |= v[k++] > hi;
        if (above == tall) {
            p[np].start = (double)b;          /* bins for now */
            p[np].end = (double)(k - 1);
            np++;
        }
    }
    return np;
}

static size_t phases_between_silences(struct ftio_analyzer *a, const struct ftio_samples *x,
                                      struct ftio_phase_scan *s)
{
    size_t n = x->n;
    const double *v = x->x;
    const double *sorted = a->sorted;    /* levels() sorted x there */
    double top = sorted[(size_t)(0.9 * (double)(n - 1))];
    double quiet = SILENCE_SHARE * top;
    if (!(top > 0))
        return 0;
    size_t nq = 0;
    while (nq < n && sorted[nq] <= quiet)
        nq++;
    if (nq == 0 || nq == n)
        return 0;
    struct ftio_phase_scan t = { .background = ftio_median_sorted(sorted, nq),
                                 .level = ftio_median_sorted(sorted + nq, n - nq) };
    struct ftio_phase *p = a->phase_buf;
    size_t np = finish(a, x, &t, p, runs_above(v, n, quiet, -INFINITY, true, p, PHASE_ROOM(n)));
    if (np < SILENCE_MIN_PHASES || onsets(p, np) < SILENCE_MIN_PHASES - 1)
        return 0;
    absorb_tails(x, &t, p, np);
    t.n = np;
    t.phase = p;
    *s = t;
    return np;
}

int ftio_phases_find(struct ftio_analyzer *a, const struct ftio_samples *x,
                     struct ftio_phase_scan *s)
{
    memset(s, 0, sizeof *s);
    size_t n = x->n;
    if (n < 3)
        return 0;
    if (reserve(a, n) != 0)
        return -1;
    double hi, lo;
    if (!levels(a, x, s, &hi, &lo)) {
        phases_between_silences(a, x, s);
        return 0;
    }
    const double *v = x->x;

    /* Runs above lo that reach hi, as bin ranges [first, last]. */
    struct ftio_phase *p = a->phase_buf;
    size_t cap = PHASE_ROOM(n), np = runs_above(v, n, lo, hi, true, p, cap);
    /* Low phases: runs above floor2 that never reach hi (so never touch a
     * tall run), between the others (both lists in time order: merge). */
    double floor2 = s->background + fmax(MIN_CONTRAST * s->spread, LOW_SHARE * (s->level - s->background));
    struct ftio_phase *low = p + np;
    size_t nlow = runs_above(v, n, floor2, hi, false, low, cap - np);
    if (nlow > 0) {
        struct ftio_phase *tmp = (struct ftio_phase *)(void *)(a->scratch + n);
        size_t i = 0, j = 0, m2 = 0;
        while (i < np || j < nlow)
            tmp[m2++] = j >= nlow || (i < np && p[i].start < low[j].start) ? p[i++] : low[j++];
        memcpy(p, tmp, m2 * sizeof *p);
        np = m2;
    }
    if (np == 0) {
        phases_between_silences(a, x, s);
        return 0;
    }

    /* Merge runs separated by short dips (a phase that pauses briefly). */
    double *len = a->scratch;
    for (size_t i = 0; i < np; i++)
        len[i] = p[i].end - p[i].start + 1;
    double gap_max = fmax(1.0, MERGE_SHARE * ftio_median(len, np));
    size_t m = 0;
    for (size_t i = 1; i < np; i++) {
        double gap = p[i].start - p[m].end - 1;
        if (one_phase(gap, p[m].end - p[m].start + 1, p[i].end - p[i].start + 1, gap_max))
            p[m].end = p[i].end;
        else
            p[++m] = p[i];
    }
    np = m + 1;

    /* Widen each phase over the quieter I/O next to it (a first or last
     * rank writing alone, below the edge threshold but above the noise):
     * its bytes belong to the phase, and its onset is the phase's.  Phases
     * that now touch were one phase with a shallow dip, unless that dip was
     * as long as the bursts on both sides (separate outputs with a trickle
     * of other I/O between them). */
    double floor_v = s->background + fmax(3 * s->spread, 1e-6 * (s->level - s->background));
    double *gap0 = a->scratch, *len0 = a->scratch + np;
    for (size_t i = 0; i < np; i++) {
        len0[i] = p[i].end - p[i].start + 1;
        gap0[i] = i + 1 < np ? p[i + 1].start - p[i].end - 1 : 0;
    }
    for (size_t i = 0; i < np; i++) {
        double lim_lo = i > 0 ? p[i - 1].end + 1 : 0;
        double lim_hi = i + 1 < np ? p[i + 1].start - 1 : (double)(n - 1);
        while (p[i].start > lim_lo && v[(size_t)p[i].start - 1] > floor_v)
            p[i].start -= 1;
        while (p[i].end < lim_hi && v[(size_t)p[i].end + 1] > floor_v)
            p[i].end += 1;
    }
    m = 0;
    double len_m = len0[0];
    for (size_t i = 1; i < np; i++) {
        if (p[i].start <= p[m].end + 1 && gap0[i - 1] < fmax(len_m, len0[i])) {
            p[m].end = p[i].end;
            len_m += len0[i];
        } else {
            p[++m] = p[i];
            len_m = len0[i];
        }
    }
    np = m + 1;

    m = finish(a, x, s, p, np);
    m = group_fragments(a, p, m, 1.0 / x->fs);
    s->n = group_bursts(a, x, s, p, m);
    absorb_tails(x, s, p, s->n);
    s->phase = p;
    if (onsets(p, s->n) < 2) {
        /* At most a cut phase and one other: keep a copy, the silences
         * reuse the buffer. */
        struct ftio_phase_scan keep = *s;
        struct ftio_phase saved[2];
        memcpy(saved, p, keep.n * sizeof *p);
        if (phases_between_silences(a, x, s) == 0) {
            *s = keep;
            memcpy(p, saved, keep.n * sizeof *p);
        }
    }
    return 0;
}
