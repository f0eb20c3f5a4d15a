/* spool.c -- the spool file: batches the daemon could not take (PROTOCOL.md §3).
 *
 *   $FTIO_SPOOL_DIR/ftio-<job>-<host>-<pid>.msgpack
 *
 * Each batch is appended whole, exactly as it would have been sent, so the
 * file is a plain concatenation of §1 batch maps (`ftio` reads it offline,
 * `ftio replay` sends it later).  Only the flusher thread writes here (with
 * ftio_busy set, so these writes are not traced).  The file is opened per
 * batch with O_APPEND: spooling is the rare path, and holding no descriptor
 * means nothing to protect from an application's closefrom() or to fix up
 * after fork (a child's pid, hence its file name, is its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

void ftio_spool_path(char *out, size_t len)
{
    snprintf(out, len, "%s/ftio-%s-%s-%ld.msgpack", ftio_cfg.spool_dir, ftio_id.job, ftio_id.host,
             (long)atomic_load(&ftio_id.pid));
}

int ftio_spool_append(const void *buf, size_t len)
{
    static int warned;
    char path[2048];
    ftio_spool_path(path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (!warned++)
            ftio_warn("cannot open spool file %s: %s", path, strerror(errno));
        return -1;
    }
    const char *p = buf;
    size_t left = len;
    off_t start = lseek(fd, 0, SEEK_END);
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!warned++)
                ftio_warn("cannot write spool file %s: %s", path, w < 0 ? strerror(errno) : "short write");
            /* Don't leave half a batch: readers would stop there. */
            if (start >= 0 && ftruncate(fd, start) != 0)
                ftio_log("spool: truncate back failed");
            close(fd);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    close(fd);
    return 0;
}
