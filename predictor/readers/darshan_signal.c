/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan_signal.c -- `ftio FILE.darshan`: a binary Darshan log becomes one
 * trace, its signal taken from the best source present:
 *   1. DXT segments: exact requests: DXT_MPIIO segments plus the DXT_POSIX
 *      segments of files without MPI-IO records, so POSIX requests nested
 *      under MPI-IO are counted once (--dxt posix|mpiio: that layer alone);
 *   2. HEATMAP bins (3.4+ runtime default): each bin's bytes spread over the
 *      bin; the POSIX heatmap (it holds MPI-IO's POSIX I/O too) plus STDIO's
 *      (--dxt mpiio: the MPI-IO heatmap instead of POSIX);
 *   3. per-file counters (POSIX and STDIO): each file record's first-to-last
 *      read and write interval carrying its bytes -- the method of the
 *      440k-job temporal study; coarse: a job that touches one file gives one
 *      phase, so periods need many files opened over time.
 * A partial log (a module ran out of memory) is an error, or with --lenient a
 * warning with what was decoded: never silent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "darshan.h"
#include "readers.h"
#include "grow.h"

struct sink {
    const struct darshan_log *l;
    struct ftio_trace *t;
    uint64_t want_id[2];     /* heatmap: the records chosen */
    const uint64_t *skip;    /* DXT_POSIX: sorted ids of files MPI-IO already covers */
    size_t nskip;
    uint64_t *ids;           /* DXT_MPIIO: file ids seen */
    size_t nids, capids;
    int oom;
};

/* One request of file record `id` (0: not a file's, the heatmap's bins). */
static int push(struct sink *s, int64_t rank, int is_write, double ts, double te, double bytes,
                uint64_t id)
{
    struct ftio_trace_dir *d = ftio_trace_dir_of(s->t, is_write);
    if (te < ts)
        te = ts;
    if (ftio_requests_push_bytes(&d->req, ts, te, bytes) != 0 ||
        (id && ftio_trace_dir_tag(d, ftio_fold_file_id(id)) != 0) ||
        (rank >= 0 && ftio_trace_dir_proc(s->t, d, rank) != 0) ||
        (rank >= 0 && ftio_trace_see_rank(s->t, rank) != 0)) {
        s->oom = 1;
        return 1;
    }
    d->bytes += bytes;
    d->overlap_missing = true;
    s->t->records++;
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int on_segment(void *ctx, const struct darshan_segment *g, uint64_t id)
{
    struct sink *s = ctx;
    if (s->nskip && bsearch(&id, s->skip, s->nskip, sizeof id, cmp_id))
        return 0;   /* nested under an MPI-IO request already counted */
    if (s->ids && (s->nids == 0 || s->ids[s->nids - 1] != id)) {
        if (FTIO_GROW(s->ids, s->capids, s->nids + 1) < 0) {
            s->oom = 1;
            return 1;
        }
        s->ids[s->nids++] = id;
    }
    return push(ctx, g->rank, g->is_write, g->start, g->end, (double)g->length, id);
}

/* DXT: MPI-IO segments, then the POSIX segments of files that have no MPI-IO
 * record (POSIX I/O under MPI-IO is the same bytes again).  --dxt picks one
 * layer alone. */
static int read_dxt(struct ftio_reader_ctx *c, const struct darshan_log *l, struct sink *s)
{
    int use_mpiio = c->o->dxt != FTIO_DXT_POSIX && l->mod_len[DMOD_DXT_MPIIO];
    int use_posix = c->o->dxt != FTIO_DXT_MPIIO && l->mod_len[DMOD_DXT_POSIX];
    unsigned char *r = NULL;
    size_t n = 0;
    int rc = 0;
    if (use_mpiio) {
        s->capids = 64;
        s->ids = malloc(s->capids * sizeof *s->ids);
        if (!s->ids)
            return FTIO_READER_FAIL(c, "offset 0: out of memory");
        rc = darshan_log_region(l, DMOD_DXT_MPIIO, &r, &n, c->err, c->errlen);
        if (rc == 0)
            rc = darshan_walk_dxt(l, DMOD_DXT_MPIIO, r, n, on_segment, s, c->err, c->errlen);
        free(r);
        r = NULL;
        qsort(s->ids, s->nids, sizeof *s->ids, cmp_id);
        s->skip = s->ids;
        s->nskip = s->nids;
    }
    uint64_t *ids = s->ids;
    s->ids = NULL;
    if (rc == 0 && use_posix && !(c->o->dxt == FTIO_DXT_MPIIO)) {
        rc = darshan_log_region(l, DMOD_DXT_POSIX, &r, &n, c->err, c->errlen);
        if (rc == 0)
            rc = darshan_walk_dxt(l, DMOD_DXT_POSIX, r, n, on_segment, s, c->err, c->errlen);
        free(r);
    }
    free(ids);
    s->skip = NULL;
    s->nskip = 0;
    return rc;
}

static int on_heatmap(void *ctx, const struct darshan_heatmap *h)
{
    struct sink *s = ctx;
    if (h->id != s->want_id[0] && h->id != s->want_id[1])
        return 0;
    for (int64_t i = 0; i < h->nbins; i++) {
        int64_t w = darshan_i64(s->l, h->write_bins + 8 * i);
        int64_t r = darshan_i64(s->l, h->read_bins + 8 * i);
        double t0 = (double)i * h->width, t1 = t0 + h->width;
        if ((w > 0 && push(s, h->rank, 1, t0, t1, (double)w, 0)) ||
            (r > 0 && push(s, h->rank, 0, t0, t1, (double)r, 0)))
            return 1;
    }
    return 0;
}

static int on_counters(void *ctx, const struct darshan_file_counters *f)
{
    struct sink *s = ctx;
    if (f->bytes_read > 0 &&
        push(s, f->rank, 0, f->read_start, f->read_end, (double)f->bytes_read, f->id))
        return 1;
    if (f->bytes_written > 0 &&
        push(s, f->rank, 1, f->write_start, f->write_end, (double)f->bytes_written, f->id))
        return 1;
    return 0;
}

/* Id of the name-table record called `name`, 0 if none.  Format 3.00 stored
 * (id, u32 length, path); later formats (id, NUL-terminated path). */
/* Every (record id, name) of the log's name region, to fn until it returns
 * nonzero.  Names are NUL-terminated from format 3.01 on, counted before. */
typedef int (*name_fn)(void *ctx, uint64_t id, const char *name, size_t len);
static void names_walk(const struct darshan_log *l, const unsigned char *r, size_t n, name_fn fn,
                       void *ctx)
{
    for (size_t off = 0; off + 9 <= n;) {
        uint64_t id = darshan_u64(l, r + off);
        const char *p;
        size_t len;
        if (l->ver_min == 0) {
            if (off + 12 > n)
                break;
            uint32_t v;
            memcpy(&v, r + off + 8, 4);
            len = l->swap ? __builtin_bswap32(v) : v;
            p = (const char *)r + off + 12;
            if (len > n - off - 12)
                break;
            off += 12 + len;
        } else {
            p = (const char *)r + off + 8;
            const char *z = memchr(p, 0, n - off - 8);
            if (!z)
                break;
            len = (size_t)(z - p);
            off += 8 + len + 1;
        }
        if (fn(ctx, id, p, len))
            return;
    }
}

struct find { const char *name; size_t want; uint64_t id; };
static int find_one(void *ctx, uint64_t id, const char *name, size_t len)
{
    struct find *f = ctx;
    if (len != f->want || memcmp(name, f->name, len) != 0)
        return 0;
    f->id = id;
    return 1;
}

static uint64_t find_name(const struct darshan_log *l, const unsigned char *r, size_t n, const char *name)
{
    struct find f = { name, strlen(name), 0 };
    names_walk(l, r, n, find_one, &f);
    return f.id;
}

/* The files' paths, for the activities (ALGORITHM.md §10). */
static int name_file(void *ctx, uint64_t id, const char *name, size_t len)
{
    struct sink *s = ctx;
    char path[4096];
    if (len == 0 || len >= sizeof path)
        return 0;
    memcpy(path, name, len);
    path[len] = 0;
    if (ftio_trace_add_file(s->t, ftio_fold_file_id(id), path) != 0)
        s->oom = 1;
    return s->oom;
}

static void name_files(struct ftio_reader_ctx *c, const struct darshan_log *l, struct sink *s)
{
    unsigned char *names = NULL;
    size_t nn = 0;
    char err[256];
    /* Without the names the requests are still there: no error. */
    if (darshan_log_region(l, DARSHAN_REGION_NAMES, &names, &nn, err, sizeof err) == 0)
        names_walk(l, names, nn, name_file, s);
    (void)c;
    free(names);
}

/* First heatmap record id, for logs without the expected names. */
static int first_id(void *ctx, const struct darshan_heatmap *h)
{
    *(uint64_t *)ctx = h->id;
    return 1;
}

/* The bytes of a storage module ftio does not turn into a signal. */
struct unread_sum { double bytes[2]; };
static int on_unread(void *ctx, const struct darshan_file_counters *f)
{
    struct unread_sum *u = ctx;
    u->bytes[0] += f->bytes_read > 0 ? (double)f->bytes_read : 0;
    u->bytes[1] += f->bytes_written > 0 ? (double)f->bytes_written : 0;
    return 0;
}

/* Modules whose I/O the signal does not hold, named with their bytes in
 * t->unread (issue 28: an IOR run on DAOS moved 16 MiB through DFS, the
 * signal held 2 KB of heatmap blips and answered 0.3 s at 0.99).  The
 * layers over POSIX and MPI-IO (HDF5, PnetCDF) move the same bytes again,
 * and the system modules (BG/Q, Lustre, MDHIM, APXC, APMPI) none; DFS is
 * DAOS's file system, so its bytes are DAOS's again: the larger counts. */
static void unread_modules(const struct darshan_log *l, struct ftio_trace *t)
{
    struct unread_sum dfs = { { 0, 0 } }, daos = { { 0, 0 } };
    char err[256];
    size_t len = 0;
    for (int m = 0; m < DARSHAN_MODS; m++) {
        if (!l->mod_len[m])
            continue;
        if (m == DMOD_DFS || m == DMOD_DAOS) {
            unsigned char *r = NULL;
            size_t n = 0;
            struct unread_sum *u = m == DMOD_DFS ? &dfs : &daos;
            if (darshan_log_region(l, m, &r, &n, err, sizeof err) != 0 ||
                darshan_walk_counters(l, m, r, n, on_unread, u, err, sizeof err) != 0)
                u->bytes[0] = u->bytes[1] = NAN;   /* there, but not readable */
            free(r);
        } else if (m <= DMOD_HEATMAP) {
            continue;
        } else {
            t->unread_bytes[0] = t->unread_bytes[1] = NAN;   /* a module we do not know */
        }
        if (len < sizeof t->unread)
            len += (size_t)snprintf(t->unread + len, sizeof t->unread - len, "%s%s", len ? ", " : "",
                                    m <= DMOD_DAOS ? darshan_mod_name(m) : "module");
        if (m > DMOD_DAOS && len < sizeof t->unread)
            len += (size_t)snprintf(t->unread + len, sizeof t->unread - len, " %d", m);
    }
    for (int d = 0; d < 2; d++)
        t->unread_bytes[d] += fmax(dfs.bytes[d], daos.bytes[d]);
}

int ftio_read_darshan(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct darshan_log l;
    if (darshan_log_open(&l, buf, len, c->err, c->errlen) != 0) {
        darshan_log_close(&l);
        return -1;
    }
    char job[32];
    snprintf(job, sizeof job, "%lld", (long long)l.jobid);
    struct ftio_trace *t = ftio_trace_of_job(c->set, job);
    if (!t) {
        darshan_log_close(&l);
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    }
    if (l.nprocs > t->ranks_declared && l.nprocs < FTIO_MAX_RANKS)
        t->ranks_declared = l.nprocs;
    if (t->origin == 0)
        t->origin = (double)l.start_sec + (double)l.start_nsec * 1e-9;
    t->uid = l.uid;
    double start = (double)l.start_sec + (double)l.start_nsec * 1e-9;
    double end = (double)l.end_sec + (double)l.end_nsec * 1e-9;
    /* Darshan's own "run time" counts whole seconds inclusively before 3.41 */
    t->run_time = l.ver_min >= 41 ? end - start : end - start + 1;
    if (!t->exe && l.exe)
        t->exe = strdup(l.exe);
    struct sink s = { .l = &l, .t = t };
    unsigned char *r = NULL;
    size_t n = 0;
    int rc = 0;
    if (l.mod_len[DMOD_DXT_MPIIO] || l.mod_len[DMOD_DXT_POSIX]) {
        t->source = "darshan DXT segments";
        name_files(c, &l, &s);
        rc = read_dxt(c, &l, &s);
    } else if (l.mod_len[DMOD_HEATMAP]) {
        t->source = "darshan HEATMAP bins";
        t->source_limits = "bytes per bin and rank, spread evenly over each bin";
        /* POSIX heatmap (all POSIX I/O, MPI-IO's included) plus STDIO's;
         * --dxt mpiio takes the MPI-IO heatmap instead of POSIX */
        unsigned char *names = NULL;
        size_t nn = 0;
        rc = darshan_log_region(&l, DARSHAN_REGION_NAMES, &names, &nn, c->err, c->errlen);
        if (rc == 0) {
            if (c->o->dxt == FTIO_DXT_MPIIO)
                s.want_id[0] = find_name(&l, names, nn, "heatmap:MPIIO");
            if (!s.want_id[0])
                s.want_id[0] = find_name(&l, names, nn, "heatmap:POSIX");
            s.want_id[1] = find_name(&l, names, nn, "heatmap:STDIO");
            rc = darshan_log_region(&l, DMOD_HEATMAP, &r, &n, c->err, c->errlen);
        }
        free(names);
        if (rc == 0 && !s.want_id[0] && !s.want_id[1])
            darshan_walk_heatmap(&l, r, n, first_id, &s.want_id[0], c->err, c->errlen);
        if (rc == 0)
            rc = darshan_walk_heatmap(&l, r, n, on_heatmap, &s, c->err, c->errlen);
    } else {
        t->source = "darshan per-file counters";
        t->source_limits = "one interval per file and rank (first to last access): "
                           "a job that touches one file shows one phase";
        name_files(c, &l, &s);
        static const int counter_mods[] = { DMOD_POSIX, DMOD_STDIO };
        for (size_t i = 0; i < 2 && rc == 0; i++) {
            int m = counter_mods[i];
            if (!l.mod_len[m])
                continue;
            free(r);
            r = NULL;
            rc = darshan_log_region(&l, m, &r, &n, c->err, c->errlen);
            if (rc == 0)
                rc = darshan_walk_counters(&l, m, r, n, on_counters, &s, c->err, c->errlen);
        }
    }
    free(r);
    if (rc == 0)
        unread_modules(&l, t);
    if (rc == 0 && s.oom)
        rc = FTIO_READER_FAIL(c, "offset 0: out of memory");
    if (rc == 0 && l.partial) {
        int m = __builtin_ctzll(l.partial);
        rc = FTIO_READER_FAIL(c, "offset 0: partial log: Darshan's %s module ran out of memory, "
                                 "its records are incomplete (a valid log: --lenient analyses the "
                                 "records it holds)", darshan_mod_name(m));
    }
    darshan_log_close(&l);
    return rc;
}
