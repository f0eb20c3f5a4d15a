/* SPDX-License-Identifier: BSD-3-Clause */
/* log.c -- ftiod's diagnostics: one line per event on stderr, with a level,
 * and a rate limiter so that a flood of hostile messages costs one line per
 * second, not one per message (the counters in `ftiod --status` keep the
 * full count).
 *
 * A line is
 *     2026-11-24T23:50:01.123Z ftiod[4711] warning: message
 * (UTC, milliseconds), or, when stderr is the journal (systemd sets
 * JOURNAL_STREAM to its device:inode), "<4>message": the sd-daemon(3)
 * priority prefix, which journald turns into the entry's priority and
 * stamps itself.  Control characters in a message (a hostile job id or host
 * name) become '?', so nobody can forge a line.  Each line is one write(2),
 * so lines of the two threads never interleave.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "daemon.h"
#include "timeutil.h"

double ftiod_now(void)
{
    return (double)ftio_mono_ns() * 1e-9;
}

static bool to_journal;
static long log_pid;             /* ftiod never forks */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

/* Is stderr the stream systemd connected to the journal?  A JOURNAL_STREAM
 * inherited by a process whose stderr was redirected elsewhere does not
 * count (sd_journal_stream_fd(3)). */
static void log_init(void)
{
    log_pid = (long)getpid();
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    to_journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(2, &st) == 0 &&
                 (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static const char *level_name(enum ftiod_level level)
{
    switch (level) {
    case FTIOD_ERROR: return "error";
    case FTIOD_WARNING: return "warning";
    case FTIOD_NOTICE: return "notice";
    case FTIOD_DEBUG: return "debug";
    case FTIOD_INFO: break;
    }
    return "info";
}

static void vlog(enum ftiod_level level, const char *fmt, va_list ap, uint64_t suppressed)
{
    pthread_once(&log_once, log_init);
    char msg[1024];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n < 0)
        return;
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';

    char line[1280];
    size_t len;
    if (to_journal) {
        len = (size_t)snprintf(line, sizeof line, "<%d>", (int)level);
    } else {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        len = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
        len += (size_t)snprintf(line + len, sizeof line - len, ".%03ldZ ftiod[%ld] %s: ",
                                ts.tv_nsec / 1000000, log_pid, level_name(level));
    }
    if (suppressed)
        len += (size_t)snprintf(line + len, sizeof line - len,
                                "%s (%llu similar messages suppressed)", msg,
                                (unsigned long long)suppressed);
    else
        len += (size_t)snprintf(line + len, sizeof line - len, "%s", msg);
    if (len > sizeof line - 2)
        len = sizeof line - 2;          /* truncated: still one line */
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(2, line + off, len - off);
        if (w <= 0)
            return;                     /* nowhere to say it */
        off += (size_t)w;
    }
}

void ftiod_log_at(enum ftiod_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap, 0);
    va_end(ap);
}

void ftiod_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(FTIOD_INFO, fmt, ap, 0);
    va_end(ap);
}

static void vlog_rl(struct ftiod_ratelimit *rl, enum ftiod_level level, const char *fmt,
                    va_list ap)
{
    double now = ftiod_now();
    if (rl->last > 0 && now - rl->last < 1.0) {
        rl->suppressed++;
        return;
    }
    vlog(level, fmt, ap, rl->suppressed);
    rl->last = now;
    rl->suppressed = 0;
}

void ftiod_log_rl(struct ftiod_ratelimit *rl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_rl(rl, FTIOD_WARNING, fmt, ap);
    va_end(ap);
}

void ftiod_log_rl_at(struct ftiod_ratelimit *rl, enum ftiod_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_rl(rl, level, fmt, ap);
    va_end(ap);
}
