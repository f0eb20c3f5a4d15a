/* SPDX-License-Identifier: BSD-3-Clause */
/* trace.c -- the reader front end: load a file, detect its format, hand it to
 * the format's reader (readers/<format>.c), and merge the result per job into
 * an ftio_trace_set.  Also the small shared helpers the readers append with.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "readers.h"
#include "activities.h"
#include "bigarray.h"
#include "grow.h"

/* The largest trace file mapped whole at once (ftio_trace_read_file). */
#define POPULATE_MAX ((size_t)1 << 30)

const char *ftio_trace_format_name(enum ftio_trace_format f)
{
    switch (f) {
    case FTIO_FORMAT_SPOOL:        return "ftio-spool";
    case FTIO_FORMAT_TMIO_JSON:    return "tmio-json";
    case FTIO_FORMAT_TMIO_MSGPACK: return "tmio-msgpack";
    case FTIO_FORMAT_DXT:          return "darshan-dxt";
    case FTIO_FORMAT_CSV:          return "csv";
    case FTIO_FORMAT_DARSHAN:      return "darshan";
    default:                       return "auto";
    }
}

void ftio_read_options_default(struct ftio_read_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = FTIO_FORMAT_AUTO;
    o->dxt = FTIO_DXT_AUTO;
    o->bare_mode = FTIO_MODE_WRITE;
    o->max_span = FTIO_MAX_SPAN_DEFAULT;
}

struct ftio_trace *ftio_trace_of_job(struct ftio_trace_set *set, const char *job)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->job[i].job, job) == 0)
            return &set->job[i];
    if (FTIO_GROW(set->job, set->cap, set->n + 1) < 0)
        return NULL;
    struct ftio_trace *t = &set->job[set->n];
    memset(t, 0, sizeof *t);
    t->uid = -1;
    t->keep_phases = set->phases;
    t->job = strdup(job);
    if (!t->job)
        return NULL;
    set->n++;
    return t;
}

/* Rank keys are non-negative ranks or process hashes; slot value -1 = empty. */
static int rankset_insert(int64_t *slots, size_t cap, int64_t key)
{
    size_t i = (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ull >> 7) & (cap - 1);
    while (slots[i] != -1) {
        if (slots[i] == key)
            return 0;
        i = (i + 1) & (cap - 1);
    }
    slots[i] = key;
    return 1;
}

int ftio_trace_see_rank(struct ftio_trace *t, int64_t key)
{
    key &= INT64_MAX;   /* -1 marks empty slots: keys are never negative */
    if ((t->rankset_n + 1) * 2 > t->rankset_cap) {
        size_t cap = t->rankset_cap ? t->rankset_cap * 2 : 64;
        int64_t *s = malloc(cap * sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < cap; i++)
            s[i] = -1;
        for (size_t i = 0; i < t->rankset_cap; i++)
            if (t->rankset[i] != -1)
                rankset_insert(s, cap, t->rankset[i]);
        free(t->rankset);
        t->rankset = s;
        t->rankset_cap = cap;
    }
    t->rankset_n += (size_t)rankset_insert(t->rankset, t->rankset_cap, key);
    return 0;
}

int ftio_trace_overlap_push(struct ftio_trace_dir *d, double t, double b)
{
    /* Two arrays, one capacity: the second grown to (at least) the first's. */
    size_t cap = d->overlap_cap, cap_b = d->overlap_cap;
    if (FTIO_GROW(d->overlap.t, cap, d->overlap.n + 1) < 0 || FTIO_GROW(d->overlap.b, cap_b, cap) < 0)
        return -1;
    d->overlap_cap = cap;
    d->overlap.t[d->overlap.n] = t;
    d->overlap.b[d->overlap.n] = b;
    d->overlap.n++;
    return 0;
}

static int read_with(enum ftio_trace_format f, struct ftio_reader_ctx *c,
                     const char *buf, size_t len)
{
    switch (f) {
    case FTIO_FORMAT_SPOOL:        return ftio_read_spool(c, buf, len);
    case FTIO_FORMAT_TMIO_JSON:    return ftio_read_tmio_json(c, buf, len);
    case FTIO_FORMAT_TMIO_MSGPACK: return ftio_read_tmio_msgpack(c, buf, len);
    case FTIO_FORMAT_DXT:          return ftio_read_dxt(c, buf, len);
    case FTIO_FORMAT_CSV:          return ftio_read_csv(c, buf, len);
    case FTIO_FORMAT_DARSHAN:      return ftio_read_darshan(c, buf, len);
    default:
        return FTIO_READER_FAIL(c, "offset 0: unknown trace format "
                                "(expected ftio spool, TMIO JSON/JSONL/msgpack, "
                                "custom JSON, Darshan DXT text or CSV)");
    }
}

static int read_buffer(struct ftio_trace_set *set, const void *buf, size_t len,
                       const char *name, const struct ftio_read_options *o, bool mapped,
                       char *err, size_t errlen, char *warning, size_t warnlen)
{
    char reason[512] = "";
    struct ftio_reader_ctx c = { set, name, o, reason, sizeof reason, mapped };
    set->phases = o->phases;
    if (warning && warnlen)
        warning[0] = 0;
    if (len == 0) {
        snprintf(err, errlen, "%s: offset 0: empty file", name);
        return -1;
    }
    enum ftio_trace_format f = o->format != FTIO_FORMAT_AUTO
        ? o->format : ftio_trace_detect(buf, len, name);
    if (read_with(f, &c, buf, len) == 0)
        return 0;
    if (o->lenient) {
        if (warning && warnlen)
            snprintf(warning, warnlen, "%s: %s (kept what was read before)", name, reason);
        return 0;
    }
    snprintf(err, errlen, "%s: %s", name, reason);
    return -1;
}

int ftio_trace_read_buffer(struct ftio_trace_set *set, const void *buf, size_t len,
                           const char *name, const struct ftio_read_options *o,
                           char *err, size_t errlen, char *warning, size_t warnlen)
{
    return read_buffer(set, buf, len, name, o, false, err, errlen, warning, warnlen);
}

int ftio_trace_read_file(struct ftio_trace_set *set, const char *path,
                         const struct ftio_read_options *o,
                         char *err, size_t errlen, char *warning, size_t warnlen)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    if (len == 0) {
        close(fd);
        snprintf(err, errlen, "%s: offset 0: empty file", path);
        return -1;
    }
    /* mmap: traces can be GBs and the readers only scan them once.  Up to
     * POPULATE_MAX the mapping is filled at once (MAP_POPULATE): one call
     * maps every page instead of a fault per 16 pages as the reader goes
     * (a 343-MB spool: 0.03 s of system time instead of 0.06-0.10); a larger
     * file is faulted in as read, so that it need not fit in memory. */
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | (len <= POPULATE_MAX ? MAP_POPULATE : 0),
                     fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    madvise(map, len, MADV_SEQUENTIAL);
    int rc = read_buffer(set, map, len, path, o, true, err, errlen, warning, warnlen);
    munmap(map, len);
    return rc;
}

static void shift_requests(struct ftio_requests *r, double by)
{
    for (size_t i = 0; i < r->n; i++) {
        r->rec[i].t_start -= by;
        r->rec[i].t_end -= by;
    }
}

static void shift_meta(struct ftio_trace *t, double by)
{
    for (size_t i = 0; i < t->nmeta; i++) {
        t->meta[i].ts -= by;
        t->meta[i].te -= by;
    }
}

/* Drops the requests of d longer than max_span (in place, order kept) and
 * returns the earliest start of those kept (INFINITY: none), the one pass
 * over them before the times are shifted.  Nothing moves before the first
 * one dropped (usually none is: a pass that only reads). */
static double drop_long(struct ftio_trace *t, struct ftio_trace_dir *d, double max_span)
{
    struct ftio_requests *r = &d->req;
    double first = INFINITY;
    size_t k = 0;
    for (; k < r->n && !(r->rec[k].t_end - r->rec[k].t_start > max_span); k++)
        first = r->rec[k].t_start < first ? r->rec[k].t_start : first;
    size_t nproc = k < d->nproc ? k : d->nproc;
    for (size_t i = k; i < r->n; i++) {
        double len = r->rec[i].t_end - r->rec[i].t_start;
        if (len > max_span) {
            double b = r->rec[i].rate * len;
            t->dropped_long++;
            t->dropped_long_bytes += b;
            d->bytes -= b;
            continue;
        }
        first = r->rec[i].t_start < first ? r->rec[i].t_start : first;
        r->rec[k] = r->rec[i];     /* its file id and process with it */
        nproc += i < d->nproc;
        k++;
    }
    r->n = k;
    d->nproc = nproc;
    if (d->bytes < 0)
        d->bytes = 0;
    return first;
}

void ftio_trace_set_finish(struct ftio_trace_set *set, const struct ftio_read_options *o)
{
    double span = o->max_span > 0 ? o->max_span : INFINITY;   /* else none is dropped */
    for (size_t j = 0; j < set->n; j++) {
        struct ftio_trace *t = &set->job[j];
        double w = drop_long(t, &t->write, span), r = drop_long(t, &t->read, span);
        int64_t seen = (int64_t)t->rankset_n;
        t->ranks = t->ranks_declared > seen ? t->ranks_declared : seen;
        if (!t->has_base)
            continue;
        /* Spool times are seconds since base_ns; make them relative to the
         * earliest record, or absolute epoch seconds. */
        double base = (double)t->base_ns / 1e9;
        if (o->absolute_time) {
            shift_requests(&t->write.req, -base);
            shift_requests(&t->read.req, -base);
            shift_meta(t, -base);
            t->origin = 0;
        } else {
            double m = r < w ? r : w;
            if (!isfinite(m))
                m = 0;
            shift_requests(&t->write.req, m);
            shift_requests(&t->read.req, m);
            shift_meta(t, m);
            t->origin = base + m;
        }
        t->has_base = false;   /* finishing twice must not shift twice */
    }
}

int ftio_trace_dir_tag(struct ftio_trace_dir *d, uint32_t id)
{
    if (d->req.n > 0)
        d->req.rec[d->req.n - 1].fid = id;
    return 0;
}

int ftio_trace_dir_proc(const struct ftio_trace *t, struct ftio_trace_dir *d, int64_t key)
{
    size_t want = d->req.n;
    if (!t->keep_phases || want == 0)
        return 0;
    d->req.rec[want - 1].proc = (uint32_t)((uint64_t)key ^ ((uint64_t)key >> 32));
    d->nproc = want;
    return 0;
}

int ftio_trace_add_meta(struct ftio_trace *t, double ts, double te, int64_t key, int op)
{
    if (!t->keep_phases)
        return 0;
    if (FTIO_GROW(t->meta, t->meta_cap, t->nmeta + 1) < 0)
        return -1;
    t->meta[t->nmeta++] = (struct ftio_trace_meta){
        ts, te, (uint32_t)((uint64_t)key ^ ((uint64_t)key >> 32)), (uint8_t)op };
    return 0;
}

static size_t file_slot_of(const uint32_t *slot, size_t cap, const struct ftio_trace_file *f,
                           uint32_t id)
{
    size_t j = (id * 2654435761u) & (cap - 1);
    while (slot[j] && f[slot[j] - 1].id != id)
        j = (j + 1) & (cap - 1);
    return j;
}

int ftio_trace_add_file(struct ftio_trace *t, uint32_t id, const char *path)
{
    if (id == 0 || !path || !*path)
        return 0;
    if (t->file_slot_cap && t->file_slot[file_slot_of(t->file_slot, t->file_slot_cap, t->files, id)])
        return 0;
    if ((t->nfiles + 1) * 2 > t->file_slot_cap) {
        size_t cap = t->file_slot_cap ? t->file_slot_cap * 2 : 64;
        uint32_t *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < t->nfiles; i++)
            s[file_slot_of(s, cap, t->files, t->files[i].id)] = (uint32_t)i + 1;
        free(t->file_slot);
        t->file_slot = s;
        t->file_slot_cap = cap;
    }
    if (FTIO_GROW(t->files, t->files_cap, t->nfiles + 1) < 0)
        return -1;
    char *p = strdup(path);
    if (!p)
        return -1;
    t->files[t->nfiles] = (struct ftio_trace_file){ id, p, NULL };
    t->file_slot[file_slot_of(t->file_slot, t->file_slot_cap, t->files, id)] = (uint32_t)++t->nfiles;
    return 0;
}

static struct ftio_trace_file *file_of(const struct ftio_trace *t, uint32_t id)
{
    if (!t->file_slot_cap)
        return NULL;
    uint32_t s = t->file_slot[file_slot_of(t->file_slot, t->file_slot_cap, t->files, id)];
    return s ? &t->files[s - 1] : NULL;
}

const char *ftio_trace_file_path(void *ctx, uint32_t id)
{
    const struct ftio_trace_file *f = file_of(ctx, id);
    return f ? f->path : NULL;
}

const char *ftio_trace_file_fs(const struct ftio_trace *t, uint32_t id)
{
    const struct ftio_trace_file *f = file_of(t, id);
    return f ? f->fs : NULL;
}

int ftio_trace_add_file_fs(struct ftio_trace *t, uint32_t id, const char *fs)
{
    struct ftio_trace_file *f = fs && *fs ? file_of(t, id) : NULL;
    if (!f || f->fs)
        return 0;
    return (f->fs = strdup(fs)) ? 0 : -1;
}

int ftio_trace_activities(const struct ftio_trace *t, enum ftio_io_mode mode,
                          const struct ftio_activity_options *o, const struct ftio_signal *whole,
                          struct ftio_activity_set *out)
{
    if (mode != FTIO_MODE_ALL) {
        const struct ftio_trace_dir *d = mode == FTIO_MODE_READ ? &t->read : &t->write;
        return ftio_activities_group(&d->req, NULL, 0, ftio_trace_file_path, (void *)t, o, whole,
                                     out);
    }
    /* Reads and writes concatenated as ftio_trace_requests() does (each
     * with its file id). */
    struct ftio_requests r = { 0 };
    int rc = -1;
    if (ftio_trace_append_requests(&r, &t->write.req) == 0 &&
        ftio_trace_append_requests(&r, &t->read.req) == 0)
        rc = ftio_activities_group(&r, NULL, 0, ftio_trace_file_path, (void *)t, o, whole, out);
    ftio_requests_free(&r);
    return rc;
}

static void dir_free(struct ftio_trace_dir *d)
{
    ftio_requests_free(&d->req);
    free(d->overlap.t);
    free(d->overlap.b);
}

void ftio_trace_set_free(struct ftio_trace_set *set)
{
    for (size_t j = 0; j < set->n; j++) {
        struct ftio_trace *t = &set->job[j];
        free(t->job);
        free(t->exe);
        free(t->rank_mpi_ns);
        if (t->app) {
            free(t->app->exe);
            free(t->app->exe_id);
            free(t->app->args);
            free(t->app->args_norm);
            free(t->app->name);
            free(t->app);
        }
        dir_free(&t->write);
        dir_free(&t->read);
        free(t->rankset);
        for (size_t i = 0; i < t->nfiles; i++) {
            free(t->files[i].path);
            free(t->files[i].fs);
        }
        free(t->files);
        free(t->file_slot);
        free(t->meta);
    }
    free(set->job);
    memset(set, 0, sizeof *set);
}

int ftio_trace_append_requests(struct ftio_requests *dst, const struct ftio_requests *src)
{
    if (ftio_requests_reserve(dst, dst->n + src->n) != 0)
        return -1;
    if (src->n)
        memcpy(dst->rec + dst->n, src->rec, src->n * sizeof *src->rec);
    dst->n += src->n;
    return 0;
}

const struct ftio_requests *ftio_trace_requests(const struct ftio_trace *t, enum ftio_io_mode mode,
                                                struct ftio_requests *scratch)
{
    if (mode == FTIO_MODE_WRITE)
        return &t->write.req;
    if (mode == FTIO_MODE_READ)
        return &t->read.req;
    memset(scratch, 0, sizeof *scratch);
    if (ftio_trace_append_requests(scratch, &t->write.req) != 0 ||
        ftio_trace_append_requests(scratch, &t->read.req) != 0) {
        ftio_requests_free(scratch);
        return NULL;
    }
    return scratch;
}

double ftio_trace_bytes(const struct ftio_trace *t, enum ftio_io_mode mode)
{
    if (mode == FTIO_MODE_WRITE)
        return t->write.bytes;
    if (mode == FTIO_MODE_READ)
        return t->read.bytes;
    return t->write.bytes + t->read.bytes;
}
