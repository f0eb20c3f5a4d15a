/* SPDX-License-Identifier: BSD-3-Clause */
/* spool.c -- the spool file: batches the daemon could not take (PROTOCOL.md §3),
 * the exec hand-off through it, and the once-per-job warnings.
 *
 *   <spool directory>/ftio-<job>-<host>-<pid>.msgpack
 *
 * Each batch is appended whole, exactly as it would have been sent, so the
 * file is a plain concatenation of §1 batch maps (`ftio` reads it offline,
 * `ftio replay` sends it later).  Only the flusher thread writes here (with
 * ftio_busy set, so these writes are not traced).  The file is opened with
 * O_APPEND once per flush pass (ftio_spool_hold) or per batch, never held
 * while the thread sleeps: nothing to fix up after fork (a child's pid,
 * hence its file name, is its own) or exec.
 *
 * Safety on a shared node (docs/SECURITY.md): the directory must be ours
 * and writable by nobody else (the default, $TMPDIR/ftio-$UID, is created
 * 0700), checked once per process; the file is created 0600 with
 * O_EXCL|O_NOFOLLOW, and an existing one (an exec'd image continuing its
 * predecessor's file) is appended to only if it is a regular file of ours,
 * private, with one link.  A directory that is not ours (another user made
 * /tmp/ftio-$UID first) is not a reason to lose the trace: the spool goes to
 * $XDG_RUNTIME_DIR/ftio when that is ours, else to a private directory
 * $TMPDIR/ftio-$UID-XXXXXX (one we made earlier, else a new mkdtemp), named
 * in a once-per-job warning.
 *
 * exec hand-off (sink.c): the pre-exec image appends its unacknowledged
 * batches here without a notice, the post-exec image takes them back
 * (ftio_spool_take) and sends them first; the file is cut back to where
 * they began, so a delivered hand-off leaves no spool file.
 *
 * Warnings that every process of a job would print (munged unreachable, a
 * silent daemon, the spool notice) are said once per job and node: the first
 * process to create a marker file .ftio-<what>-<job> (O_EXCL) in the private
 * spool directory says it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "hash.h"
#include "internal.h"

/* The flusher thread only. */
static struct {
    int      resolved, ok;
    char     dir[1100];       /* the directory in use */
    uint64_t appended;        /* batches this image spooled (the notice) */
    uint64_t acked_later;     /* of those, acknowledged by ftiod afterwards */
    uint64_t bytes;           /* bytes this image appended */
    int      created;         /* this image created its spool file */
    int      warned;
    int      hold, held;      /* ftio_spool_hold(): the file kept open, */
    int      held_fd;         /* ... on held_fd (the state starts as zeros: shim.h) */
} sp FTIO_FLUSHER_STATE;

void ftio_spool_after_fork_child(void)
{
    /* The parent's batches are in the parent's file; the directory stays. */
    sp.appended = sp.acked_later = sp.bytes = 0;
    sp.created = sp.warned = 0;
    /* A held descriptor was in the flusher's own table, not in ours. */
    sp.hold = sp.held = 0;
}

/* Is dir a directory of ours that nobody else can write to (created 0700
 * when create and missing)?  1, or 0 with the reason in why. */
static int private_dir(const char *dir, int create, char *why, size_t whylen)
{
    if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot be created (%s)", strerror(errno));
        return 0;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        snprintf(why, whylen, "is not a directory (or is a symlink)");
    else if (st.st_uid != geteuid())
        snprintf(why, whylen, "belongs to uid %u, not to us", (unsigned)st.st_uid);
    else if (st.st_mode & 022)
        snprintf(why, whylen, "is writable by others");
    else
        return 1;
    return 0;
}

/* A private directory of ours under $TMPDIR made by an earlier fallback
 * (ftio-<uid>-XXXXXX; the smallest name, so that every process of the job
 * picks the same one), else a new one. */
static int tmp_fallback(char *out, size_t cap)
{
    char prefix[64], why[128];
    int plen = snprintf(prefix, sizeof prefix, "ftio-%u-", (unsigned)geteuid());
    char best[256] = "";
    DIR *d = opendir(ftio_cfg.tmp_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strncmp(e->d_name, prefix, (size_t)plen) != 0 || strlen(e->d_name) != (size_t)plen + 6 ||
                (best[0] && strcmp(e->d_name, best) >= 0))
                continue;
            snprintf(out, cap, "%s/%s", ftio_cfg.tmp_dir, e->d_name);
            if (private_dir(out, 0, why, sizeof why))
                snprintf(best, sizeof best, "%s", e->d_name);
        }
        closedir(d);
    }
    if (best[0]) {
        snprintf(out, cap, "%s/%s", ftio_cfg.tmp_dir, best);
        return 1;
    }
    snprintf(out, cap, "%s/%sXXXXXX", ftio_cfg.tmp_dir, prefix);
    return mkdtemp(out) != NULL;
}

static int first_to_say(const char *what);

/* The directory to spool into, decided once per process. */
static int resolve(void)
{
    if (sp.resolved)
        return sp.ok;
    sp.resolved = 1;
    char why[128], why2[128];
    if (private_dir(ftio_cfg.spool_dir, 1, why, sizeof why)) {
        ftio_strlcpy(sp.dir, sizeof sp.dir, ftio_cfg.spool_dir);
        sp.ok = 1;
        return 1;
    }
    /* Not ours (someone else made it first): a private one elsewhere. */
    int found = 0;
    if (ftio_cfg.spool_alt[0] && private_dir(ftio_cfg.spool_alt, 0, why2, sizeof why2)) {
        snprintf(sp.dir, sizeof sp.dir, "%s/ftio", ftio_cfg.spool_alt);
        found = private_dir(sp.dir, 1, why2, sizeof why2);
    }
    if (!found)
        found = tmp_fallback(sp.dir, sizeof sp.dir);
    if (!found) {
        ftio_warn("spool directory %s %s and no private one could be made in %s; nothing is "
                  "spooled (set FTIO_SPOOL_DIR)", ftio_cfg.spool_dir, why, ftio_cfg.tmp_dir);
        return 0;
    }
    sp.ok = 1;
    if (first_to_say("spooldir"))
        ftio_warn("spool directory %s %s: job %s spools to %s instead", ftio_cfg.spool_dir, why,
                  ftio_id.job, sp.dir);
    return 1;
}

const char *ftio_spool_dir(void)
{
    return resolve() ? sp.dir : ftio_cfg.spool_dir;
}

void ftio_spool_path(char *out, size_t len)
{
    snprintf(out, len, "%s/ftio-%s-%s-%ld.msgpack", ftio_spool_dir(), ftio_id.job, ftio_id.host,
             (long)atomic_load(&ftio_id.pid));
}

/* Is this process the first of its job on this node to say `what`?  When
 * the spool directory is unusable nobody can tell: say it. */
static int first_to_say(const char *what)
{
    if (ftio_quiet)
        return 0;              /* we have no stderr: leave it to another process */
    if (!resolve())
        return 1;
    char path[2048];
    snprintf(path, sizeof path, "%s/.ftio-%s-%s", sp.dir, what, ftio_id.job);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    return errno != EEXIST;
}

void ftio_warn_job(const char *what, const char *fmt, ...)
{
    if (!first_to_say(what))
        return;
    char buf[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ftio_warn("%s", buf);
}

/* "ftiod at endpoint answered recently": the time of a marker file
 * .ftio-up-<hash of the endpoint> in the private spool directory. */
static void up_marker(const char *endpoint, char *path, size_t cap)
{
    char hex[17];                 /* "%s/.ftio-up-%016llx", without stdio (internal.h) */
    *ftio_put_hex(hex, hex + 16, (unsigned long long)ftio_hash64(endpoint, strlen(endpoint)), 16) = '\0';
    ftio_concat(path, cap, sp.dir, "/.ftio-up-", hex);
}

void ftio_spool_mark_up(const char *endpoint)
{
    char path[2048];
    if (!resolve())
        return;
    up_marker(endpoint, path, sizeof path);
    if (utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) == 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

int ftio_spool_known_up(const char *endpoint, int fresh_s)
{
    char path[2048];
    struct stat st;
    if (!resolve())
        return 0;
    up_marker(endpoint, path, sizeof path);
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
           time(NULL) - st.st_mtime < fresh_s;
}

void ftio_spool_forget_up(const char *endpoint)
{
    char path[2048];
    if (!resolve())
        return;
    up_marker(endpoint, path, sizeof path);
    unlink(path);
}

/* Open the spool file for appending: created 0600, never through a
 * symlink, never someone else's file. */
static int open_spool(const char *path, int flags)
{
    int fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        sp.created = 1;
    if (fd >= 0 || errno != EEXIST)
        return fd;
    fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                    (st.st_mode & 077) || st.st_nlink != 1)) {
        if (!sp.warned++)
            ftio_warn("spool file %s exists and is not a private file of ours; not using it", path);
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* Write all of iov[0..niov) (niov <= SPOOL_IOV_MAX); 0, or -1 with errno. */
#define SPOOL_IOV_MAX 32
static int write_all(int fd, const struct iovec *iov_in, int niov)
{
    struct iovec v[SPOOL_IOV_MAX], *iov = v;
    if (niov > SPOOL_IOV_MAX) {
        errno = EINVAL;
        return -1;
    }
    memcpy(v, iov_in, (size_t)niov * sizeof *v);
    while (niov > 0) {
        ssize_t w = writev(fd, iov, niov);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        iov = ftio_iov_advance(iov, &niov, (size_t)w);
    }
    return 0;
}

/* Append one batch; *at = where it starts.  0 or -1. */
static int spool_write(const struct iovec *iov, int niov, uint64_t *at)
{
    char path[2048];
    if (!resolve())
        return -1;
    ftio_spool_path(path, sizeof path);
    int fd = sp.held ? sp.held_fd : -1;
    if (fd < 0)
        fd = open_spool(path, O_WRONLY | O_APPEND);
    if (fd < 0) {
        if (!sp.warned++)
            ftio_warn("cannot open spool file %s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0;
    for (int k = 0; k < niov; k++)
        len += iov[k].iov_len;
    off_t start = lseek(fd, 0, SEEK_END);
    if (write_all(fd, iov, niov) != 0) {
        if (!sp.warned++)
            ftio_warn("cannot write spool file %s: %s", path, strerror(errno));
        /* Don't leave half a batch: readers would stop there. */
        if (start >= 0 && ftruncate(fd, start) != 0)
            ftio_log("spool: truncate back failed");
        close(fd);
        sp.held = 0;
        return -1;
    }
    if (sp.hold) {
        sp.held_fd = fd;
        sp.held = 1;
    } else
        close(fd);
    if (at)
        *at = start < 0 ? 0 : (uint64_t)start;
    sp.bytes += len;
    return 0;
}

/* A flush pass spools batch after batch (4,096 records each): one open,
 * not one per batch.  The descriptor is in the flusher's own table
 * (fdprivate.c), so the application cannot close it; it is closed at the
 * end of the pass, so nothing is held while the thread sleeps. */
void ftio_spool_hold(int on)
{
    sp.hold = on;
    if (!on && sp.held) {
        close(sp.held_fd);
        sp.held = 0;
    }
}

int ftio_spool_appendv(const struct iovec *iov, int niov)
{
    if (spool_write(iov, niov, NULL) != 0)
        return -1;
    sp.appended++;
    return 0;
}

int ftio_spool_append(const void *buf, size_t len)
{
    struct iovec one = { (void *)buf, len };
    return ftio_spool_appendv(&one, 1);
}

int ftio_spool_handoff_append(const void *buf, size_t len, uint64_t *at)
{
    struct iovec one = { (void *)buf, len };
    return spool_write(&one, 1, at);
}

void ftio_spool_acked_later(void)
{
    sp.acked_later++;
}

int ftio_spool_take(uint64_t off, void *buf, size_t len)
{
    char path[2048];
    if (!resolve())
        return -1;
    ftio_spool_path(path, sizeof path);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = -1;
    if (fd < 0)
        return -1;
    /* Ours, private, and ending exactly where the hand-off ends: nothing
     * else was appended since the exec. */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        !(st.st_mode & 077) && st.st_nlink == 1 && (uint64_t)st.st_size == off + len &&
        pread(fd, buf, len, (off_t)off) == (ssize_t)len)
        rc = off == 0 ? unlink(path) : ftruncate(fd, (off_t)off);
    close(fd);
    return rc;
}

/* At the end of an image that spooled: one line per job, not per process,
 * and only when ftiod did not acknowledge, in the end, every batch this
 * image spooled (a daemon stopped for a while acknowledges the resent copies
 * when it is back: then the spool file holds duplicates only, and is removed
 * when this image made it). */
void ftio_spool_notice(void)
{
    if (!sp.appended || !resolve())
        return;
    if (sp.acked_later >= sp.appended) {
        char path[2048];
        struct stat st;
        ftio_spool_path(path, sizeof path);
        if (sp.created && lstat(path, &st) == 0 && (uint64_t)st.st_size == sp.bytes && unlink(path) == 0)
            ftio_log("ftiod acknowledged every spooled batch later: %s removed", path);
        return;
    }
    if (!first_to_say("notice"))
        return;
    ftio_warn("ftiod at %s did not take all of job %s's trace: spooled to %s "
              "(send it with: ftio replay %s/ftio-%s-*.msgpack)", ftio_cfg.endpoint, ftio_id.job,
              sp.dir, sp.dir, ftio_id.job);
}
