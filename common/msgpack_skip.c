/* SPDX-License-Identifier: BSD-3-Clause */
/* msgpack_skip.c -- the size of one msgpack value from its headers
 * (msgpack_skip.h): one loop over type bytes, `owed` counting the values
 * still to walk. */
#include "msgpack_skip.h"

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < n; k++)
        v = v << 8 | p[k];
    return v;
}

enum ftio_mp_skip ftio_mp_skip(const uint8_t *p, size_t len, size_t *size)
{
    uint64_t owed = 1;
    size_t i = 0;
    while (owed) {
        if (len - i < owed)
            return FTIO_MP_TRUNC;
        owed--;
        uint8_t b = p[i++];
        uint64_t payload = 0;             /* bytes after the header */
        uint64_t count = 0;               /* a container's items */
        unsigned per_item = 0;            /* values per item: 1 array, 2 map; 0 not a container */
        unsigned len_bytes = 0;           /* a big-endian length or count follows */
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
            continue;                     /* fixint, nil, false, true */
        if ((b & 0xe0) == 0xa0) payload = b & 0x1f;                       /* fixstr */
        else if ((b & 0xf0) == 0x90) { per_item = 1; count = b & 0x0f; }  /* fixarray */
        else if ((b & 0xf0) == 0x80) { per_item = 2; count = b & 0x0f; }  /* fixmap */
        else switch (b) {
            case 0xc4: case 0xd9: len_bytes = 1; break;              /* bin8, str8 */
            case 0xc5: case 0xda: len_bytes = 2; break;
            case 0xc6: case 0xdb: len_bytes = 4; break;
            case 0xc7: len_bytes = 1; payload = 1; break;            /* ext: + its type byte */
            case 0xc8: len_bytes = 2; payload = 1; break;
            case 0xc9: len_bytes = 4; payload = 1; break;
            case 0xcc: case 0xd0: payload = 1; break;                /* ints */
            case 0xcd: case 0xd1: payload = 2; break;
            case 0xca: case 0xce: case 0xd2: payload = 4; break;     /* + float32 */
            case 0xcb: case 0xcf: case 0xd3: payload = 8; break;     /* + float64 */
            case 0xd4: payload = 2; break;                           /* fixext: type + data */
            case 0xd5: payload = 3; break;
            case 0xd6: payload = 5; break;
            case 0xd7: payload = 9; break;
            case 0xd8: payload = 17; break;
            case 0xdc: len_bytes = 2; per_item = 1; break;           /* array16/32 */
            case 0xdd: len_bytes = 4; per_item = 1; break;
            case 0xde: len_bytes = 2; per_item = 2; break;           /* map16/32 */
            case 0xdf: len_bytes = 4; per_item = 2; break;
            default:
                *size = i - 1;
                return FTIO_MP_INVALID;
        }
        if (len_bytes) {
            if (len - i < len_bytes)
                return FTIO_MP_TRUNC;
            uint64_t n = be(p + i, len_bytes);
            i += len_bytes;
            if (per_item)
                count = n;
            else
                payload += n;
        }
        if (per_item) {
            owed += per_item * count;
            if (owed > len - i)
                return FTIO_MP_OVERCLAIM;
            continue;
        }
        if (len - i < payload)
            return FTIO_MP_TRUNC;
        i += payload;
    }
    *size = i;
    return FTIO_MP_OK;
}
