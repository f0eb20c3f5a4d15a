/* SPDX-License-Identifier: BSD-3-Clause */
/* ftio.h -- explicit flush points for programs traced by libftio.so.
 *
 * The functions live in libftio.so (LD_PRELOAD) and are declared weak here, so
 * a program that includes this header links and runs without the shim: the
 * ftio_try_* helpers below test the pointer and do nothing when it is absent.
 * Call the plain names only after checking ftio_loaded().
 *
 *   #include <ftio.h>
 *   ...
 *   write_checkpoint();
 *   ftio_try_flush_named("checkpoint");   // local, non-collective
 *
 * ftio_flush()          send everything recorded so far now (returns once it
 *                       is sent or spooled, bounded); 0, or -1 when tracing is
 *                       disabled.
 * ftio_flush_named(s)   the same, tagging the batch with the label s ("mark").
 * ftio_mark(s)          synonym of ftio_flush_named.
 * ftio_pause/resume     stop/restart recording in this process.
 * iotrace_summary()     TMIO's name for a flush point (alias of ftio_flush).
 * Fortran:              call ftio_flush()   (symbols ftio_flush_, ftio_flush__)
 */
#ifndef FTIO_H
#define FTIO_H

#ifdef __cplusplus
extern "C" {
#endif

extern int  ftio_flush(void) __attribute__((weak));
extern int  ftio_flush_named(const char *mark) __attribute__((weak));
extern int  ftio_mark(const char *label) __attribute__((weak));
extern void ftio_pause(void) __attribute__((weak));
extern void ftio_resume(void) __attribute__((weak));
extern int  iotrace_summary(void) __attribute__((weak));

/* 1 when libftio.so is loaded in this process. */
static inline int ftio_loaded(void)
{
    return ftio_flush != 0;
}

static inline int ftio_try_flush(void)
{
    return ftio_flush ? ftio_flush() : -1;
}

static inline int ftio_try_flush_named(const char *mark)
{
    return ftio_flush_named ? ftio_flush_named(mark) : -1;
}

static inline void ftio_try_pause(void)
{
    if (ftio_pause)
        ftio_pause();
}

static inline void ftio_try_resume(void)
{
    if (ftio_resume)
        ftio_resume();
}

#ifdef __cplusplus
}
#endif

#endif
