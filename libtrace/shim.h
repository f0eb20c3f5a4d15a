/* SPDX-License-Identifier: BSD-3-Clause */
/* shim.h -- internal contract between the interception layers and the
 * recording core of libftio.so.
 *
 *   posix.c stdio.c mpiio.c lifecycle.c   (wrappers: call the real function,
 *            |                             time it, hand a record to the core)
 *            v
 *   core.c (state, init, config) ring.c (per-thread SPSC rings)
 *   fdtable.c (which descriptors we trace)  flusher.c (thread: rings -> wire
 *   batches) -> sink.c (ZeroMQ DEALER, kept until acknowledged) or spool.c
 *   handoff.c (the end of an image: exit, fatal signal, exec)
 *
 * Hot-path rules for every wrapper: no allocation, no locks, no syscalls but
 * the real call and two clock reads, errno preserved on every path, and a
 * call made while ftio_busy is set goes straight to the real function.
 * Nothing here is exported from the .so except the wrapped symbols and ftio.h.
 */
#ifndef FTIO_SHIM_H
#define FTIO_SHIM_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "record.h"
#include "timeutil.h"

#define FTIO_HIDDEN __attribute__((visibility("hidden")))
/* A helper of every traced call's common path: inlined whatever gcc's
 * growth limits say (a file of many wrappers reaches them, and an
 * out-of-line copy is a call into another page of code: FTIO_HOT below). */
#define FTIO_INLINE static inline __attribute__((always_inline))

/* Where a variable every traced call reads is defined: one section, so they
 * share a page or two.  This VM's kernel runs with page-table isolation and
 * no PCID: every system call empties the TLB, so each distinct page a
 * wrapper touches after the real call costs a page walk (tens of ns under
 * nested paging).  Gathered, the shim's globals are one walk, not five. */
#define FTIO_HOT __attribute__((section("ftio_hot")))

/* Page faults are the costliest thing a short process does on this VM
 * (tens of microseconds each: bench/README.md "exit latency"), and the
 * shim's state was spread over a dozen pages of its data.  FTIO_WARM: the
 * small state the constructor (and a process's first record) writes, in one
 * section, so that it shares a page or two instead of one page per file.
 * FTIO_FLUSHER_STATE: what the flusher thread alone uses on a short process's
 * path (the sink, the ZMTP connection, the spool, mounts, identity): one
 * section, made present with one call when the thread starts (flusher.c)
 * instead of one fault per page. */
#define FTIO_WARM __attribute__((section("ftio_warm")))
/* NOBITS ("@nobits"; the "#" comments out the flags gcc appends): zeros
 * that take no room in the file, so the linker places the section after
 * .bss, in the anonymous part of the data segment.  As PROGBITS (what gcc
 * makes of a named section) its 17 pages were file-backed copy-on-write
 * pages: the populate read and copied each one, 0.3-0.4 ms in the
 * flusher's start, holding the mmap lock the application's own
 * mmap/munmap waited for (bench/README.md "seventh round").  So every
 * variable in it starts as zeros: 0 must mean "none" (no -1 initialisers). */
#define FTIO_FLUSHER_STATE __attribute__((section("ftio_flusher,\"aw\",@nobits#")))
/* The page the layout above is made of: x86-64's and aarch64's base page
 * (a larger page only wastes some of the sections' padding). */
#define FTIO_PAGE 4096u

/* FTIO_EARLY: the larger state the constructor (and a short process's end)
 * writes beyond FTIO_WARM's page: the configuration, the application's
 * signal actions, the loader's lock.  Zeros (NOBITS, as above), made present
 * with one call as the constructor starts (core.c) instead of one fault per
 * page. */
#define FTIO_EARLY __attribute__((section("ftio_early,\"aw\",@nobits#")))

/* 1: the POSIX and stdio data calls MPI-IO makes inside its own calls are
 * recorded too (flagged nested, FTIO_NESTED=1); 0 (default): they pass
 * through, their bytes counted once, by the MPI-IO record (and for the
 * kernel cross-check). */
extern int ftio_record_nested FTIO_HIDDEN;

/* Reentrancy guard: set while inside any wrapper (and permanently in the
 * flusher thread) so that I/O we cause ourselves is never recorded. */
extern __thread int ftio_busy __attribute__((tls_model("initial-exec")));

/* Depth of MPI-IO calls on this thread: POSIX/stdio records made while it is
 * > 0 carry FTIO_FLAG_NESTED (the daemon counts their bytes once). */
extern __thread int ftio_mpiio_depth __attribute__((tls_model("initial-exec")));

/* The thread-local variables of a traced call, reached without the GOT.
 * A shared library's initial-exec TLS access loads the variable's offset
 * from the thread pointer out of the library's GOT: one more page per call,
 * a page walk after every system call on this VM (FTIO_HOT below).  So the
 * offsets of the few variables a traced call reads are copied into the hot
 * page at init (ftio_tls_fast_init, core.c; the MPI layer's in
 * ftio_mpi_tls_fast_init, mpi_life.c) and FTIO_FAST(var) reads var at
 * %fs:offset.  The offsets are the same in every thread (static TLS).
 * Only for code that runs once the shim is initialised -- after a test of
 * ftio_active (or ftio_flusher_started) -- which is when the offsets are
 * set: before, they are 0 (the thread control block, never to be written).
 * Elsewhere (not x86-64, no __seg_fs) it is the variable itself, and so under
 * AddressSanitizer, which instruments a __seg_fs access as if the offset were
 * an address: the shadow of a negative TLS offset is far outside memory and
 * every traced call faulted (make asan: calls.sh, lifecycle.sh, ...). */
#if defined(__x86_64__) && defined(__SEG_FS) && !defined(__SANITIZE_ADDRESS__)
#define FTIO_FAST(var)      (*(__seg_fs __typeof__(var) *)ftio_tlsoff_##var)
#define FTIO_FAST_PTR(type) __typeof__((__seg_fs type *)0)   /* (a declaration may not start with __seg_fs after a statement: gcc 12) */
#define FTIO_FAST_DEF(var)  intptr_t ftio_tlsoff_##var FTIO_HOT
#define FTIO_FAST_SET(var)  (ftio_tlsoff_##var = (intptr_t)&var - (intptr_t)__builtin_thread_pointer())
#else
#define FTIO_FAST(var)      (var)
#define FTIO_FAST_PTR(type) type *
#define FTIO_FAST_DEF(var)  intptr_t ftio_tlsoff_##var
#define FTIO_FAST_SET(var)  (ftio_tlsoff_##var = 0)
#endif
#define FTIO_FAST_DECL(var) extern intptr_t ftio_tlsoff_##var FTIO_HIDDEN
FTIO_FAST_DECL(ftio_busy);
FTIO_FAST_DECL(ftio_mpiio_depth);
FTIO_HIDDEN void ftio_tls_fast_init(void);
FTIO_HIDDEN void ftio_mpi_tls_fast_init(void);

/* 1 once initialised and neither FTIO_DISABLE nor ftio_pause() is in force. */
extern int ftio_active FTIO_HIDDEN;

/* Record timestamps (clock.c): the CPU's time-stamp counter where it is
 * invariant (one instruction, a third of a clock_gettime), else
 * CLOCK_MONOTONIC ns.  The flusher turns them into monotonic ns before a
 * batch is encoded (ftio_stamps_to_ns); nothing else may mix them with
 * ftio_mono_ns(). */
extern int ftio_stamp_tsc FTIO_HIDDEN;
FTIO_INLINE uint64_t ftio_stamp(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(ftio_stamp_tsc, 1)) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    return (uint64_t)ftio_mono_ns();
}

/* Resolve the next definition of `name` (dlsym RTLD_NEXT); NULL if absent.
 * Wrappers cache the result in a static pointer (see FTIO_REAL in posix.c). */
FTIO_HIDDEN void *ftio_resolve(const char *name);


/* The calling thread's place in its queue: the newest segment's records,
 * its own head (the next record's number in the segment) and the head up
 * to which it may write without looking at the consumer (ring.c; limit 0
 * with no queue yet).  A record is published by its own slot: its last
 * store, a release, writes the record's number + 1 into the slot's
 * `reserved` field (ftio_slot_publish), which the consumer compares with
 * the number it expects there.  So a record touches its slot's page only,
 * not a head shared with the consumer (one page less per traced call:
 * FTIO_HOT below). */
struct ftio_producer {
    struct ftio_record *rec;
    uint64_t            head, limit, mask;
    uint32_t            tid;
};
extern __thread struct ftio_producer ftio_prod FTIO_HIDDEN __attribute__((tls_model("initial-exec")));
FTIO_FAST_DECL(ftio_prod);
/* The rest of ftio_emit(): the first record of a thread, the look at the
 * tail, a kick, a full segment. */
FTIO_HIDDEN void ftio_emit_slow(const struct ftio_record *r);

/* Set once the flusher thread runs (flusher.c); a record made before (a
 * fork child's first) takes the slow path, which starts it. */
extern atomic_int ftio_flusher_started FTIO_HIDDEN;

/* Layer bitmask (FTIO_LAYERS) in a plain global so the hot path reads one word. */
extern unsigned ftio_layer_mask FTIO_HIDDEN;

/* The end of every record written in place (record number `head` of its
 * segment): the thread's number, then the slot's sequence number (head + 1,
 * a release: every field above is visible to a consumer that sees it). */
FTIO_INLINE void ftio_slot_publish(struct ftio_record *slot, uint64_t head, uint32_t tid)
{
    slot->tid = tid;
    __atomic_store_n(&slot->reserved, (uint32_t)(head + 1), __ATOMIC_RELEASE);
}

/* Append one record to the calling thread's queue: a copy and a release
 * store while below the limit (the hot path of every wrapper); lock-free, no
 * allocation; past the hard limit of FTIO_BUFFER_MAX_MB the record is counted
 * as lost (never blocks). */
FTIO_INLINE void ftio_emit(const struct ftio_record *rec)
{
    if (__builtin_expect(!atomic_load_explicit(&ftio_flusher_started, memory_order_relaxed), 0)) {
        ftio_emit_slow(rec);
        return;
    }
    FTIO_FAST_PTR(struct ftio_producer) p = &FTIO_FAST(ftio_prod);
    uint64_t head = p->head;
    if (__builtin_expect(head >= p->limit, 0)) {
        ftio_emit_slow(rec);
        return;
    }
    struct ftio_record *slot = &p->rec[head & p->mask];
    /* Not the sequence number: a consumer may be looking at it already. */
    __builtin_memcpy(slot, rec, __builtin_offsetof(struct ftio_record, tid));
    p->head = head + 1;
    ftio_slot_publish(slot, head, p->tid);
}


/* Register a path seen at open time (made absolute, excluded prefixes
 * checked).  Returns its file id, or 0 when the path is excluded and must not
 * be traced.  Called on open paths only, never per data call. */
FTIO_HIDDEN uint32_t ftio_file_register(const char *path);

/* Rank and world size: from launcher variables at init, confirmed by MPI_Init. */
FTIO_HIDDEN void ftio_set_rank(int rank, int nranks);

/* Ask the flusher to send everything now (mark may be NULL).  With wait != 0
 * returns once the data is sent or spooled (bounded by FTIO_EXIT_WAIT_MS + 1 s). */
FTIO_HIDDEN void ftio_flush_now(const char *mark, int wait);

/* MPI_Init returned / MPI_Finalize called (enum ftio_mpi_state of wire.h):
 * starts the flusher if needed and has it send a batch that says so, even
 * without records (ftiod counts the ranks that exist and finalised); does not
 * wait.  Nothing in a launcher, under FTIO_DISABLE or after shutdown. */
FTIO_HIDDEN void ftio_flusher_mpi_state(int state);

/* Final flush + stop the flusher; idempotent; used by every exit path. */
FTIO_HIDDEN void ftio_shutdown(void);

#endif
