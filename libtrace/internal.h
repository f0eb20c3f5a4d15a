/* SPDX-License-Identifier: BSD-3-Clause */
/* internal.h -- private declarations shared by the core files of libftio.so
 * (config.c core.c fdtable.c files.c ring.c flusher.c fdprivate.c handoff.c
 * spool.c sink.c lifecycle.c api.c posix.c stdio.c aio.c).  shim.h is the contract with the MPI-IO layer; this
 * header is what the POSIX/stdio wrappers and the core need on top of it.
 *
 * Everything declared here is hidden (the objects are compiled with
 * -fvisibility=hidden); only wrappers and the ftio.h API carry FTIO_EXPORT.
 */
#ifndef FTIO_INTERNAL_H
#define FTIO_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include "numfmt.h"
#include "shim.h"

#define FTIO_EXPORT __attribute__((visibility("default")))
#define ftio_likely(x)   __builtin_expect(!!(x), 1)
#define ftio_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- configuration (config.c), read once from the environment ---------- */
#define FTIO_MAX_EXCLUDES 64

struct ftio_config {
    /* What the constructor writes first, the strings it fills next and
     * those it rarely fills last: it touches one page of the struct, not
     * two (bench/README.md "exit latency"). */
    int      disable;          /* FTIO_DISABLE=1: pure pass-through */
    int      debug;            /* FTIO_DEBUG=1 */
    int      spool_mode;       /* FTIO_SPOOL: see enum below */
    int      flush_ms;         /* FTIO_FLUSH_MS, background flush period */
    int      hwm;              /* FTIO_HWM, ZMQ_SNDHWM in batches */
    int      signals;          /* FTIO_SIGNALS=0 disables fatal-signal flush */
    int      private_fds;      /* FTIO_PRIVATE_FDS=0: flusher shares the fd table */
    size_t   ring_records;     /* per-thread ring size, from FTIO_BUFFER_MB */
    size_t   ring_max_records; /* all segments of the process, FTIO_BUFFER_MAX_MB */
    unsigned layers;           /* bit per enum ftio_layer, from FTIO_LAYERS */
    int      zmtp;             /* FTIO_ZMTP: a short process's batches without libzmq (zmtp.c) */
    int      tsc;              /* FTIO_TSC: records stamped with the TSC where invariant (clock.c) */
    int      nested;           /* FTIO_NESTED: record the POSIX/stdio calls inside MPI-IO too */
    int      auth_mode;        /* FTIO_AUTH: enum ftio_auth_mode (munge default) */
    int      ack_timeout_ms;   /* FTIO_ACK_TIMEOUT_MS: unacknowledged this long -> spool */
    int      exit_wait_ms;     /* FTIO_EXIT_WAIT_MS: wait for acknowledgements at exit */
    size_t   ack_max_bytes;    /* FTIO_ACK_MAX_MB: copies kept until acknowledged */
    size_t   nexclude;         /* FTIO_EXCLUDE prefixes (no trailing '/'; not NUL-terminated: */
    const char *exclude[FTIO_MAX_EXCLUDES];    /* in the initial environment or the default list) */
    size_t   exclude_len[FTIO_MAX_EXCLUDES];
    char     endpoint[512];    /* FTIO_ENDPOINT */
    char     spool_dir[1024];  /* FTIO_SPOOL_DIR, else $TMPDIR, else /tmp */
    char     tmp_dir[512];     /* $TMPDIR, else /tmp (fallback spool directories) */
    char     app_name[256];    /* FTIO_APP: the application's name (identity.c), "" = none */
    char     spool_alt[512];   /* the fallback spool base: $XDG_RUNTIME_DIR, "" = none */
    char     munge_socket[512];/* FTIO_MUNGE_SOCKET, "" = libmunge's default */
    char     auth_uid[64];     /* FTIO_AUTH_UID: who may decode ("" = the default, auth.h) */
};
/* FTIO_SPOOL: auto (to ftiod, the spool file for what it does not take),
 * always/file (only the spool file), never (only ftiod), tee (both). */
enum { FTIO_SPOOL_AUTO = 0, FTIO_SPOOL_ALWAYS = 1, FTIO_SPOOL_NEVER = 2, FTIO_SPOOL_TEE = 3 };

extern struct ftio_config ftio_cfg FTIO_HIDDEN;
/* Strings without stdio for the constructor (core.c) and the flusher's
 * short path: snprintf's code is pages of libc a process that prints nothing
 * would fault in for them (bench/README.md "exit latency"; numbers:
 * common/numfmt.h).  ftio_strlcpy copies at most cap - 1 bytes, terminates,
 * and returns strlen(src) (>= cap: truncated). */
FTIO_HIDDEN size_t ftio_strlcpy(char *dst, size_t cap, const char *src);
/* dst = a then b (then c), truncated to cap - 1 bytes; the length wanted. */
FTIO_HIDDEN size_t ftio_concat(char *dst, size_t cap, const char *a, const char *b, const char *c);
FTIO_HIDDEN void ftio_config_load(struct ftio_config *c);

/* ---- identity of this process (core.c) -------------------------------- */
struct ftio_identity {
    char         job[256];
    char         host[256];
    _Atomic long pid;
    _Atomic long long born;   /* wire `born`: the stream's start, monotonic ns (core.c) */
    atomic_int   rank;        /* -1 when not MPI */
    atomic_int   nranks;      /*  0 when not MPI */
};
extern struct ftio_identity ftio_id FTIO_HIDDEN;

/* Diagnostics: FTIO_DEBUG=1 only (ftio_log), or always (ftio_warn, used for
 * bad configuration).  One line on stderr, never allocates. */
FTIO_HIDDEN void ftio_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FTIO_HIDDEN void ftio_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Set in a thread whose descriptor 2 is not stderr: its diagnostics are dropped. */
extern __thread int ftio_quiet FTIO_HIDDEN;
/* Where our lines go: 2, or a copy of the stderr the application closed
 * (flusher.c, the end of a process whose thread never started). */
extern int ftio_log_fd FTIO_HIDDEN;

/* Recompute ftio_active from initialised / paused / shut down. */
FTIO_HIDDEN void ftio_set_paused(int paused);

/* Shutdown finished (handoff.c) / fork child restarts recording. */
FTIO_HIDDEN void ftio_mark_shut_down(void);
FTIO_HIDDEN void ftio_core_after_fork_child(void);


/* ---- descriptor table (fdtable.c) -------------------------------------
 * Indexed by fd, sized from RLIMIT_NOFILE.  A slot's fid says what the
 * descriptor is to the POSIX layer: FTIO_FD_UNKNOWN (0: never looked at, or
 * closed since), FTIO_FD_NOT_FILE (a socket, pipe, terminal, device or
 * excluded path: passes through) or the traced file's id.  A descriptor
 * nobody told us about (opened inside libc or libstdc++, inherited, made by
 * a raw syscall) is classified on its first data call (fdtable.c: one fstat
 * and one readlink, once per descriptor) and remembered, so the hot path of
 * every later call is one load and one compare.  A slot also carries the
 * stream opened through our stdio wrappers (stdio_fid != 0, fp == that
 * FILE*).  Offsets are tracked per descriptor; -1 = unknown/append. */
#define FTIO_FD_UNKNOWN  0u
#define FTIO_FD_NOT_FILE 1u
#define FTIO_FID_MIN     2u      /* file ids are >= 2 (files.c) */
struct ftio_fd_slot {
    _Atomic uint32_t fid;
    _Atomic uint32_t stdio_fid;
    _Atomic(FILE *)  fp;
    _Atomic int64_t  offset;    /* POSIX position */
    _Atomic int64_t  soffset;   /* stdio position */
    _Atomic uint32_t append;    /* O_APPEND on the POSIX descriptor */
    _Atomic uint32_t sappend;   /* stream opened in append mode */
};
extern struct ftio_fd_slot *ftio_fdt FTIO_HIDDEN;
extern unsigned ftio_fdt_size FTIO_HIDDEN;

FTIO_HIDDEN void ftio_fdtable_init(void);

/* Which descriptor table the calling thread uses (fdprivate.c; why the
 * flusher has a private one: libtrace/README.md).  In the private table
 * (the flusher's and ZeroMQ's threads) every slot is "not ours".  Unknown
 * until a thread's first look at the table: one kcmp() then. */
enum { FTIO_TABLE_UNKNOWN = 0, FTIO_TABLE_APP = 1, FTIO_TABLE_PRIVATE = 2 };
extern __thread int ftio_thread_table FTIO_HIDDEN;
FTIO_HIDDEN int ftio_thread_table_classify(void);     /* 1 when private */
/* The flusher thread moves to its private table (unless FTIO_PRIVATE_FDS=0
 * or the kernel refuses) / has exited, or this is a fork child: no thread
 * is in a private table any more. */
FTIO_HIDDEN void ftio_fdprivate_enter(void);
FTIO_HIDDEN void ftio_fdprivate_drop(void);
/* Our diagnostics may go to the calling thread's descriptor 2 (it is not a
 * file the application traces). */
FTIO_HIDDEN int  ftio_fdprivate_stderr_kept(void);

FTIO_FAST_DECL(ftio_thread_table);
static inline int ftio_private_table_thread(void)
{
    int t = ftio_thread_table;
    if (ftio_likely(t == FTIO_TABLE_APP))
        return 0;
    return t == FTIO_TABLE_PRIVATE || ftio_thread_table_classify();
}
/* The same in a traced call (shim.h FTIO_FAST). */
FTIO_INLINE int ftio_private_table_thread_fast(void)
{
    int t = FTIO_FAST(ftio_thread_table);
    if (ftio_likely(t == FTIO_TABLE_APP))
        return 0;
    return t == FTIO_TABLE_PRIVATE || ftio_thread_table_classify();
}

static inline struct ftio_fd_slot *ftio_fd_slot(int fd)
{
    if ((unsigned)fd >= ftio_fdt_size || ftio_private_table_thread())
        return NULL;
    return &ftio_fdt[fd];
}

/* Is a call of this layer on this thread recorded right now: active, not
 * reentrant, layer on.  The first test of every POSIX/stdio wrapper. */
FTIO_INLINE int ftio_layer_recording(int layer)
{
    return __atomic_load_n(&ftio_active, __ATOMIC_RELAXED) && !FTIO_FAST(ftio_busy) &&
           (ftio_layer_mask & (1u << layer));
}

/* ftio_fd_slot() for a wrapper whose layer is recording. */
FTIO_INLINE struct ftio_fd_slot *ftio_fd_slot_recording(int fd)
{
    if ((unsigned)fd >= ftio_fdt_size || ftio_private_table_thread_fast())
        return NULL;
    return &ftio_fdt[fd];
}

/* First sight of a descriptor (fdtable.c, cold): classify it, fill its
 * slot; 1 when it is a traced file now. */
FTIO_HIDDEN int ftio_fd_first_sight(int fd, struct ftio_fd_slot *s);

/* The traced file id of a slot (classifying it on first sight), or 0. */
FTIO_INLINE uint32_t ftio_slot_file(int fd, struct ftio_fd_slot *s)
{
    uint32_t fid = atomic_load_explicit(&s->fid, memory_order_relaxed);
    if (ftio_likely(fid >= FTIO_FID_MIN))
        return fid;
    if (fid == FTIO_FD_UNKNOWN && ftio_fd_first_sight(fd, s))
        return atomic_load_explicit(&s->fid, memory_order_relaxed);
    return 0;
}

/* Slot of a POSIX-traced descriptor, or NULL when this call must pass
 * through (not a traced file, not active, reentrant, layer off). */
FTIO_INLINE struct ftio_fd_slot *ftio_posix_fd(int fd)
{
    if (!ftio_layer_recording(FTIO_LAYER_POSIX))
        return NULL;
    struct ftio_fd_slot *s = ftio_fd_slot_recording(fd);
    if (!s || !ftio_slot_file(fd, s))
        return NULL;
    return s;
}

/* The kernel cross-check (unseen.c): bytes that moved through our data
 * wrappers without a record (sockets, pipes, terminals, excluded files,
 * untraced streams), by op (read/write), counted in application threads
 * only: the flusher's and ZeroMQ's own I/O is subtracted per thread. */
extern _Atomic uint64_t ftio_passed_bytes[2] FTIO_HIDDEN;
/* A thread's first passed bytes or first record: its exit will leave its
 * kernel counts behind (unseen.c). */
extern __thread int ftio_unseen_thread_known FTIO_HIDDEN __attribute__((tls_model("initial-exec")));
FTIO_FAST_DECL(ftio_unseen_thread_known);
FTIO_HIDDEN void ftio_unseen_thread_slow(void);
static inline void ftio_unseen_thread(void)
{
    if (ftio_unlikely(!ftio_unseen_thread_known))
        ftio_unseen_thread_slow();
}
/* TLS(var): the thread's variable, read the plain way (ftio_passed: any
 * time) or through the hot page (ftio_passed_nested: in a traced call). */
#define FTIO_PASSED_BODY(op, n, TLS)                                          \
    if ((n) > 0 && (op) <= FTIO_OP_WRITE && !TLS(ftio_busy) &&                \
        TLS(ftio_thread_table) == FTIO_TABLE_APP) {                           \
        if (ftio_unlikely(!TLS(ftio_unseen_thread_known)))                    \
            ftio_unseen_thread_slow();                                        \
        atomic_fetch_add_explicit(&ftio_passed_bytes[op], (uint64_t)(n), memory_order_relaxed); \
    }
#define FTIO_PLAIN(var) (var)
FTIO_INLINE void ftio_passed(int op, int64_t n)
{
    FTIO_PASSED_BODY(op, n, FTIO_PLAIN)
}

/* A traced stream's or descriptor's position, as its layer's records give
 * it: one of a slot's pairs (offset/append for POSIX, soffset/sappend for
 * stdio).  The offset before a call, -1 when unknown or appending; moved on
 * by the n bytes the call transferred. */
FTIO_INLINE int64_t ftio_pos_get(const _Atomic int64_t *pos, const _Atomic uint32_t *append)
{
    return atomic_load_explicit(append, memory_order_relaxed)
               ? -1 : atomic_load_explicit(pos, memory_order_relaxed);
}

FTIO_INLINE void ftio_pos_advance(_Atomic int64_t *pos, int64_t off, int64_t n)
{
    if (off >= 0)
        atomic_store_explicit(pos, off + n, memory_order_relaxed);
}

/* For a layer's statement macros: the traced slot s_ (the expression, NULL
 * when not traced) and its file id fid_ (the field of the layer), or else
 * return the call, untraced. */
#define FTIO_SLOT_OR_PASS(slot, fid_field, call)                              \
    struct ftio_fd_slot *s_ = (slot);                                         \
    if (!s_)                                                                  \
        return call;                                                          \
    uint32_t fid_ = atomic_load_explicit(&s_->fid_field, memory_order_relaxed)

FTIO_HIDDEN void ftio_fd_open(int fd, uint32_t fid, int append);
FTIO_HIDDEN void ftio_fd_forget(int fd);              /* POSIX side: unknown again */
FTIO_HIDDEN void ftio_fd_not_file(int fd);            /* POSIX side: passes through */
/* The absolute path fd refers to (/proc/self/fd, " (deleted)" cut): 0 or -1. */
FTIO_HIDDEN int ftio_fd_path(int fd, char *out, size_t size);
FTIO_HIDDEN void ftio_fd_copy(int from, int to);      /* dup family */
/* Stream position pos; unknown (-1) instead when append. */
FTIO_HIDDEN void ftio_fd_stdio_open(int fd, FILE *fp, uint32_t fid, int append, int64_t pos);
FTIO_HIDDEN void ftio_fd_stdio_forget(int fd);

/* ---- files (files.c): absolute paths, exclusions, id -> path list ------ */
FTIO_HIDDEN void ftio_files_init(void);
FTIO_HIDDEN void ftio_files_refresh_cwd(void);        /* after chdir/fchdir */
/* Like ftio_file_register() for a path relative to dirfd (openat family). */
FTIO_HIDDEN uint32_t ftio_file_register_at(int dirfd, const char *path);

/* Flusher side: the entries registered since the last delivered batch.
 * ftio_files_pending() fills at most max entries (paths stay valid forever)
 * and returns how many, plus a token; ftio_files_commit(token) marks them
 * delivered.  Not thread-safe: the flusher is the only caller. */
struct ftio_file_entry;
FTIO_HIDDEN size_t ftio_files_pending(struct ftio_file_entry *out, size_t max, void **token);
/* The file system path lives on, "TYPE:MOUNTPOINT" (mounts.c; flusher
 * thread only: a stat per new file, /proc/self/mountinfo read once), or NULL. */
FTIO_HIDDEN const char *ftio_mount_of(const char *path);
FTIO_HIDDEN void ftio_files_commit(void *token);
FTIO_HIDDEN void ftio_files_after_fork_child(void);

/* ---- the records' clock (clock.c) --------------------------------------
 * init: the TSC or CLOCK_MONOTONIC for ftio_stamp() (constructor, after the
 * configuration); start: the first anchor (the flusher's start); line: the
 * line along which the encoder maps a batch's stamps to monotonic ns, taken
 * once its first records are found (NULL: they are ns already). */
struct ftio_wire_timeline;
FTIO_HIDDEN void ftio_clock_init(void);
FTIO_HIDDEN void ftio_clock_start(void);
FTIO_HIDDEN const struct ftio_wire_timeline *ftio_clock_line(struct ftio_wire_timeline *line);

/* ---- the kernel cross-check (unseen.c) --------------------------------
 * init: the kernel's counts at the image's start (constructor); count: the
 * data records the flusher drains; final: the final batch's `unseen` (1 when
 * known). */
FTIO_HIDDEN void ftio_unseen_init(void);
FTIO_HIDDEN void ftio_unseen_count(const struct ftio_record *rec, size_t n);
FTIO_HIDDEN int  ftio_unseen_final(uint64_t *unseen_read, uint64_t *unseen_write);
FTIO_HIDDEN void ftio_unseen_after_fork_child(void);
FTIO_HIDDEN void ftio_unseen_own_write(ssize_t n);   /* the shim's stderr lines */
/* The image's end is delivered from the calling application thread, the
 * process's only one (flusher.c ftio_flusher_end_here): its counts now,
 * before the shim's own reads and writes there, are the application's. */
FTIO_HIDDEN void ftio_unseen_here(void);
/* How many tasks (threads) this process has now, from /proc/self/task's link
 * count (2 + its tasks): one system call, no allocation; -1 when unknown. */
FTIO_HIDDEN long ftio_task_count(void);

/* ---- rings (ring.c) --------------------------------------------------- */
/* Segments of records_per_ring records; at most max_records buffered in all
 * (the hard limit past which records are lost, counted). */
FTIO_HIDDEN void ftio_rings_init(size_t records_per_ring, size_t max_records);
/* Flusher: keep spare segments ready for producers that overflow. */
FTIO_HIDDEN void ftio_rings_refill(void);
/* Segments producers linked because theirs was full (diagnostics). */
FTIO_HIDDEN uint64_t ftio_rings_overflows(void);
/* Flusher: the oldest records published in the rings, read in place (no
 * copy): up to max of them, one after the other in one segment, in *n (0:
 * every ring is empty); adds the records dropped since the last call to
 * *lost.  They stay the flusher's (no producer writes over them) until
 * ftio_rings_consumed(), which it calls before the next peek. */
FTIO_HIDDEN const struct ftio_record *ftio_rings_peek(size_t max, size_t *n, uint64_t *lost);
FTIO_HIDDEN void ftio_rings_consumed(void);
FTIO_HIDDEN void ftio_rings_after_fork_child(void);

/* ---- flusher (flusher.c) ---------------------------------------------- */
FTIO_HIDDEN void ftio_flusher_init(void);
FTIO_HIDDEN void ftio_flusher_start_if_needed(void);   /* lazy, on first record (the thread may wait) */
FTIO_HIDDEN void ftio_flusher_start_now(void);         /* the thread too, at once */
FTIO_HIDDEN void ftio_flusher_undefer(void);           /* records waiting for the end: the thread now */
/* The rings' slow path while the thread waits for the process to live on
 * (flusher.c): 1 when the records still wait, else the thread starts. */
FTIO_HIDDEN int  ftio_flusher_defer(size_t used, size_t kick_at);
/* The image's end while the thread waits: the calling thread delivers the
 * records itself when it is the process's only one (1), else the thread
 * starts (0: stop it and wait, as always). */
FTIO_HIDDEN int  ftio_flusher_end_here(void);
/* The application closes its descriptor 2: a flusher that has not copied the
 * descriptor table yet (its stderr, fdprivate.c) does so first (bounded). */
FTIO_HIDDEN void ftio_flusher_stderr_closing(void);
FTIO_HIDDEN int  ftio_flusher_stderr_copy(void);       /* that copy, -1: none */
FTIO_HIDDEN void ftio_flusher_kick(void);              /* async-signal-safe */
FTIO_HIDDEN void ftio_flusher_atfork_prepare(void);
FTIO_HIDDEN void ftio_flusher_atfork_parent(void);
FTIO_HIDDEN void ftio_flusher_after_fork_child(void);

/* The environment's lock (envlock.c): the application's setenv, putenv,
 * unsetenv and clearenv hold it; the flusher holds it around a library call
 * that reads the environment (zmq_ctx_new), never around anything slow. */
FTIO_HIDDEN void ftio_env_lock(void);
FTIO_HIDDEN void ftio_env_unlock(void);
FTIO_HIDDEN void ftio_env_after_fork_child(void);
FTIO_HIDDEN int  ftio_flusher_running(void);
/* Sequence number of the next batch (exec hand-over, lifecycle.c). */
FTIO_HIDDEN uint64_t ftio_flusher_next_seq(void);
FTIO_HIDDEN void ftio_flusher_set_seq_base(uint64_t seq);
/* Asking the flusher (flusher.c): may the calling thread (tracing on, not
 * the flusher itself)?  Has an end of the image begun (no more starts,
 * flushes or stops)?  ftio_flusher_begin_ending() begins it: 1 for the one
 * caller that did.  ftio_flusher_request(): a pass, waited for (bounded)
 * when wait != 0. */
FTIO_HIDDEN int  ftio_flusher_may_ask(void);
FTIO_HIDDEN int  ftio_flusher_ending(void);
FTIO_HIDDEN int  ftio_flusher_begin_ending(void);
FTIO_HIDDEN void ftio_flusher_request(int wait);
/* Stopping the thread (for handoff.c).  Why it stops: FINAL (exit, fatal
 * signal: a final batch), HANDOFF (exec: no final batch, the new image
 * continues the stream), EXEC_TRACED (exec into an image that loads the shim
 * and takes the unacknowledged batches, sink.c).  ftio_flusher_stop():
 * FINAL overrides any stop asked before, a hand-off is asked of a running
 * thread only; kicks it; 1 when the stop is now `why`.  Every wait is
 * bounded by ftio_flusher_wait_bound_ms(); ftio_flusher_wait_exited() is 1
 * when the thread exited in time (the bound is renewed each time the thread
 * finishes a batch, ftio_flusher_progress(): a backlog at exit is encoded
 * and sent or spooled, not dropped; 10 bounds in all).  ftio_flusher_was_started() waits for a
 * start in progress.  ftio_flusher_rearm(): after a failed exec, when the
 * thread exited from a hand-off, join it and let the next record start a
 * new one (1 when it did). */
enum { FTIO_STOP_NONE = 0, FTIO_STOP_FINAL = 1, FTIO_STOP_HANDOFF = 2, FTIO_STOP_EXEC_TRACED = 3 };
FTIO_HIDDEN int  ftio_flusher_stop(int why);
FTIO_HIDDEN int  ftio_flusher_wait_bound_ms(void);
FTIO_HIDDEN int  ftio_flusher_wait_exited(void);
FTIO_HIDDEN void ftio_flusher_progress(void);
FTIO_HIDDEN void ftio_flusher_join(void);
FTIO_HIDDEN int  ftio_flusher_was_started(void);
FTIO_HIDDEN int  ftio_flusher_rearm(void);

/* ---- end of an image (handoff.c; ftio_shutdown() is in shim.h) -------- */
/* exec: stop the flusher after a last drain; no final batch, the new image
 * continues the stream.  next_traced: the new image loads the shim, so what
 * ftiod has not acknowledged is handed to it (ftio_sink_handoff_env()), with
 * no wait; else the exit path's bounded wait and the spool file.  Returns 1
 * when it stopped the flusher.  After a failed exec,
 * ftio_flusher_handoff_failed() lets the next record start a new one. */
FTIO_HIDDEN int  ftio_flusher_handoff(int next_traced);
FTIO_HIDDEN void ftio_flusher_handoff_failed(void);
/* Async-signal-safe flush: kick and wait (bounded).  final != 0 also stops
 * the flusher (the process is about to die). */
FTIO_HIDDEN void ftio_flush_from_signal(int final);

/* After a (partial) writev/sendmsg of `done` bytes of iov[0..*n): the first
 * piece still to write, *n the pieces left (its start moved past what went). */
static inline struct iovec *ftio_iov_advance(struct iovec *iov, int *n, size_t done)
{
    while (*n > 0 && done >= iov->iov_len) {
        done -= iov->iov_len;
        iov++;
        (*n)--;
    }
    if (*n > 0) {
        iov->iov_base = (char *)iov->iov_base + done;
        iov->iov_len -= done;
    }
    return iov;
}

/* ---- spool (spool.c; flusher thread only) ----------------------------- */
/* Append one encoded batch to this process's spool file (appendv: given
 * as pieces, in order); 0 or -1.  Between hold(1) and hold(0) (a flush
 * pass) the file stays open from one batch to the next. */
FTIO_HIDDEN int ftio_spool_append(const void *buf, size_t len);
FTIO_HIDDEN int ftio_spool_appendv(const struct iovec *iov, int niov);
FTIO_HIDDEN void ftio_spool_hold(int on);
FTIO_HIDDEN void ftio_spool_path(char *out, size_t len);
/* The private directory in use (FTIO_SPOOL_DIR's, or the fallback when
 * that one is not ours). */
FTIO_HIDDEN const char *ftio_spool_dir(void);
/* A warning every process of the job would give: said once per job and
 * node (a marker .ftio-<what>-<job> in the spool directory). */
FTIO_HIDDEN void ftio_warn_job(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* ftiod at endpoint answered us (a marker touched at most once a second),
 * and did it answer any process of ours on this node within fresh_s?  It
 * did not answer the longer wait that marker bought (sink.c): forgotten. */
FTIO_HIDDEN void ftio_spool_mark_up(const char *endpoint);
FTIO_HIDDEN int ftio_spool_known_up(const char *endpoint, int fresh_s);
FTIO_HIDDEN void ftio_spool_forget_up(const char *endpoint);
/* A spooled batch was acknowledged by ftiod after all (no notice for it). */
FTIO_HIDDEN void ftio_spool_acked_later(void);
/* exec hand-off: append a batch for the next image (no notice); *at = its
 * offset.  The next image takes [off, off + len) back into buf and cuts the
 * file there (removes it when off is 0); -1 when the file is not exactly
 * that (then the batches stay spooled). */
FTIO_HIDDEN int ftio_spool_handoff_append(const void *buf, size_t len, uint64_t *at);
FTIO_HIDDEN int ftio_spool_take(uint64_t off, void *buf, size_t len);
/* ---- the way to ftiod (sink.c; flusher thread only) -------------- */
/* Connect (early: the first flush then finds a session). */
FTIO_HIDDEN void ftio_sink_open(void);
/* Keep a copy of batch seq (the pieces iov[0..niov) in order) until ftiod
 * acknowledges it, sending it when possible; 0 when it cannot be kept (no
 * ZeroMQ, no memory): spool it. */
FTIO_HIDDEN int ftio_sink_offer(uint64_t seq, const struct iovec *iov, int niov, size_t nrec);
/* Records of batches that went nowhere since the last call (for "lost"). */
FTIO_HIDDEN uint64_t ftio_sink_take_lost(void);
/* Is a batch waiting for the connection (ZMQ_IMMEDIATE queues nothing
 * before it is up)? */
FTIO_HIDDEN int ftio_sink_unsent(void);
/* Acknowledgements, sends that can go now, resends, the silent daemon. */
FTIO_HIDDEN void ftio_sink_poll(void);
/* A connection made now takes a batch at once (ftiod down, or its own
 * listener): the end of a process may be delivered from its own thread. */
FTIO_HIDDEN int  ftio_sink_quick(void);
/* End of the image: at most FTIO_EXIT_WAIT_MS for the daemon, the rest to
 * the spool file, the socket closed (final, the process's end: a ZMTP
 * socket is left to exit_group).  handoff (exec into a traced image):
 * no wait, the unacknowledged batches are handed to the next image through
 * the spool file (ftio_sink_handoff_env()); returns 1 when they were. */
FTIO_HIDDEN int ftio_sink_finish(int handoff, int final);
/* For the next image's environment: "FTIO_HANDOFF=<pid>:<offset>:<seq>/
 * <len>,...;<path>" after a hand-off, or the one handed to us while our
 * flusher has not taken it; "" when there is nothing to hand off. */
FTIO_HIDDEN const char *ftio_sink_handoff_env(void);
/* The next image (lifecycle.c, at init): batches handed to it, sent first
 * by its flusher.  1 when there are some (start the flusher). */
FTIO_HIDDEN int ftio_sink_handoff_accept(const char *value);
FTIO_HIDDEN void ftio_sink_reset(void);          /* a failed exec: go on */
FTIO_HIDDEN void ftio_sink_after_fork_child(void);

/* Once per job and node, at the end of an image that spooled anything. */
FTIO_HIDDEN void ftio_spool_notice(void);
FTIO_HIDDEN void ftio_spool_after_fork_child(void);

/* ---- lifecycle (lifecycle.c) and symbol resolution --------------------- */
FTIO_HIDDEN void ftio_lifecycle_init(void);
/* Our handler in front of the fatal signals, once per image: at its first
 * record (the flusher's start, under its start mutex), not in the
 * constructor of every preloaded process (lifecycle.c). */
FTIO_HIDDEN void ftio_lifecycle_signals(void);
FTIO_HIDDEN void ftio_lifecycle_inert(void);      /* the shim stays inert here */
/* Resolve the next definition of every symbol declared with FTIO_WRAPPER or
 * FTIO_NEXT (core.c, at init, single-threaded). */
FTIO_HIDDEN void ftio_resolve_wrapped(void);
/* Make [p, p + len) present and writable in one system call
 * (MADV_POPULATE_WRITE, Linux >= 5.14; before, a no-op: the pages fault in
 * one by one as they are touched).  On this VM a page fault is a trap of
 * tens of microseconds and the populate a few for all of them (bench/
 * README.md "exit latency"); it never changes what the pages hold. */
FTIO_HIDDEN void ftio_populate(const void *p, size_t len);

/* Resolve `name` into *slot once (relaxed atomics: racing threads store the
 * same value).  Returns the pointer, NULL when the symbol does not exist. */
static inline void *ftio_real(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (ftio_unlikely(!p)) {
        p = ftio_resolve(name);
        __atomic_store_n(slot, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* A wrapped symbol is named once (Darshan's DARSHAN_FORWARD_DECL and
 * MAP_OR_FAIL in one line): a line of its layer's table (FTIO_FORWARD
 * below) when its body is one of the layer's shapes, else
 *
 *     FTIO_WRAPPER(ssize_t, read, (int fd, void *buf, size_t n))
 *     {
 *         FTIO_REAL_OR(read, -1);
 *         ... real_read(fd, buf, n) ...
 *     }
 *
 * declares real_read, the pointer to the next definition with the wrapper's
 * own type, registers it in the ftio_syms section, which
 * ftio_resolve_wrapped() resolves at init (so no list of the wrapped symbols
 * exists to keep in step), and opens the exported wrapper (FTIO_WRAP).
 * FTIO_NEXT alone declares and registers a next definition that a file needs
 * before (or without) its wrapper. */
struct ftio_wrapped_sym {
    void **real;
    const char *name;
};
#define FTIO_NEXT(ret, name, params)                                          \
    static ret (*real_##name) params FTIO_HOT;                                \
    static const struct ftio_wrapped_sym ftio_sym_##name                      \
        __attribute__((used, section("ftio_syms"), aligned(sizeof(void *)))) = \
        { (void **)&real_##name, #name }
#define FTIO_WRAPPER(ret, name, params)                                       \
    FTIO_NEXT(ret, name, params);                                             \
    FTIO_WRAP(ret, name, params)
/* A wrapper that is one shape of its layer: resolve real_<name> (else fail
 * with failret, errno ENOSYS), then the layer's statement macro `shape`
 * with its arguments and, last, the call `real_<name> args`.  A layer writes
 * each shape once and each wrapped symbol in one line of a table:
 *
 *     #define DATA(name, params, args, op) \
 *         FTIO_FORWARD(ssize_t, name, params, args, -1, DATA_IMPLICIT, ssize_t, op, fd)
 *     DATA(read, (int fd, void *buf, size_t n), (fd, buf, n), FTIO_OP_READ)
 */
#define FTIO_FORWARD(ret, name, params, args, failret, shape, ...)            \
    FTIO_WRAPPER(ret, name, params)                                           \
    {                                                                         \
        FTIO_REAL_OR(name, failret);                                          \
        shape(__VA_ARGS__, real_##name args);                                 \
    }

/* The same for a wrapper that hands real_<name> to a function of its layer
 * (one body for the symbol and its aliases): return helper(real_<name>, ...). */
#define FTIO_FORWARD_TO(ret, name, params, failret, helper, ...)              \
    FTIO_WRAPPER(ret, name, params)                                           \
    {                                                                         \
        FTIO_REAL_OR(name, failret);                                          \
        return helper(real_##name, __VA_ARGS__);                              \
    }

/* Load (resolving lazily) real_<name>; fail the call with ENOSYS if absent. */
#define FTIO_REAL_OR(name, failret)                                           \
    do {                                                                      \
        if (ftio_unlikely(!ftio_real((void **)&real_##name, #name))) {        \
            errno = ENOSYS;                                                   \
            return failret;                                                   \
        }                                                                     \
    } while (0)
/* The same for a function that returns its error (posix_fallocate: ENOSYS)
 * or nothing (closefrom: empty ret): errno is left alone. */
#define FTIO_REAL_OR_RETURN(name, ret)                                        \
    do {                                                                      \
        if (ftio_unlikely(!ftio_real((void **)&real_##name, #name)))          \
            return ret;                                                       \
    } while (0)

/* Define the exported symbol `name` without clashing with (or being renamed
 * by) the prototypes and redirections of the system headers (LFS, fortify,
 * scanf aliases): the C function is ftio_w_<name>, its symbol is `name`.
 * Alone, for a wrapper with no next definition of its own (execl calls
 * execve's); FTIO_WRAPPER for the others. */
#define FTIO_WRAP(ret, name, args)                                            \
    FTIO_EXPORT ret ftio_w_##name args __asm__(#name);                        \
    FTIO_EXPORT ret ftio_w_##name args

/* Time `call` with the reentrancy flag set; leaves r_, t0_, t1_, err_ for
 * the record, then FTIO_TIMED_RETURN() restores errno and returns r_. */
#define FTIO_TIMED(type, call)                                                \
    ftio_busy = 1;                                                            \
    uint64_t t0_ = ftio_stamp();                                             \
    type r_ = (call);                                                         \
    uint64_t t1_ = ftio_stamp();                                             \
    int err_ = errno
#define FTIO_TIMED_RETURN()                                                   \
    ftio_busy = 0;                                                            \
    errno = err_;                                                             \
    return r_

/* FTIO_TIMED for a data call's record: errno is neither saved nor restored,
 * because nothing between the call and the return may change it (the
 * position, the record: ftio_emit_slow keeps errno itself).  Two fewer calls
 * of __errno_location, whose page is one more TLB miss after a syscall. */
#define FTIO_TIMED_DATA(type, call)                                           \
    FTIO_FAST(ftio_busy) = 1;                                                 \
    uint64_t t0_ = ftio_stamp();                                             \
    type r_ = (call);                                                         \
    uint64_t t1_ = ftio_stamp()
#define FTIO_TIMED_DATA_RETURN()                                              \
    FTIO_FAST(ftio_busy) = 0;                                                 \
    return r_

/* A data call inside an MPI-IO call whose record the MPI-IO one stands for
 * (FTIO_NESTED=0, the default): no stamps, no record.  (MPI-IO calls are
 * traced only once the shim is active: then the depth may be read fast.) */
FTIO_INLINE int ftio_nested_skip(void)
{
    return ftio_unlikely(__atomic_load_n(&ftio_active, __ATOMIC_RELAXED) &&
                         FTIO_FAST(ftio_mpiio_depth) > 0) && !ftio_record_nested;
}

/* Such a call's bytes, for the kernel cross-check (ftio_passed in an
 * application thread, the thread's descriptor table classified first). */
FTIO_INLINE void ftio_passed_nested(int op, int64_t n)
{
    if (!ftio_private_table_thread_fast())
        FTIO_PASSED_BODY(op, n, FTIO_FAST)
}

FTIO_INLINE uint16_t ftio_nested_flag(void)
{
    return FTIO_FAST(ftio_mpiio_depth) > 0 ? FTIO_FLAG_NESTED : 0;
}

/* A record of the POSIX or stdio layer, written straight into the ring's
 * slot (no copy through the stack) while below the limit. */
FTIO_INLINE void ftio_emit_simple(int layer, int op, uint32_t fid, uint64_t t0,
                                    uint64_t t1, int64_t off, int64_t bytes)
{
    if (ftio_likely(atomic_load_explicit(&ftio_flusher_started, memory_order_relaxed))) {
        FTIO_FAST_PTR(struct ftio_producer) p = &FTIO_FAST(ftio_prod);
        uint64_t head = p->head;
        if (ftio_unlikely(head >= p->limit))
            goto slow;
        struct ftio_record *slot = &p->rec[head & p->mask];
        slot->t_start = t0;
        slot->t_end = t1;
        slot->offset = off;
        slot->bytes = bytes;
        slot->file_id = fid;
        slot->op = (uint8_t)op;
        slot->layer = (uint8_t)layer;
        slot->flags = ftio_nested_flag();
        p->head = head + 1;
        ftio_slot_publish(slot, head, p->tid);
        return;
    }
slow:;
    struct ftio_record r = {
        .t_start = t0, .t_end = t1, .offset = off, .bytes = bytes,
        .file_id = fid, .op = (uint8_t)op, .layer = (uint8_t)layer,
        .flags = ftio_nested_flag(),
    };
    ftio_emit_slow(&r);
}

#endif
