/* SPDX-License-Identifier: BSD-3-Clause */
/* paired.h -- the median of the paired measurements of bench/overhead.c and
 * bench/mpi_overhead.c (plain, traced and the clock pair in blocks that
 * alternate inside one process; medians over the rounds). */
#ifndef FTIO_BENCH_PAIRED_H
#define FTIO_BENCH_PAIRED_H

#include <stdlib.h>

static int paired_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (n >= 1); sorts v. */
static inline double paired_median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, paired_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
