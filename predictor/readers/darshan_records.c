/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan_records.c -- record layouts of the modules the signal comes from,
 * walked over a decompressed module region (darshan_log.c makes those).
 *
 * Every record starts with a base record (id u64, rank i64; rank -1 is a
 * record shared by all ranks).  Counter modules then hold a fixed array of
 * int64 counters and one of double counters whose sizes depend on the module
 * version; DXT records hold a 104-byte file header (base, shared flag,
 * hostname[64], write count, read count) and the write segments then the read
 * segments (offset, length, start, end, and a pthread id from DXT_POSIX v2 /
 * DXT_MPIIO v3 on); HEATMAP records hold bin width, bin count, two unused
 * pointer slots, then the write bins and the read bins.
 */
#include <stdio.h>
#include <string.h>
#include "darshan.h"

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)
#define BASE 16

/* Counter layout of one module version: counts and the indices we use;
 * tail: bytes after the counters (DFS: pool and container UUIDs; DAOS: the
 * object id). */
struct counter_layout {
    int mod, ver, n, nf;
    int reads, writes, bytes_read, bytes_written;
    int read_start, read_end, write_start, write_end;
    int tail;
};

/* Every version Darshan wrote (record sizes match darshan-util's
 * DARSHAN_*_FILE_SIZE_<ver> constants).  MPI-IO reads/writes are the sum of
 * the independent, collective, split and non-blocking counters. */
static const struct counter_layout layouts[] = {
    /* mod         ver  n   nf  rd wr  br  bw  rs re  ws we  tail */
    { DMOD_POSIX,   1, 68, 15,  1, 2, 13, 14,  1, 3,  2, 4, 0 },
    { DMOD_POSIX,   2, 64, 15,  1, 2,  9, 10,  1, 3,  2, 4, 0 },
    { DMOD_POSIX,   3, 64, 17,  1, 2,  9, 10,  1, 5,  2, 6, 0 },
    { DMOD_POSIX,   4, 69, 17,  3, 4, 14, 15,  1, 5,  2, 6, 0 },
    { DMOD_STDIO,   1, 13, 15,  1, 2,  6,  5,  6, 10, 5, 9, 0 },
    { DMOD_STDIO,   2, 14, 15,  2, 3,  7,  6,  6, 10, 5, 9, 0 },
    { DMOD_MPIIO,   1, 51, 15,  2, 3, 14, 15,  1, 3,  2, 4, 0 },
    { DMOD_MPIIO,   2, 51, 15,  2, 3, 14, 15,  1, 3,  2, 4, 0 },
    { DMOD_MPIIO,   3, 51, 17,  2, 3, 14, 15,  1, 5,  2, 6, 0 },
    /* storage ftio does not turn into a signal (DAOS, through its file
     * system layer DFS or its objects): their bytes, for the warning (the
     * layouts of the released 3.4.5+ headers: 584- and 696-byte records) */
    { DMOD_DFS,     1, 52, 15,  4, 6, 14, 15,  1, 5,  2, 6, 32 },
    { DMOD_DAOS,    1, 64, 15, 10, 11, 24, 25, 1, 5,  2, 6, 48 },
};

static const struct counter_layout *layout_of(int mod, uint32_t ver)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].mod == mod && layouts[i].ver == (int)ver)
            return &layouts[i];
    return NULL;
}

int darshan_walk_counters(const struct darshan_log *l, int mod, const unsigned char *r, size_t n,
                          darshan_counters_fn fn, void *ctx, char *err, size_t errlen)
{
    const struct counter_layout *c = layout_of(mod, l->mod_ver[mod]);
    if (!c)
        return FAIL("module %s version %u: counter layout not supported by this reader",
                    darshan_mod_name(mod), l->mod_ver[mod]);
    size_t size = BASE + 8 * (size_t)(c->n + c->nf) + (size_t)c->tail;
    size_t k = 0;
    for (size_t off = 0; off < n; off += size, k++) {
        if (n - off < size)
            return FAIL("module %s record %zu: truncated (%zu of %zu bytes)", darshan_mod_name(mod), k,
                        n - off, size);
        const unsigned char *p = r + off;
        const unsigned char *ic = p + BASE, *fc = p + BASE + 8 * c->n;
        struct darshan_file_counters f = {
            .id = darshan_u64(l, p), .rank = darshan_i64(l, p + 8),
            .bytes_read = darshan_i64(l, ic + 8 * c->bytes_read),
            .bytes_written = darshan_i64(l, ic + 8 * c->bytes_written),
            .read_start = darshan_f64(l, fc + 8 * c->read_start),
            .read_end = darshan_f64(l, fc + 8 * c->read_end),
            .write_start = darshan_f64(l, fc + 8 * c->write_start),
            .write_end = darshan_f64(l, fc + 8 * c->write_end),
        };
        if (mod == DMOD_DFS) {            /* read + readx, write + writex */
            f.reads = darshan_i64(l, ic + 8 * c->reads) + darshan_i64(l, ic + 8 * (c->reads + 1));
            f.writes = darshan_i64(l, ic + 8 * c->writes) + darshan_i64(l, ic + 8 * (c->writes + 1));
        } else if (mod == DMOD_MPIIO) {
            for (int i = 0; i < 4; i++) {
                f.reads += darshan_i64(l, ic + 8 * (c->reads + 2 * i));
                f.writes += darshan_i64(l, ic + 8 * (c->writes + 2 * i));
            }
        } else {
            f.reads = darshan_i64(l, ic + 8 * c->reads);
            f.writes = darshan_i64(l, ic + 8 * c->writes);
        }
        if (fn(ctx, &f))
            break;
    }
    return 0;
}

#define DXT_HEADER 104

int darshan_walk_dxt(const struct darshan_log *l, int mod, const unsigned char *r, size_t n,
                     darshan_segment_fn fn, void *ctx, char *err, size_t errlen)
{
    uint32_t ver = l->mod_ver[mod];
    size_t seg = (mod == DMOD_DXT_POSIX ? ver >= 2 : ver >= 3) ? 40 : 32;
    size_t k = 0;
    for (size_t off = 0; off < n; k++) {
        if (n - off < DXT_HEADER)
            return FAIL("module %s record %zu: truncated header (%zu of %d bytes)", darshan_mod_name(mod),
                        k, n - off, DXT_HEADER);
        const unsigned char *p = r + off;
        uint64_t id = darshan_u64(l, p);
        int64_t rank = darshan_i64(l, p + 8);
        int64_t wc = darshan_i64(l, p + 88), rc = darshan_i64(l, p + 96);
        if (wc < 0 || rc < 0 || (uint64_t)wc + (uint64_t)rc > (n - off - DXT_HEADER) / seg)
            return FAIL("module %s record %zu: %lld writes + %lld reads do not fit the region",
                        darshan_mod_name(mod), k, (long long)wc, (long long)rc);
        const unsigned char *s = p + DXT_HEADER;
        for (int64_t i = 0; i < wc + rc; i++, s += seg) {
            struct darshan_segment g = {
                .rank = rank, .offset = darshan_i64(l, s), .length = darshan_i64(l, s + 8),
                .start = darshan_f64(l, s + 16), .end = darshan_f64(l, s + 24), .is_write = i < wc,
            };
            if (mod == DMOD_DXT_MPIIO && ver == 1)
                g.offset = -1;   /* version 1 recorded no MPI-IO offsets */
            if (fn(ctx, &g, id))
                return 0;
        }
        off += DXT_HEADER + (size_t)(wc + rc) * seg;
    }
    return 0;
}

#define HEATMAP_HEADER 48

int darshan_walk_heatmap(const struct darshan_log *l, const unsigned char *r, size_t n,
                         darshan_heatmap_fn fn, void *ctx, char *err, size_t errlen)
{
    size_t k = 0;
    int64_t first_nbins = 0;
    double first_width = 0;
    for (size_t off = 0; off < n; k++) {
        if (n - off < HEATMAP_HEADER)
            return FAIL("module HEATMAP record %zu: truncated header", k);
        const unsigned char *p = r + off;
        struct darshan_heatmap h = {
            .id = darshan_u64(l, p), .rank = darshan_i64(l, p + 8),
            .width = darshan_f64(l, p + 16), .nbins = darshan_i64(l, p + 24),
        };
        if (h.nbins < 0 || (uint64_t)h.nbins > (n - off - HEATMAP_HEADER) / 16)
            return FAIL("module HEATMAP record %zu: %lld bins do not fit the region", k, (long long)h.nbins);
        h.write_bins = p + HEATMAP_HEADER;
        h.read_bins = h.write_bins + 8 * h.nbins;
        off += HEATMAP_HEADER + 16 * (size_t)h.nbins;
        if (k == 0) {
            first_nbins = h.nbins;
            first_width = h.width;
        } else if (h.width == first_width && h.nbins == first_nbins + 1) {
            /* Darshan 3.4.0-3.4.3 clock skew wrote one bin too many in
             * some records; darshan-parser drops it, so do we. */
            h.nbins--;
        }
        else if (h.width == first_width && h.nbins == first_nbins - 1)
            h.missing = 1;   /* ... or one too few: darshan-parser shows a zero bin */
        if (fn(ctx, &h))
            break;
    }
    return 0;
}
