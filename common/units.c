/* SPDX-License-Identifier: BSD-3-Clause */
/* units.c -- human units for text output (units.h). */
#include <math.h>
#include <stdio.h>
#include "units.h"

const char *ftio_byte_unit(double bytes, double *div)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t u = 0;
    double d = 1, v = isnan(bytes) ? 0 : fabs(bytes);
    while (v >= 1024 * d && u + 1 < sizeof unit / sizeof unit[0]) {
        d *= 1024;
        u++;
    }
    *div = d;
    return unit[u];
}

const char *ftio_fmt_bytes(double b, char *buf, size_t len)
{
    if (!isfinite(b)) {
        snprintf(buf, len, "-");
        return buf;
    }
    double div;
    const char *unit = ftio_byte_unit(b, &div);
    double v = fabs(b) / div;
    if (div == 1)
        snprintf(buf, len, "%.0f B", b);
    else
        snprintf(buf, len, "%s%.*f %s", b < 0 ? "-" : "", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit);
    return buf;
}

const char *ftio_fmt_duration(double s, char *buf, size_t len)
{
    double a = fabs(s);
    const char *sign = s < 0 ? "-" : "";
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (a < 0.001 && a > 0)
        snprintf(buf, len, "%s%.0f us", sign, a * 1e6);
    else if (a < 1 && a > 0)
        snprintf(buf, len, "%s%.0f ms", sign, a * 1e3);
    else if (a < 120)
        snprintf(buf, len, "%s%.*f s", sign, a < 10 ? 2 : 1, a);
    else if (a < 7200)
        snprintf(buf, len, "%s%.1f min", sign, a / 60);
    else if (a < 172800)
        snprintf(buf, len, "%s%.1f h", sign, a / 3600);
    else
        snprintf(buf, len, "%s%.1f d", sign, a / 86400);
    return buf;
}

const char *ftio_fmt_rate(double r, char *buf, size_t len)
{
    char b[FTIO_UNITS_LEN];
    if (!isfinite(r))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s/s", ftio_fmt_bytes(r, b, sizeof b));
    return buf;
}

const char *ftio_fmt_count(double n, char *buf, size_t len)
{
    double a = fabs(n);
    if (!isfinite(n))
        snprintf(buf, len, "-");
    else if (a < 1e6)
        snprintf(buf, len, "%.0f", n);
    else if (a < 1e9)
        snprintf(buf, len, "%.2f M", n / 1e6);
    else if (a < 1e12)
        snprintf(buf, len, "%.2f G", n / 1e9);
    else
        snprintf(buf, len, "%.3g", n);
    return buf;
}
