/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan.h -- private contract between the files of the native binary
 * Darshan log reader (readers/darshan_*.c).  Not installed.
 *
 *   darshan_log.c      container: header (3.00 and 3.01+ layouts), byte
 *                      order, zlib/bzip2/none regions, job record, mounts
 *   darshan_records.c  module record layouts: POSIX, MPI-IO, STDIO counters,
 *                      DXT_POSIX / DXT_MPIIO segments, HEATMAP bins
 *   darshan_signal.c   the best signal source present -> ftio requests
 *
 * Layout knowledge comes from Darshan's format documentation and headers
 * (darshan-log-format.h and the per-module headers); the code is ours.
 */
#ifndef FTIO_DARSHAN_H
#define FTIO_DARSHAN_H

#include <stddef.h>
#include <stdint.h>

#define DARSHAN_MAGIC 6567223
#define DARSHAN_MODS 64

/* Module ids in the numbering of format 3.41 (older logs are renumbered
 * on open: H5D arrived in 3.20, PNETCDF_VAR in 3.41). */
enum darshan_mod {
    DMOD_POSIX = 1, DMOD_MPIIO = 2, DMOD_H5F = 3, DMOD_H5D = 4, DMOD_PNETCDF_FILE = 5,
    DMOD_PNETCDF_VAR = 6, DMOD_BGQ = 7, DMOD_LUSTRE = 8, DMOD_STDIO = 9, DMOD_DXT_POSIX = 10,
    DMOD_DXT_MPIIO = 11, DMOD_MDHIM = 12, DMOD_APXC = 13, DMOD_APMPI = 14, DMOD_HEATMAP = 15,
    DMOD_DFS = 16, DMOD_DAOS = 17,
};
const char *darshan_mod_name(int mod);

struct darshan_mount { char *path, *type; };

struct darshan_log {
    const unsigned char *buf;
    size_t len;
    char version[9];
    int ver_min;                 /* format 3.<ver_min> */
    int swap;                    /* log written with the other byte order */
    int comp;                    /* 0 zlib, 1 bzip2, 2 none */
    uint64_t partial;            /* bit per module (3.41 numbering): ran out of memory */
    uint64_t job_off, job_len, name_off, name_len;
    uint64_t mod_off[DARSHAN_MODS], mod_len[DARSHAN_MODS];
    uint32_t mod_ver[DARSHAN_MODS];
    /* job record */
    int64_t uid, start_sec, start_nsec, end_sec, end_nsec, nprocs, jobid;
    char *metadata;              /* "k=v\n..." */
    char *exe;
    struct darshan_mount *mounts;
    size_t nmounts, mounts_cap;
};

/* Parse header and job region; -1 with "offset N: reason" in err. */
int darshan_log_open(struct darshan_log *l, const void *buf, size_t len, char *err, size_t errlen);
void darshan_log_close(struct darshan_log *l);
/* Decompress region `mod` (0..63, or DARSHAN_REGION_NAMES) into a malloc'd
 * buffer.  -1 with err on damage (*out keeps what inflated before, for the
 * lenient path). */
#define DARSHAN_REGION_NAMES (-1)
int darshan_log_region(const struct darshan_log *l, int mod, unsigned char **out, size_t *outlen,
                       char *err, size_t errlen);

/* Field access in the log's byte order. */
uint64_t darshan_u64(const struct darshan_log *l, const unsigned char *p);
int64_t  darshan_i64(const struct darshan_log *l, const unsigned char *p);
double   darshan_f64(const struct darshan_log *l, const unsigned char *p);

/* --- records (darshan_records.c) --- */
struct darshan_segment { int64_t rank, offset, length; double start, end; int is_write; };
struct darshan_file_counters {
    uint64_t id; int64_t rank;
    int64_t bytes_read, bytes_written, reads, writes;
    double read_start, read_end, write_start, write_end;
};
struct darshan_heatmap { uint64_t id; int64_t rank; double width; int64_t nbins;
                         int64_t missing;   /* trailing bins Darshan pads with 0 (1 or 0) */
                         const unsigned char *write_bins, *read_bins; };

/* Each walker calls fn once per item; fn returns nonzero to stop.  The walk
 * returns 0, or -1 with "module M record R: reason" in err. */
typedef int (*darshan_segment_fn)(void *ctx, const struct darshan_segment *s, uint64_t file_id);
int darshan_walk_dxt(const struct darshan_log *l, int mod, const unsigned char *r, size_t n,
                     darshan_segment_fn fn, void *ctx, char *err, size_t errlen);
typedef int (*darshan_counters_fn)(void *ctx, const struct darshan_file_counters *f);
int darshan_walk_counters(const struct darshan_log *l, int mod, const unsigned char *r, size_t n,
                          darshan_counters_fn fn, void *ctx, char *err, size_t errlen);
typedef int (*darshan_heatmap_fn)(void *ctx, const struct darshan_heatmap *h);
int darshan_walk_heatmap(const struct darshan_log *l, const unsigned char *r, size_t n,
                         darshan_heatmap_fn fn, void *ctx, char *err, size_t errlen);

#endif
