/* SPDX-License-Identifier: BSD-3-Clause */
/* numfmt.c -- decimal and hex without stdio (numfmt.h). */
#include "numfmt.h"

char *ftio_put_ulong(char *p, char *end, unsigned long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof digits);
    while (n && p < end)
        *p++ = digits[--n];
    return p;
}

char *ftio_put_hex(char *p, char *end, unsigned long long v, int width)
{
    char digits[16];
    int n = 0;
    do
        digits[n++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) && n < (int)sizeof digits);
    while (n < width && n < (int)sizeof digits)
        digits[n++] = '0';
    while (n && p < end)
        *p++ = digits[--n];
    return p;
}
