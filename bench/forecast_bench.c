/* SPDX-License-Identifier: BSD-3-Clause */
/* forecast_bench.c -- what the machine forecast costs (bench/README.md
 * "contention"): ftio_fc_compute() for N live jobs' phase trains (N = 10^3,
 * 10^4, 10^5; sitescale's jobs: periods 10-600 s log-uniform, a phase of
 * min(10, P/4) s, half of them also reading, on 4 file systems) over a
 * 600-s horizon at 1-s steps with the collisions, timed with the thread's
 * CPU clock, median and max of 21 runs.  The machine thread's tick adds the
 * copying of each job's trains under the lock and the message (ftiod's own
 * `cost` field, bench/sitescale.sh with --machine-log 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "forecast/forecast.h"
#include "../tests/kit/xorshift.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    const size_t sizes[] = { 1000, 10000, 100000 };
    printf("%-8s %-8s %12s %12s %10s\n", "jobs", "trains", "median ms", "max ms", "collisions");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t jobs = sizes[s], n = 0;
        struct ftio_fc_train *tr = calloc(2 * jobs, sizeof *tr);
        uint64_t rng = 42;
        double now = 1.8e9;
        for (size_t j = 0; j < jobs; j++) {
            double u = (double)(ftio_xorshift64(&rng) % 100000) / 100000.0;
            double T = 10 * exp(u * log(60.0)), d = fmin(10, T / 4);
            double start = now + T * (double)(ftio_xorshift64(&rng) % 1000) / 1000.0;
            for (int mode = 0; mode < 1 + (int)(j % 2); mode++)
                tr[n++] = (struct ftio_fc_train){
                    .job = (uint32_t)j, .fs = (uint16_t)(j % 4), .mode = (uint8_t)mode,
                    .start = start + (mode ? T / 2 : 0), .period = T, .duration = d,
                    .bytes = d * 1048576, .confidence = 0.95, .jitter = 0.3, .cv = 0.02 };
        }
        struct ftio_fc f = { 0 };
        double t[21];
        for (int r = 0; r < 21; r++) {
            double t0 = cpu_now();
            if (ftio_fc_compute(&f, tr, n, 4, floor(now), 600, 64, 0.5) != 0) {
                fprintf(stderr, "forecast_bench: out of memory\n");
                return 1;
            }
            t[r] = cpu_now() - t0;
        }
        qsort(t, 21, sizeof *t, cmp);
        printf("%-8zu %-8zu %12.2f %12.2f %10llu\n", jobs, n, 1000 * t[10], 1000 * t[20],
               (unsigned long long)f.ncoll_total);
        ftio_fc_free(&f);
        free(tr);
    }
    return 0;
}
