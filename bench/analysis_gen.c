/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_gen.c -- `ftio-wire trace` (a subcommand of the wire test tool,
 * tests/wire/ftio_wire.c) writes a synthetic periodic trace for bench/analysis
 * and the CLI tests: `ranks` processes that each write a burst of requests every
 * `period` seconds for `duration` seconds, as a spool file (our wire batches,
 * one run of batches per rank with its own monotonic clock anchor, exactly as
 * the shim would spool them) and optionally as TMIO JSONL and as CSV
 * (rank,op,t_start,t_end,bytes) with the same requests, for comparison.
 *
 * usage: ftio-wire trace [-n REQUESTS] [-r RANKS] [-d SECONDS] [-p PERIOD]
 *                        [-b BURST] [-j JOB] -o OUT.msgpack [--jsonl OUT.jsonl]
 *                        [--csv OUT.csv]
 * Deterministic (fixed PRNG seed), so figures are reproducible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftio_wire.h"
#include "wire.h"

#define BATCH_RECORDS 8192
#define EPOCH_NS      1763741234000000000ll

static uint64_t rng = 0x853c49e6748fea9bull;
static double uniform(void)   /* xorshift64*, [0, 1) */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

struct gen {
    long   requests, ranks;
    double duration, period, burst;
    const char *job, *out, *jsonl, *csv;
};

static int usage(FILE *f)
{
    fputs("usage: ftio-wire trace [-n REQUESTS] [-r RANKS] [-d SECONDS] [-p PERIOD] [-b BURST]\n"
          "                       [-j JOB] -o OUT.msgpack [--jsonl OUT.jsonl] [--csv OUT.csv]\n",
          f);
    return f == stdout ? 0 : 2;
}

static int flush_batch(FILE *f, struct ftio_wbuf *w, struct ftio_batch_header *h,
                       struct ftio_record *rec, size_t n)
{
    w->len = 0;
    if (ftio_wire_encode(w, h, rec, n) != 0 || fwrite(w->data, 1, w->len, f) != w->len)
        return -1;
    h->seq++;
    return 0;
}

/* TMIO JSONL: one write_sync object per rank (as separate flushes). */
static void jsonl_rank(FILE *j, const struct ftio_record *all, size_t n, int64_t shift_ns,
                       long ranks)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)all[i].bytes;
    fprintf(j, "{\"write_sync\": {\"total_bytes\": %.17g, \"number_of_ranks\": %ld, \"bandwidth\": {",
            total, ranks);
    const char *names[3] = { "b_rank_avr", "t_rank_s", "t_rank_e" };
    for (int c = 0; c < 3; c++) {
        fprintf(j, "%s\"%s\": [", c ? ", " : "", names[c]);
        for (size_t i = 0; i < n; i++) {
            double ts = (double)((int64_t)all[i].t_start + shift_ns) / 1e9;
            double te = (double)((int64_t)all[i].t_end + shift_ns) / 1e9;
            double v = c == 0 ? (double)all[i].bytes / (te - ts) : c == 1 ? ts : te;
            fprintf(j, "%s%.9f", i ? "," : "", v);
        }
        fputc(']', j);
    }
    fputs("}}}\n", j);
}

/* CSV: one row per request, times as in the JSONL. */
static void csv_rank(FILE *f, const struct ftio_record *all, size_t n, int64_t shift_ns, long rank)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%ld,write,%.9f,%.9f,%lld\n", rank,
                (double)((int64_t)all[i].t_start + shift_ns) / 1e9,
                (double)((int64_t)all[i].t_end + shift_ns) / 1e9, (long long)all[i].bytes);
}

int wire_cmd_trace(int argc, char **argv)
{
    struct gen g = { 1000000, 1024, 3600, 60, 10, "bench", NULL, NULL, NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return usage(stdout);
        if (!v)
            return usage(stderr);
        if (strcmp(a, "-n") == 0) g.requests = atol(v);
        else if (strcmp(a, "-r") == 0) g.ranks = atol(v);
        else if (strcmp(a, "-d") == 0) g.duration = atof(v);
        else if (strcmp(a, "-p") == 0) g.period = atof(v);
        else if (strcmp(a, "-b") == 0) g.burst = atof(v);
        else if (strcmp(a, "-j") == 0) g.job = v;
        else if (strcmp(a, "-o") == 0) g.out = v;
        else if (strcmp(a, "--jsonl") == 0) g.jsonl = v;
        else if (strcmp(a, "--csv") == 0) g.csv = v;
        else return usage(stderr);
        i++;
    }
    long phases = (long)(g.duration / g.period);
    if (!g.out || g.requests <= 0 || g.ranks <= 0 || phases <= 0 || g.burst <= 0 ||
        g.burst > g.period)
        return usage(stderr);
    FILE *f = fopen(g.out, "wb");
    FILE *j = g.jsonl ? fopen(g.jsonl, "w") : NULL;
    FILE *cf = g.csv ? fopen(g.csv, "w") : NULL;
    if (cf)
        fputs("rank,op,t_start,t_end,bytes\n", cf);
    if (!f || (g.jsonl && !j) || (g.csv && !cf)) {
        perror("ftio-wire trace");
        return 1;
    }
    size_t per_rank_max = (size_t)(g.requests / g.ranks + 1);
    struct ftio_record *rec = calloc(per_rank_max, sizeof *rec);
    struct ftio_wbuf w = { 0 };
    char host[32];
    long written = 0;
    for (long r = 0; r < g.ranks; r++) {
        /* Spread the remainder over the first ranks so the total is exact. */
        long mine = g.requests / g.ranks + (r < g.requests % g.ranks);
        /* Each process has its own monotonic clock: anchor it at a random
         * boot time; its wall anchor jitters by a few ms between ranks. */
        int64_t mono0 = (int64_t)(uniform() * 1e6) * 1000000000ll;
        int64_t real0 = EPOCH_NS + (int64_t)(uniform() * 5e6);
        snprintf(host, sizeof host, "node%04ld", r / 32);
        struct ftio_batch_header h = { .version = 1, .job = g.job, .host = host, .pid = 1000 + r,
                                       .rank = (int32_t)r, .nranks = (int32_t)g.ranks,
                                       .clock_mono = mono0, .clock_real = real0 };
        for (long k = 0; k < mine; k++) {
            /* request k of this rank: phase k % phases, slot k / phases */
            long phase = k % phases, slot = k / phases;
            long slots = mine / phases + 1;
            double len = g.burst / (double)slots;
            double ts = (double)phase * g.period + (double)slot * len + uniform() * 0.1 * len;
            double te = ts + len * (0.5 + 0.4 * uniform());
            struct ftio_record *x = &rec[k];
            memset(x, 0, sizeof *x);
            /* times relative to the wall anchor: monotonic = mono0 + (wall - real0) */
            x->t_start = (uint64_t)(mono0 + (int64_t)(ts * 1e9) - (real0 - EPOCH_NS));
            x->t_end = (uint64_t)(mono0 + (int64_t)(te * 1e9) - (real0 - EPOCH_NS));
            x->bytes = 1 << 20;
            x->offset = (int64_t)k << 20;
            x->op = FTIO_OP_WRITE;
            x->layer = FTIO_LAYER_MPIIO;
            x->file_id = 42;
        }
        for (long k = 0; k < mine; k += BATCH_RECORDS) {
            size_t n = (size_t)(mine - k < BATCH_RECORDS ? mine - k : BATCH_RECORDS);
            h.final = k + (long)n >= mine;
            if (flush_batch(f, &w, &h, rec + k, n) != 0) {
                perror("ftio-wire trace: write");
                return 1;
            }
        }
        if (j && mine > 0)
            jsonl_rank(j, rec, (size_t)mine, real0 - mono0 - EPOCH_NS, g.ranks);
        if (cf && mine > 0)
            csv_rank(cf, rec, (size_t)mine, real0 - mono0 - EPOCH_NS, r);
        written += mine;
    }
    if (fclose(f) != 0 || (j && fclose(j) != 0) || (cf && fclose(cf) != 0)) {
        perror("ftio-wire trace: close");
        return 1;
    }
    ftio_wbuf_free(&w);
    free(rec);
    fprintf(stderr, "ftio-wire trace: %ld requests, %ld ranks, %ld phases of %g s -> %s\n",
            written, g.ranks, phases, g.period, g.out);
    return 0;
}
