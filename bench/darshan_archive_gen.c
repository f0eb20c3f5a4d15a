/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan_archive_gen.c -- a synthetic archive of binary Darshan logs for
 * bench/scan.sh: COUNT logs of format 3.41 (zlib regions, x86_64 byte order),
 * each a different job (job id, uid, nprocs, run time, period, volumes drawn
 * from a seeded generator) of one of three kinds:
 *
 *   counters  POSIX module only (Darshan without DXT or HEATMAP): one input
 *             file read at the start, then one checkpoint file per period,
 *             so the per-file first/last timestamps show the phases;
 *   heatmap   the same POSIX records plus a HEATMAP record per rank (the
 *             3.4+ runtime default): the bytes of each bin;
 *   dxt       the same POSIX records plus DXT_POSIX segments (every write of
 *             every rank: 8 per rank and phase).
 *
 * The layout follows Darshan's darshan-log-format.h (header, job record,
 * name table, module regions in module order) as our reader decodes it
 * (predictor/readers/darshan_*.c), so every log is read like a real one.
 *
 *   darshan_archive_gen OUTDIR counters|heatmap|dxt COUNT [SEED]
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "grow.h"
#include "../tests/kit/xorshift.h"

#define HEADER 1328
#define POSIX_N 69
#define POSIX_NF 17
#define MOD_POSIX 1
#define MOD_DXT_POSIX 10
#define MOD_HEATMAP 15

struct buf { unsigned char *p; size_t n, cap; };

static void put(struct buf *b, const void *v, size_t n)
{
    if (FTIO_GROW(b->p, b->cap, b->n + n) < 0) {
        fprintf(stderr, "darshan_archive_gen: out of memory\n");
        exit(1);
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}
static void put64(struct buf *b, int64_t v) { put(b, &v, 8); }
static void putf(struct buf *b, double v) { put(b, &v, 8); }

static uint64_t rng_state;
static uint64_t rnd(void)
{
    return ftio_xorshift64(&rng_state);
}
static double uniform(double a, double b) { return a + (b - a) * (double)(rnd() >> 11) / 9007199254740992.0; }

/* The job's I/O: inputs read in the first seconds, then `phases` checkpoint
 * phases of `dur` s every `period` s, each by every rank. */
struct job {
    int64_t jobid, uid, nprocs;
    double run, period, dur, first;
    int phases;
    int64_t in_bytes, ckpt_bytes;   /* per rank and phase */
};

static void posix_record(struct buf *b, uint64_t id, int64_t rank, int64_t reads, int64_t writes,
                         int64_t br, int64_t bw, double rs, double re, double ws, double we)
{
    int64_t c[POSIX_N] = { 0 };
    double f[POSIX_NF] = { 0 };
    c[0] = 1;                     /* POSIX_OPENS */
    c[3] = reads;                 /* POSIX_READS */
    c[4] = writes;                /* POSIX_WRITES */
    c[14] = br;                   /* POSIX_BYTES_READ */
    c[15] = bw;                   /* POSIX_BYTES_WRITTEN */
    double open = reads ? rs : ws, close = writes ? we : re;
    f[0] = open;                  /* F_OPEN_START_TIMESTAMP */
    f[1] = reads ? rs : 0;        /* F_READ_START_TIMESTAMP */
    f[2] = writes ? ws : 0;       /* F_WRITE_START_TIMESTAMP */
    f[3] = close;                 /* F_CLOSE_START_TIMESTAMP */
    f[4] = open + 1e-4;           /* F_OPEN_END_TIMESTAMP */
    f[5] = reads ? re : 0;        /* F_READ_END_TIMESTAMP */
    f[6] = writes ? we : 0;       /* F_WRITE_END_TIMESTAMP */
    f[7] = close + 1e-4;          /* F_CLOSE_END_TIMESTAMP */
    f[8] = reads ? re - rs : 0;   /* F_READ_TIME */
    f[9] = writes ? we - ws : 0;  /* F_WRITE_TIME */
    put64(b, (int64_t)id);
    put64(b, rank);
    put(b, c, sizeof c);
    put(b, f, sizeof f);
}

static double phase_start(const struct job *j, int k) { return j->first + k * j->period; }

static void compress_region(struct buf *out, const struct buf *in, uint64_t *off, uint64_t *len)
{
    uLongf n = compressBound(in->n);
    unsigned char *z = malloc(n);
    if (!z || compress2(z, &n, in->p, in->n, Z_DEFAULT_COMPRESSION) != Z_OK) {
        fprintf(stderr, "darshan_archive_gen: zlib failed\n");
        exit(1);
    }
    *off = out->n;
    *len = n;
    put(out, z, n);
    free(z);
}

static int write_log(const char *path, const char *kind, const struct job *j)
{
    struct buf jobr = { 0 }, names = { 0 }, posix = { 0 }, mod = { 0 }, out = { 0 };
    /* job record: uid, start s/ns, end s/ns, nprocs, jobid, metadata, exe + mounts */
    int64_t start = 1700000000 + j->jobid;
    put64(&jobr, j->uid);
    put64(&jobr, start);
    put64(&jobr, 0);
    put64(&jobr, start + (int64_t)j->run);
    put64(&jobr, (int64_t)((j->run - floor(j->run)) * 1e9));
    put64(&jobr, j->nprocs);
    put64(&jobr, j->jobid);
    char meta[1024] = "lib_ver=3.4.6\nh=romio_no_indep_rw=true\n";
    put(&jobr, meta, sizeof meta);
    char exe[256];
    int n = snprintf(exe, sizeof exe, "/apps/sim/bin/solver --input case%lld.nml --checkpoint-every %.0f"
                     "\nlustre\t/scratch\nxfs\t/home", (long long)(j->jobid % 97), j->period);
    put(&jobr, exe, (size_t)n + 1);

    /* name table and POSIX records: the input (shared, rank -1), then one
     * checkpoint file per phase written by every rank (shared record) */
    uint64_t id_in = 0x1000 + (uint64_t)j->jobid;
    put64(&names, (int64_t)id_in);
    put(&names, "/scratch/run/input.dat", 23);
    int64_t in_total = j->in_bytes * j->nprocs;
    posix_record(&posix, id_in, -1, 16 * j->nprocs, 0, in_total, 0, 0.5, 0.5 + j->first / 2, 0, 0);
    for (int k = 0; k < j->phases; k++) {
        uint64_t id = 0x100000 + (uint64_t)j->jobid * 4096 + (uint64_t)k;
        char name[64];
        int m = snprintf(name, sizeof name, "/scratch/run/ckpt.%04d", k);
        put64(&names, (int64_t)id);
        put(&names, name, (size_t)m + 1);
        double s = phase_start(j, k);
        posix_record(&posix, id, -1, 0, 8 * j->nprocs, 0, j->ckpt_bytes * j->nprocs, 0, 0, s, s + j->dur);
    }
    uint64_t id_heat = 0x77;
    if (strcmp(kind, "heatmap") == 0) {
        put64(&names, (int64_t)id_heat);
        put(&names, "heatmap:POSIX", 14);
        /* bin width: 0.1 s doubled until the run fits in 200 bins */
        double w = 0.1;
        while (j->run / w > 200)
            w *= 2;
        int64_t nb = (int64_t)ceil(j->run / w);
        int64_t nranks = j->nprocs < 8 ? j->nprocs : 8;   /* the ranks that did I/O */
        for (int64_t r = 0; r < nranks; r++) {
            int64_t *wb = calloc((size_t)nb, 8), *rb = calloc((size_t)nb, 8);
            if (!wb || !rb)
                exit(1);
            double scale = (double)j->nprocs / (double)nranks;
            for (int k = 0; k < j->phases; k++) {
                double s = phase_start(j, k), e = s + j->dur;
                for (int64_t b = (int64_t)(s / w); b < nb && b * w < e; b++) {
                    double lo = fmax(s, b * w), hi = fmin(e, (b + 1) * w);
                    if (hi > lo)
                        wb[b] += (int64_t)(j->ckpt_bytes * scale * (hi - lo) / j->dur);
                }
            }
            rb[(int64_t)(0.5 / w) < nb ? (int64_t)(0.5 / w) : 0] += (int64_t)(j->in_bytes * scale);
            put64(&mod, (int64_t)id_heat);
            put64(&mod, r);
            putf(&mod, w);
            put64(&mod, nb);
            put64(&mod, 0);
            put64(&mod, 0);
            put(&mod, wb, (size_t)nb * 8);
            put(&mod, rb, (size_t)nb * 8);
            free(wb);
            free(rb);
        }
    } else if (strcmp(kind, "dxt") == 0) {
        /* every rank: 8 writes per phase into that phase's file (DXT_POSIX
         * version 1: offset, length, start, end per segment) */
        int64_t nranks = j->nprocs < 16 ? j->nprocs : 16;
        for (int k = 0; k < j->phases; k++) {
            uint64_t id = 0x100000 + (uint64_t)j->jobid * 4096 + (uint64_t)k;
            for (int64_t r = 0; r < nranks; r++) {
                put64(&mod, (int64_t)id);
                put64(&mod, r);
                put64(&mod, 0);              /* shared_record */
                char host[64] = { 0 };
                snprintf(host, sizeof host, "nid%05lld", (long long)(r / 4));
                put(&mod, host, sizeof host);
                put64(&mod, 8);              /* write_count */
                put64(&mod, 0);              /* read_count */
                int64_t len = j->ckpt_bytes / 8;
                double s = phase_start(j, k) + uniform(0, 0.05 * j->dur), step = j->dur * 0.9 / 8;
                for (int i = 0; i < 8; i++) {
                    put64(&mod, (r * 8 + i) * len);
                    put64(&mod, len);
                    putf(&mod, s + i * step);
                    putf(&mod, s + (i + 0.8) * step);
                }
            }
        }
    }

    /* the file: header, job, names, modules in id order */
    unsigned char hdr[HEADER] = { 0 };
    memcpy(hdr, "3.41", 4);
    int64_t magic = 6567223;
    memcpy(hdr + 8, &magic, 8);
    hdr[16] = 0;   /* zlib */
    put(&out, hdr, sizeof hdr);
    uint64_t joff, jlen, map[2 + 2 * 64] = { 0 };
    uint32_t ver[64] = { 0 };
    compress_region(&out, &jobr, &joff, &jlen);
    compress_region(&out, &names, &map[0], &map[1]);
    compress_region(&out, &posix, &map[2 + 2 * MOD_POSIX], &map[3 + 2 * MOD_POSIX]);
    ver[MOD_POSIX] = 4;
    if (mod.n) {
        int m = strcmp(kind, "heatmap") == 0 ? MOD_HEATMAP : MOD_DXT_POSIX;
        compress_region(&out, &mod, &map[2 + 2 * m], &map[3 + 2 * m]);
        ver[m] = 1;
    }
    memcpy(out.p + 32, map, sizeof map);
    memcpy(out.p + 32 + sizeof map, ver, sizeof ver);
    FILE *f = fopen(path, "wb");
    int rc = f && fwrite(out.p, 1, out.n, f) == out.n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "darshan_archive_gen: %s: %s\n", path, strerror(errno));
    free(jobr.p);
    free(names.p);
    free(posix.p);
    free(mod.p);
    free(out.p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "counters") && strcmp(argv[2], "heatmap") && strcmp(argv[2], "dxt"))) {
        fprintf(stderr, "usage: darshan_archive_gen OUTDIR counters|heatmap|dxt COUNT [SEED]\n");
        return 2;
    }
    long count = strtol(argv[3], NULL, 10);
    rng_state = argc > 4 ? strtoull(argv[4], NULL, 10) * 2654435761u + 1 : 88172645463325252ull;
    for (long i = 0; i < count; i++) {
        struct job j;
        j.jobid = 100000 + i;
        j.uid = 1000 + (int64_t)(rnd() % 50);
        j.nprocs = (int64_t)1 << (rnd() % 9);                   /* 1 .. 256 */
        j.period = uniform(20, 300);
        j.phases = 3 + (int)(rnd() % 20);                       /* 3 .. 22 */
        j.dur = j.period * uniform(0.05, 0.3);
        j.first = uniform(5, 30);
        j.run = j.first + j.phases * j.period + uniform(1, 20);
        j.in_bytes = (int64_t)uniform(1 << 20, 64 << 20);
        j.ckpt_bytes = (int64_t)uniform(16 << 20, 256 << 20) & ~(int64_t)7;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s-%06ld.darshan", argv[1], argv[2], i);
        if (write_log(path, argv[2], &j) != 0)
            return 1;
    }
    return 0;
}
