/* SPDX-License-Identifier: BSD-3-Clause */
/* msgpack_skip.h -- the size of one msgpack value, from its headers alone.
 *
 * Both hand-checked msgpack inputs use it: the wire decoder (wire_decode.c)
 * skips values it does not know, and the TMIO reader (readers/tmio_msgpack.c)
 * checks an item before msgpack-c, which allocates an array's or a map's
 * objects from the count in its header before reading them (five hostile
 * bytes, an array32 of 2^32 items, would ask for tens of GB).
 *
 * No recursion (a counter of values still owed), no allocation, every read
 * bounds-checked: each owed value takes at least one byte, so a container
 * that claims more items than bytes remain is found at its header.
 */
#ifndef FTIO_MSGPACK_SKIP_H
#define FTIO_MSGPACK_SKIP_H

#include <stddef.h>
#include <stdint.h>

enum ftio_mp_skip {
    FTIO_MP_OK        = 0,   /* *size = the value's bytes */
    FTIO_MP_TRUNC     = 1,   /* the buffer ends inside the value */
    FTIO_MP_OVERCLAIM = 2,   /* a container claims more items than bytes remain (also a truncation) */
    FTIO_MP_INVALID   = -1,  /* *size = offset of a type byte msgpack does not define (0xc1) */
};

/* Walks the value at p[0..len).  See enum ftio_mp_skip for the results. */
enum ftio_mp_skip ftio_mp_skip(const uint8_t *p, size_t len, size_t *size);

#endif
