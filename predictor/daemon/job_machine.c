/* SPDX-License-Identifier: BSD-3-Clause */
/* job_machine.c -- what ftiod keeps of each job for the machine view (see
 * job_machine.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "activities.h"
#include "hash.h"
#include "job_machine.h"
#include "publish/phase_json.h"
#include "publish/report.h"

void job_machine_free(struct job_machine *m)
{
    if (!m)
        return;
    ftio_pt_free(&m->pt);
    for (size_t i = 0; i < m->nfs; i++)
        free(m->fs_name[i]);
    free(m->fkey);
    free(m->fval);
    for (int k = 0; k < JOB_NMODES; k++)
        free(m->mode[k].dm);
    free(m);
}

size_t job_machine_memory(const struct job *j)
{
    const struct job_machine *m = j->mach;
    if (!m)
        return 0;
    size_t s = sizeof *m + ftio_pt_memory(&m->pt) + (m->fkey ? JM_FILES * 5 : 0);
    for (int k = 0; k < JOB_NMODES; k++)
        s += m->mode[k].dm ? sizeof *m->mode[k].dm : 0;
    return s;
}

static struct job_machine *jm_new(double fs)
{
    struct job_machine *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    ftio_pt_init(&m->pt, 2.0 / (fs > 0 ? fs : 10));   /* ALGORITHM.md §10's 0.2 s at 10 Hz */
    for (int k = 0; k <= JM_FS; k++)
        m->gfs[k] = -1;
    for (int k = 0; k < JOB_NMODES; k++)
        m->mode[k].next_start = NAN;
    return m;
}

/* ---- file systems -------------------------------------------------------- */

static int fs_slot_of_name(struct job_machine *m, const char *name)
{
    for (size_t i = 0; i < m->nfs; i++)
        if (strcmp(m->fs_name[i], name) == 0)
            return (int)i;
    if (m->nfs == JM_FS)
        return FTIO_PT_FS_UNKNOWN;
    char *s = strdup(name);
    if (!s)
        return FTIO_PT_FS_UNKNOWN;
    m->fs_name[m->nfs] = s;
    return (int)m->nfs++;
}

static size_t fcache(uint32_t id)
{
    return (size_t)((id * 2654435761u) >> 24) & (JM_FILES - 1);
}

/* The file system slot of file `id`: with one file system known, that one;
 * with several, the cache's entry (a miss: the first). */
static uint16_t fs_of_file(const struct job_machine *m, uint32_t id)
{
    if (m->nfs == 0)
        return FTIO_PT_FS_UNKNOWN;
    if (m->fkey && id && m->fkey[fcache(id)] == id)
        return m->fval[fcache(id)];
    return 0;
}

static uint64_t pattern_hash(const char *pattern)
{
    return ftio_hash_bytes(pattern, strlen(pattern));
}

/* A file entry of a batch: its file system, and its activity's. */
static void file_entry(struct job_machine *m, const struct ftio_file_entry *f)
{
    if (!f->fs || !*f->fs)
        return;
    int slot = fs_slot_of_name(m, f->fs);
    if (slot == FTIO_PT_FS_UNKNOWN)
        return;
    if (m->nfs > 1 && !m->fkey) {
        m->fkey = calloc(JM_FILES, sizeof *m->fkey);
        m->fval = calloc(JM_FILES, sizeof *m->fval);
        if (!m->fkey || !m->fval) {
            free(m->fkey);
            free(m->fval);
            m->fkey = NULL;
            m->fval = NULL;
        }
    }
    if (m->fkey && f->id) {
        m->fkey[fcache(f->id)] = f->id;
        m->fval[fcache(f->id)] = (uint8_t)slot;
    }
    if (!f->path)
        return;
    char pat[FTIO_PATTERN_MAX];
    ftio_activity_pattern(f->path, pat, sizeof pat);
    uint64_t h = pattern_hash(pat);
    for (size_t i = 0; i < m->npat; i++)
        if (m->pat[i].hash == h)
            return;
    if (m->npat < JM_PATTERNS)
        m->pat[m->npat++] = (typeof(m->pat[0])){ h, (uint8_t)slot };
}

int job_machine_fs_of_pattern(const struct job_machine *m, const char *pattern, int dflt)
{
    if (!pattern)
        return dflt;
    uint64_t h = pattern_hash(pattern);
    for (size_t i = 0; i < m->npat; i++)
        if (m->pat[i].hash == h)
            return m->pat[i].fs;
    return dflt;
}

/* ---- the observed seconds --------------------------------------------------- */

static void observe(struct job_machine *m, int mode, uint16_t fs, int64_t start_ns, int64_t end_ns,
                    double bytes)
{
    int f = fs < m->nfs ? fs : JM_FS;
    double a = (double)start_ns * 1e-9, b = (double)end_ns * 1e-9;
    if (!(b > a))
        b = a + 1e-6;
    int64_t s0 = (int64_t)floor(a), s1 = (int64_t)floor(b);
    if (s1 - s0 >= JM_OBS) {       /* longer than the ring: its last seconds */
        m->obs_late += bytes * (double)(s1 - JM_OBS + 1 - s0) / (b - a);
        s0 = s1 - JM_OBS + 1;
        a = (double)s0;
    }
    for (int64_t s = s0; s <= s1; s++) {
        double part = bytes * (ftio_fmin(b, (double)(s + 1)) - ftio_fmax(a, (double)s)) / (b - a);
        struct jm_obs *o = &m->obs[(uint64_t)s % JM_OBS];
        if (o->sec != s) {
            if (o->sec > s) {          /* older than what the ring holds */
                m->obs_late += part;
                continue;
            }
            for (int md = 0; md < JOB_NMODES; md++)
                for (int k = 0; k <= JM_FS; k++)
                    m->obs_late += o->bytes[md][k];
            memset(o, 0, sizeof *o);
            o->sec = s;
        }
        o->bytes[mode][f] += part;
    }
}

/* ---- merge ------------------------------------------------------------------ */

static uint64_t app_hash(const struct ftio_app_identity *a)
{
    char buf[2 * FTIO_WIRE_MAX_STR + 8];
    int n;
    if (a->name && *a->name)
        n = snprintf(buf, sizeof buf, "name:%s", a->name);
    else if (a->exe_id || a->exe)
        n = snprintf(buf, sizeof buf, "exe:%s:%s", a->exe_id ? a->exe_id : a->exe,
                     a->args_norm ? a->args_norm : "");
    else
        return 0;
    uint64_t h = ftio_hash_bytes(buf, n > 0 ? (size_t)n : 0);
    return h ? h : 1;
}

/* Wall ns of a metadata record (rule 4 of batch_requests.h, which data
 * records get from ftio_record_request). */
static bool meta_times(const struct ftio_record *r, struct ftio_batch_clock c, int64_t *s,
                       int64_t *e)
{
    return c.ok && r->t_start <= INT64_MAX && r->t_end <= INT64_MAX && r->t_end >= r->t_start &&
           !__builtin_add_overflow((int64_t)r->t_start, c.base, s) &&
           !__builtin_add_overflow((int64_t)r->t_end, c.base, e) && *s >= 0;
}

struct job_machine *job_machine_files(struct job *j, const struct ftio_batch *b,
                                      const struct job_limits *lim)
{
    struct job_machine *m = j->mach;
    if (!m && !(m = j->mach = jm_new(lim->opts.fs)))
        return NULL;
    const struct ftio_batch_header *h = &b->h;
    if (h->has_app && !m->app)
        m->app = app_hash(&h->app);
    /* A file's entry comes once, in whichever batch first names it (maybe
     * one without data: an open before the job's first write). */
    for (size_t i = 0; i < h->nfiles; i++)
        file_entry(m, &h->files[i]);
    return m;
}

bool job_machine_begin(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                       const struct job_limits *lim, struct job_machine_batch *mb)
{
    struct job_machine *m = job_machine_files(j, b, lim);
    if (!m || !j->has_origin)
        return false;                  /* no record to place in time before its first data */
    if (!p->mach) {
        long k = ftio_pt_proc_add(&m->pt);
        if (k < 0)
            return false;
        p->mach = (uint32_t)k + 1;
    }
    *mb = (struct job_machine_batch){
        .m = m, .proc = p->mach - 1, .clk = ftio_batch_clock_of(&b->h), .horizon = lim->horizon,
        .origin_ns = j->origin_ns,
    };
    return true;
}

void job_machine_data(struct job_machine_batch *mb, const struct ftio_record *r,
                      const struct ftio_wall_request *q, double ts, double te)
{
    if (te - ts > mb->horizon)
        return;                        /* job.c drops it too (too_long) */
    struct job_machine *m = mb->m;
    int mode = q->is_write ? JOB_WRITE : JOB_READ;
    uint16_t fs = fs_of_file(m, r->file_id);
    ftio_pt_data(&m->pt, mb->proc, mode, ts, te, (double)q->bytes, r->file_id, fs);
    observe(m, mode, fs, q->start_ns, q->end_ns, (double)q->bytes);
}

void job_machine_other(struct job_machine_batch *mb, const struct ftio_record *r,
                       const struct ftio_convert_options *co)
{
    /* Metadata counted once, as data is (rule 2): nested POSIX calls inside
     * an MPI-IO call are the MPI call's. */
    bool nested = r->flags & FTIO_FLAG_NESTED;
    if (co->keep_nested ? r->layer == FTIO_LAYER_MPIIO : nested)
        return;
    int64_t s, e;
    if (meta_times(r, mb->clk, &s, &e))
        ftio_pt_meta(&mb->m->pt, mb->proc, r->op, ftio_job_seconds(s, mb->origin_ns),
                     ftio_job_seconds(e, mb->origin_ns));
}

void job_machine_end(struct job_machine_batch *mb, const struct ftio_batch *b)
{
    if (b->h.final)
        ftio_pt_final(&mb->m->pt, mb->proc);
}

/* ---- the prediction's fields ------------------------------------------------- */

static void set_num(json_t *o, const char *k, double v)
{
    json_object_set_new(o, k, ftio_json_number(v));
}

void job_machine_json(const struct job *j, int mode, double origin, json_t *o)
{
    const struct job_machine *m = j->mach;
    json_t *phase = json_object_get(o, "phase"), *next = json_object_get(o, "next");
    if (!json_is_object(phase))
        return;
    const struct jm_mode *jm = m ? &m->mode[mode] : NULL;
    const struct ftio_pt_phase *t = jm && jm->has_typical ? &jm->typical : NULL;
    const char *fs = t && t->fs < m->nfs ? m->fs_name[t->fs] : NULL;
    ftio_report_json_described(phase, t, fs, false, 0);
    /* The newest phase described, as it was (dated). */
    size_t n = m ? ftio_pt_count(&m->pt, mode) : 0;
    const struct ftio_pt_phase *last = n ? ftio_pt_phase_at(&m->pt, mode, n - 1) : NULL;
    json_t *lo = json_object();
    if (lo) {
        ftio_report_json_described(lo, last, last && last->fs < m->nfs ? m->fs_name[last->fs] : NULL,
                                   true, origin);
        json_object_set_new(phase, "last", lo);
    }
    if (!json_is_object(next))
        return;
    ftio_report_json_next_described(next, t, fs);
    json_t *ns = json_object_get(next, "start");
    bool ours = jm && jm->has_pred && json_is_number(ns) &&
                fabs(json_number_value(ns) - (origin + jm->next_start)) < 1e-6;
    if (!ours) {
        json_object_set_new(next, "load", json_null());
        json_object_set_new(next, "duration", json_null());
        return;
    }
    const struct ftio_dm_prediction *p = &jm->pred;
    set_num(next, "load", jm->next_load);
    json_t *model = json_pack("{s:s, s:I, s:I, s:o, s:o}", "scope", p->app ? "app" : "site",
                              "phases", (json_int_t)p->phases, "scored", (json_int_t)p->scored,
                              "error", ftio_json_number(p->error),
                              "coverage", ftio_json_number(p->coverage));
    json_object_set_new(next, "duration",
                        json_pack("{s:o, s:o, s:o, s:o}", "median", ftio_json_number(p->median),
                                  "low", ftio_json_number(p->low),
                                  "high", ftio_json_number(p->high), "model", model));
    set_num(next, "end", json_number_value(ns) + p->median);
}
