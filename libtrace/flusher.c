/* flusher.c -- the background thread: rings -> wire batches -> ZeroMQ PUSH,
 * or the spool file when nobody is listening.
 *
 * Started on a process's first record.  It wakes every FTIO_FLUSH_MS, when a
 * ring is half full, or on request (ftio_flush_now(), exit paths, fatal
 * signals) through a futex word: the kick is async-signal-safe and needs no
 * descriptor the application could close.  It owns the ZeroMQ context and
 * PUSH socket (ZMQ_SNDHWM bounded, ZMQ_IMMEDIATE so nothing queues without
 * a connected peer, ZMQ_LINGER bounding every exit, sends with
 * ZMQ_DONTWAIT).  A batch that can't be sent goes to the spool file
 * (spool.c); one that can be neither sent nor spooled is counted in the next
 * header's "lost".  "seq" only advances for delivered batches, so receivers
 * see gaps only for batches delivered elsewhere (spool vs socket).
 *
 * Acknowledged delivery (PROTOCOL.md §1.4, common/transport.h).  The
 * socket is a DEALER; ftiod acknowledges every batch it has merged.  A copy
 * of each batch sent is kept until then (FTIO_ACK_MAX_MB of them at most,
 * the oldest spooled beyond): a daemon that is killed, restarted or hung
 * (connected, but not reading: ZeroMQ and the kernel accept a whole trace
 * into their buffers) loses nothing, because what is not acknowledged
 * within FTIO_ACK_TIMEOUT_MS goes to the spool file, and at the end of an
 * image (exit, _exit, MPI_Abort, fatal signal: STOP_FINAL; exec:
 * STOP_HANDOFF, the new image continues the stream) after FTIO_EXIT_WAIT_MS
 * (5 ms).  The daemon drops a (pid, seq) it already has, so a batch both
 * delivered and spooled counts once.  Exiting never waits for a daemon that
 * is down, unreachable or slow longer than that, and an image that spooled
 * says so once per job (spool.c).
 *
 * Private descriptor table: once a process has a second thread sharing its
 * descriptor table, Linux drops the single-threaded fast paths of every
 * descriptor syscall (fdget takes a file reference, read/write take the
 * f_pos lock): a single-threaded application would pay ~50-100 ns per call
 * for our thread, traced or not.  So the thread first moves to a private
 * copy of the table (unshare(CLONE_FILES)), closes every descriptor that
 * copy inherited (keeping them would hold the application's files and pipe
 * ends open: no EOF for its readers), except stderr for diagnostics; then
 * creates ZeroMQ, whose threads share the private table.  The spool file is
 * opened by this thread too.  The application's table is again used by its
 * own threads only, and an application closefrom()/close_range() can no
 * longer close ZeroMQ's descriptors.  Threads in the private table ignore the
 * fd table (ftio_private_table_thread()): their numbers mean other files.
 * If unshare or kcmp is unavailable (old kernel, seccomp) or
 * FTIO_PRIVATE_FDS=0, the table stays shared, as before.
 *
 * The thread blocks the asynchronous signals (they go to application
 * threads) and runs with ftio_busy set, so its own I/O is never traced.
 * fork: the child abandons the inherited context (never closes it: its
 * threads do not exist in the child) and starts its own flusher lazily.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>
#include "internal.h"
#include "auth.h"
#include "timeutil.h"
#include "transport.h"
#include "wire.h"

#define BATCH_MAX   65536      /* records per message */
#define FILES_MAX   4096       /* file entries per message */
#define CONNECT_GRACE_MS 300   /* wait for the first connection this long */
#define AUTH_RETRY_NS (10ll * 1000000000)   /* munged unreachable: ask again after 10 s */

/* fl.stop: why the thread stops. */
enum { RUNNING = 0, STOP_FINAL = 1, STOP_HANDOFF = 2 };

/* A batch sent and not acknowledged yet (PROTOCOL.md §1.4). */
struct pending_batch {
    uint64_t seq;
    void    *data;
    size_t   len;
    int64_t  sent_ns;
};

atomic_int ftio_flusher_started;

static struct {
    pthread_t        th;
    atomic_uint      kick_word;       /* futex: bumped by every kick */
    atomic_int       stop, exited, shutdown_begun, joined;
    _Atomic uint64_t req_gen, done_gen;
    pthread_mutex_t  start_mu;        /* starting the thread */
    pthread_mutex_t  mark_mu;         /* the pending mark */
    pthread_mutex_t  api_mu;          /* one named flush at a time */
    char             mark[FTIO_WIRE_MAX_STR];
    int              have_mark;
    /* Owned by the flusher thread. */
    void            *zctx, *zsock;
    int              zmq_broken;      /* bad endpoint: spool only */
    int              ever_sent;
    int64_t          sock_created_ns;
    uint64_t         seq, lost;
    int              stopping;        /* the last drain: short waits only */
    struct pending_batch *pend;       /* sent, unacknowledged, oldest first */
    size_t           npend, cappend, pend_bytes;
    int64_t          last_ack_ns;     /* 0: the daemon never acknowledged */
    uint64_t         spooled;         /* batches this image spooled */
    int              stall_said;
    struct ftio_record     *batch;
    struct ftio_file_entry *fentries;
    struct ftio_wbuf wbuf;
    /* FTIO_AUTH=munge: this image's session (common/auth.h); without one
     * every batch is spooled, never sent unauthenticated. */
    struct ftio_auth_sender auth;
    int              auth_ok;
    int64_t          auth_tried_ns;
} fl = {
    .start_mu = PTHREAD_MUTEX_INITIALIZER,
    .mark_mu = PTHREAD_MUTEX_INITIALIZER,
    .api_mu = PTHREAD_MUTEX_INITIALIZER,
};

static __thread int in_flusher __attribute__((tls_model("initial-exec")));
__thread int ftio_thread_table __attribute__((tls_model("initial-exec")));

/* Thread id of the flusher that runs in a private descriptor table, 0 when
 * none does (then every thread uses the application's table). */
static atomic_long private_tid;

void ftio_flusher_init(void)
{
    atomic_store(&fl.kick_word, 0);
}

void ftio_flusher_kick(void)
{
    int saved = errno;
    atomic_fetch_add(&fl.kick_word, 1);
    syscall(SYS_futex, &fl.kick_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}

/* Sleep until a kick after `seen` was read, or timeout_ms. */
static void wait_kick(unsigned seen, int timeout_ms)
{
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };
    syscall(SYS_futex, &fl.kick_word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

/* ---- private descriptor table ----------------------------------------- */

/* Does this thread share its descriptor table with the private flusher?
 * Its own threads (ZeroMQ's) do; application threads never do. */
int ftio_thread_table_classify(void)
{
    long flusher = atomic_load_explicit(&private_tid, memory_order_acquire);
    int private = 0;
    if (flusher) {
        int saved = errno;
        private = syscall(SYS_kcmp, (pid_t)syscall(SYS_gettid), (pid_t)flusher, KCMP_FILES, 0, 0) == 0;
        errno = saved;
    }
    ftio_thread_table = private ? FTIO_TABLE_PRIVATE : FTIO_TABLE_APP;
    return private;
}

/* Put /dev/null on 0, 1, 2 where nothing is open, so that ZeroMQ's and the
 * spool's descriptors never get those numbers: our diagnostics write to 2.
 * Returns 0 when 2 could not be filled (then we must not log). */
static int fill_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (syscall(SYS_fcntl, fd, F_GETFD) >= 0)
            continue;
        int nul = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
        if (nul != fd) {                 /* no /dev/null: leave the gap */
            if (nul >= 0)
                syscall(SYS_close, nul);
            if (fd == 2)
                return 0;
        }
    }
    return 1;
}

/* Close every descriptor of our private copy except stderr (kept for our
 * diagnostics unless the application traces a file there).  Raw syscalls:
 * our close wrapper must not see these (they are not the application's). */
static void close_inherited(void)
{
    int keep_stderr = ftio_fdt && ftio_fdt_size > 2 && !atomic_load(&ftio_fdt[2].fid) &&
                      !atomic_load(&ftio_fdt[2].stdio_fid);
    if (syscall(SYS_close_range, 3u, ~0u, 0) == 0) {
        syscall(SYS_close_range, 0u, keep_stderr ? 1u : 2u, 0);
        return;
    }
    /* Before Linux 5.9: list our own table (/proc/thread-self, not
     * /proc/self, which is the main thread's). */
    int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/fd",
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        long n;
        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(buf + off);
                off += d->d_reclen;
                char *end;
                long fd = strtol(d->d_name, &end, 10);
                if (*end || end == d->d_name || fd == dfd || (fd == 2 && keep_stderr))
                    continue;
                syscall(SYS_close, (int)fd);
            }
        }
        syscall(SYS_close, dfd);
        return;
    }
    for (unsigned fd = 0; fd < ftio_fdt_size; fd++)
        if (fd != 2 || !keep_stderr)
            syscall(SYS_close, (int)fd);
}

/* Move this (flusher) thread to a private copy of the descriptor table. */
static void private_fd_table(void)
{
    if (!ftio_cfg.private_fds)
        return;
    pid_t self = (pid_t)syscall(SYS_gettid);
    /* kcmp tells our threads from the application's afterwards: without it
     * we could not keep them out of the fd table, so stay shared. */
    if (syscall(SYS_kcmp, self, self, KCMP_FILES, 0, 0) != 0) {
        ftio_log("kcmp unavailable (%s): flusher shares the descriptor table", strerror(errno));
        return;
    }
    if (unshare(CLONE_FILES) != 0) {
        ftio_log("unshare(CLONE_FILES): %s: flusher shares the descriptor table", strerror(errno));
        return;
    }
    ftio_thread_table = FTIO_TABLE_PRIVATE;
    atomic_store_explicit(&private_tid, self, memory_order_release);
    close_inherited();
    if (!fill_std_fds())
        ftio_quiet = 1;        /* 2 may become a ZeroMQ descriptor: no logging */
    ftio_log("flusher runs in a private descriptor table");
}

/* Read after a waited flush, when the flusher is idle. */
uint64_t ftio_flusher_next_seq(void)
{
    return __atomic_load_n(&fl.seq, __ATOMIC_ACQUIRE);
}

void ftio_flusher_set_seq_base(uint64_t seq)
{
    fl.seq = seq;
}

int ftio_flusher_running(void)
{
    return atomic_load(&ftio_flusher_started) && !atomic_load(&fl.exited);
}

/* ---- ZeroMQ ----------------------------------------------------------- */

static void zmq_open(void)
{
    if (fl.zsock || fl.zmq_broken || ftio_cfg.spool_mode == FTIO_SPOOL_ALWAYS)
        return;
    fl.zctx = zmq_ctx_new();
    if (!fl.zctx) {
        fl.zmq_broken = 1;
        ftio_warn("zmq_ctx_new: %s; spooling to %s", zmq_strerror(errno), ftio_cfg.spool_dir);
        return;
    }
    fl.zsock = zmq_socket(fl.zctx, ZMQ_DEALER);
    int hwm = ftio_cfg.hwm, linger = ftio_cfg.linger_ms, one = 1;
    if (!fl.zsock || zmq_setsockopt(fl.zsock, ZMQ_SNDHWM, &hwm, sizeof hwm) != 0 ||
        zmq_setsockopt(fl.zsock, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_setsockopt(fl.zsock, ZMQ_IMMEDIATE, &one, sizeof one) != 0 ||
        zmq_connect(fl.zsock, ftio_cfg.endpoint) != 0) {
        ftio_warn("FTIO_ENDPOINT=%s: %s; spooling to %s", ftio_cfg.endpoint, zmq_strerror(errno),
                  ftio_cfg.spool_dir);
        fl.zmq_broken = 1;
        if (fl.zsock)
            zmq_close(fl.zsock);
        fl.zsock = NULL;
        return;
    }
    fl.sock_created_ns = ftio_mono_ns();
    ftio_log("PUSH connected to %s", ftio_cfg.endpoint);
}

/* ---- acknowledgements -------------------------------------------------- */

static int spool_copy(const void *buf, size_t len)
{
    if (ftio_cfg.spool_mode == FTIO_SPOOL_NEVER || ftio_spool_append(buf, len) != 0)
        return 0;
    fl.spooled++;
    return 1;
}

/* Forget pending[i]: spooled first when keep_in_spool. */
static void pending_drop(size_t i, int keep_in_spool)
{
    struct pending_batch *p = &fl.pend[i];
    if (keep_in_spool && !spool_copy(p->data, p->len))
        ftio_log("batch seq %llu: unacknowledged and not spooled", (unsigned long long)p->seq);
    fl.pend_bytes -= p->len;
    free(p->data);
    memmove(p, p + 1, (fl.npend - i - 1) * sizeof *p);
    fl.npend--;
}

static void spool_all_pending(void)
{
    while (fl.npend)
        pending_drop(0, 1);
}

/* Keep a copy of a batch just sent.  Past FTIO_ACK_MAX_MB of copies the
 * oldest go to the spool file; without memory for a copy, this one does. */
static void pending_add(uint64_t seq, const void *buf, size_t len)
{
    while (fl.npend && fl.pend_bytes + len > ftio_cfg.ack_max_bytes)
        pending_drop(0, 1);
    void *copy = NULL;
    if (fl.npend == fl.cappend) {
        size_t cap = fl.cappend ? 2 * fl.cappend : 16;
        struct pending_batch *p = realloc(fl.pend, cap * sizeof *p);
        if (p) {
            fl.pend = p;
            fl.cappend = cap;
        }
    }
    if (fl.npend < fl.cappend)
        copy = malloc(len);
    if (!copy) {
        spool_copy(buf, len);
        return;
    }
    memcpy(copy, buf, len);
    fl.pend[fl.npend++] = (struct pending_batch){ seq, copy, len, ftio_mono_ns() };
    fl.pend_bytes += len;
}

/* Take every acknowledgement queued: merged ones are forgotten, refused
 * ones stay in the spool file. */
static void take_acks(void)
{
    struct ftio_ack a;
    while (fl.zsock && ftio_ack_recv(fl.zsock, &a)) {
        fl.last_ack_ns = ftio_mono_ns();
        for (size_t i = 0; i < fl.npend; i++)
            if (fl.pend[i].seq == a.seq) {
                if (a.status != FTIO_ACK_MERGED)
                    ftio_log("batch seq %llu refused by ftiod: spooled", (unsigned long long)a.seq);
                pending_drop(i, a.status != FTIO_ACK_MERGED);
                break;
            }
    }
}

/* A daemon that takes batches but no longer acknowledges them (hung, or
 * its ingest stopped): after FTIO_ACK_TIMEOUT_MS the copies go to the spool
 * file, which is all a later replay needs. */
static void check_stall(void)
{
    if (!fl.npend)
        return;
    int64_t since = fl.pend[0].sent_ns > fl.last_ack_ns ? fl.pend[0].sent_ns : fl.last_ack_ns;
    if (ftio_mono_ns() - since < (int64_t)ftio_cfg.ack_timeout_ms * 1000000)
        return;
    if (!fl.stall_said++)
        ftio_warn("ftiod at %s has not acknowledged %zu batches for %d ms: spooling them to %s",
                  ftio_cfg.endpoint, fl.npend, ftio_cfg.ack_timeout_ms, ftio_cfg.spool_dir);
    spool_all_pending();
}

/* End of the image's stream: wait (briefly) for the last acknowledgements,
 * spool what is still unacknowledged, drop ZeroMQ without lingering (every
 * batch it still holds is in the spool file now), and say once per job
 * where the spool is. */
static void zmq_finish(void)
{
    if (fl.zsock && fl.npend) {
        int64_t deadline = ftio_mono_ns() + (int64_t)ftio_cfg.exit_wait_ms * 1000000;
        take_acks();
        while (fl.npend && ftio_mono_ns() < deadline) {
            zmq_pollitem_t it = { .socket = fl.zsock, .events = ZMQ_POLLIN };
            long left_ms = (long)((deadline - ftio_mono_ns() + 999999) / 1000000);
            zmq_poll(&it, 1, left_ms > 0 ? left_ms : 0);
            take_acks();
        }
    }
    if (fl.npend)
        ftio_log("%zu batches unacknowledged at exit: spooled", fl.npend);
    spool_all_pending();
    free(fl.pend);
    fl.pend = NULL;
    fl.cappend = 0;
    if (fl.zctx) {
        int zero = 0;
        if (fl.zsock) {
            zmq_setsockopt(fl.zsock, ZMQ_LINGER, &zero, sizeof zero);
            zmq_close(fl.zsock);
        }
        while (zmq_ctx_term(fl.zctx) != 0 && errno == EINTR)
            ;
        fl.zsock = fl.zctx = NULL;
    }
    if (ftio_cfg.spool_mode != FTIO_SPOOL_ALWAYS)
        ftio_spool_notice(fl.spooled);
}

/* FTIO_AUTH=munge: a session for this image, asked of munged once (and again
 * every AUTH_RETRY_NS while munged cannot be reached).  1 when there is one. */
static int auth_session(void)
{
    if (fl.auth_ok)
        return 1;
    int64_t now = ftio_mono_ns();
    if (fl.auth_tried_ns && now - fl.auth_tried_ns < AUTH_RETRY_NS)
        return 0;
    int first = fl.auth_tried_ns == 0;
    fl.auth_tried_ns = now;
    char err[256];
    if (ftio_auth_sender_init(&fl.auth, ftio_cfg.munge_socket[0] ? ftio_cfg.munge_socket : NULL,
                              ftio_cfg.auth_uid < 0 ? (uid_t)-1 : (uid_t)ftio_cfg.auth_uid,
                              err, sizeof err) != 0) {
        if (first)
            ftio_warn("cannot authenticate to ftiod (%s): spooling to %s (FTIO_AUTH=none "
                      "for a daemon without authentication)", err, ftio_cfg.spool_dir);
        return 0;
    }
    fl.auth_ok = 1;
    ftio_log("MUNGE session made (credential of %zu bytes)", fl.auth.cred_len);
    return 1;
}

/* 1 if the message was handed to a connected peer. */
static int zmq_deliver(const void *buf, size_t len)
{
    zmq_open();
    if (!fl.zsock)
        return 0;
    if (ftio_cfg.auth_mode == FTIO_AUTH_MUNGE && !auth_session())
        return 0;
    if (!fl.ever_sent) {
        /* Right after connect() the session may not be up yet; give it a
         * short, bounded grace so a daemon that is there gets the data.  In
         * the last drain the application is waiting to exit: a daemon that
         * is not connected by now is down or unreachable, so a few ms at
         * most, then the spool file. */
        int grace = fl.stopping && ftio_cfg.exit_wait_ms < CONNECT_GRACE_MS ? ftio_cfg.exit_wait_ms
                                                                             : CONNECT_GRACE_MS;
        int64_t left = grace - (ftio_mono_ns() - fl.sock_created_ns) / 1000000;
        if (left > 0) {
            zmq_pollitem_t it = { .socket = fl.zsock, .events = ZMQ_POLLOUT };
            zmq_poll(&it, 1, (long)left);
        }
    }
    if (ftio_batch_send(fl.zsock, fl.auth_ok ? &fl.auth : NULL, buf, len, ZMQ_DONTWAIT) == 0) {
        fl.ever_sent = 1;
        return 1;
    }
    return 0;
}

/* ---- batches ---------------------------------------------------------- */

/* Encode and deliver one batch.  Returns 1 when something was delivered. */
static int deliver(const struct ftio_record *rec, size_t n, const char *mark, int final)
{
    void *token;
    size_t nf = ftio_files_pending(fl.fentries, FILES_MAX, &token);
    if (n == 0 && nf == 0 && !mark && !final && fl.lost == 0)
        return 0;
    struct ftio_batch_header h = {
        .version = FTIO_WIRE_VERSION,
        .job = ftio_id.job,
        .host = ftio_id.host,
        .pid = atomic_load(&ftio_id.pid),
        .rank = atomic_load(&ftio_id.rank),
        .nranks = atomic_load(&ftio_id.nranks),
        .seq = fl.seq,
        .lost = fl.lost,
        .mark = mark,
        .final = final ? true : false,
        .nfiles = nf,
        .files = fl.fentries,
    };
    ftio_clock_anchor(&h.clock_mono, &h.clock_real);
    fl.wbuf.len = 0;
    if (ftio_wire_encode(&fl.wbuf, &h, rec, n) != 0) {
        fl.lost += n;
        ftio_log("encode failed (out of memory): %zu records lost", n);
        return 0;
    }
    const char *how = NULL;
    if (ftio_cfg.spool_mode != FTIO_SPOOL_ALWAYS && zmq_deliver(fl.wbuf.data, fl.wbuf.len)) {
        how = "sent";
        pending_add(fl.seq, fl.wbuf.data, fl.wbuf.len);   /* until acknowledged */
    } else if (spool_copy(fl.wbuf.data, fl.wbuf.len)) {
        how = "spooled";
    }
    if (!how) {
        fl.lost += n;
        ftio_log("batch seq %llu (%zu records) neither sent nor spooled", (unsigned long long)fl.seq, n);
        return 0;
    }
    ftio_log("batch seq %llu: %zu records, %zu files, lost %llu%s%s %s", (unsigned long long)fl.seq,
             n, nf, (unsigned long long)fl.lost, final ? ", final" : "", mark ? ", mark" : "", how);
    __atomic_store_n(&fl.seq, fl.seq + 1, __ATOMIC_RELEASE);
    fl.lost = 0;
    ftio_files_commit(token);
    return 1;
}

/* Drain every ring; the mark and the final flag go on the last batch. */
static void flush_all(const char *mark, int final)
{
    if (!fl.batch) {
        fl.batch = malloc(BATCH_MAX * sizeof *fl.batch);
        fl.fentries = malloc(FILES_MAX * sizeof *fl.fentries);
        if (!fl.batch || !fl.fentries) {
            free(fl.batch);
            free(fl.fentries);
            fl.batch = NULL;
            fl.fentries = NULL;
            ftio_warn("out of memory in the flusher");
            return;
        }
    }
    /* Bounded: producers may keep filling while we drain. */
    for (int round = 0; round < 64; round++) {
        size_t n = ftio_rings_drain(fl.batch, BATCH_MAX, &fl.lost);
        int last = n < BATCH_MAX || round == 63;
        deliver(fl.batch, n, last ? mark : NULL, last && final);
        if (last)
            break;
    }
    /* Spare segments for the next burst, allocated here, off the
     * application's path (ring.c). */
    if (!final)
        ftio_rings_refill();
}

static int take_mark(char *out)
{
    pthread_mutex_lock(&fl.mark_mu);
    int have = fl.have_mark;
    if (have)
        memcpy(out, fl.mark, sizeof fl.mark);
    fl.have_mark = 0;
    pthread_mutex_unlock(&fl.mark_mu);
    return have;
}

static void *flusher_main(void *arg)
{
    (void)arg;
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    ftio_busy = 1;
    in_flusher = 1;
    unsigned seen = atomic_load(&fl.kick_word);
    private_fd_table();       /* before ZeroMQ: its threads share our table */
    zmq_open();               /* connect early: the first flush finds a session */
    char mark[FTIO_WIRE_MAX_STR];
    for (;;) {
        if (!atomic_load(&fl.stop) &&
            atomic_load(&fl.req_gen) == atomic_load(&fl.done_gen))
            wait_kick(seen, ftio_cfg.flush_ms);
        seen = atomic_load(&fl.kick_word);   /* kicks from now on wake the next wait */
        uint64_t gen = atomic_load(&fl.req_gen);
        int stopping = atomic_load(&fl.stop);
        int has_mark = take_mark(mark);
        fl.stopping = stopping != RUNNING;
        flush_all(has_mark ? mark : NULL, stopping == STOP_FINAL);
        take_acks();
        check_stall();
        if (stopping) {
            zmq_finish();         /* before done_gen: waiters may exec/exit */
            atomic_store(&fl.done_gen, gen);
            break;
        }
        atomic_store(&fl.done_gen, gen);
    }
    /* ZeroMQ's threads are gone (zmq_ctx_term joined them); our id may be
     * reused by an application thread, which must not look "private". */
    atomic_store(&private_tid, 0);
    atomic_store(&fl.exited, 1);
    return NULL;
}

void ftio_flusher_start_if_needed(void)
{
    if (atomic_load(&ftio_flusher_started) || atomic_load(&fl.shutdown_begun) || ftio_cfg.disable)
        return;
    int busy = ftio_busy;
    ftio_busy = 1;
    pthread_mutex_lock(&fl.start_mu);
    if (!atomic_load(&ftio_flusher_started)) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        int rc = pthread_create(&fl.th, &attr, flusher_main, NULL);
        pthread_attr_destroy(&attr);
        if (rc == 0) {
            atomic_store(&fl.joined, 0);
            atomic_store(&ftio_flusher_started, 1);
        } else {
            ftio_warn("cannot start the flusher thread: %s", strerror(rc));
        }
    }
    pthread_mutex_unlock(&fl.start_mu);
    ftio_busy = busy;
}

/* Poll (async-signal-safe) until cond() or the deadline. */
static int wait_until(int (*cond)(uint64_t), uint64_t arg, int timeout_ms)
{
    int64_t deadline = ftio_mono_ns() + (int64_t)timeout_ms * 1000000;
    while (!cond(arg)) {
        if (ftio_mono_ns() > deadline)
            return 0;
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
    return 1;
}

static int gen_done(uint64_t gen)
{
    return atomic_load(&fl.done_gen) >= gen || atomic_load(&fl.exited);
}

static int has_exited(uint64_t unused)
{
    (void)unused;
    return atomic_load(&fl.exited);
}

/* Every wait of an exit path is bounded: the flusher's own wait for
 * acknowledgements (FTIO_EXIT_WAIT_MS), its connect grace, and a margin for
 * encoding and spooling what is left. */
static int wait_bound_ms(void)
{
    return ftio_cfg.exit_wait_ms + CONNECT_GRACE_MS + 1000;
}

/* Join the exited thread once (shutdown and a failed exec may both try). */
static void join_flusher(void)
{
    if (!atomic_exchange(&fl.joined, 1))
        pthread_join(fl.th, NULL);
}

void ftio_flush_now(const char *mark, int wait)
{
    if (ftio_cfg.disable || !ftio_fdt || in_flusher || atomic_load(&fl.shutdown_begun))
        return;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    if (mark) {
        pthread_mutex_lock(&fl.api_mu);
        pthread_mutex_lock(&fl.mark_mu);
        snprintf(fl.mark, sizeof fl.mark, "%s", mark);
        fl.have_mark = 1;
        pthread_mutex_unlock(&fl.mark_mu);
        ftio_flusher_start_if_needed();      /* a mark is sent even without records */
    }
    if (ftio_flusher_running()) {
        uint64_t gen = atomic_fetch_add(&fl.req_gen, 1) + 1;
        ftio_flusher_kick();
        if (wait || mark)
            wait_until(gen_done, gen, wait_bound_ms());
    }
    if (mark)
        pthread_mutex_unlock(&fl.api_mu);
    ftio_busy = busy;
    errno = saved;
}

void ftio_flush_from_signal(int final)
{
    if (ftio_cfg.disable || !ftio_fdt || in_flusher || !ftio_flusher_running())
        return;
    int saved = errno;
    if (final) {
        if (atomic_exchange(&fl.shutdown_begun, 1))
            return;
        atomic_store(&fl.stop, 1);
        ftio_flusher_kick();
        wait_until(has_exited, 0, wait_bound_ms());
        ftio_mark_shut_down();
    } else {
        uint64_t gen = atomic_fetch_add(&fl.req_gen, 1) + 1;
        ftio_flusher_kick();
        wait_until(gen_done, gen, wait_bound_ms());
    }
    errno = saved;
}

void ftio_shutdown(void)
{
    if (ftio_cfg.disable || !ftio_fdt || in_flusher || atomic_load(&fl.shutdown_begun))
        return;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    /* An exec'd image continuing a traced stream (FTIO_SEQ_BASE) closes it
     * with a final batch even if it recorded nothing itself. */
    if (!atomic_load(&ftio_flusher_started) && ftio_flusher_next_seq() > 0)
        ftio_flusher_start_if_needed();
    if (atomic_exchange(&fl.shutdown_begun, 1)) {
        ftio_busy = busy;
        errno = saved;
        return;
    }
    pthread_mutex_lock(&fl.start_mu);        /* nobody starts it behind our back */
    int started = atomic_load(&ftio_flusher_started);
    pthread_mutex_unlock(&fl.start_mu);
    if (started) {
        atomic_store(&fl.stop, 1);
        ftio_flusher_kick();
        if (wait_until(has_exited, 0, wait_bound_ms()))
            join_flusher();
        else
            ftio_log("flusher did not finish within %d ms; exiting anyway", wait_bound_ms());
    }
    ftio_mark_shut_down();
    ftio_log("shut down");
    ftio_busy = busy;
    errno = saved;
}

int ftio_flusher_handoff(void)
{
    if (ftio_cfg.disable || !ftio_fdt || in_flusher || atomic_load(&fl.shutdown_begun) ||
        !ftio_flusher_running())
        return 0;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    int expected = RUNNING, handed = 0;
    if (atomic_compare_exchange_strong(&fl.stop, &expected, STOP_HANDOFF)) {
        ftio_flusher_kick();
        if (!wait_until(has_exited, 0, wait_bound_ms()))
            ftio_log("pre-exec hand-off not finished within %d ms", wait_bound_ms());
        handed = 1;
    }
    ftio_busy = busy;
    errno = saved;
    return handed;
}

void ftio_flusher_handoff_failed(void)
{
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    pthread_mutex_lock(&fl.start_mu);
    /* A thread still busy with the hand-off (its wait timed out) can't be
     * restarted safely: this image then sends nothing more. */
    if (atomic_load(&fl.exited) && atomic_load(&fl.stop) == STOP_HANDOFF &&
        !atomic_load(&fl.shutdown_begun)) {
        join_flusher();
        fl.ever_sent = 0;
        atomic_store(&fl.done_gen, atomic_load(&fl.req_gen));
        atomic_store(&fl.stop, RUNNING);
        atomic_store(&fl.exited, 0);
        atomic_store(&ftio_flusher_started, 0);    /* restarts on the next record */
        ftio_log("exec failed: tracing continues");
    }
    pthread_mutex_unlock(&fl.start_mu);
    ftio_busy = busy;
    errno = saved;
}

void ftio_flusher_atfork_prepare(void)
{
    pthread_mutex_lock(&fl.api_mu);
    pthread_mutex_lock(&fl.start_mu);
    pthread_mutex_lock(&fl.mark_mu);
}

void ftio_flusher_atfork_parent(void)
{
    pthread_mutex_unlock(&fl.mark_mu);
    pthread_mutex_unlock(&fl.start_mu);
    pthread_mutex_unlock(&fl.api_mu);
}

void ftio_flusher_after_fork_child(void)
{
    pthread_mutex_init(&fl.mark_mu, NULL);
    pthread_mutex_init(&fl.start_mu, NULL);
    pthread_mutex_init(&fl.api_mu, NULL);
    /* The parent's context and socket belong to threads that do not exist
     * here: abandon them (closing would touch the parent's session). */
    fl.zctx = fl.zsock = NULL;
    fl.zmq_broken = 0;
    fl.ever_sent = 0;
    fl.seq = 0;
    fl.lost = 0;
    fl.have_mark = 0;
    /* The parent's unacknowledged copies are the parent's (it spools them
     * if need be); its acknowledgements go to its socket. */
    fl.pend = NULL;
    fl.npend = fl.cappend = fl.pend_bytes = 0;
    fl.last_ack_ns = 0;
    fl.spooled = 0;
    fl.stall_said = 0;
    fl.stopping = 0;
    /* The MUNGE session (fl.auth) is kept: the child has the parent's uid,
     * which is all the credential says. */
    atomic_store(&fl.joined, 0);
    atomic_store(&fl.stop, 0);
    atomic_store(&fl.exited, 0);
    atomic_store(&fl.shutdown_begun, 0);
    atomic_store(&fl.req_gen, 0);
    atomic_store(&fl.done_gen, 0);
    atomic_store(&ftio_flusher_started, 0);
    /* Our table is the application's copy; the parent's flusher is not here. */
    atomic_store(&private_tid, 0);
    ftio_flusher_init();
}
