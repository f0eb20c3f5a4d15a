/* SPDX-License-Identifier: BSD-3-Clause */
/* darshan_dump.c -- test tool: prints what our native Darshan reader decodes
 * in the text form of Darshan's own tools, so tests/darshan/conformance.sh
 * can compare it with `darshan-parser` / `darshan-dxt-parser` output:
 *   MOD <rank> <record id> <COUNTER> <value>     (the counters the signal uses)
 *   HEATMAP <rank> <id> HEATMAP_{F_BIN_WIDTH_SECONDS,READ_BIN_k,WRITE_BIN_k} <v>
 *   X_POSIX|X_MPIIO <rank> <read|write> <offset> <length> <start> <end>
 * plus "# partial <module>" for modules Darshan flagged as incomplete.
 * Usage: darshan_dump FILE.darshan   (exit 1 with a one-line error on damage)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "readers/darshan.h"

static const char *prefix;   /* counter name prefix of the module walked */
static const char *modname;

static int print_counters(void *ctx, const struct darshan_file_counters *f)
{
    (void)ctx;
    printf("%s\t%" PRId64 "\t%" PRIu64 "\t%s_BYTES_READ\t%" PRId64 "\n", modname, f->rank, f->id, prefix,
           f->bytes_read);
    printf("%s\t%" PRId64 "\t%" PRIu64 "\t%s_BYTES_WRITTEN\t%" PRId64 "\n", modname, f->rank, f->id, prefix,
           f->bytes_written);
    const char *names[4] = { "READ_START", "READ_END", "WRITE_START", "WRITE_END" };
    double v[4] = { f->read_start, f->read_end, f->write_start, f->write_end };
    for (int i = 0; i < 4; i++)
        printf("%s\t%" PRId64 "\t%" PRIu64 "\t%s_F_%s_TIMESTAMP\t%f\n", modname, f->rank, f->id, prefix,
               names[i], v[i]);
    return 0;
}

static const struct darshan_log *g_log;

static int print_heatmap(void *ctx, const struct darshan_heatmap *h)
{
    (void)ctx;
    printf("HEATMAP\t%" PRId64 "\t%" PRIu64 "\tHEATMAP_F_BIN_WIDTH_SECONDS\t%f\n", h->rank, h->id, h->width);
    for (int w = 0; w < 2; w++)
        for (int64_t i = 0; i < h->nbins + h->missing; i++) {
            int64_t v = i < h->nbins ? darshan_i64(g_log, (w ? h->write_bins : h->read_bins) + 8 * i) : 0;
            printf("HEATMAP\t%" PRId64 "\t%" PRIu64 "\tHEATMAP_%s_BIN_%" PRId64 "\t%" PRId64 "\n", h->rank, h->id,
                   w ? "WRITE" : "READ", i, v);
        }
    return 0;
}

static int print_segment(void *ctx, const struct darshan_segment *s, uint64_t id)
{
    (void)id;
    printf("%s\t%" PRId64 "\t%s\t%" PRId64 "\t%" PRId64 "\t%.4f\t%.4f\n", (const char *)ctx, s->rank,
           s->is_write ? "write" : "read", s->offset, s->length, s->start, s->end);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: darshan_dump FILE.darshan\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    void *map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    char err[256];
    struct darshan_log l;
    int rc = 0;
    if (darshan_log_open(&l, map, (size_t)st.st_size, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], err);
        darshan_log_close(&l);
        return 1;
    }
    g_log = &l;
    printf("# darshan log version: %s\n# jobid: %" PRId64 "\n# uid: %" PRId64 "\n# nprocs: %" PRId64
           "\n# start_time: %" PRId64 "\n# end_time: %" PRId64 "\n# exe: %s\n# mounts: %zu\n",
           l.version, l.jobid, l.uid, l.nprocs, l.start_sec, l.end_sec, l.exe, l.nmounts);
    for (int m = 0; m < DARSHAN_MODS; m++)
        if (l.partial & (1ULL << m))
            printf("# partial %s\n", darshan_mod_name(m));
    static const struct { int mod; const char *name, *prefix; } cmods[] = {
        { DMOD_POSIX, "POSIX", "POSIX" }, { DMOD_MPIIO, "MPI-IO", "MPIIO" }, { DMOD_STDIO, "STDIO", "STDIO" },
    };
    for (int k = 0; k < 6 && rc == 0; k++) {
        int m = k < 3 ? cmods[k].mod : k == 3 ? DMOD_HEATMAP : k == 4 ? DMOD_DXT_POSIX : DMOD_DXT_MPIIO;
        if (!l.mod_len[m])
            continue;
        unsigned char *r;
        size_t n;
        rc = darshan_log_region(&l, m, &r, &n, err, sizeof err);
        if (rc == 0 && k < 3) {
            modname = cmods[k].name;
            prefix = cmods[k].prefix;
            rc = darshan_walk_counters(&l, m, r, n, print_counters, NULL, err, sizeof err);
        } else if (rc == 0 && k == 3) {
            rc = darshan_walk_heatmap(&l, r, n, print_heatmap, NULL, err, sizeof err);
        } else if (rc == 0) {
            rc = darshan_walk_dxt(&l, m, r, n, print_segment, k == 4 ? "X_POSIX" : "X_MPIIO", err, sizeof err);
        }
        free(r);
    }
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", argv[1], err);
    darshan_log_close(&l);
    if (map)
        munmap(map, (size_t)st.st_size);
    return rc ? 1 : 0;
}
