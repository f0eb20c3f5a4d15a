/* SPDX-License-Identifier: BSD-3-Clause */
/* clock.c -- the records' clock: cheap on the application's path, exact in
 * the batches.
 *
 * Every traced call takes two timestamps.  clock_gettime(CLOCK_MONOTONIC)
 * through the vDSO is ~20 ns here (kvm-clock: rdtsc, then the hypervisor's
 * scale); the time-stamp counter alone is one instruction.  So where the
 * CPU says its TSC is invariant (CPUID 0x80000007 EDX bit 8: constant rate,
 * counting in every C-state, the same on every core; what Linux itself
 * relies on) and FTIO_TSC is not 0, the wrappers record raw TSC values
 * (shim.h, ftio_stamp) and the flusher maps them to CLOCK_MONOTONIC ns
 * as it encodes a batch (the encoder applies the line, common/wire.h
 * ftio_wire_timeline): a line through two anchors, (tsc, mono) pairs taken
 * back to back, one 10-20 s old (or the image's start) and one as each
 * batch's first records are taken from the rings, so every record lies
 * between them or microseconds past the second (its error is the anchors'
 * jitter, tens of ns, whatever NTP does to CLOCK_MONOTONIC's rate
 * meanwhile).  Elsewhere
 * (not x86-64, no invariant TSC, FTIO_TSC=0) the stamps are monotonic ns and
 * the mapping is the identity.
 */
#include <stdint.h>
#include "internal.h"
#include "timeutil.h"
#include "wire.h"

int ftio_stamp_tsc FTIO_HOT;

struct anchor {
    uint64_t tsc;
    int64_t  mono;
};

/* The flusher's anchors: base, 10-20 s old once the image is that old
 * (else its start), and mid, which becomes base in turn: the rate is
 * measured over a long span (exact to ~1e-8), yet follows NTP's slewing. */
static struct {
    struct anchor base, mid;
} ck FTIO_WARM;

#define RATE_SPAN_NS (10 * 1000000000ll)

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* glibc (2.33+) keeps the CPUID leaves its dynamic loader read at start:
 * asking it costs nothing, while each CPUID instruction is a trap to the
 * hypervisor in a virtual machine (~6.5 us here; the four of __get_cpuid
 * were ~26 us of every preloaded process's start, bench/README.md "exit
 * latency"). */
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
static int tsc_invariant(void)
{
    return CPU_FEATURE_PRESENT(INVARIANT_TSC);
}
#else
static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}
#endif

/* A (tsc, mono) pair: the monotonic read between two TSC reads, their
 * midpoint; the tightest of three tries (a preempted try is wide). */
static struct anchor take(void)
{
    struct anchor best = { 0, 0 };
    uint64_t width = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = rdtsc();
        int64_t m = ftio_mono_ns();
        uint64_t t1 = rdtsc();
        if (t1 - t0 < width) {
            width = t1 - t0;
            best = (struct anchor){ t0 + (t1 - t0) / 2, m };
        }
    }
    return best;
}
#else
static int tsc_invariant(void) { return 0; }
static struct anchor take(void) { return (struct anchor){ 0, ftio_mono_ns() }; }
#endif

void ftio_clock_init(void)
{
    ftio_stamp_tsc = ftio_cfg.tsc && tsc_invariant();
}

/* The first anchor, when the flusher starts (before its thread exists): a
 * process that records nothing never reads the clock (the vDSO's data pages
 * are two page faults, bench/README.md "exit latency").  Records stamped
 * just before it (the first one) are mapped along the same line. */
void ftio_clock_start(void)
{
    if (ftio_stamp_tsc && !ck.base.tsc)
        ck.base = ck.mid = take();
}

const struct ftio_wire_timeline *ftio_clock_line(struct ftio_wire_timeline *line)
{
    if (!ftio_stamp_tsc)
        return NULL;
    /* Taken after the first records of the batch were found published:
     * they were stamped before it (or, on a core whose counter is a little
     * ahead, just after: the same line), and those the batch takes after
     * them, microseconds later, lie on the same line a little past it. */
    struct anchor now = take();
    int64_t dt = (int64_t)(now.tsc - ck.base.tsc), dm = now.mono - ck.base.mono;
    /* ns per tick as a 32.32 fixed-point factor: a multiply and a shift per
     * stamp (common/wire_encode.c), no division. */
    __int128 mult = dt > 0 && dm > 0 ? ((__int128)dm << 32) / dt : 0;
    *line = (struct ftio_wire_timeline){ now.tsc, now.mono, mult <= INT64_MAX ? (int64_t)mult : 0 };
    if (now.mono - ck.mid.mono > RATE_SPAN_NS) {
        ck.base = ck.mid;
        ck.mid = now;
    }
    return line;
}
