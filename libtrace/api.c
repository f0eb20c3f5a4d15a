/* SPDX-License-Identifier: BSD-3-Clause */
/* api.c -- the explicit API of include/ftio.h, exported from libftio.so.
 *
 * Flush points are local (never collective): ftio_flush() hands everything
 * recorded so far to the flusher and returns once it is sent or spooled
 * (bounded by FTIO_EXIT_WAIT_MS + 1 s).  ftio_flush_named() does the same and tags
 * the batch with a "mark" (PROTOCOL.md §1).  iotrace_summary is TMIO's name
 * for a flush point, so TMIO-instrumented codes work unchanged; ftio_flush_
 * and ftio_flush__ are the Fortran bindings (`call ftio_flush()`).
 */
#include "ftio.h"
#include "internal.h"

FTIO_EXPORT int ftio_flush(void)
{
    if (ftio_cfg.disable || !ftio_fdt)
        return -1;
    ftio_flush_now(NULL, 1);
    return 0;
}

FTIO_EXPORT int ftio_flush_named(const char *mark)
{
    if (ftio_cfg.disable || !ftio_fdt)
        return -1;
    ftio_flush_now(mark ? mark : "", 1);
    return 0;
}

FTIO_EXPORT int ftio_mark(const char *label)
{
    return ftio_flush_named(label);
}

FTIO_EXPORT void ftio_pause(void)
{
    ftio_set_paused(1);
}

FTIO_EXPORT void ftio_resume(void)
{
    ftio_set_paused(0);
}

FTIO_EXPORT int iotrace_summary(void) __attribute__((alias("ftio_flush")));

FTIO_EXPORT void ftio_flush_(void)
{
    ftio_flush();
}

FTIO_EXPORT void ftio_flush__(void)
{
    ftio_flush();
}
