/* SPDX-License-Identifier: BSD-3-Clause */
/* zmtp_wire.h -- the ZMTP 3.0 wire (RFC 23/ZMTP), spoken without libzmq by
 * both ends of ftio's short path: the shim's client (libtrace/zmtp.c) and
 * ftiod's own listener (predictor/daemon/zmtp_listen.c, docs/PROTOCOL.md
 * §1.6).  What the two share lives here once: the greeting (signature,
 * version 3.0, the NULL mechanism) and its check, the frame flags, a frame
 * header read and written.  Each end keeps its own READY (DEALER / ROUTER)
 * and its own buffering.  Header only: the shim links no extra object.
 */
#ifndef FTIO_ZMTP_WIRE_H
#define FTIO_ZMTP_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ZMTP_GREETING_LEN 64
#define ZMTP_MORE    1
#define ZMTP_LONG    2
#define ZMTP_COMMAND 4
#define ZMTP_HEAD_MAX 9                 /* a LONG frame's header */
/* ftiod's own listener beside an ipc://PATH --listen is at PATH and this
 * (docs/PROTOCOL.md §1.6): the shim connects to it first. */
#define ZMTP_DIRECT_SUFFIX ".zmtp"

/* The 64-byte greeting of a NULL-mechanism peer (as-server 0), to open an
 * initialiser that goes on with that peer's READY command. */
#define ZMTP_GREETING_NULL                                                        \
    0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f,                  /* signature */          \
    3, 0,                                                /* version 3.0 */        \
    'N', 'U', 'L', 'L', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* mech */ \
    0,                                                   /* as-server */          \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

/* NULL when the peer's greeting g (ZMTP_GREETING_LEN bytes) is one we speak
 * with, else why not. */
static inline const char *zmtp_greeting_refused(const unsigned char *g)
{
    static const char null_mech[20] = "NULL";
    if (g[0] != 0xff || g[9] != 0x7f)
        return "the peer does not speak ZMTP 3";
    if (g[10] < 3)
        return "the peer speaks ZMTP older than 3";
    if (memcmp(g + 12, null_mech, sizeof null_mech) != 0)
        return "the peer's mechanism is not NULL";
    return NULL;
}

/* Read the frame header at p (n bytes there): its flags and body size.
 * Returns the header's length, 0 when more bytes are needed, -1 for
 * reserved flags. */
static inline int zmtp_frame_head(const unsigned char *p, size_t n, unsigned *flags, uint64_t *size)
{
    if (n < 2)
        return 0;
    *flags = p[0];
    if (*flags & ~(unsigned)(ZMTP_MORE | ZMTP_LONG | ZMTP_COMMAND))
        return -1;
    size_t hl = *flags & ZMTP_LONG ? 9 : 2;
    if (n < hl)
        return 0;
    *size = p[1];
    if (*flags & ZMTP_LONG)
        for (size_t i = 2; i < 9; i++)
            *size = *size << 8 | p[i];
    return (int)hl;
}

/* Write a message frame's header for len bytes into h (ZMTP_HEAD_MAX);
 * returns its length. */
static inline size_t zmtp_frame_put_head(unsigned char *h, int more, size_t len)
{
    unsigned m = more ? ZMTP_MORE : 0;
    if (len < 256) {
        h[0] = (unsigned char)m;
        h[1] = (unsigned char)len;
        return 2;
    }
    h[0] = (unsigned char)(m | ZMTP_LONG);
    for (int b = 0; b < 8; b++)
        h[1 + b] = (unsigned char)((uint64_t)len >> (56 - 8 * b));
    return 9;
}

#endif
