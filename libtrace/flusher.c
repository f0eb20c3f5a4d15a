/* SPDX-License-Identifier: BSD-3-Clause */
/* flusher.c -- the background thread: rings -> wire batches -> ftiod
 * (sink.c) or the spool file (spool.c).
 *
 * Started when a process lives on past its first records (below), or at
 * MPI_Init (mpi_life.c: a rank tells ftiod it exists, and at MPI_Finalize
 * that it finished, in header-only batches), or at an explicit flush.  Its
 * first pass sends at once; then it wakes every FTIO_FLUSH_MS, when a
 * ring is half full, or on request (ftio_flush_now(), exit paths, fatal
 * signals) through a futex word: the kick is async-signal-safe and needs no
 * descriptor the application could close.  Each wake-up drains the rings
 * into batches and offers each batch to the sink, which keeps a copy until
 * ftiod acknowledges it (PROTOCOL.md §1.4) and falls back to the spool file
 * for what the daemon does not take (FTIO_SPOOL=file: only the spool file;
 * tee: both).  A batch that goes nowhere is counted in the next header's
 * "lost".  "seq" numbers every batch of the process, whichever way it went:
 * the daemon drops a (pid, seq) it already has, so a batch both delivered and
 * spooled counts once.
 *
 * A process's first record does not start the thread: the records wait in
 * the rings (the hot path as always) while the process is young
 * (DEFER_NS, looked at by the rings' slow path, ring.c, with a clock read
 * of its own) and its ring is less than half full.  A process that ends in
 * that time -- `cat`, `cp`, a shell's commands: most traced processes --
 * delivers them from its exiting thread (ftio_flusher_end_here): no clone,
 * no second thread's wake-ups, unshare and table copy, no TLB shootdowns
 * on the application's munmaps (bench/README.md "exit10").  Only when that
 * thread is the process's only one (then nothing else uses its descriptor
 * table, so ZMTP's socket is as safe there as in the private table);
 * otherwise, and for every other reason to send (a record past DEFER_NS, a
 * half-full ring, exec, an explicit flush, MPI, a hand-off to take), the
 * thread starts as before.
 *
 * End of an image (exit, _exit, MPI_Abort, fatal signal: FTIO_STOP_FINAL;
 * exec: FTIO_STOP_HANDOFF, the new image continues the stream): handoff.c
 * decides and asks, this thread does the last drain, then the sink's bounded
 * wait (FTIO_EXIT_WAIT_MS, 3 ms) and the spool file for the rest; an image
 * that spooled says so once per job (spool.c).
 *
 * The thread first moves to a private descriptor table (fdprivate.c; why:
 * libtrace/README.md), then creates ZeroMQ, whose threads share that table.
 * It blocks the asynchronous signals (they go to application threads) and
 * runs with ftio_busy set, so its own I/O is never traced.  fork: the child
 * abandons the inherited context (never closes it: its threads do not exist
 * in the child) and starts its own flusher lazily.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "identity.h"
#include "internal.h"
#include "timeutil.h"
#include "wire.h"

/* Records per message.  A batch is staged, encoded and written out whole, so
 * its bytes (~35 per record) pass through the cache several times: at
 * 16,384 records (the drain of half a default ring) and more, they no longer
 * fit in it and the flusher cost 50-180 ns per record; at 4,096 (~140 KB),
 * 30-40 ns (bench/README.md "delivery").  Smaller batches only add headers
 * and acknowledgements. */
#define BATCH_MAX   4096
#define STAGE_MAX   512        /* records counted and encoded at a time: 24 KiB of a ring, in the L1 cache */
#define PASS_MAX    (1u << 22) /* records one pass takes at most (producers may keep filling) */
#define FILES_MAX   4096       /* file entries per message */
#define CONNECT_RETRY_MS 5     /* first second: how soon a batch waiting for the connection goes */
#define SHORT_COLUMN  1024     /* static encoding buffers: a column of ~110 records, */
#define SHORT_HEADER  2048     /* ... a header with a few files' paths (bigger: malloc'd) */
/* How long a process's records may wait for its end before the thread
 * starts: a short process ends well within it (a traced `cat` lives ~1 ms
 * after its first record), one that lives on pays the first pass this much
 * later (less than a flush period, FTIO_FLUSH_MS). */
#define DEFER_NS      (20 * 1000000ll)
#define STDERR_COPY_MIN 100    /* (ftio_flusher_stderr_closing) */

atomic_int ftio_flusher_started FTIO_HOT;     /* read by every record (shim.h FTIO_HOT) */

static struct {
    pthread_t        th;
    atomic_uint      kick_word;       /* futex: bumped by every kick */
    atomic_uint      event_word;      /* futex: bumped by the thread at each step a waiter waits for */
    atomic_int       kick_waiters, event_waiters;   /* threads asleep on either: else no wake */
    atomic_int       exit_waiters;    /* threads asleep on `exited` (an image's end) */
    atomic_int       stop, exited, shutdown_begun, joined;
    atomic_int       table_ready;     /* the thread has its descriptor table */
    atomic_int       parked;          /* the thread finished the image's end: it waits for exit_group */
    atomic_uint      progress;        /* batches finished (the exit wait's renewal) */
    _Atomic uint64_t req_gen, done_gen;
    pthread_mutex_t  start_mu;        /* starting the thread */
    pthread_mutex_t  mark_mu;         /* the pending mark */
    int              have_mark;
    atomic_int       mpi;             /* enum ftio_mpi_state, set by mpi_life.c */
    int              mpi_sent;        /* the state the last batch carried (flusher) */
    int              app_sent;        /* the image's first batch carried `app` (identity.c) */
    /* Owned by the flusher thread. */
    uint64_t         seq, lost;
    unsigned         passes;          /* flush passes of this image's thread(s) */
} fl FTIO_WARM = {
    .start_mu = PTHREAD_MUTEX_INITIALIZER,
    .mark_mu = PTHREAD_MUTEX_INITIALIZER,
};

/* One named flush at a time (ftio_flush with a mark, and fork): apart
 * from `fl` (FTIO_WARM has no byte to spare, hot_page.sh), a short process
 * never takes it. */
static pthread_mutex_t api_mu = PTHREAD_MUTEX_INITIALIZER;

/* Apart (the state above shares a page with the constructor's, shim.h
 * FTIO_WARM), static rather than malloc'd: a short process's flusher
 * allocates nothing (its first malloc or free made glibc create a malloc
 * arena for the thread, ~6 system calls and its pages: bench/README.md
 * "exit latency"); pages of these arrays it does not reach are never
 * touched. */
/* The first records waiting for the process's end (the top of this file):
 * read by the rings' slow path while they wait, so on the page every traced
 * call reads (shim.h FTIO_HOT; FTIO_WARM has no room left). */
static struct {
    atomic_int deferred;          /* records go to the rings, the thread is not created yet */
    int        stderr_copy;       /* 1 + a copy of the stderr the application closed meanwhile */
    int64_t    until_ns;          /* the records wait until then (monotonic) */
} dfr FTIO_HOT;

static char mark_set[FTIO_WIRE_MAX_STR];                 /* the pending mark (mark_mu) */
/* The batch being made (the flusher thread's): its records' columns and its
 * header, and their first buffers. */
static struct ftio_wire_columns cols FTIO_FLUSHER_STATE;
static struct ftio_wbuf wbuf FTIO_FLUSHER_STATE;
static char enc_head[SHORT_HEADER] FTIO_FLUSHER_STATE;
static char enc_cols[FTIO_WIRE_COLUMNS][SHORT_COLUMN] FTIO_FLUSHER_STATE;
static struct ftio_file_entry fentries[FILES_MAX];

static __thread int in_flusher __attribute__((tls_model("initial-exec")));

void ftio_flusher_init(void)
{
    atomic_store(&fl.kick_word, 0);
}

/* A word is bumped, then a sleeper woken only if there is one (the wake is a
 * system call, and most bumps have nobody asleep: a short process made five
 * for nothing).  Sequentially consistent: either the waker sees the
 * sleeper's count, or the sleeper's FUTEX_WAIT sees the bumped word and does
 * not sleep. */
static void bump(atomic_uint *word, atomic_int *waiters, int n)
{
    atomic_fetch_add(word, 1);
    if (atomic_load(waiters))
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* (Async-signal-safe.)  Sleep on word while it is `seen`, until ts. */
static void sleep_on(atomic_uint *word, atomic_int *waiters, unsigned seen, const struct timespec *ts)
{
    atomic_fetch_add(waiters, 1);
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, ts, NULL, 0);
    atomic_fetch_sub(waiters, 1);
}

void ftio_flusher_kick(void)
{
    int saved = errno;
    bump(&fl.kick_word, &fl.kick_waiters, 1);
    errno = saved;
}

/* The thread's side of the waits below (table ready, a pass done, a batch
 * finished, exited): wake them at once.  They polled every 200 us before,
 * and on a loaded node each poll is a wake-up that waits for a CPU: the
 * exit of a short process paid several (bench/README.md "exit latency"). */
static void event(void)
{
    bump(&fl.event_word, &fl.event_waiters, INT_MAX);
}

/* (Async-signal-safe.)  Sleep until an event after `seen` was read, or
 * until deadline_ns, and at most 5 ms (then the caller looks again). */
static void wait_event(unsigned seen, int64_t deadline_ns)
{
    int64_t left = deadline_ns - ftio_mono_ns();
    if (left <= 0)
        return;
    if (left > 5000000)
        left = 5000000;
    struct timespec ts = { 0, (long)left };
    sleep_on(&fl.event_word, &fl.event_waiters, seen, &ts);
}

/* Sleep until a kick after `seen` was read, or timeout_ms. */
static void wait_kick(unsigned seen, int timeout_ms)
{
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };
    sleep_on(&fl.kick_word, &fl.kick_waiters, seen, &ts);
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

/* The thread exists (started, not waiting for the process's end) and has
 * not finished. */
static int thread_up(void)
{
    return atomic_load(&ftio_flusher_started) && !atomic_load(&dfr.deferred);
}

int ftio_flusher_running(void)
{
    return thread_up() && !atomic_load(&fl.exited);
}

/* ---- batches ---------------------------------------------------------- */

/* Encode and deliver one batch: the header and the n records staged in
 * cols.  Returns 1 when something was delivered. */
static int deliver(size_t n, const char *mark, int final)
{
    void *token;
    size_t nf = ftio_files_pending(fentries, FILES_MAX, &token);
    fl.lost += ftio_sink_take_lost();
    int mpi = atomic_load(&fl.mpi);
    /* A change of MPI state is news even without records: ftiod counts the
     * ranks that exist and those that finalised (PROTOCOL.md §2, `.end`). */
    if (n == 0 && nf == 0 && !mark && !final && fl.lost == 0 && mpi == fl.mpi_sent)
        return 0;
    struct ftio_batch_header h = {
        .version = FTIO_WIRE_VERSION,
        .job = ftio_id.job,
        .host = ftio_id.host,
        .pid = atomic_load(&ftio_id.pid),
        .born = atomic_load(&ftio_id.born),
        .rank = atomic_load(&ftio_id.rank),
        .nranks = atomic_load(&ftio_id.nranks),
        .seq = fl.seq,
        .lost = fl.lost,
        .mark = mark,
        .final = final ? true : false,
        .mpi = mpi,
        .nfiles = nf,
        .files = fentries,
    };
    /* The kernel cross-check, in a process's last batch (unseen.c). */
    if (final)
        h.has_unseen = ftio_unseen_final(&h.unseen_read, &h.unseen_write);
    ftio_clock_anchor(&h.clock_mono, &h.clock_real);
    if (!fl.app_sent)          /* the memory of runs: once per image (identity.c) */
        h.has_app = ftio_identity_get(&h.app);
    /* The header in wbuf, the records' columns where they were staged:
     * written out as pieces (writev; the sink gathers its copy). */
    struct iovec iov[FTIO_WIRE_IOV];
    wbuf.len = 0;
    int niov = ftio_wire_encode_columns(&wbuf, &h, &cols, iov);
    if (niov < 0) {
        fl.lost += n;
        ftio_log("encode failed (out of memory): %zu records lost", n);
        return 0;
    }
    /* To ftiod, kept until acknowledged (sink.c); to the spool file
     * when the sink cannot keep it, and always with FTIO_SPOOL=tee. */
    int mode = ftio_cfg.spool_mode;
    int offered = mode != FTIO_SPOOL_ALWAYS && ftio_sink_offer(fl.seq, iov, niov, n);
    int spooled = mode != FTIO_SPOOL_NEVER && (!offered || mode == FTIO_SPOOL_TEE) &&
                  ftio_spool_appendv(iov, niov) == 0;
    const char *how = offered ? (spooled ? "offered and spooled" : "offered")
                              : spooled ? "spooled" : NULL;
    if (!how) {
        fl.lost += n;
        ftio_log("batch seq %llu (%zu records) neither sent nor spooled", (unsigned long long)fl.seq, n);
        return 0;
    }
    ftio_log("batch seq %llu: %zu records, %zu files, lost %llu%s%s %s", (unsigned long long)fl.seq,
             n, nf, (unsigned long long)fl.lost, final ? ", final" : "", mark ? ", mark" : "", how);
    ftio_flusher_progress();
    __atomic_store_n(&fl.seq, fl.seq + 1, __ATOMIC_RELEASE);
    fl.lost = 0;
    fl.mpi_sent = mpi;
    fl.app_sent = 1;
    ftio_files_commit(token);
    return 1;
}

/* Take up to BATCH_MAX records out of the rings into cols, at most
 * STAGE_MAX at a time, read where the producers wrote them: each piece is
 * counted for the kernel cross-check and encoded, its clock mapped on the
 * way (common/wire_encode.c), in one pass over the ring's slots, then given
 * back to the producer.  (Drained into an array first, a batch's records
 * were copied, mapped, counted and encoded in four passes.)  Returns the
 * records taken. */
static size_t stage_batch(void)
{
    size_t drained = 0, n;
    struct ftio_wire_timeline at;
    const struct ftio_wire_timeline *line = NULL;
    ftio_wire_columns_clear(&cols);
    while (drained < BATCH_MAX) {
        size_t want = BATCH_MAX - drained < STAGE_MAX ? BATCH_MAX - drained : STAGE_MAX;
        const struct ftio_record *run = ftio_rings_peek(want, &n, &fl.lost);
        /* The records' clock -> monotonic ns: one line per batch, taken
         * after its first records were found (and by a pass that finds
         * none: the anchors move on as the process ages, clock.c). */
        if (!drained)
            line = ftio_clock_line(&at);
        if (!n)
            break;
        ftio_unseen_count(run, n);
        if (ftio_wire_columns_add(&cols, run, n, line) != 0) {
            fl.lost += n;
            ftio_log("encode failed (out of memory): %zu records lost", n);
        }
        ftio_rings_consumed();
        drained += n;
    }
    return drained;
}

/* Drain every ring; the mark and the final flag go on the last batch. */
static void flush_all(const char *mark, int final)
{
    if (!wbuf.data) {
        ftio_wbuf_use(&wbuf, enc_head, sizeof enc_head);
        for (int k = 0; k < FTIO_WIRE_COLUMNS; k++)
            ftio_wbuf_use(&cols.col[k], enc_cols[k], sizeof enc_cols[k]);
    }
    /* Bounded: producers may keep filling while we drain. */
    ftio_spool_hold(1);
    for (unsigned round = 0; round < PASS_MAX / BATCH_MAX; round++) {
        size_t drained = stage_batch();
        int last = drained < BATCH_MAX || round == PASS_MAX / BATCH_MAX - 1;
        deliver(cols.n, last ? mark : NULL, last && final);
        if (last)
            break;
    }
    ftio_spool_hold(0);
    /* Spare segments for the next burst, allocated here, off the
     * application's path (ring.c); not in the pass at the thread's start:
     * most processes that record end before the next one (two mappings
     * and their pages each would add to their exit), and a producer kicks
     * a pass at half a segment, before it needs a spare. */
    if (!final && fl.passes++)
        ftio_rings_refill();
}

static int take_mark(char *out)
{
    pthread_mutex_lock(&fl.mark_mu);
    int have = fl.have_mark;
    if (have)
        memcpy(out, mark_set, sizeof mark_set);
    fl.have_mark = 0;
    pthread_mutex_unlock(&fl.mark_mu);
    return have;
}

/* The thread's stack is a mapping of ours, made once (a restarted thread,
 * after a failed exec or in a fork child, runs on it again: the one before is
 * joined, or does not exist in the child).  Each page a thread reaches is a
 * page fault, and on a kernel with page-table isolation and no PCID a fault
 * costs tens of microseconds (bench/README.md "exit latency"): the pages its
 * start (glibc's thread descriptor and TLS at the top) and its deepest path
 * (the first batch: identity.c, mounts.c, the spool's paths) use are made
 * present in one call before it starts, instead of one fault each.  (glibc's
 * own stack faulted its top pages in pthread_create and clone before the
 * thread could do anything about them.)  Without MADV_POPULATE_WRITE (Linux
 * < 5.14) the pages fault in as before; without the mapping, glibc's stack. */
#define STACK_SIZE     (256 * 1024)
#define STACK_GUARD    4096
#define STACK_PREFAULT (72 * 1024)
/* The flusher's own state (shim.h FTIO_FLUSHER_STATE), present in one call
 * (the sections' bounds come from the linker). */
extern char __start_ftio_flusher[] FTIO_HIDDEN, __stop_ftio_flusher[] FTIO_HIDDEN;
static void prefault_state(void)
{
    ftio_populate(__start_ftio_flusher, (size_t)(__stop_ftio_flusher - __start_ftio_flusher));
    /* The first page of the file entries (a short process's first batch
     * uses a few of them; the rest of the 96 KB only a burst reaches): a
     * fault, 30-150 us on this VM, on the first pass, which a short
     * process's exit waits for (bench/README.md "seventh round"). */
    ftio_populate(fentries, sizeof fentries[0]);
}

static void set_stack(pthread_attr_t *attr)
{
    static char *stack FTIO_WARM;    /* lowest usable byte; the guard page below */
    if (!stack) {
        void *m = (void *)syscall(SYS_mmap, NULL, STACK_GUARD + STACK_SIZE, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (m == MAP_FAILED || syscall(SYS_mprotect, m, STACK_GUARD, PROT_NONE) != 0) {
            if (m != MAP_FAILED)
                syscall(SYS_munmap, m, STACK_GUARD + STACK_SIZE);
            pthread_attr_setstacksize(attr, STACK_SIZE);
            return;
        }
        stack = (char *)m + STACK_GUARD;
    }
    ftio_populate(stack + STACK_SIZE - STACK_PREFAULT, STACK_PREFAULT);
    pthread_attr_setstack(attr, stack, STACK_SIZE);
}

static void *flusher_main(void *arg)
{
    (void)arg;
    prefault_state();
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* Named, as ZeroMQ names its threads (ZMQbg/...): a core file, gdb,
     * top -H and /proc say which thread of the application is ours. */
    prctl(PR_SET_NAME, "ftio-flusher", 0, 0, 0);
    ftio_busy = 1;
    in_flusher = 1;
    unsigned seen = atomic_load(&fl.kick_word);
    ftio_fdprivate_enter();   /* before ZeroMQ: its threads share our table */
    atomic_store(&fl.table_ready, 1);
    event();
    ftio_sink_open();         /* connect early: the first flush finds a session */
    char mark[FTIO_WIRE_MAX_STR];
    /* The first pass does not wait: ftiod learns of a new process at its
     * first record (or MPI_Init), not a flush period later, so a job whose
     * processes come one after another (`cp a b && cp b c`) is not taken for
     * over in between (ftiod --settle-end).  The connection may not be up
     * yet then (nothing is queued before it is): during the first second
     * the thread looks again every CONNECT_RETRY_MS while a batch waits. */
    int64_t started = ftio_mono_ns();
    int park = 0;
    for (int first = 1;; first = 0) {
        int wait_ms = ftio_cfg.flush_ms;
        if (ftio_sink_unsent() && ftio_mono_ns() - started < 1000000000ll &&
            wait_ms > CONNECT_RETRY_MS)
            wait_ms = CONNECT_RETRY_MS;
        if (!first && !atomic_load(&fl.stop) &&
            atomic_load(&fl.req_gen) == atomic_load(&fl.done_gen))
            wait_kick(seen, wait_ms);
        seen = atomic_load(&fl.kick_word);   /* kicks from now on wake the next wait */
        uint64_t gen = atomic_load(&fl.req_gen);
        int stopping = atomic_load(&fl.stop);
        int has_mark = take_mark(mark);
        flush_all(has_mark ? mark : NULL, stopping == FTIO_STOP_FINAL);
        ftio_sink_poll();
        if (stopping) {
            /* before done_gen: waiters may exec/exit */
            int handed = ftio_sink_finish(stopping == FTIO_STOP_EXEC_TRACED,
                                          stopping == FTIO_STOP_FINAL);
            if (!handed && ftio_cfg.spool_mode != FTIO_SPOOL_ALWAYS &&
                ftio_cfg.spool_mode != FTIO_SPOOL_TEE)
                ftio_spool_notice();
            atomic_store(&fl.done_gen, gen);
            event();
            park = stopping == FTIO_STOP_FINAL;
            break;
        }
        atomic_store(&fl.done_gen, gen);
        event();
    }
    /* ZeroMQ's threads are gone (zmq_ctx_term joined them); our id may be
     * reused by an application thread, which must not look "private". */
    ftio_fdprivate_drop();
    atomic_store(&fl.parked, park);
    atomic_store(&fl.exited, 1);
    event();
    if (atomic_load(&fl.exit_waiters))
        syscall(SYS_futex, &fl.exited, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    /* The end of the process (exit, _exit, a fatal signal): the thread stays
     * here until exit_group ends it with the others.  Returning would run
     * the thread's exit (libc's per-thread cleanup, the stack given back with
     * madvise, the wake of a joiner) and the application's thread would
     * join it: pages, system calls and a wake-up more in every short
     * process's exit (bench/README.md "exit latency"). */
    while (park)
        syscall(SYS_futex, &fl.parked, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
    return NULL;
}

static int wait_until(int (*cond)(uint64_t), uint64_t arg, int timeout_ms);

static int table_ready(uint64_t unused)
{
    (void)unused;
    return atomic_load(&fl.table_ready);
}

/* Create the thread (start_mu held). */
static void create_thread(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    set_stack(&attr);
    int rc = pthread_create(&fl.th, &attr, flusher_main, NULL);
    pthread_attr_destroy(&attr);
    atomic_store(&dfr.deferred, 0);
    if (rc == 0) {
        /* Not waited for: the thread copies the descriptor table on
         * the other core while the application goes on.  Only a close
         * of stderr waits for the copy (ftio_flusher_stderr_closing). */
        atomic_store(&fl.joined, 0);
        atomic_store(&ftio_flusher_started, 1);
    } else {
        atomic_store(&ftio_flusher_started, 0);
        ftio_warn("cannot start the flusher thread: %s", strerror(rc));
    }
}

/* Whether the first records may wait for the process's end (the top of
 * this file): only where the exiting thread can deliver them as the
 * thread would, over ZMTP from a table nobody else uses, to a peer that
 * takes a batch at once (sink.c ftio_sink_quick; a ROUTER's handshake
 * would fall in the exit wait: the thread connects at once, as always). */
static int may_defer(void)
{
    if (!ftio_cfg.zmtp || !ftio_cfg.private_fds || ftio_cfg.spool_mode == FTIO_SPOOL_ALWAYS)
        return 0;
    prefault_state();                /* (the quick check is the first to write to it) */
    return ftio_sink_quick();
}

static int alone(void);

/* now: the thread at once (created if it waits).  Else a thread's first
 * record: the process's first may leave the records waiting for its end
 * when it has no other thread (the end is delivered from its only thread);
 * another thread's first record starts the thread. */
static void start(int now)
{
    if ((atomic_load(&ftio_flusher_started) && !atomic_load(&dfr.deferred)) ||
        atomic_load(&fl.shutdown_begun) || ftio_cfg.disable)
        return;
    int busy = ftio_busy;
    ftio_busy = 1;
    pthread_mutex_lock(&fl.start_mu);
    if (!atomic_load(&ftio_flusher_started)) {
        ftio_clock_start();
        /* (alone first: a process with other threads never defers, and its
         * thread, not the caller, makes the thread's state present) */
        if (!now && alone() && may_defer()) {
            dfr.until_ns = ftio_mono_ns() + DEFER_NS;
            atomic_store(&dfr.deferred, 1);
            atomic_store(&ftio_flusher_started, 1);
        } else {
            create_thread();
        }
        ftio_lifecycle_signals();            /* while the thread starts on the other core */
    } else if (atomic_load(&dfr.deferred) && !atomic_load(&fl.shutdown_begun)) {
        create_thread();
    }
    pthread_mutex_unlock(&fl.start_mu);
    ftio_busy = busy;
}

void ftio_flusher_start_if_needed(void)
{
    start(0);
}

void ftio_flusher_start_now(void)
{
    start(1);
}

void ftio_flusher_undefer(void)
{
    if (atomic_load(&dfr.deferred))
        start(1);
}

/* (The rings' slow path, while the thread waits: used is what the calling
 * thread's ring holds, half its size at kick_at.)  1 when the records
 * still wait. */
int ftio_flusher_defer(size_t used, size_t kick_at)
{
    if (!atomic_load_explicit(&dfr.deferred, memory_order_relaxed))
        return 0;
    if (used < kick_at && ftio_mono_ns() < dfr.until_ns)
        return 1;
    start(1);
    return 0;
}

/* ---- the end of a short process, in its own thread ------------------------ */

/* Nothing to deliver the records with: they are gone, said always. */
static void warn_unstarted(void)
{
    ftio_warn("this process ends while its flusher was starting: its last records were neither "
              "sent to ftiod nor spooled");
}

/* The thread is this process's only one: one system call. */
static int alone(void)
{
    return ftio_task_count() == 1;
}

int ftio_flusher_end_here(void)
{
    if (!atomic_load(&dfr.deferred))
        return 0;
    /* (Not waited for: a fatal signal may come in the middle of a start.) */
    if (pthread_mutex_trylock(&fl.start_mu) != 0) {
        warn_unstarted();
        return 1;
    }
    int busy = ftio_busy;
    ftio_busy = 1;                           /* (a fatal signal's path: our own calls untraced) */
    /* (The thread's state is present: may_defer made it so.)  Its quick
     * check of ftiod is not made again within the deferral's own bound:
     * two `stat`s fewer at most exits, and a ftiod gone meanwhile is still
     * found by the sink's open (its socket absent: the spool). */
    int here = atomic_load(&dfr.deferred) && alone() &&
               (ftio_mono_ns() < dfr.until_ns || ftio_sink_quick());
    if (!here && atomic_load(&dfr.deferred))
        create_thread();                     /* other threads, a ROUTER: the usual way */
    if (here) {
        /* What the thread's start does, less what only a second thread
         * needs (its own table, its signal mask: all blocked here, so no
         * handler of the application runs in the middle of a batch). */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        int table = ftio_thread_table, quiet = ftio_quiet;
        in_flusher = 1;
        ftio_unseen_here();                  /* the cross-check: this thread's counts before ours */
        ftio_thread_table = FTIO_TABLE_PRIVATE;
        /* Our lines go to the stderr the application closed (coreutils do
         * at exit) or to its 2, unless that is a file it traces, or shut. */
        if (dfr.stderr_copy)
            ftio_log_fd = dfr.stderr_copy - 1;
        else if (!ftio_fdprivate_stderr_kept() || syscall(SYS_fcntl, 2, F_GETFD) < 0)
            ftio_quiet = 1;
        ftio_log("the process ends before its flusher started: delivered from its own thread");
        ftio_sink_open();
        char mark[FTIO_WIRE_MAX_STR];
        int has_mark = take_mark(mark);
        flush_all(has_mark ? mark : NULL, 1);
        ftio_sink_poll();
        if (!ftio_sink_finish(0, 1) && ftio_cfg.spool_mode != FTIO_SPOOL_TEE)
            ftio_spool_notice();
        atomic_store(&dfr.deferred, 0);
        atomic_store(&fl.exited, 1);
        atomic_store(&fl.joined, 1);         /* no thread to join */
        if (dfr.stderr_copy)
            syscall(SYS_close, dfr.stderr_copy - 1);
        dfr.stderr_copy = 0;
        ftio_log_fd = 2;
        ftio_quiet = quiet;
        ftio_thread_table = table;
        in_flusher = 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    ftio_busy = busy;
    pthread_mutex_unlock(&fl.start_mu);
    return here;
}

/* Our warnings, the spool notice and FTIO_DEBUG's lines go to the stderr
 * the flusher finds in its copy of the descriptor table (fdprivate.c).  A
 * short program may close its stderr before the thread ran (coreutils do at
 * exit): the close waits for the copy.  (Before, every start waited for it,
 * at most 100 ms: on a loaded node the bound ran out, the program closed its
 * stderr first, and the process's flusher said nothing: the zmtp.sh flake.)
 * (ZeroMQ's threads, in the private table, start after the copy.) */
void ftio_flusher_stderr_closing(void)
{
    if (in_flusher)
        return;
    /* No thread yet (records waiting for the end): a copy of stderr, kept
     * for the end (or for the thread's table), at a number well above
     * those the application uses; never a file it traces on 2. */
    if (atomic_load(&dfr.deferred)) {
        pthread_mutex_lock(&fl.start_mu);
        if (atomic_load(&dfr.deferred) && !dfr.stderr_copy && ftio_fdprivate_stderr_kept()) {
            long fd = syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, STDERR_COPY_MIN);
            dfr.stderr_copy = fd >= 0 ? (int)fd + 1 : 0;
        }
        pthread_mutex_unlock(&fl.start_mu);
    }
    if (thread_up() && !atomic_load(&fl.table_ready))
        wait_until(table_ready, 0, ftio_flusher_wait_bound_ms());
}

int ftio_flusher_stderr_copy(void)
{
    return dfr.stderr_copy - 1;
}

/* Wait (async-signal-safe) until cond() or the deadline. */
static int wait_until(int (*cond)(uint64_t), uint64_t arg, int timeout_ms)
{
    int64_t deadline = ftio_mono_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        unsigned seen = atomic_load(&fl.event_word);
        if (cond(arg))
            return 1;
        if (ftio_mono_ns() > deadline)
            return 0;
        wait_event(seen, deadline);
    }
}

static int gen_done(uint64_t gen)
{
    return atomic_load(&fl.done_gen) >= gen || atomic_load(&fl.exited);
}

/* Every wait of an exit path is bounded: the sink's own wait for the
 * daemon (FTIO_EXIT_WAIT_MS) and a margin for encoding and spooling what is
 * left. */
int ftio_flusher_wait_bound_ms(void)
{
    return ftio_cfg.exit_wait_ms + 1000;
}

#define EXIT_BOUNDS 10   /* an exit waits this many bounds at most, however busy the thread */

void ftio_flusher_progress(void)
{
    atomic_fetch_add(&fl.progress, 1);
    event();
}

/* (Async-signal-safe.)  A thread that finishes a batch now and then is
 * working through a backlog (a burst of records just before the exit, a
 * loaded node: bench/README.md "burst"), not stuck: each batch it finishes
 * gives it the bound again.  Before, a wait of one bound ended in the middle
 * of that work and the process exited with the rest of its records neither
 * sent nor spooled, a batch half written to the spool file, and no word. */
int ftio_flusher_wait_exited(void)
{
    /* Asleep on `exited` itself, not on every event: the thread's other
     * steps (the table copied, each batch offered and acknowledged) would
     * wake the exiting thread for nothing, a context switch and a wake-up
     * system call each on a short process's exit (bench/README.md "exit
     * latency").  Its progress is looked at when a bound runs out. */
    int64_t bound = (int64_t)ftio_flusher_wait_bound_ms() * 1000000;
    int64_t start = ftio_mono_ns(), until = start + bound, cap = start + EXIT_BOUNDS * bound;
    unsigned seen = atomic_load(&fl.progress);
    for (;;) {
        if (atomic_load(&fl.exited))
            return 1;
        int64_t now = ftio_mono_ns();
        if (now >= until) {
            unsigned p = atomic_load(&fl.progress);
            if (p == seen || now >= cap)
                return 0;
            seen = p;
            until = now + bound < cap ? now + bound : cap;
        }
        int64_t left = until - now;
        struct timespec ts = { left / 1000000000, left % 1000000000 };
        atomic_fetch_add(&fl.exit_waiters, 1);
        syscall(SYS_futex, &fl.exited, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        atomic_fetch_sub(&fl.exit_waiters, 1);
    }
}

int ftio_flusher_may_ask(void)
{
    return !ftio_cfg.disable && ftio_fdt && !in_flusher;
}

int ftio_flusher_ending(void)
{
    return atomic_load(&fl.shutdown_begun);
}

int ftio_flusher_begin_ending(void)
{
    return !atomic_exchange(&fl.shutdown_begun, 1);
}

/* Ask the running thread for a pass (and wait, bounded, until it is done). */
void ftio_flusher_request(int wait)
{
    uint64_t gen = atomic_fetch_add(&fl.req_gen, 1) + 1;
    ftio_flusher_kick();
    if (wait)
        wait_until(gen_done, gen, ftio_flusher_wait_bound_ms());
}

void ftio_flush_now(const char *mark, int wait)
{
    if (!ftio_flusher_may_ask() || ftio_flusher_ending())
        return;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    if (mark) {
        pthread_mutex_lock(&api_mu);
        pthread_mutex_lock(&fl.mark_mu);
        snprintf(mark_set, sizeof mark_set, "%s", mark);
        fl.have_mark = 1;
        pthread_mutex_unlock(&fl.mark_mu);
        ftio_flusher_start_now();            /* a mark is sent even without records */
    }
    ftio_flusher_undefer();                  /* asked to send: the records wait no more */
    if (ftio_flusher_running())
        ftio_flusher_request(wait || mark);
    if (mark)
        pthread_mutex_unlock(&api_mu);
    ftio_busy = busy;
    errno = saved;
}

void ftio_flusher_mpi_state(int state)
{
    if (!ftio_flusher_may_ask() || ftio_flusher_ending())
        return;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    atomic_store(&fl.mpi, state);
    /* A rank exists for ftiod whether or not it does I/O: its flusher starts
     * here, and the next pass sends a header-only batch (no wait). */
    ftio_flusher_start_now();
    if (ftio_flusher_running())
        ftio_flusher_request(0);
    ftio_busy = busy;
    errno = saved;
}

/* ---- stopping (for the end of an image, handoff.c) --------------------- */

int ftio_flusher_stop(int why)
{
    int expected = FTIO_STOP_NONE;
    if (why == FTIO_STOP_FINAL)
        atomic_store(&fl.stop, why);
    else if (!atomic_compare_exchange_strong(&fl.stop, &expected, why))
        return 0;
    ftio_flusher_kick();
    return 1;
}


/* Join the exited thread once (shutdown and a failed exec may both try). */
void ftio_flusher_join(void)
{
    if (atomic_load(&fl.parked))
        return;                              /* it never returns: the process ends */
    if (!atomic_exchange(&fl.joined, 1))
        pthread_join(fl.th, NULL);
}

int ftio_flusher_was_started(void)
{
    pthread_mutex_lock(&fl.start_mu);        /* a start in progress finishes first */
    int started = atomic_load(&ftio_flusher_started);
    pthread_mutex_unlock(&fl.start_mu);
    return started;
}

int ftio_flusher_rearm(void)
{
    pthread_mutex_lock(&fl.start_mu);
    /* A thread still busy with the hand-off (its wait timed out) can't be
     * restarted safely: this image then sends nothing more. */
    int stop = atomic_load(&fl.stop);
    int rearm = atomic_load(&fl.exited) && (stop == FTIO_STOP_HANDOFF || stop == FTIO_STOP_EXEC_TRACED) &&
                !atomic_load(&fl.shutdown_begun);
    if (rearm) {
        ftio_flusher_join();
        ftio_sink_reset();
        atomic_store(&fl.done_gen, atomic_load(&fl.req_gen));
        atomic_store(&fl.stop, FTIO_STOP_NONE);
        atomic_store(&fl.exited, 0);
        atomic_store(&fl.table_ready, 0);
        atomic_store(&ftio_flusher_started, 0);    /* restarts on the next record */
    }
    pthread_mutex_unlock(&fl.start_mu);
    return rearm;
}

/* ---- fork ---------------------------------------------------------------- */

void ftio_flusher_atfork_prepare(void)
{
    pthread_mutex_lock(&api_mu);
    pthread_mutex_lock(&fl.start_mu);
    pthread_mutex_lock(&fl.mark_mu);
}

void ftio_flusher_atfork_parent(void)
{
    pthread_mutex_unlock(&fl.mark_mu);
    pthread_mutex_unlock(&fl.start_mu);
    pthread_mutex_unlock(&api_mu);
}

void ftio_flusher_after_fork_child(void)
{
    pthread_mutex_init(&fl.mark_mu, NULL);
    pthread_mutex_init(&fl.start_mu, NULL);
    pthread_mutex_init(&api_mu, NULL);
    ftio_sink_after_fork_child();
    ftio_spool_after_fork_child();
    fl.seq = 0;
    fl.lost = 0;
    fl.have_mark = 0;
    atomic_store(&fl.mpi, FTIO_MPI_NONE);   /* a child of a rank is not the rank */
    fl.mpi_sent = FTIO_MPI_NONE;
    fl.app_sent = 0;                        /* a new process: its own `app` */
    atomic_store(&fl.joined, 0);
    atomic_store(&fl.kick_waiters, 0);        /* (nobody sleeps in the child) */
    atomic_store(&fl.event_waiters, 0);
    atomic_store(&fl.exit_waiters, 0);
    atomic_store(&fl.parked, 0);              /* the parent's thread is not here */
    atomic_store(&dfr.deferred, 0);
    atomic_store(&fl.table_ready, 0);
    atomic_store(&fl.stop, 0);
    atomic_store(&fl.exited, 0);
    atomic_store(&fl.shutdown_begun, 0);
    atomic_store(&fl.req_gen, 0);
    atomic_store(&fl.done_gen, 0);
    atomic_store(&ftio_flusher_started, 0);
    /* Our table is the application's copy; the parent's flusher is not here. */
    ftio_fdprivate_drop();
    ftio_flusher_init();
}
