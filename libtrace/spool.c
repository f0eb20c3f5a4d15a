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
 *
 * Safety on a shared node (docs/SECURITY.md): the directory must be ours
 * and writable by nobody else (the default, $TMPDIR/ftio-$UID, is created
 * 0700), checked once per process; the file is created 0600 with
 * O_EXCL|O_NOFOLLOW, and an existing one (an exec'd image continuing its
 * predecessor's file) is appended to only if it is a regular file of ours,
 * private, with one link.  Anything else: nothing is written, one warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

/* Batches this image appended (the flusher thread only), for the notice. */
static uint64_t appended;

void ftio_spool_after_fork_child(void)
{
    appended = 0;      /* the parent's batches are in the parent's file */
}

void ftio_spool_path(char *out, size_t len)
{
    snprintf(out, len, "%s/ftio-%s-%s-%ld.msgpack", ftio_cfg.spool_dir, ftio_id.job, ftio_id.host,
             (long)atomic_load(&ftio_id.pid));
}

/* Is the spool directory ours alone?  Created 0700 when missing. */
static int dir_ok(void)
{
    static int checked, ok;   /* the flusher thread only */
    if (checked)
        return ok;
    checked = 1;
    const char *dir = ftio_cfg.spool_dir;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        ftio_warn("cannot create spool directory %s: %s; nothing is spooled", dir, strerror(errno));
        return 0;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        ftio_warn("spool directory %s is not a directory (or is a symlink); nothing is spooled", dir);
    else if (st.st_uid != geteuid())
        ftio_warn("spool directory %s belongs to uid %u, not to us; nothing is spooled", dir,
                  (unsigned)st.st_uid);
    else if (st.st_mode & 022)
        ftio_warn("spool directory %s is writable by others; nothing is spooled "
                  "(use a private one: FTIO_SPOOL_DIR)", dir);
    else
        ok = 1;
    return ok;
}

/* Open the spool file for appending: created 0600, never through a
 * symlink, never someone else's file. */
static int open_spool(const char *path, int *warned)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
        return fd;
    fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                    (st.st_mode & 077) || st.st_nlink != 1)) {
        if (!(*warned)++)
            ftio_warn("spool file %s exists and is not a private file of ours; not appending", path);
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

int ftio_spool_append(const void *buf, size_t len)
{
    static int warned;
    char path[2048];
    if (!dir_ok())
        return -1;
    ftio_spool_path(path, sizeof path);
    int fd = open_spool(path, &warned);
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
    appended++;
    return 0;
}

/* At the end of an image that spooled: one line per job, not per process.
 * The first process of the job to get here creates a marker next to the
 * spool files (O_EXCL: exactly one wins, on this node) and says where the
 * trace is and how to send it. */
void ftio_spool_notice(void)
{
    if (!appended || !dir_ok())
        return;
    char path[2048];
    snprintf(path, sizeof path, "%s/.ftio-notice-%s", ftio_cfg.spool_dir, ftio_id.job);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    close(fd);
    ftio_warn("ftiod at %s did not take all of job %s's trace: spooled to %s "
              "(send it with: ftio replay %s/ftio-%s-*.msgpack)", ftio_cfg.endpoint, ftio_id.job,
              ftio_cfg.spool_dir, ftio_cfg.spool_dir, ftio_id.job);
}
