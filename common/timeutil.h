/* SPDX-License-Identifier: BSD-3-Clause */
/* timeutil.h -- clock helpers shared by the shim, the daemon and the tools.
 *
 * Record times are CLOCK_MONOTONIC nanoseconds of the sending process; each
 * batch carries an anchor [monotonic, realtime] taken back to back so that a
 * receiver can map them to wall time (PROTOCOL.md §1):
 *     wall_ns = real_anchor + (t - mono_anchor)
 * Header-only (static inline) so the shim's hot path can inline the reads.
 */
#ifndef FTIO_TIMEUTIL_H
#define FTIO_TIMEUTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define FTIO_NS_PER_SEC 1000000000ll

static inline int64_t ftio_timespec_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * FTIO_NS_PER_SEC + (int64_t)ts->tv_nsec;
}

static inline int64_t ftio_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ftio_timespec_ns(&ts);
}

static inline int64_t ftio_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ftio_timespec_ns(&ts);
}

/* Take the [monotonic, realtime] anchor pair.  The two reads are taken back to
 * back and the monotonic one is the midpoint of two reads around the realtime
 * read, which halves the error from being preempted between them. */
static inline void ftio_clock_anchor(int64_t *mono, int64_t *real)
{
    int64_t m0 = ftio_mono_ns();
    *real = ftio_real_ns();
    int64_t m1 = ftio_mono_ns();
    *mono = m0 + (m1 - m0) / 2;
}

/* A batch's wall-clock base: wall ns = monotonic ns + base, with
 * base = clock_real - clock_mono + skew_ns (PROTOCOL.md §1).  Header values
 * come from untrusted senders and spool files: false when they overflow. */
static inline bool ftio_wall_base(int64_t clock_real, int64_t clock_mono, int64_t skew_ns,
                                  int64_t *base)
{
    int64_t b;
    if (__builtin_sub_overflow(clock_real, clock_mono, &b) ||
        __builtin_add_overflow(b, skew_ns, &b))
        return false;
    *base = b;
    return true;
}

/* Wall ns of monotonic time t under base; false when it overflows. */
static inline bool ftio_wall_ns(uint64_t t, int64_t base, int64_t *out)
{
    if (t > (uint64_t)INT64_MAX)
        return false;
    return !__builtin_add_overflow((int64_t)t, base, out);
}

/* Monotonic ns of a process -> Unix epoch seconds, given its anchor. */
static inline double ftio_mono_to_epoch(int64_t t, int64_t mono_anchor, int64_t real_anchor)
{
    return ((double)real_anchor + (double)(t - mono_anchor)) / 1e9;
}

#endif
