/* SPDX-License-Identifier: BSD-3-Clause */
/* units.h -- numbers as a person reads them: bytes in B/KiB/MiB/GiB/TiB,
 * durations in s/min/h/d, rates per second.  Used wherever ftio prints for a
 * human (`ftio sub`, `ftiod --status`, `ftio report`, the plots' axes); JSON
 * output keeps the raw numbers.
 * Each writes into buf (at most len bytes, always terminated) and returns it;
 * NAN prints as "-". */
#ifndef FTIO_UNITS_H
#define FTIO_UNITS_H

#include <stddef.h>

#define FTIO_UNITS_LEN 32   /* a buffer that fits every result */

/* The binary-unit ladder, written once: the largest of B, KiB, MiB, GiB,
 * TiB, PiB, EiB not above |bytes| (B below 1 KiB and for NAN).
 * Sets *div to its size in bytes (1024^k) and returns its symbol; the ftio
 * report, the SVG axes and ftio_fmt_bytes print with it. */
const char *ftio_byte_unit(double bytes, double *div);

const char *ftio_fmt_bytes(double bytes, char *buf, size_t len);     /* "12.0 MiB" */
const char *ftio_fmt_duration(double s, char *buf, size_t len);      /* "2.50 s", "3.2 min" */
const char *ftio_fmt_rate(double bytes_per_s, char *buf, size_t len); /* "1.5 GiB/s" */
const char *ftio_fmt_count(double n, char *buf, size_t len);         /* "12345", "1.23 M" */

#endif
