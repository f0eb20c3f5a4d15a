/* SPDX-License-Identifier: BSD-3-Clause */
/* bucket.h -- the scatter step of a bucket sort by linear interpolation of
 * a double key, for any record type: the sweep's events (analysis/signal.c)
 * and the phase tracker's segments (forecast/phase_track.c) sort by time
 * this way, each then finishing its own buckets.
 *
 * FTIO_BUCKET_SCATTER(src, dst, n, field, lo, scale, nb, at) copies src[0, n)
 * into dst, bucket by bucket, keeping the input order inside a bucket:
 * bucket b holds the keys in [lo + b / scale, lo + (b + 1) / scale), the last
 * one everything above.  at[] has nb + 1 zeroed entries; afterwards at[b] is
 * one past bucket b's last record in dst.  lo and scale must be finite and
 * every key finite and >= lo (the callers check). */
#ifndef FTIO_BUCKET_H
#define FTIO_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/* Through a signed integer: (x - lo) * scale is in [0, nb] (x >= lo, scale =
 * buckets / span), where both conversions give the same, and x86-64 converts
 * to a signed integer in one instruction (to unsigned: a compare, a branch
 * and a second conversion, twice per key in a scatter). */
static inline size_t ftio_bucket_of(double x, double lo, double scale, size_t nb)
{
    size_t b = (size_t)(int64_t)((x - lo) * scale);
    return b < nb ? b : nb - 1;
}

/* The callers' check that every key of a pass is finite, folded into the
 * pass: acc starts at 0 and takes each key's x - x, which is 0 for a finite
 * x and NaN for an infinite or NaN one (and NaN stays), so acc == 0 at the
 * end when every key was finite; two instructions a key, not isfinite()'s
 * test and flag. */
static inline double ftio_finite_acc(double acc, double x)
{
    return acc + (x - x);
}

#define FTIO_BUCKET_SCATTER(src, dst, n, field, lo, scale, nb, at)                    \
    do {                                                                              \
        for (size_t i_ = 0; i_ < (n); i_++)                                           \
            (at)[ftio_bucket_of((src)[i_].field, (lo), (scale), (nb)) + 1]++;         \
        for (size_t b_ = 0; b_ < (nb); b_++)                                          \
            (at)[b_ + 1] += (at)[b_];                                                 \
        for (size_t i_ = 0; i_ < (n); i_++)                                           \
            (dst)[(at)[ftio_bucket_of((src)[i_].field, (lo), (scale), (nb))]++] = (src)[i_]; \
    } while (0)

#endif
