/* SPDX-License-Identifier: BSD-3-Clause */
/* store_bench.c -- the memory of runs' store at a site's scale (bench/memory,
 * bench/README.md "memory"): what 10^5 applications cost on disk, how long a
 * lookup takes (the history thread's work at a job's first batch), and how
 * long the store takes to open.
 *
 *   memory-store-bench STORE [APPS] [RUNS]
 *
 * Fills STORE (a SQLite file, or a postgresql:// URI) with APPS applications
 * (default 100000) of 1000 users, each with RUNS runs (default 3) of two
 * answers (the write mode's own and one activity's), one record per run as
 * ftiod makes them; then, on a store opened afresh: the time to open it and
 * 10000 lookups of each kind, an application known by its exact arguments
 * (args), one known by its normalised arguments only (args_norm: the exact
 * level misses first), an unknown one (every level misses), in random
 * order; prints one JSON object (times in microseconds: median, p90, p99).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "history/history.h"
#include "kit/xorshift.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void key_of(long i, char prog[32], char args[17], char norm[17])
{
    snprintf(prog, 32, "app%ld", i % 5000);      /* programs shared by users */
    snprintf(args, 17, "%016lx", (unsigned long)(i * 2654435761u));
    snprintf(norm, 17, "%016lx", (unsigned long)(i * 40503u + 7));
}

static void stats(const char *name, double *t, size_t n, int last)
{
    qsort(t, n, sizeof *t, cmp);
    printf("\"%s\": {\"median\": %.1f, \"p90\": %.1f, \"p99\": %.1f}%s", name, t[n / 2],
           t[(size_t)(0.9 * (double)n)], t[(size_t)(0.99 * (double)n)], last ? "" : ", ");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: memory-store-bench STORE [APPS] [RUNS]\n");
        return 2;
    }
    const char *spec = argv[1];
    long napps = argc > 2 ? atol(argv[2]) : 100000, nruns = argc > 3 ? atol(argv[3]) : 3;
    char err[512];
    struct ftio_store *h = ftio_store_open(spec, 5000, false, err, sizeof err);
    if (!h) {
        fprintf(stderr, "memory-store-bench: %s\n", err);
        return 1;
    }
    double t0 = now_us();
    for (long r = 0; r < nruns; r++)
        for (long i = 0; i < napps; i++) {
            char prog[32], args[17], norm[17], exe[64], job[32];
            key_of(i, prog, args, norm);
            snprintf(exe, sizeof exe, "/home/user%ld/bin/%s", i % 1000, prog);
            snprintf(job, sizeof job, "%ld.%ld", i, r);
            struct ftio_store_answer a[2] = {
                { 0, "", 10 + r * 0.1, 0.95, 2, 1e9, 2.5, 30 },
                { 0, "/scratch/run/restart.#.bin", 60, 0.9, 2, 4e9, 8, 60 },
            };
            struct ftio_store_run run = {
                .app = { i % 1000, prog, exe, args, norm, "" }, .job = job, .source = "bench",
                .exe_id = "fe00:1234:5678", .start = 1.8e9 + (double)(r * napps + i),
                .end = 1.8e9 + (double)(r * napps + i) + 3600, .nranks = 64, .nanswers = 2, .answers = a,
            };
            if (ftio_store_record(h, &run, 0, run.end, NULL) != 0) {
                fprintf(stderr, "memory-store-bench: record: %s\n", ftio_store_error(h));
                return 1;
            }
        }
    double fill_s = (now_us() - t0) * 1e-6;
    ftio_store_close(h);

    double open0 = now_us();
    if (!(h = ftio_store_open(spec, 5000, false, err, sizeof err))) {
        fprintf(stderr, "memory-store-bench: %s\n", err);
        return 1;
    }
    double open_ms = (now_us() - open0) * 1e-3;
    enum { N = 10000 };
    static double t[3][N];
    uint64_t rng = 42;
    struct ftio_store_match m = { 0 };
    int wrong = 0;
    for (int k = 0; k < N; k++)
        for (int kind = 0; kind < 3; kind++) {
            long i = (long)(ftio_xorshift64(&rng) % (uint64_t)napps);
            char prog[32], args[17], norm[17];
            key_of(i, prog, args, norm);
            if (kind == 1)
                snprintf(args, sizeof args, "ffffffffffffffff");        /* another run's numbers */
            if (kind == 2)
                snprintf(prog, sizeof prog, "unknown%ld", i);
            struct ftio_store_app key = { i % 1000, prog, "", args, norm, "" };
            double s = now_us();
            if (ftio_store_lookup(h, &key, &m) != 0) {
                fprintf(stderr, "memory-store-bench: lookup: %s\n", ftio_store_error(h));
                return 1;
            }
            t[kind][k] = now_us() - s;
            enum ftio_prior_level want[3] = { FTIO_PRIOR_ARGS, FTIO_PRIOR_ARGS_NORM, FTIO_PRIOR_NONE };
            wrong += m.level != want[kind] || (kind < 2 && m.nruns != (size_t)nruns);
        }
    ftio_store_match_free(&m);
    struct ftio_store_stats st;
    ftio_store_stats(h, &st);
    ftio_store_close(h);
    struct stat sb;
    double mb = ftio_store_kind_of(spec) == FTIO_STORE_SQLITE && stat(spec, &sb) == 0
                    ? (double)sb.st_size / 1048576.0 : NAN;
    printf("{\"store\": \"%s\", \"apps\": %lld, \"runs\": %lld, \"fill_s\": %.1f, \"file_mb\": %.1f, "
           "\"open_ms\": %.2f, \"wrong_levels\": %d, \"lookup_us\": {",
           ftio_store_kind_of(spec) == FTIO_STORE_SQLITE ? "sqlite" : "postgresql", (long long)st.apps,
           (long long)st.runs, fill_s, mb, open_ms, wrong);
    stats("args", t[0], N, 0);
    stats("args_norm", t[1], N, 0);
    stats("unknown", t[2], N, 1);
    printf("}}\n");
    return wrong ? 1 : 0;
}
