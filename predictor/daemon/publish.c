/* SPDX-License-Identifier: BSD-3-Clause */
/* publish.c -- what ftiod tells the world: ZeroMQ PUB messages of two frames
 * (topic `ftio.<job>.<mode>` or `ftio.<job>.end`, then the JSON object of
 * PROTOCOL.md §2), and the same messages as JSON Lines in --log FILE:
 *     {"topic":"ftio.4711.write","message":{...}}
 * The PUB socket is bound by ftiod_main.c (so a busy port fails at start-up) and
 * used by the analysis threads one at a time (pub_lock: a ZeroMQ socket may
 * change threads behind a full memory barrier, which the mutex is).  PUB never blocks: a slow subscriber
 * loses messages at its high-water mark, ftiod does not wait for it.
 * A --log line is written whole or not at all (one write(2); a short write
 * is cut back off), so a full file system never leaves half a line; the
 * first failure is reported once, the lines lost are counted (--status),
 * every later message tries again, and recovery is reported too.  SIGHUP
 * reopens the file by its name (ftiod_publish_reopen, for logrotate).
 * The file is created mode 0640 (less under a stricter umask), whatever
 * the umask: what admins and `ftio report` read is never writable by
 * others; an existing file writable by others is taken back (docs/SECURITY.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>
#include "daemon.h"

#define LOG_MODE 0640

/* Open --log for appending, created LOG_MODE; NULL with errno. */
static FILE *open_log(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, LOG_MODE);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 022) &&
        st.st_uid == geteuid()) {
        if (fchmod(fd, st.st_mode & 07755) == 0)
            ftiod_log_at(FTIOD_WARNING, "--log %s was writable by others (mode %03o): now %03o",
                         path, (unsigned)(st.st_mode & 0777), (unsigned)(st.st_mode & 0755));
    }
    FILE *f = fdopen(fd, "a");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    return f;
}

int ftiod_publish_open(struct ftiod *d)
{
    if (!d->cfg.log_path)
        return 0;
    d->log = open_log(d->cfg.log_path);
    if (!d->log) {
        ftiod_log_at(FTIOD_ERROR, "--log %s: %s", d->cfg.log_path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Lines are written under pub_lock only, whole, so swapping the FILE
 * between two of them keeps the rule: the old file ends on a complete line,
 * the new one starts with one. */
static void reopen_locked(struct ftiod *d)
{
    if (!d->cfg.log_path) {
        ftiod_log_at(FTIOD_NOTICE, "SIGHUP: no --log file to reopen");
        return;
    }
    FILE *f = open_log(d->cfg.log_path);
    if (!f) {
        ftiod_log_at(FTIOD_ERROR, "SIGHUP: cannot reopen --log %s: %s; still writing to the "
                     "file opened before", d->cfg.log_path, strerror(errno));
        return;
    }
    if (d->log)
        fclose(d->log);
    d->log = f;
    ftiod_log_at(FTIOD_NOTICE, "SIGHUP: reopened --log %s", d->cfg.log_path);
}

void ftiod_publish_reopen(struct ftiod *d)
{
    pthread_mutex_lock(&d->pub_lock);
    reopen_locked(d);
    pthread_mutex_unlock(&d->pub_lock);
}

void ftiod_publish_close(struct ftiod *d)
{
    if (d->log)
        fclose(d->log);
    d->log = NULL;
}

/* Append one JSON line to --log, whole or not at all: the message's text as
 * sent on PUB (`text`, len bytes) wrapped as {"topic":...,"message":...}
 * (the object is serialised once: two dumps were a third of a `.end`'s
 * cost). */
static void log_line(struct ftiod *d, const char *topic, const char *text, size_t len)
{
    json_t *t = json_string(topic);
    char *quoted = t ? json_dumps(t, JSON_ENCODE_ANY) : NULL;   /* the topic, escaped */
    json_decref(t);
    static const char head[] = "{\"topic\":", mid[] = ",\"message\":", tail[] = "}\n";
    size_t qlen = quoted ? strlen(quoted) : 0;
    size_t n = sizeof head - 1 + qlen + sizeof mid - 1 + len + sizeof tail - 1;
    char *line = quoted ? malloc(n) : NULL;
    int fd = fileno(d->log);
    bool ok = false;
    if (line) {
        char *p = line;
        memcpy(p, head, sizeof head - 1), p += sizeof head - 1;
        memcpy(p, quoted, qlen), p += qlen;
        memcpy(p, mid, sizeof mid - 1), p += sizeof mid - 1;
        memcpy(p, text, len), p += len;
        memcpy(p, tail, sizeof tail - 1);
        struct stat st;
        off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
        ssize_t w = write(fd, line, n);
        ok = w == (ssize_t)n;
        if (!ok && w > 0 && before >= 0 && ftruncate(fd, before) != 0)
            ftiod_log_at(FTIOD_ERROR, "--log %s: cannot cut back a partial line", d->cfg.log_path);
        if (!ok && !d->log_failing)
            ftiod_log_at(FTIOD_ERROR,
                         "--log %s: cannot write (%s); lines are counted as lost and retried",
                         d->cfg.log_path, w < 0 ? strerror(errno) : "short write");
    }
    pthread_mutex_lock(&d->lock);
    if (!ok)
        d->stats.log_lost++;
    pthread_mutex_unlock(&d->lock);
    if (ok && d->log_failing)
        ftiod_log_at(FTIOD_NOTICE, "--log %s: writable again", d->cfg.log_path);
    d->log_failing = !ok;
    free(line);
    free(quoted);
}

void ftiod_publish(struct ftiod *d, const char *topic, json_t *obj)
{
    ftiod_publish_to(d, topic, obj, FTIOD_PUB_LOG | FTIOD_PUB_COUNT);
}

void ftiod_publish_to(struct ftiod *d, const char *topic, json_t *obj, unsigned flags)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (text)
        ftiod_publish_text(d, topic, text, strlen(text), flags);
    free(text);
}

void ftiod_publish_text(struct ftiod *d, const char *topic, const char *text, size_t len,
                        unsigned flags)
{
    pthread_mutex_lock(&d->pub_lock);
    if (zmq_send(d->pub, topic, strlen(topic), ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0)
        zmq_send(d->pub, text, len, ZMQ_DONTWAIT);
    if (d->log && (flags & FTIOD_PUB_LOG))
        log_line(d, topic, text, len);
    pthread_mutex_unlock(&d->pub_lock);
    if (flags & FTIOD_PUB_COUNT) {
        pthread_mutex_lock(&d->lock);
        d->stats.published++;
        pthread_mutex_unlock(&d->lock);
    }
}
