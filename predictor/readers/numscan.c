/* SPDX-License-Identifier: BSD-3-Clause */
/* numscan.c -- decimal numbers for the text readers (readers/tmio_json.c,
 * readers/csv.c): a few ns per number instead of strtod()'s ~60, and always
 * the value strtod() gives (correctly rounded), so the fast readers read
 * exactly the numbers the Jansson-based reader read.
 *
 * Fast path (Clinger): at most 19 significant digits whose integer m is
 * <= 2^53, and a decimal exponent e with |e| <= 22: m and 10^|e| are exact
 * doubles, so the one IEEE multiplication or division rounds correctly.
 * %.9f timestamps and byte counts always take it.  Up to 19 digits (m <
 * 2^64, e.g. %.9f rates), where the platform's long double has a 64-bit
 * significand (x86-64): m and 10^|e| are exact there too, the one
 * operation rounds to 64 bits, and rounding that to a double is correct
 * unless the 64-bit result lies within one unit of a midpoint between two
 * doubles (its 11 extra bits 0x3ff..0x401), when we ask strtod().
 * Anything else (more digits, huge exponents) is copied and handed to
 * strtod().
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static inline bool is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

static double slow(const char *p, size_t n)
{
    char small[64];
    char *b = n < sizeof small ? small : malloc(n + 1);
    if (!b)
        return NAN;   /* out of memory: reported as a bad number */
    memcpy(b, p, n);
    b[n] = 0;
    double v = strtod(b, NULL);
    if (b != small)
        free(b);
    return v;
}

/* m * 10^exp for m < 2^64, |exp| <= 22, through a 64-bit significand;
 * false when the result might round differently than strtod(). */
static bool wide(uint64_t m, int exp, double *v)
{
#if LDBL_MANT_DIG == 64
    long double x = exp < 0 ? (long double)m / (long double)pow10_exact[-exp]
                            : (long double)m * (long double)pow10_exact[exp];
    int e2;
    uint64_t sig = (uint64_t)ldexpl(frexpl(x, &e2), 64);
    if ((sig & 0x7ff) - 0x3ff <= 2)
        return false;
    *v = (double)x;
    return true;
#else
    (void)m; (void)exp; (void)v;
    return false;
#endif
}

const char *ftio_scan_number(const char *p, const char *end, bool json, double *out)
{
    const char *s = p;
    bool neg = false;
    if (s < end && (*s == '-' || (!json && *s == '+'))) {
        neg = *s == '-';
        s++;
    }
    uint64_t m = 0;
    int kept = 0, exp = 0;
    bool exact = true, integer = true;
    const char *d0 = s;
    if (json && s < end && *s == '0') {
        s++;                                  /* JSON: no leading zeros */
    } else {
        for (; s < end && is_digit(*s); s++) {
            if (kept < 19) {
                m = m * 10 + (uint64_t)(*s - '0');
                kept += m != 0;
            } else {
                exact = false;
            }
        }
    }
    size_t int_digits = (size_t)(s - d0);
    if (s < end && *s == '.') {
        integer = false;
        const char *f0 = ++s;
        for (; s < end && is_digit(*s); s++) {
            if (kept < 19) {
                m = m * 10 + (uint64_t)(*s - '0');
                kept += m != 0;
                exp--;
            } else if (*s != '0') {
                exact = false;
            }
        }
        if (s == f0 && (json || int_digits == 0))
            return NULL;                      /* "1." (JSON), "." */
    } else if (int_digits == 0) {
        return NULL;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        integer = false;
        const char *e = s + 1;
        bool eneg = false;
        if (e < end && (*e == '-' || *e == '+'))
            eneg = *e++ == '-';
        if (e >= end || !is_digit(*e))
            return NULL;
        int x = 0;
        for (; e < end && is_digit(*e); e++)
            if (x < 100000)
                x = x * 10 + (*e - '0');
        exp += eneg ? -x : x;
        s = e;
    }
    double v;
    if (m == 0 && exact)
        v = 0;
    else if (exact && m <= (1ull << 53) && exp >= -22 && exp <= 22)
        v = exp < 0 ? (double)m / pow10_exact[-exp] : (double)m * pow10_exact[exp];
    else if (!exact || exp < -22 || exp > 22 || !wide(m, exp, &v))
        v = fabs(slow(p, (size_t)(s - p)));
    /* JSON integers are read as integers, so "-0" is 0 (as Jansson does). */
    *out = neg && !(json && integer && v == 0) ? -v : v;
    return s;
}
