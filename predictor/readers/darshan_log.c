/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan_log.c -- the container of a binary Darshan log (formats 3.00-3.41):
 * header, byte order, compressed regions, job record and mount table.
 *
 * A log is a fixed header (1328 bytes from format 3.41; 360 before, with 16
 * module slots and a 32-bit partial flag) followed by regions, each one or
 * more zlib or bzip2 streams (or raw bytes) at the offset/length the header
 * maps: the job record, the name table (record id -> path), then one region
 * per module.  The magic number tells the writer's byte order.
 */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "darshan.h"
#include "grow.h"

#define HEADER_SIZE 1328
#define HEADER_SIZE_3_00 360
#define MODS_3_00 16
#define METADATA_LEN 1024
#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

static const char *const mod_names[DARSHAN_MODS] = {
    "NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q", "LUSTRE",
    "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP", "DFS", "DAOS",
};

const char *darshan_mod_name(int mod)
{
    return mod >= 0 && mod < DARSHAN_MODS && mod_names[mod] ? mod_names[mod] : "unknown";
}

uint64_t darshan_u64(const struct darshan_log *l, const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return l->swap ? __builtin_bswap64(v) : v;
}

int64_t darshan_i64(const struct darshan_log *l, const unsigned char *p)
{
    return (int64_t)darshan_u64(l, p);
}

double darshan_f64(const struct darshan_log *l, const unsigned char *p)
{
    uint64_t v = darshan_u64(l, p);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static uint32_t u32(const struct darshan_log *l, const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return l->swap ? __builtin_bswap32(v) : v;
}

/* Insert an empty module slot at `at` (3.41 numbering grew twice) and shift
 * the partial bits above it, as Darshan's own reader does. */
static void insert_slot(struct darshan_log *l, int at)
{
    memmove(&l->mod_off[at + 1], &l->mod_off[at], (DARSHAN_MODS - at - 1) * sizeof l->mod_off[0]);
    memmove(&l->mod_len[at + 1], &l->mod_len[at], (DARSHAN_MODS - at - 1) * sizeof l->mod_len[0]);
    memmove(&l->mod_ver[at + 1], &l->mod_ver[at], (DARSHAN_MODS - at - 1) * sizeof l->mod_ver[0]);
    l->mod_off[at] = l->mod_len[at] = 0;
    l->mod_ver[at] = 0;
    uint64_t low = l->partial & ((1ULL << at) - 1);
    uint64_t high = ((l->partial << 1) >> (at + 1)) << (at + 1);
    l->partial = low | high;
}

static int parse_job(struct darshan_log *l, const unsigned char *j, size_t n, char *err, size_t errlen)
{
    size_t fixed = l->ver_min >= 41 ? 7 * 8 : 5 * 8;
    if (n < fixed + METADATA_LEN)
        return FAIL("offset %llu: job record too short (%zu bytes)", (unsigned long long)l->job_off, n);
    int k = 0;
    l->uid = darshan_i64(l, j + 8 * k++);
    l->start_sec = darshan_i64(l, j + 8 * k++);
    if (l->ver_min >= 41)
        l->start_nsec = darshan_i64(l, j + 8 * k++);
    l->end_sec = darshan_i64(l, j + 8 * k++);
    if (l->ver_min >= 41)
        l->end_nsec = darshan_i64(l, j + 8 * k++);
    l->nprocs = darshan_i64(l, j + 8 * k++);
    l->jobid = darshan_i64(l, j + 8 * k++);
    l->metadata = strndup((const char *)j + fixed, METADATA_LEN);
    /* exe, then "\n<fstype>\t<mount point>" lines, NUL-terminated */
    const char *tail = (const char *)j + fixed + METADATA_LEN;
    char *rest = strndup(tail, n - fixed - METADATA_LEN);
    if (!l->metadata || !rest)
        return FAIL("offset %llu: out of memory", (unsigned long long)l->job_off);
    char *nl = strchr(rest, '\n');
    l->exe = strndup(rest, nl ? (size_t)(nl - rest) : strlen(rest));
    for (char *line = nl ? nl + 1 : NULL; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next = 0;
        char *tab = strchr(line, '\t');
        if (tab) {
            if (FTIO_GROW(l->mounts, l->mounts_cap, l->nmounts + 1) < 0)
                break;
            struct darshan_mount *m = &l->mounts[l->nmounts++];
            *tab = 0;
            m->type = strdup(line);
            m->path = strdup(tab + 1);
        }
        line = next ? next + 1 : NULL;
    }
    free(rest);
    return l->exe ? 0 : FAIL("offset %llu: out of memory", (unsigned long long)l->job_off);
}

int darshan_log_open(struct darshan_log *l, const void *buf, size_t len, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->buf = buf;
    l->len = len;
    const unsigned char *b = buf;
    if (len < 16 || memcmp(b, "3.", 2) != 0)
        return FAIL("offset 0: not a Darshan log (no \"3.xx\" format version)");
    memcpy(l->version, b, 8);
    l->version[8] = 0;
    char *end;
    long minor = strtol(l->version + 2, &end, 10);
    /* the formats Darshan ever wrote: 3.00, 3.10, 3.20, 3.21, 3.41 */
    if (end == l->version + 2 || !(minor == 0 || minor == 10 || minor == 20 || minor == 21 || minor == 41))
        return FAIL("offset 0: Darshan log format version \"%s\" not supported (3.00-3.41)", l->version);
    l->ver_min = (int)minor;
    int64_t magic;
    memcpy(&magic, b + 8, 8);
    if (magic != DARSHAN_MAGIC) {
        l->swap = 1;
        if ((int64_t)__builtin_bswap64((uint64_t)magic) != DARSHAN_MAGIC)
            return FAIL("offset 8: bad Darshan magic number");
    }
    size_t hsize = l->ver_min < 41 ? HEADER_SIZE_3_00 : HEADER_SIZE;
    if (len < hsize)
        return FAIL("offset %zu: truncated header (%zu of %zu bytes)", len, len, hsize);
    l->comp = b[16];
    if (l->comp > 2)
        return FAIL("offset 16: unknown compression type %d", l->comp);
    int nmods = l->ver_min < 41 ? MODS_3_00 : DARSHAN_MODS;
    const unsigned char *maps;
    const unsigned char *vers;
    if (l->ver_min < 41) {
        l->partial = u32(l, b + 20);
        maps = b + 24;
    } else {
        l->partial = darshan_u64(l, b + 24);
        maps = b + 32;
    }
    vers = maps + 16 * (1 + nmods);
    l->name_off = darshan_u64(l, maps);
    l->name_len = darshan_u64(l, maps + 8);
    for (int i = 0; i < nmods; i++) {
        l->mod_off[i] = darshan_u64(l, maps + 16 + 16 * i);
        l->mod_len[i] = darshan_u64(l, maps + 24 + 16 * i);
        l->mod_ver[i] = u32(l, vers + 4 * i);
    }
    if (l->ver_min < 20)
        insert_slot(l, DMOD_H5D);
    if (l->ver_min < 41)
        insert_slot(l, DMOD_PNETCDF_VAR);
    /* every mapped region must lie inside the file */
    if (l->name_off && (l->name_off > len || l->name_len > len - l->name_off))
        return FAIL("offset %zu: name table [%llu,+%llu) beyond end of file (%zu bytes): truncated log",
                    hsize, (unsigned long long)l->name_off, (unsigned long long)l->name_len, len);
    for (int i = 0; i < DARSHAN_MODS; i++)
        if (l->mod_len[i] && (l->mod_off[i] > len || l->mod_len[i] > len - l->mod_off[i]))
            return FAIL("offset %zu: %s region [%llu,+%llu) beyond end of file (%zu bytes): truncated log",
                        hsize, darshan_mod_name(i), (unsigned long long)l->mod_off[i],
                        (unsigned long long)l->mod_len[i], len);
    /* the job record runs from the header to the first mapped region */
    l->job_off = hsize;
    uint64_t next = l->name_off ? l->name_off : len;
    for (int i = 0; i < DARSHAN_MODS; i++)
        if (l->mod_len[i] && l->mod_off[i] < next)
            next = l->mod_off[i];
    if (next < hsize)
        return FAIL("offset %zu: region map overlaps the header", hsize);
    l->job_len = next - hsize;
    unsigned char *job = NULL;
    size_t jn = 0;
    int rc = darshan_log_region(l, -2, &job, &jn, err, errlen);
    if (rc == 0)
        rc = parse_job(l, job, jn, err, errlen);
    free(job);
    return rc;
}

void darshan_log_close(struct darshan_log *l)
{
    free(l->metadata);
    free(l->exe);
    for (size_t i = 0; i < l->nmounts; i++) {
        free(l->mounts[i].path);
        free(l->mounts[i].type);
    }
    free(l->mounts);
    memset(l, 0, sizeof *l);
}

/* Output buffer growth shared by both decompressors. */
static int grow(unsigned char **out, size_t *cap, size_t used)
{
    /* 64 KiB at first: a log's regions are rarely smaller. */
    return FTIO_GROW(*out, *cap, used < 65536 ? 65536 : used + 1);
}

static int inflate_zlib(const unsigned char *in, size_t n, unsigned char **out, size_t *outlen)
{
    size_t cap = 0, used = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)n;
    int rc = 0, ended = 0;   /* a region must end with a complete stream */
    while (z.avail_in > 0) {
        if (grow(out, &cap, used) != 0) {
            rc = -1;
            break;
        }
        ended = 0;
        z.next_out = *out + used;
        z.avail_out = (uInt)(cap - used);
        int r = inflate(&z, Z_NO_FLUSH);
        used = cap - z.avail_out;
        if (r == Z_STREAM_END) {
            inflateReset(&z);   /* a region may hold several streams */
            ended = 1;
            continue;
        }
        if (r != Z_OK && !(r == Z_BUF_ERROR && z.avail_out == 0)) {
            rc = -1;
            break;
        }
    }
    inflateEnd(&z);
    *outlen = used;
    return rc == 0 && !ended ? -1 : rc;
}

static int inflate_bzip2(const unsigned char *in, size_t n, unsigned char **out, size_t *outlen)
{
    size_t cap = 0, used = 0;
    bz_stream z;
    memset(&z, 0, sizeof z);
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
        return -1;
    z.next_in = (char *)in;
    z.avail_in = (unsigned)n;
    int rc = 0, ended = 0;
    while (z.avail_in > 0) {
        if (grow(out, &cap, used) != 0) {
            rc = -1;
            break;
        }
        ended = 0;
        z.next_out = (char *)*out + used;
        z.avail_out = (unsigned)(cap - used);
        int r = BZ2_bzDecompress(&z);
        used = cap - z.avail_out;
        if (r == BZ_STREAM_END) {
            /* a region may hold several streams: restart where this one ended */
            char *next_in = z.next_in;
            unsigned avail_in = z.avail_in;
            BZ2_bzDecompressEnd(&z);
            memset(&z, 0, sizeof z);
            if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) {
                *outlen = used;
                return -1;
            }
            z.next_in = next_in;
            z.avail_in = avail_in;
            ended = 1;
            continue;
        }
        if (r != BZ_OK) {
            rc = -1;
            break;
        }
    }
    BZ2_bzDecompressEnd(&z);
    *outlen = used;
    return rc == 0 && !ended ? -1 : rc;
}

int darshan_log_region(const struct darshan_log *l, int mod, unsigned char **out, size_t *outlen,
                       char *err, size_t errlen)
{
    uint64_t off, n;
    if (mod == -2) {
        off = l->job_off;
        n = l->job_len;
    } else if (mod == DARSHAN_REGION_NAMES) {
        off = l->name_off;
        n = l->name_len;
    } else {
        off = l->mod_off[mod];
        n = l->mod_len[mod];
    }
    *out = NULL;
    *outlen = 0;
    if (n == 0)
        return 0;
    const unsigned char *in = l->buf + off;
    int rc;
    if (l->comp == 2) {
        *out = malloc(n);
        if (!*out)
            return FAIL("offset %llu: out of memory", (unsigned long long)off);
        memcpy(*out, in, n);
        *outlen = n;
        return 0;
    }
    rc = l->comp == 0 ? inflate_zlib(in, n, out, outlen) : inflate_bzip2(in, n, out, outlen);
    if (rc != 0)
        return FAIL("offset %llu: damaged or truncated %s data in the %s region", (unsigned long long)off,
                    l->comp == 0 ? "zlib" : "bzip2",
                    mod == -2 ? "job" : mod == DARSHAN_REGION_NAMES ? "name" : darshan_mod_name(mod));
    return 0;
}
