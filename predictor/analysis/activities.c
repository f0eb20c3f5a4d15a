/* SPDX-License-Identifier: BSD-3-Clause */
/* activities.c -- group a job's requests into activities (activities.h,
 * docs/ALGORITHM.md §10) and analyse each one with the job's own pipeline.
 *
 * Offline readers keep a file id per request and a file table per job;
 * ftio_activities_group() turns them into at most max_activities request
 * sets (plus the shape splits of rule 3).  ftiod applies rule 1 per record
 * with ftio_activity_pattern() (predictor/daemon/job_activities.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activities.h"
#include "analysis/analysis_internal.h"
#include "bigarray.h"
#include "hash.h"

/* Where the digits of a path stop being replaced: the start of the file
 * name's extension when it begins with a letter (".h5", ".mp4" name a format,
 * not an output), else the end. */
static const char *keep_from(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot && dot != base && isalpha((unsigned char)dot[1]) && strlen(dot) <= 6)
        return dot;
    return path + strlen(path);
}

/* path with every run of digits in [from, to) replaced by '#' into out. */
static size_t digits_to_hash(const char *path, const char *from, const char *to, char *out,
                             size_t outlen)
{
    size_t n = 0;
    if (!outlen)
        return 0;
    for (const char *p = path; *p && n + 1 < outlen;) {
        if (p >= from && p < to && isdigit((unsigned char)*p)) {
            out[n++] = '#';
            while (isdigit((unsigned char)*p))
                p++;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return n;
}

/* The file name's digits: directories are kept, since two directories
 * named by number are mostly two runs (runs/lmp1, runs/lmp2), not outputs
 * of one (a directory per output is a series: ftio_activity_series). */
size_t ftio_activity_pattern(const char *path, char *out, size_t outlen)
{
    path = path ? path : "";
    const char *base = strrchr(path, '/');
    return digits_to_hash(path, base ? base + 1 : path, keep_from(path), out, outlen);
}

size_t ftio_activity_series(const char *pattern, char *out, size_t outlen)
{
    pattern = pattern ? pattern : "";
    const char *base = strrchr(pattern, '/');
    return digits_to_hash(pattern, pattern, base ? base : pattern, out, outlen);
}

bool ftio_activity_tiny(double bytes, size_t nfiles, double span)
{
    return bytes <= FTIO_TINY_BYTES && nfiles <= 1 && span <= FTIO_TINY_SPAN;
}

const char *ftio_activity_rule_name(enum ftio_activity_rule r)
{
    switch (r) {
    case FTIO_RULE_FILE:      return "file";
    case FTIO_RULE_PATTERN:   return "pattern";
    case FTIO_RULE_DIRECTORY: return "directory";
    case FTIO_RULE_OTHER:     return "other";
    default:                  return "unknown";
    }
}

const char *ftio_activity_shape_name(enum ftio_activity_shape s)
{
    return s == FTIO_SHAPE_SMALL ? "small" : s == FTIO_SHAPE_LARGE ? "large" : "all";
}

char *ftio_activity_name(const struct ftio_activity *a, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s%s", a->pattern, a->shape ? " (" : "",
             a->shape ? ftio_activity_shape_name(a->shape) : "", a->shape ? ")" : "");
    return out;
}

void ftio_activity_options_default(struct ftio_activity_options *o)
{
    o->max_activities = FTIO_MAX_ACTIVITIES;
    o->burst_gap = 0.2;      /* two samples at the default 10 Hz */
    o->split_ratio = 4.0;
    o->split_min = 3;
    o->whole_unused = false;
}

/* ---- the groups of rules 1 and 2 ---------------------------------------- */

struct group {
    char key[FTIO_PATTERN_MAX];
    char example[FTIO_PATTERN_MAX];   /* its first file's path */
    uint64_t hash;
    enum ftio_activity_rule rule;
    size_t nfiles, n;
    double bytes;
    double t_first, t_last;  /* its requests' span */
    int into;                /* the group it was merged into (a series), or itself */
    bool tiny;               /* a few bytes, one file, once: not an activity */
    int final;               /* index of the activity it ends in */
};

struct grouping {
    struct group *g;
    size_t n, cap;
    uint32_t *fkey;          /* file id -> group, open addressing (id 0 never stored) */
    int32_t  *fval;
    size_t fcap, fn;
    int unknown;             /* group of requests without a name, -1 none yet */
};

static uint64_t str_hash(const char *s)
{
    return ftio_fnv_str(FTIO_FNV_BASIS_NAMES, s);
}

static int group_of_key(struct grouping *G, const char *key, enum ftio_activity_rule rule)
{
    uint64_t h = str_hash(key);
    for (size_t i = 0; i < G->n; i++)
        if (G->g[i].hash == h && strcmp(G->g[i].key, key) == 0)
            return (int)i;
    if (ftio_grow((void **)&G->g, &G->cap, G->n + 1, sizeof *G->g) != 0)
        return -1;
    struct group *g = &G->g[G->n];
    memset(g, 0, sizeof *g);
    snprintf(g->key, sizeof g->key, "%s", key);
    g->hash = h;
    g->rule = rule;
    g->t_first = INFINITY;
    g->t_last = -INFINITY;
    g->into = (int)G->n;
    return (int)G->n++;
}

static int fmap_grow(struct grouping *G)
{
    size_t cap = G->fcap ? G->fcap * 2 : 256;
    uint32_t *k = calloc(cap, sizeof *k);
    int32_t *v = calloc(cap, sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < G->fcap; i++) {
        if (!G->fkey[i])
            continue;
        size_t j = (G->fkey[i] * 2654435761u) & (cap - 1);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = G->fkey[i];
        v[j] = G->fval[i];
    }
    free(G->fkey);
    free(G->fval);
    G->fkey = k;
    G->fval = v;
    G->fcap = cap;
    return 0;
}

/* The group of file id `id` (created with its pattern on first sight). */
static int group_of_file(struct grouping *G, uint32_t id, ftio_activity_path_fn path_of, void *ctx)
{
    size_t j = 0;
    if (id == 0)
        goto unknown;
    if ((G->fn + 1) * 2 > G->fcap && fmap_grow(G) != 0)
        return -1;
    j = (id * 2654435761u) & (G->fcap - 1);
    while (G->fkey[j]) {
        if (G->fkey[j] == id)
            return G->fval[j];
        j = (j + 1) & (G->fcap - 1);
    }
    const char *path = path_of ? path_of(ctx, id) : NULL;
    int g;
    if (path && *path) {
        char key[FTIO_PATTERN_MAX];
        ftio_activity_pattern(path, key, sizeof key);
        g = group_of_key(G, key, FTIO_RULE_FILE);
        if (g < 0)
            return -1;
        if (!G->g[g].nfiles)
            snprintf(G->g[g].example, sizeof G->g[g].example, "%s", path);
        G->g[g].nfiles++;
        if (G->g[g].nfiles > 1)
            G->g[g].rule = FTIO_RULE_PATTERN;
    } else {
    unknown:
        if (G->unknown < 0 && (G->unknown = group_of_key(G, "(unknown)", FTIO_RULE_UNKNOWN)) < 0)
            return -1;
        g = G->unknown;
        if (id == 0)
            return g;
    }
    G->fkey[j] = id;
    G->fval[j] = g;
    G->fn++;
    return g;
}

/* Activities first (largest bytes first), then the tiny files. */
static int cmp_bytes_desc(const void *a, const void *b, void *ctx)
{
    const struct group *g = ctx, *p = &g[*(const int *)a], *q = &g[*(const int *)b];
    if (p->tiny != q->tiny)
        return p->tiny ? 1 : -1;
    double x = p->bytes, y = q->bytes;
    return x > y ? -1 : x < y ? 1 : *(const int *)a - *(const int *)b;
}

/* The directory part of a pattern ("" when it has none). */
static size_t dir_len(const char *key)
{
    const char *s = strrchr(key, '/');
    return s ? (size_t)(s - key) : 0;
}

/* A directory per output (out/step100/data.h5, out/step200/data.h5): the
 * patterns differ only by the digits of their directories, and each was
 * written after the one before it ended.  Such patterns are one series,
 * named with '#' in the directory; patterns of numbered directories written
 * at the same time (two runs side by side: runs/lmp1, runs/lmp2) stay apart.
 * Merges by setting `into`; returns how many groups remain. */
static size_t merge_series(struct grouping *G)
{
    size_t left = G->n;
    int *idx = malloc((G->n ? G->n : 1) * sizeof *idx);
    if (!idx)
        return left;                  /* out of memory: the patterns as they are */
    char *series = malloc((G->n ? G->n : 1) * FTIO_PATTERN_MAX);
    if (!series) {
        free(idx);
        return left;
    }
    for (size_t i = 0; i < G->n; i++)
        ftio_activity_series(G->g[i].key, series + i * FTIO_PATTERN_MAX, FTIO_PATTERN_MAX);
    for (size_t i = 0; i < G->n; i++) {
        const char *si = series + i * FTIO_PATTERN_MAX;
        if (G->g[i].into != (int)i || G->g[i].rule == FTIO_RULE_UNKNOWN || strcmp(si, G->g[i].key) == 0)
            continue;
        /* the siblings of i not yet merged, by first start */
        size_t m = 0;
        for (size_t k = i; k < G->n; k++)
            if (G->g[k].into == (int)k && strcmp(series + k * FTIO_PATTERN_MAX, si) == 0)
                idx[m++] = (int)k;
        if (m < 2)
            continue;
        for (size_t a = 1; a < m; a++)
            for (size_t b = a; b > 0 && G->g[idx[b]].t_first < G->g[idx[b - 1]].t_first; b--) {
                int t = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = t;
            }
        bool sequential = true;
        double end = G->g[idx[0]].t_last;
        for (size_t a = 1; a < m && sequential; a++) {
            sequential = G->g[idx[a]].t_first >= end;
            end = fmax(end, G->g[idx[a]].t_last);
        }
        if (!sequential)
            continue;
        struct group *h = &G->g[idx[0]];
        snprintf(h->key, sizeof h->key, "%s", si);
        h->hash = str_hash(h->key);
        h->rule = FTIO_RULE_PATTERN;
        for (size_t a = 1; a < m; a++) {
            struct group *x = &G->g[idx[a]];
            x->into = idx[0];
            h->nfiles += x->nfiles;
            h->n += x->n;
            h->bytes += x->bytes;
            h->t_first = fmin(h->t_first, x->t_first);
            h->t_last = fmax(h->t_last, x->t_last);
            left--;
        }
    }
    free(series);
    free(idx);
    return left;
}

/* ---- rule 3: phases of two shapes ----------------------------------------- */

struct burst { double start, end, bytes; };

/* The threshold between two classes of v[0..n) (already > 0): the largest
 * gap of the sorted logs with at least `min` values on each side, when the
 * ratio across it is at least `ratio`; NAN when there is none. */
static double split_threshold(double *v, size_t n, size_t min, double ratio)
{
    if (n < 2 * min)
        return NAN;
    if (ftio_sort(v, n, NULL) != 0)
        return NAN;
    double best = 0, at = NAN;
    for (size_t i = min; i + min <= n; i++) {
        if (!(v[i - 1] > 0))
            continue;
        double gap = log(v[i] / v[i - 1]);
        if (gap > best) {
            best = gap;
            at = sqrt(v[i] * v[i - 1]);
        }
    }
    return best >= log(ratio) ? at : NAN;
}

/* The bursts of a signal: the stretches where it is above zero (the sweep's
 * rounding residue, under 1e-9 of the peak, is zero), a silence longer than
 * `gap` ending one -- what the requests sorted by start give (a request
 * starting more than `gap` after every earlier one ended begins a burst),
 * read from the signal the activity's analysis needs anyway, without
 * sorting its requests.  *nb bursts (malloc'd), -1 out of memory. */
static int bursts_of(const struct ftio_signal *sig, double gap, struct burst **out, size_t *nb)
{
    size_t cap = 0, n = 0;
    struct burst *b = NULL;
    double peak = 0;
    for (size_t i = 0; i < sig->n; i++)
        peak = fmax(peak, fabs(sig->b[i]));
    for (size_t i = 0; i + 1 < sig->n; i++) {
        if (!(sig->b[i] > 1e-9 * peak) || !(sig->t[i + 1] > sig->t[i]))
            continue;
        double v = sig->b[i] * (sig->t[i + 1] - sig->t[i]);
        if (n == 0 || sig->t[i] > b[n - 1].end + gap) {
            if (ftio_grow((void **)&b, &cap, n + 1, sizeof *b) != 0) {
                free(b);
                return -1;
            }
            b[n++] = (struct burst){ sig->t[i], sig->t[i + 1], 0 };
        }
        b[n - 1].end = sig->t[i + 1];
        b[n - 1].bytes += v;
    }
    *out = b;
    *nb = n;
    return 0;
}

/* The threshold of a shape split of the bursts b[0..nb) (rule 3): on their
 * volumes, else on their durations (*by_duration); NAN when they do not fall
 * in two classes.  -1 out of memory. */
static int split_of(const struct burst *b, size_t nb, const struct ftio_activity_options *o,
                    double *th, bool *by_duration)
{
    *th = NAN;
    double *v = malloc((nb ? nb : 1) * sizeof *v);
    if (!v)
        return -1;
    for (int pass = 0; pass < 2 && isnan(*th); pass++) {
        size_t m = 0;
        for (size_t k = 0; k < nb; k++) {
            double x = pass == 0 ? b[k].bytes : b[k].end - b[k].start;
            if (x > 0)
                v[m++] = x;
        }
        *th = split_threshold(v, m, o->split_min, o->split_ratio);
        *by_duration = pass == 1;
    }
    free(v);
    return 0;
}

/* The burst holding time t (the last one starting at or before it). */
static const struct burst *burst_at(const struct burst *b, size_t nb, double t)
{
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &b[lo ? lo - 1 : 0];
}

/* ---- the whole grouping ----------------------------------------------------- */

static int cmp_activity(const void *a, const void *b)
{
    const struct ftio_activity *x = a, *y = b;
    return x->bytes > y->bytes ? -1 : x->bytes < y->bytes ? 1 : strcmp(x->pattern, y->pattern);
}

/* The signal of activity a, whose requests are idx[0..a->nreq) of r (idx
 * NULL: all of r), over the job's span [t0, t1]: the job's own signal when
 * a is all of it (borrowed), else built from the requests in place. */
static int activity_signal(struct ftio_activity *a, const struct ftio_requests *r,
                           const uint32_t *idx, double t0, double t1, const struct ftio_signal *whole)
{
    if (!idx && whole && whole->n) {
        a->sig = *whole;
        a->owns_sig = false;
        return 0;
    }
    a->owns_sig = true;
    return ftio_signal_build_view(r, idx, a->nreq, t0, t1, &a->sig);
}

/* Rule 3 on activity a (index k of out, its requests idx[0..a->nreq) of r,
 * NULL: all of r): split into its small and large phases when its bursts
 * fall in two classes, the large ones a new activity.  0, or -1 out of
 * memory. */
static int shape_split(struct ftio_activity_set *out, size_t k, const struct ftio_requests *r,
                       const uint32_t *idx, double t0, double t1,
                       const struct ftio_activity_options *o)
{
    struct ftio_activity *a = &out->a[k];
    struct burst *b;
    size_t nb;
    double th;
    bool by_duration;
    if (bursts_of(&a->sig, o->burst_gap, &b, &nb) != 0)
        return -1;
    if (split_of(b, nb, o, &th, &by_duration) != 0) {
        free(b);
        return -1;
    }
    uint32_t *scratch = isnan(th) ? NULL : malloc((a->nreq ? a->nreq : 1) * sizeof *scratch);
    if (!scratch) {
        free(b);
        return isnan(th) ? 0 : -1;
    }
    /* Each request in the class of the burst it starts in: small ones
     * first in scratch, large ones after (both in their order). */
    size_t n = a->nreq, nsmall = 0, nlarge = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t q = idx ? idx[i] : (uint32_t)i;
        const struct burst *c = burst_at(b, nb, r->rec[q].t_start);
        double x = by_duration ? c->end - c->start : c->bytes;
        if (x > th)
            scratch[n - 1 - nlarge++] = q;      /* from the end, reversed */
        else
            scratch[nsmall++] = q;
    }
    free(b);
    for (size_t i = 0; i < nlarge / 2; i++) {
        uint32_t t = scratch[nsmall + i];
        scratch[nsmall + i] = scratch[n - 1 - i];
        scratch[n - 1 - i] = t;
    }
    struct ftio_activity *large = &out->a[out->n++];
    *large = *a;
    a->shape = FTIO_SHAPE_SMALL;
    large->shape = FTIO_SHAPE_LARGE;
    a->nreq = nsmall;
    large->nreq = nlarge;
    a->bytes = large->bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t q = scratch[i];
        const struct ftio_request *x = &r->rec[q];
        (i < nsmall ? a : large)->bytes += x->rate * (x->t_end - x->t_start);
    }
    if (a->owns_sig)
        ftio_signal_free(&a->sig);
    large->owns_sig = false;
    int rc = activity_signal(a, r, scratch, t0, t1, NULL) != 0 ||
                     activity_signal(large, r, scratch + nsmall, t0, t1, NULL) != 0
                 ? -1 : 0;
    free(scratch);
    return rc;
}

int ftio_activities_group(const struct ftio_requests *r, const uint32_t *fid, size_t nfid,
                          ftio_activity_path_fn path_of, void *ctx,
                          const struct ftio_activity_options *opt, const struct ftio_signal *whole,
                          struct ftio_activity_set *out)
{
    struct ftio_activity_options dflt;
    if (!opt) {
        ftio_activity_options_default(&dflt);
        opt = &dflt;
    }
    size_t max = opt->max_activities ? opt->max_activities : 1;
    memset(out, 0, sizeof *out);
    if (r->n == 0)
        return 0;
    if (r->n > UINT32_MAX) {
        errno = ENOMEM;
        return -1;
    }
    /* Rule 1, one pass: each request's group (file id -> pattern, looked up
     * once per file; runs of one file cost a comparison).  rg, the group of
     * each request, is made at the first request of a second group (till
     * then every one is in group 0): one group needs no placing. */
    struct grouping G = { .unknown = -1 };
    int32_t *rg = NULL;
    int *order = NULL, rc = -1;
    uint32_t *idx = NULL;
    size_t *at = NULL;
    double t0 = INFINITY, t1 = -INFINITY;
    uint32_t last_id = 0;
    int last_g = -1;
    for (size_t i = 0; i < r->n; i++) {
        uint32_t id = !fid ? r->rec[i].fid : i < nfid ? fid[i] : 0;
        int g = last_g >= 0 && id == last_id ? last_g : group_of_file(&G, id, path_of, ctx);
        if (g < 0)
            goto done;
        last_id = id;
        last_g = g;
        if (g != 0 && !rg && !(rg = ftio_big_calloc(r->n, sizeof *rg)))   /* the first i are 0 */
            goto done;
        if (rg)
            rg[i] = g;
        struct group *x = &G.g[g];
        const struct ftio_request *q = &r->rec[i];
        x->bytes += q->rate * (q->t_end - q->t_start);
        x->n++;
        double a = q->t_start, b = q->t_end;      /* finite: no fmin() calls */
        x->t_first = a < x->t_first ? a : x->t_first;
        x->t_last = b > x->t_last ? b : x->t_last;
        t0 = a < t0 ? a : t0;
        t1 = b > t1 ? b : t1;
    }
    /* Series of directories, then the groups that remain. */
    size_t ng = merge_series(&G);
    for (size_t i = 0; rg && i < r->n; i++)
        rg[i] = G.g[rg[i]].into;
    size_t nbig = 0;
    for (size_t i = 0; i < G.n; i++) {
        struct group *x = &G.g[i];
        x->tiny = x->into == (int)i && x->rule != FTIO_RULE_UNKNOWN &&
                  ftio_activity_tiny(x->bytes, x->nfiles, x->t_last - x->t_first);
        nbig += x->into == (int)i && !x->tiny;
    }

    /* Rule 2: the largest max-1 keep their activity when there are too many
     * (or tiny files to put aside); the rest share one, named after their
     * directory when they have one. */
    order = malloc(G.n * sizeof *order);
    if (!order)
        goto done;
    size_t no = 0;
    for (size_t i = 0; i < G.n; i++)
        if (G.g[i].into == (int)i)
            order[no++] = (int)i;
    qsort_r(order, no, sizeof *order, cmp_bytes_desc, G.g);
    size_t keep = nbig > max || nbig < ng ? (nbig < max - 1 ? nbig : max - 1) : nbig;
    size_t nact = keep + (ng > keep);

    /* Room for every activity to split in two (rule 3). */
    out->a = calloc(2 * nact, sizeof *out->a);
    if (!out->a)
        goto done;
    out->cap = 2 * nact;
    for (size_t k = 0; k < no; k++) {
        struct group *g = &G.g[order[k]];
        g->final = (int)(k < keep ? k : keep);
        struct ftio_activity *a = &out->a[g->final];
        if (!a->example[0])
            snprintf(a->example, sizeof a->example, "%s", g->example);
        if (k < keep) {
            snprintf(a->pattern, sizeof a->pattern, "%s", g->key);
            a->rule = g->rule;
        } else if (k == keep) {
            size_t d = dir_len(g->key);
            snprintf(a->pattern, sizeof a->pattern, "%.*s/*", (int)d, g->key);
            a->rule = d && g->rule != FTIO_RULE_UNKNOWN ? FTIO_RULE_DIRECTORY : FTIO_RULE_OTHER;
        } else {
            size_t d = dir_len(g->key);
            if (a->rule == FTIO_RULE_DIRECTORY &&
                !(d + 2 == strlen(a->pattern) && strncmp(a->pattern, g->key, d) == 0 &&
                  g->rule != FTIO_RULE_UNKNOWN))
                a->rule = FTIO_RULE_OTHER;
        }
        a->nfiles += g->nfiles;
        a->nreq += g->n;
        a->bytes += g->bytes;
    }
    if (no > keep && out->a[keep].rule == FTIO_RULE_OTHER)
        snprintf(out->a[keep].pattern, sizeof out->a[keep].pattern, "other");
    out->n = nact;

    /* Each activity's requests as a range of one index array, in their
     * order (a counting sort by activity: one pass); one activity is all of
     * r, no index.  Only to build their signals: then freed. */
    if (!(at = calloc(nact + 1, sizeof *at)) || (nact > 1 && !(idx = ftio_big_calloc(r->n, sizeof *idx))))
        goto done;
    if (nact > 1) {
        for (size_t f = 0; f < nact; f++)
            at[f + 1] = at[f] + out->a[f].nreq;
        for (size_t i = 0; i < r->n; i++)
            idx[at[G.g[rg ? rg[i] : 0].final]++] = (uint32_t)i;
        for (size_t f = nact; f-- > 0;)        /* back to the ranges' starts */
            at[f] = f ? at[f - 1] : 0;
    }
    /* Each activity's signal over the job's span, then rule 3.  Rule 3 is
     * about one named file (or pattern) written by two behaviours: requests
     * without a name (CSV, TMIO) or folded together (rule 2) are no such
     * file, and splitting them by burst size split phases from the other
     * processes' background. */
    for (size_t f = 0; f < nact; f++) {
        const uint32_t *own = nact > 1 ? idx + at[f] : NULL;
        enum ftio_activity_rule rule = out->a[f].rule;
        int named = rule == FTIO_RULE_FILE || rule == FTIO_RULE_PATTERN;
        if (!own && !whole && opt->whole_unused && !named)
            continue;                 /* no one reads it */
        if (activity_signal(&out->a[f], r, own, t0, t1, whole) != 0 ||
            (named && shape_split(out, f, r, own, t0, t1, opt) != 0))
            goto done;
    }
    double total = 0;
    for (size_t k = 0; k < out->n; k++)
        total += out->a[k].bytes;
    for (size_t k = 0; k < out->n; k++)
        out->a[k].share = total > 0 ? out->a[k].bytes / total : 0;
    qsort(out->a, out->n, sizeof *out->a, cmp_activity);
    rc = 0;
done:
    if (rc != 0)
        ftio_activities_free(out);
    ftio_big_free(rg, r->n, sizeof *rg);
    free(order);
    free(at);
    ftio_big_free(idx, r->n, sizeof *idx);
    free(G.g);
    free(G.fkey);
    free(G.fval);
    return rc;
}

void ftio_activities_free(struct ftio_activity_set *s)
{
    for (size_t k = 0; s->a && k < s->n; k++)
        if (s->a[k].owns_sig)
            ftio_signal_free(&s->a[k].sig);
    free(s->a);
    memset(s, 0, sizeof *s);
}

int ftio_activity_analyze(struct ftio_analyzer *a, const struct ftio_activity *act,
                          const struct ftio_options *o, struct ftio_result *out,
                          char *err, size_t errlen)
{
    return ftio_analyze_signal(a, &act->sig, o, NULL, out, err, errlen);
}

void ftio_activity_roll_next(struct ftio_result *r, double now)
{
    if (!r->next.valid || !r->has_period || !(r->dominant.period > 0) || r->next.start > now)
        return;
    double k = floor((now - r->next.start) / r->dominant.period) + 1;
    r->next.start += k * r->dominant.period;
    r->next.end += k * r->dominant.period;
}

bool ftio_activity_matches(const struct ftio_result *job, const struct ftio_result *act)
{
    return job->has_period && act->has_period &&
           fabs(act->dominant.period - job->dominant.period) <= 0.1 * job->dominant.period;
}
