/* SPDX-License-Identifier: BSD-3-Clause */
/* state.c -- durable job state of ftiod (--state-dir, PROTOCOL.md §4).
 *
 * A restarted ftiod continues the jobs it had: one job, one `.end`.  Each
 * job has a journal in the state directory, `<fnv64 of the id>.journal`: the
 * batches merged into it, as they came (after authentication, before the
 * acknowledgement that lets the sender forget its copy), and a note each
 * time an `.end` was published.  On start the journals are read back and
 * every batch goes through job_merge() again, the function that merged it the
 * first time, so bins, counters, per-process sequence state and the
 * summary's record log come back exactly -- there is no second description
 * of the job's state to keep in step with job.c.
 *
 * Why a journal and not snapshots: a snapshot written every few seconds loses
 * what was acknowledged since (the sender forgot it), and the snapshot would
 * have to serialise every field of struct job.  An append per batch, acknowledged
 * after the append, loses nothing when the daemon dies (kill -9, OOM): the
 * kernel has the bytes.  Whole-machine crashes are covered by one syncfs of
 * the directory's file system every STATE_SYNC_S seconds, on a thread of its
 * own, and at shutdown (not a call per journal: thousands of jobs).  Nothing
 * else waits for the disk: an fdatasync per ended job under the daemon's lock,
 * and the periodic syncfs on the ingest thread, each held every other thread
 * (10,000 jobs: the ingest fell to a third of its rate); so a machine crash
 * within STATE_SYNC_S of an `.end` may publish that end again after the reboot.
 *
 * Entries: [magic "FTJ1"][type u8][3 zero bytes][length u32 LE][crc32 u32 LE][payload],
 * written with one write(2) to an O_APPEND file, so an entry is either whole
 * or a torn tail, which the reader cuts off (and says so).  Damage in the
 * middle (a flipped byte) costs the damaged entry only: the reader finds the
 * next entry by its magic and CRC and warns about what was lost.
 *   HEAD  uid i64 LE, job id        first entry of every journal
 *   BATCH uid i64 LE, batch bytes   a batch merged (wire format, PROTOCOL.md §1);
 *         written by older daemons, read back with the restart's clock
 *   BATCH_AT uid i64 LE, received i64 LE (ftiod's wall ns), batch bytes: the
 *         same with the time it was received, which job_merge() judges
 *         records and node clocks against, so a restart decides the same
 *   END   revision u32 LE, reason   an `.end` published
 * A journal is deleted when its job is forgotten (--keep-ended after its
 * end).  The online analysis' history is not kept: after a restart a job's
 * predictions start again from the next boundary (documented).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>
#include "daemon.h"
#include "hash.h"
#include "timeutil.h"
#include "wire.h"

#define MAGIC "FTJ1"
#define ENTRY_HEAD 16
enum { E_HEAD = 1, E_BATCH = 2, E_END = 3, E_BATCH_AT = 4 };
#define STATE_SYNC_S 1.0

struct job_journal {
    int    fd;
    bool   dirty;           /* written since the last sync */
    char   path[];
};

struct ftiod_state {
    char  *dir;
    int    lock_fd;
    double last_sync;      /* the ingest thread's: when it last looked for dirty journals */
    struct ftiod_ratelimit rl;
    /* The syncer thread: one syncfs when asked (sync_wanted), so that no
     * other thread ever waits for the disk. */
    pthread_t       syncer;
    bool            syncer_up;
    pthread_mutex_t sync_mu;
    pthread_cond_t  sync_cv;
    bool            sync_wanted, sync_stop;
    bool            sync_failed;    /* the last syncfs failed: sync again */
};

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* One entry, one write(2): a head and a payload in two parts (a prefix such as
 * the uid, then the bytes). */
static int append(struct job_journal *jj, int type, const void *a, size_t alen, const void *b,
                  size_t blen)
{
    size_t len = alen + blen;
    if (len > UINT32_MAX) {
        errno = EFBIG;
        return -1;
    }
    unsigned char head[ENTRY_HEAD];
    memcpy(head, MAGIC, 4);
    head[4] = (unsigned char)type;
    head[5] = head[6] = head[7] = 0;
    put32(head + 8, (uint32_t)len);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, a, (uInt)alen);
    if (blen)
        crc = crc32(crc, b, (uInt)blen);
    put32(head + 12, (uint32_t)crc);
    struct iovec iov[3] = {{head, sizeof head}, {(void *)a, alen}, {(void *)b, blen}};
    size_t want = sizeof head + len;
    ssize_t n;
    do
        n = writev(jj->fd, iov, blen ? 3 : 2);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)want) {
        jj->dirty = true;
        return 0;
    }
    /* A short write leaves a torn tail: cut it back so the next entry is
     * readable (the reader would stop at the torn one). */
    if (n > 0) {
        off_t end = lseek(jj->fd, 0, SEEK_END);
        if (end >= n && ftruncate(jj->fd, end - n) != 0) {
            /* nothing more to do: the reader cuts torn tails too */
        }
        errno = ENOSPC;
    }
    return -1;
}

static void journal_path(const struct ftiod_state *s, const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/%016" PRIx64 ".journal", s->dir, ftio_hash64(id, strlen(id)));
}

static struct job_journal *journal_open(const char *path, bool create)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0),
                  0600);
    if (fd < 0)
        return NULL;
    size_t plen = strlen(path) + 1;
    struct job_journal *jj = malloc(sizeof *jj + plen);
    if (!jj) {
        close(fd);
        return NULL;
    }
    jj->fd = fd;
    jj->dirty = false;
    memcpy(jj->path, path, plen);
    return jj;
}

static void journal_close(struct job_journal *jj, bool remove)
{
    if (!jj)
        return;
    if (remove)
        unlink(jj->path);
    else if (jj->dirty)
        fdatasync(jj->fd);
    close(jj->fd);
    free(jj);
}

/* ---- writing ------------------------------------------------------------- */

/* One syncfs of the state directory's file system; a failure is tried
 * again at the next look for dirty journals. */
static void sync_now(struct ftiod_state *s)
{
    bool failed = syncfs(s->lock_fd) != 0;
    pthread_mutex_lock(&s->sync_mu);
    s->sync_failed = failed;
    pthread_mutex_unlock(&s->sync_mu);
}

/* The syncer: sync_now() each time it is asked; a request that comes during
 * a syncfs is one more afterwards. */
static void *syncer_main(void *arg)
{
    struct ftiod_state *s = arg;
    pthread_mutex_lock(&s->sync_mu);
    for (;;) {
        while (!s->sync_wanted && !s->sync_stop)
            pthread_cond_wait(&s->sync_cv, &s->sync_mu);
        if (!s->sync_wanted)
            break;
        s->sync_wanted = false;
        pthread_mutex_unlock(&s->sync_mu);
        sync_now(s);
        pthread_mutex_lock(&s->sync_mu);
    }
    pthread_mutex_unlock(&s->sync_mu);
    return NULL;
}

struct ftiod_state *ftiod_state_open(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--state-dir %s: %s", dir, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--state-dir %s: not a directory", dir);
        return NULL;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        snprintf(err, errlen, "--state-dir %s: must be owned by this user and not writable by "
                 "others (it holds every job's trace)", dir);
        return NULL;
    }
    struct ftiod_state *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* Two daemons on one directory would interleave journals: the second
     * is refused. */
    char lock[4096];
    snprintf(lock, sizeof lock, "%s/lock", dir);
    s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen, "--state-dir %s: %s", dir,
                 s->lock_fd < 0 ? strerror(errno) : "in use by another ftiod");
        if (s->lock_fd >= 0)
            close(s->lock_fd);
        free(s->dir);
        free(s);
        return NULL;
    }
    s->last_sync = ftiod_now();
    pthread_mutex_init(&s->sync_mu, NULL);
    pthread_cond_init(&s->sync_cv, NULL);
    /* Without the thread (a thread limit) the ingest syncs itself, as before. */
    s->syncer_up = pthread_create(&s->syncer, NULL, syncer_main, s) == 0;
    return s;
}

void ftiod_state_close(struct ftiod_state *s)
{
    if (!s)
        return;
    if (s->syncer_up) {
        pthread_mutex_lock(&s->sync_mu);
        s->sync_stop = true;
        pthread_cond_signal(&s->sync_cv);
        pthread_mutex_unlock(&s->sync_mu);
        pthread_join(s->syncer, NULL);
    }
    pthread_cond_destroy(&s->sync_cv);
    pthread_mutex_destroy(&s->sync_mu);
    close(s->lock_fd);
    free(s->dir);
    free(s);
}

/* The job's journal, created with its HEAD on first use. */
static struct job_journal *journal_of(struct ftiod_state *s, struct job *j)
{
    if (j->journal)
        return j->journal;
    char path[4096];
    journal_path(s, j->id, path, sizeof path);
    struct job_journal *jj = journal_open(path, true);
    if (!jj && errno == EEXIST) {
        /* A journal this daemon did not restore (the table was full, a hash
         * collision, a damaged head): set aside, not deleted -- it may be the
         * only copy of acknowledged batches -- and the job starts its own. */
        char aside[4200];
        snprintf(aside, sizeof aside, "%s.unrestored", path);
        if (rename(path, aside) == 0)
            ftiod_log("--state-dir: %s was not restored; kept as %s", path, aside);
        jj = journal_open(path, true);
    }
    if (!jj) {
        ftiod_log_rl(&s->rl, "--state-dir: cannot create %s: %s: job %s is not kept", path,
                     strerror(errno), j->id);
        return NULL;
    }
    unsigned char uid[8];
    put64(uid, (uint64_t)j->uid);
    if (append(jj, E_HEAD, uid, sizeof uid, j->id, strlen(j->id)) != 0) {
        journal_close(jj, true);
        return NULL;
    }
    j->journal = jj;
    return jj;
}

int ftiod_state_batch(struct ftiod_state *s, struct job *j, int64_t uid, int64_t recv_ns,
                      const void *batch, size_t len)
{
    if (!s)
        return 0;
    struct job_journal *jj = journal_of(s, j);
    unsigned char u[16];
    put64(u, (uint64_t)uid);
    put64(u + 8, (uint64_t)recv_ns);
    if (!jj || append(jj, E_BATCH_AT, u, sizeof u, batch, len) != 0) {
        ftiod_log_rl(&s->rl, "--state-dir: job %s: a batch could not be written (%s): it is "
                     "not acknowledged", j->id, strerror(errno));
        return -1;
    }
    return 0;
}

void ftiod_state_end(struct ftiod_state *s, struct job *j, unsigned revision, const char *why)
{
    if (!s)
        return;
    struct job_journal *jj = journal_of(s, j);
    unsigned char r[4];
    put32(r, revision);
    /* No fdatasync here (under the daemon's lock): the periodic syncfs
     * covers it (the top of this file). */
    if (jj)
        append(jj, E_END, r, sizeof r, why, strlen(why));
}

void ftiod_state_forget(struct ftiod_state *s, struct job *j)
{
    (void)s;
    journal_close(j->journal, true);
    j->journal = NULL;
}

void ftiod_state_sync(struct ftiod *d, double now)
{
    struct ftiod_state *s = d->state;
    /* Checked before the lock: the ingest loop asks after every drain. */
    if (!s || now - s->last_sync < STATE_SYNC_S)
        return;
    s->last_sync = now;
    pthread_mutex_lock(&s->sync_mu);
    bool dirty = s->sync_failed;
    pthread_mutex_unlock(&s->sync_mu);
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->jobs.n; i++) {
        struct job_journal *jj = d->jobs.job[i]->journal;
        if (jj && jj->dirty) {
            jj->dirty = false;
            dirty = true;
        }
    }
    pthread_mutex_unlock(&d->lock);
    /* One syncfs of the directory's file system, on the syncer thread: an
     * fdatasync per journal under the lock stalled ingest and analysis for
     * seconds with thousands of jobs, and a syncfs here held the ingest
     * while the kernel wrote back everything dirty on that file system.
     * A failure is tried again next time. */
    if (!dirty)
        return;
    if (!s->syncer_up) {
        sync_now(s);
        return;
    }
    pthread_mutex_lock(&s->sync_mu);
    s->sync_wanted = true;
    pthread_cond_signal(&s->sync_cv);
    pthread_mutex_unlock(&s->sync_mu);
}

/* One syncfs for the whole directory, not an fdatasync per journal: with
 * thousands of jobs those took seconds, and SIGTERM has 2. */
void ftiod_state_release_all(struct ftiod_state *s, struct job_table *t)
{
    bool dirty = false;
    for (size_t i = 0; i < t->n; i++) {
        struct job_journal *jj = t->job[i]->journal;
        if (!jj)
            continue;
        dirty |= jj->dirty;
        close(jj->fd);
        free(jj);
        t->job[i]->journal = NULL;
    }
    if (s && dirty)
        syncfs(s->lock_fd);
}

/* ---- reading back -------------------------------------------------------- */

/* The whole journal, or NULL with errno.  Only a regular file is read: a
 * FIFO, device or symlink named *.journal is refused without blocking
 * (O_NONBLOCK, O_NOFOLLOW, then fstat). */
static unsigned char *read_all(const char *path, size_t *len)
{
    /* lstat first: opening a device can have effects of its own; the
     * flags and fstat below close the race with a file swapped since. */
    struct stat lst;
    if (lstat(path, &lst) != 0)
        return NULL;
    if (!S_ISREG(lst.st_mode)) {
        errno = EINVAL;
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    unsigned char *buf = NULL;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL;
    else if (!(buf = malloc((size_t)st.st_size + 1)))
        e = ENOMEM;
    if (buf) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
            if (n <= 0) {
                if (n < 0 && errno == EINTR)
                    continue;
                break;
            }
            got += (size_t)n;
        }
        *len = got;
    }
    close(fd);
    errno = e;
    return buf;
}

/* Is there a whole entry at off whose CRC checks?  *type, *plen of it. */
static bool entry_at(const unsigned char *buf, size_t len, size_t off, int *type, uint32_t *plen)
{
    if (len - off < ENTRY_HEAD || memcmp(buf + off, MAGIC, 4) != 0)
        return false;
    uint32_t n = get32(buf + off + 8), crc = get32(buf + off + 12);
    if (n > len - off - ENTRY_HEAD ||
        (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + off + ENTRY_HEAD, n) != crc)
        return false;
    *type = buf[off + 4];
    *plen = n;
    return true;
}

/* The next whole entry after a damaged one at off (resynchronisation on the
 * magic + CRC framing), or len when there is none. */
static size_t next_entry(const unsigned char *buf, size_t len, size_t off)
{
    int type;
    uint32_t plen;
    for (size_t o = off + 1; o + ENTRY_HEAD <= len; o++) {
        const unsigned char *m = memchr(buf + o, MAGIC[0], len - o);
        if (!m)
            break;
        o = (size_t)(m - buf);
        if (entry_at(buf, len, o, &type, &plen))
            return o;
    }
    return len;
}

/* A batch entry of either layout (E_BATCH_AT carries the receive time). */
static bool is_batch(int type)
{
    return type == E_BATCH || type == E_BATCH_AT;
}

static const char *entry_name(int type)
{
    return type == E_HEAD ? "head" : is_batch(type) ? "batch" : type == E_END ? "end note"
                                                                              : "entry";
}

/* Replay one journal into the job table.  Returns the job, or NULL (the
 * journal is left alone and reported).  A damaged entry in the middle (a
 * flipped byte, a bad sector) costs that entry only: the reader skips to the
 * next entry whose magic and CRC check and says, as a warning, what was
 * lost; damage that runs to the end is a torn tail (a write the daemon did
 * not finish, never acknowledged), cut off. */
static struct job *restore_one(struct ftiod *d, const char *path, struct ftio_batch *batch,
                               size_t *nbatches)
{
    size_t len = 0;
    unsigned char *buf = read_all(path, &len);
    if (!buf) {
        ftiod_log_at(FTIOD_WARNING, "--state-dir: %s: %s, skipped", path,
                     errno == EINVAL || errno == ELOOP ? "not a regular file (a FIFO, device or "
                                                         "symbolic link)" : strerror(errno));
        return NULL;
    }
    struct job *j = NULL;
    size_t off = 0, tail = len, lost_bytes = 0, lost_entries = 0, lost_batches = 0;
    bool foreign = false;
    *nbatches = 0;
    while (off < len) {
        int type;
        uint32_t plen;
        if (!entry_at(buf, len, off, &type, &plen)) {
            size_t next = next_entry(buf, len, off);
            if (next == len) {
                tail = off;       /* nothing whole after it: a torn tail */
                break;
            }
            /* A header that still reads (magic, length that fits) says what
             * was lost; otherwise only how many bytes. */
            bool head_ok = len - off >= ENTRY_HEAD && memcmp(buf + off, MAGIC, 4) == 0 &&
                           (size_t)get32(buf + off + 8) + ENTRY_HEAD == next - off;
            ftiod_log_at(FTIOD_WARNING, "--state-dir: %s: damaged %s at bytes %zu-%zu skipped%s; "
                         "the entries after it are kept", path,
                         head_ok ? entry_name(buf[off + 4]) : "data", off, next,
                         head_ok && is_batch(buf[off + 4])
                             ? " (one batch of records lost)" : "");
            lost_bytes += next - off;
            lost_entries++;
            lost_batches += head_ok && is_batch(buf[off + 4]);
            off = next;
            continue;
        }
        const unsigned char *p = buf + off + ENTRY_HEAD;
        if (type == E_HEAD && !j && plen > 8) {
            char id[FTIO_WIRE_MAX_STR + 1];
            size_t idlen = plen - 8 < FTIO_WIRE_MAX_STR ? plen - 8 : FTIO_WIRE_MAX_STR;
            memcpy(id, p + 8, idlen);
            id[idlen] = '\0';
            if (job_table_find(&d->jobs, id) || !(j = job_table_add(&d->jobs, id, &d->cfg.limits))) {
                ftiod_log("--state-dir: %s: job %s cannot be restored (table full or twice)", path,
                          id);
                foreign = true;
                break;
            }
            j->uid = (int64_t)get64(p);
        } else if ((type == E_BATCH || type == E_BATCH_AT) && j &&
                   plen >= (type == E_BATCH ? 8u : 16u)) {
            size_t used = 0, skip = type == E_BATCH ? 8 : 16;
            int64_t recv = type == E_BATCH ? ftio_real_ns() : (int64_t)get64(p + 8);
            char err[256];
            if (ftio_wire_decode(p + skip, plen - skip, batch, &used, err, sizeof err) == 0 &&
                ftiod_claim_stored(j, batch->h.job, (int64_t)get64(p))) {
                job_merge(j, batch, &d->cfg.limits, ftiod_now(), recv);
                job_table_account(&d->jobs, j);
                (*nbatches)++;
                j->reopened = j->closed;   /* data after an .end: a revision is due */
            }
        } else if (type == E_END && j && plen >= 4) {
            j->closed = true;
            j->reopened = false;
            j->revision = get32(p) + 1;
            size_t wl = plen - 4 < sizeof j->ended_by - 1 ? plen - 4 : sizeof j->ended_by - 1;
            memcpy(j->ended_by, p + 4, wl);
            j->ended_by[wl] = '\0';
            j->closed_at = ftiod_now();
        } else if (!j) {
            foreign = true;   /* no HEAD first: not a journal of ours */
            break;
        }
        off += ENTRY_HEAD + plen;
    }
    free(buf);
    if (!j) {
        if (!foreign && lost_entries)
            ftiod_log_at(FTIOD_WARNING, "--state-dir: %s: its head is damaged: the job cannot be "
                         "restored, the journal is left alone", path);
        else
            ftiod_log("--state-dir: %s: not a journal of ftiod, left alone", path);
        return NULL;
    }
    if (tail < len) {
        ftiod_log_at(FTIOD_NOTICE, "--state-dir: %s: torn entry at byte %zu cut off (a write the "
                     "daemon did not finish, never acknowledged)", path, tail);
        if (truncate(path, (off_t)tail) != 0)
            ftiod_log("--state-dir: %s: %s", path, strerror(errno));
    }
    if (lost_entries)
        ftiod_log_at(FTIOD_WARNING, "--state-dir: job %s: %zu damaged entr%s (%zu bytes, %zu "
                     "batches) lost from %s; restored from the rest", j->id, lost_entries,
                     lost_entries == 1 ? "y" : "ies", lost_bytes, lost_batches, path);
    j->journal = journal_open(path, false);
    /* Predictions go on from the data's end: the boundaries before it were
     * published by the daemon that died. */
    for (int m = 0; m < JOB_NMODES; m++)
        j->mode[m].restored = j->mode[m].stream != NULL;
    return j;
}

int ftiod_state_restore(struct ftiod_state *s, struct ftiod *d)
{
    if (!s)
        return 0;
    DIR *dir = opendir(s->dir);
    if (!dir) {
        ftiod_log("--state-dir %s: %s", s->dir, strerror(errno));
        return -1;
    }
    struct ftio_batch *batch = calloc(1, sizeof *batch);
    if (!batch) {
        closedir(dir);
        return -1;
    }
    size_t jobs = 0, batches = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 8, ".journal") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
        size_t nb = 0;
        pthread_mutex_lock(&d->lock);
        struct job *j = restore_one(d, path, batch, &nb);
        if (j)
            ftiod_claim_restored(d, j);   /* its id stays its owner's */
        pthread_mutex_unlock(&d->lock);
        if (j) {
            jobs++;
            batches += nb;
            ftiod_log("--state-dir: job %s restored: %zu batches, %llu records%s", j->id, nb,
                      (unsigned long long)j->data_records,
                      j->closed ? (j->reopened ? ", ended, revision due" : ", ended") : "");
        }
    }
    closedir(dir);
    ftio_batch_free(batch);
    free(batch);
    if (jobs)
        ftiod_log("--state-dir %s: %zu jobs restored from %zu batches", s->dir, jobs, batches);
    return 0;
}
