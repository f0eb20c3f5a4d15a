/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_phases.c -- `ftio-wire phases`: a job whose every phase is known,
 * for the tests of the phase descriptors and the machine forecast
 * (tests/forecast/): what ftiod and `ftio` must say of each phase is in the
 * truth file, written from the same numbers the batches are made of.
 *
 *   ftio-wire phases (--endpoint E | --spool DIR) [--job J] [--ranks R]
 *            [--period P] [--phases N] [--bytes B] [--fs NAME|none]
 *            [--offset S] [--live] [--first S] [--truth FILE]
 *
 * Phase k (every P s from the job's start): ranks 0 .. R-1 take part, but
 * the last one sits out every odd phase; rank r starts 0.02 r s after the
 * phase, opens its own new file /scratch/J/out.k.r, writes B (r + 1) bytes
 * in 4 requests over 0.3 + 0.05 r s, fsyncs (0.2 s) and closes it; in
 * every third phase rank 0 also writes 64 KiB to /scratch/J/shared.dat
 * (opened, synced and closed likewise).  Every file entry carries the file
 * system NAME (default "ext4:/scratch"; `none`: no third element).  The
 * processes are MPI ranks (mpi 1 first, 2 in their final batch).  The job
 * ran in the past, ending S s ago (--offset, default 1), or --live: its
 * first phase starts --first s from now (default 1) and each rank sends a
 * phase's batch when that phase is over.  --truth FILE gets one JSON line
 * per phase: job, k, start, end (Unix s: the first call's start, the last
 * call's end), bytes, ranks, skew_bytes, files, opens, metadata (opens and
 * closes), syncs, fs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ftio_wire.h"
#include "timeutil.h"

#define MONO0 5000000000ll
#define MAX_RANKS 64
#define SHARED_BYTES 65536.0

static const char usage[] =
    "usage: ftio-wire phases (--endpoint E | --spool DIR) [--job J] [--ranks R] [--period P]\n"
    "                        [--phases N] [--bytes B] [--fs NAME|none] [--offset S] [--live]\n"
    "                        [--first S] [--truth FILE]\n";

/* FNV-1a 32 of a path: a file id (never 0). */
static uint32_t file_id(const char *path)
{
    uint32_t h = 2166136261u;
    for (const char *p = path; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h ? h : 1;
}

struct rank_out {
    struct ftio_record rec[32];
    size_t n;
    struct ftio_file_entry files[4];
    char paths[4][256];
    size_t nfiles;
};

static void add(struct rank_out *o, int64_t base, double ts, double te, double bytes, uint32_t fid,
                int op)
{
    o->rec[o->n++] = (struct ftio_record){
        .t_start = (uint64_t)(MONO0 + llround(ts * 1e9) - base),
        .t_end = (uint64_t)(MONO0 + llround(te * 1e9) - base),
        .offset = -1, .bytes = op <= FTIO_OP_WRITE ? (int64_t)bytes : 0, .file_id = fid,
        .op = (uint8_t)op, .layer = FTIO_LAYER_POSIX,
    };
}

/* One file of rank r in a phase: open, writes, fsync, close from `at`;
 * returns the end of its close. */
static double one_file(struct rank_out *o, int64_t base, const char *path, const char *fs,
                       double at, double bytes, int writes, double dur)
{
    uint32_t fid = file_id(path);
    size_t f = o->nfiles++;
    snprintf(o->paths[f], sizeof o->paths[f], "%s", path);
    o->files[f] = (struct ftio_file_entry){ fid, o->paths[f], fs };
    add(o, base, at, at + 0.001, 0, fid, FTIO_OP_OPEN);
    double t = at + 0.001;
    for (int i = 0; i < writes; i++) {
        add(o, base, t, t + dur / writes, bytes / writes, fid, FTIO_OP_WRITE);
        t += dur / writes;
    }
    add(o, base, t, t + 0.2, 0, fid, FTIO_OP_SYNC);
    add(o, base, t + 0.2, t + 0.201, 0, fid, FTIO_OP_CLOSE);
    return t + 0.201;
}

int wire_cmd_phases(int argc, char **argv)
{
    if (wire_arg_flag(argc, argv, "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    const char *endpoint = wire_arg_str(argc, argv, "--endpoint", NULL);
    const char *dir = wire_arg_str(argc, argv, "--spool", NULL);
    const char *job = wire_arg_str(argc, argv, "--job", "phases");
    const char *fs = wire_arg_str(argc, argv, "--fs", "ext4:/scratch");
    const char *truth = wire_arg_str(argc, argv, "--truth", NULL);
    int ranks = (int)wire_arg_num(argc, argv, "--ranks", 4);
    int phases = (int)wire_arg_num(argc, argv, "--phases", 8);
    double period = wire_arg_num(argc, argv, "--period", 3);
    double bytes = wire_arg_num(argc, argv, "--bytes", 1 << 20);
    double offset = wire_arg_num(argc, argv, "--offset", 1);
    double first = wire_arg_num(argc, argv, "--first", 1);
    bool live = wire_arg_flag(argc, argv, "--live");
    if ((!endpoint) == (!dir) || ranks < 1 || ranks > MAX_RANKS || phases < 1 ||
        !(period > 1) || !(bytes > 0)) {
        fprintf(stderr, "ftio-wire phases: need --endpoint or --spool, 1 <= ranks <= %d, "
                        "phases >= 1, period > 1 s, bytes > 0\n%s", MAX_RANKS, usage);
        return 2;
    }
    if (strcmp(fs, "none") == 0)
        fs = NULL;
    FILE *tf = truth ? fopen(truth, "a") : NULL;
    if (truth && !tf) {
        perror(truth);
        return 1;
    }
    struct wire_out o;
    if (wire_out_open(&o, endpoint, dir) < 0)
        return 1;
    /* Epoch seconds of the job's time 0; every process's monotonic clock
     * reads MONO0 at base (ns). */
    double now = (double)ftio_real_ns() * 1e-9;
    double t0 = live ? now + first : now - offset - phases * period;
    int64_t base = (int64_t)llround(t0 * 1e9);
    uint64_t seq[MAX_RANKS] = { 0 };
    int rc = 0;
    for (int k = 0; k < phases && rc == 0; k++) {
        int active = ranks - (ranks > 1 && k % 2 == 1);
        struct rank_out out[MAX_RANKS];
        double start = INFINITY, end = -INFINITY, total = 0, skew = 0;
        int files = 0;
        for (int r = 0; r < active; r++) {
            struct rank_out *ro = &out[r];
            ro->n = ro->nfiles = 0;
            char path[256];
            snprintf(path, sizeof path, "/scratch/%s/out.%d.%d", job, k, r);
            double at = t0 + k * period + 0.02 * r, b = bytes * (r + 1);
            double e = one_file(ro, base, path, fs, at, b, 4, 0.3 + 0.05 * r);
            files++;
            if (r == 0 && k % 3 == 0) {
                snprintf(path, sizeof path, "/scratch/%s/shared.dat", job);
                e = one_file(ro, base, path, fs, e, SHARED_BYTES, 1, 0.02);
                b += SHARED_BYTES;
                files++;
            }
            start = fmin(start, at);
            end = fmax(end, e);
            total += b;
            skew = fmax(skew, b);
        }
        if (live)
            wire_sleep(end - (double)ftio_real_ns() * 1e-9);
        for (int r = 0; r < active && rc == 0; r++) {
            int64_t real = live ? ftio_real_ns() : base;
            struct ftio_batch_header h = {
                .job = job, .host = "gen", .pid = 3000 + r, .rank = r, .nranks = ranks,
                .seq = seq[r]++, .clock_mono = MONO0 + (real - base), .clock_real = real,
                .mpi = FTIO_MPI_INIT, .nfiles = out[r].nfiles, .files = out[r].files,
            };
            rc = wire_out_batch(&o, &h, out[r].rec, out[r].n);
        }
        if (tf) {
            int opens = active + (k % 3 == 0);
            fprintf(tf, "{\"job\":\"%s\",\"k\":%d,\"start\":%.9f,\"end\":%.9f,\"bytes\":%.0f,"
                        "\"ranks\":%d,\"skew_bytes\":%.0f,\"files\":%d,\"opens\":%d,"
                        "\"metadata\":%d,\"syncs\":%d,\"fs\":%s%s%s}\n",
                    job, k, start, end, total, active, skew, files, opens, 2 * opens, opens,
                    fs ? "\"" : "", fs ? fs : "null", fs ? "\"" : "");
            fflush(tf);
        }
    }
    for (int r = 0; r < ranks && rc == 0; r++) {
        int64_t real = live ? ftio_real_ns() : base;
        struct ftio_batch_header h = {
            .job = job, .host = "gen", .pid = 3000 + r, .rank = r, .nranks = ranks,
            .seq = seq[r]++, .clock_mono = MONO0 + (real - base), .clock_real = real,
            .mpi = FTIO_MPI_FINALIZED, .final = true,
        };
        rc = wire_out_batch(&o, &h, NULL, 0);
    }
    if (tf)
        fclose(tf);
    wire_out_close(&o);
    if (rc != 0)
        fprintf(stderr, "ftio-wire phases: send failed\n");
    return rc != 0;
}
