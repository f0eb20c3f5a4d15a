/* SPDX-License-Identifier: BSD-3-Clause */
/* numfmt.h -- numbers written by hand, without stdio: the shim's constructor
 * and its flusher's short path (libtrace/), where snprintf's code was pages
 * of libc a process that prints nothing faulted in for them (bench/README.md
 * "exit latency"), and common/app_key.c, which that path calls.  Nothing
 * here allocates or takes a lock. */
#ifndef FTIO_NUMFMT_H
#define FTIO_NUMFMT_H

/* v in decimal at p, never past end (the digits that fit, most significant
 * first); returns the end of what was written.  Not terminated. */
char *ftio_put_ulong(char *p, char *end, unsigned long v);
/* ... in hex (lower case), at least `width` digits (zero-padded, at most
 * 16): ftio_put_hex(p, p + 16, v, 16) is "%016llx". */
char *ftio_put_hex(char *p, char *end, unsigned long long v, int width);

#endif
