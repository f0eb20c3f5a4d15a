/* log.c -- ftiod's log lines: one line per event on stderr, and a rate
 * limiter so that a flood of hostile messages costs one line per second, not
 * one per message (the counters in `ftiod --status` keep the full count). */
#include <stdarg.h>
#include <stdio.h>
#include "daemon.h"
#include "timeutil.h"

double ftiod_now(void)
{
    return (double)ftio_mono_ns() * 1e-9;
}

static void vlog(const char *fmt, va_list ap, uint64_t suppressed)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    if (suppressed)
        fprintf(stderr, "ftiod: %s (%llu similar messages suppressed)\n", line,
                (unsigned long long)suppressed);
    else
        fprintf(stderr, "ftiod: %s\n", line);
}

void ftiod_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap, 0);
    va_end(ap);
}

void ftiod_log_rl(struct ftiod_ratelimit *rl, const char *fmt, ...)
{
    double now = ftiod_now();
    if (rl->last > 0 && now - rl->last < 1.0) {
        rl->suppressed++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap, rl->suppressed);
    va_end(ap);
    rl->last = now;
    rl->suppressed = 0;
}
