/* SPDX-License-Identifier: BSD-3-Clause */
/* xorshift.h -- the one pseudo-random generator of the tests, the wire tool
 * and the benchmarks' trace generators: Marsaglia's xorshift64 (shifts 13,
 * 7, 17).  Header-only, so that every program gets it without a library;
 * the same seed gives the same traces and mutations on every machine.  Not
 * for anything secret. */
#ifndef FTIO_TEST_XORSHIFT_H
#define FTIO_TEST_XORSHIFT_H

#include <stdint.h>

/* Advances *state (never 0) and returns its new value. */
static inline uint64_t ftio_xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
