/* SPDX-License-Identifier: BSD-3-Clause */
/* wire.h -- the batch format of PROTOCOL.md §1: shim -> ftiod, and spool files.
 *
 * One ZeroMQ message (or one item of a spool file) is one batch: a msgpack map
 * with a header and column arrays ts/te/bytes/off/op/layer/fid/flags of equal
 * length.  The encoder is used by the shim's flusher thread (never on the
 * application's hot path); the decoder by ftiod, `ftio` (spool reader) and the
 * tests.  The decoder treats its input as hostile: any malformed, oversized or
 * wrong-version message is rejected with a reason, never a crash.
 */
#ifndef FTIO_WIRE_H
#define FTIO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "record.h"

#define FTIO_WIRE_VERSION     1
#define FTIO_WIRE_MAX_RECORDS (1u << 22)   /* per batch; larger is rejected */
#define FTIO_WIRE_MAX_FILES   (1u << 16)   /* file entries per batch */
#define FTIO_WIRE_MAX_STR     4096         /* job, host, path, mark length */

struct ftio_file_entry {
    uint32_t    id;
    const char *path;       /* decoder: points into the batch's storage */
    const char *fs;         /* the file system it lives on, "TYPE:MOUNTPOINT"
                               ("ext4:/scratch"); NULL when not sent */
};

/* What makes a run "the same application" (PROTOCOL.md §1 `app`), sent once
 * per process image in its first batch.  Never the arguments themselves:
 * they can hold secrets; their hashes only.  Absent strings are NULL. */
struct ftio_app_identity {
    const char *exe;        /* absolute path of the executable */
    const char *exe_id;     /* "DEV:INODE:MTIME" of it (hex), changes with a rebuild */
    const char *args;       /* 16 hex digits: hash of argv[1..] */
    const char *args_norm;  /* the same with every run of digits as one '#' */
    const char *name;       /* FTIO_APP, the user's own name for the application */
    int64_t     uid;        /* the process's real uid, -1 when absent */
};

/* "mpi": where the sender is in MPI's life (PROTOCOL.md §1).  Only a process
 * that called MPI_Init says so: rank/nranks alone may come from the
 * launcher's environment, which every command of a rank's script inherits. */
enum ftio_mpi_state {
    FTIO_MPI_NONE      = 0,   /* not known to be an MPI rank (absent on the wire) */
    FTIO_MPI_INIT      = 1,   /* MPI_Init returned: rank/nranks are MPI's */
    FTIO_MPI_FINALIZED = 2,   /* MPI_Finalize was called */
};

/* Everything in a batch except the records. */
struct ftio_batch_header {
    int         version;
    const char *job;
    const char *host;
    int64_t     pid;
    /* `born`: when the process image's stream began (the shim's start,
     * CLOCK_MONOTONIC ns; an exec'd image keeps its predecessor's): with
     * host and pid, which process it is, also when another process had the
     * pid before (pid wrap, a pid namespace per container).  0 when not
     * sent (older senders): the pid alone then. */
    int64_t     born;
    int32_t     rank;        /* -1 when not MPI */
    int32_t     nranks;      /*  0 when not MPI */
    uint64_t    seq;
    int64_t     clock_mono;  /* anchor taken together with clock_real */
    int64_t     clock_real;
    int64_t     skew_ns;     /* optional; 0 when absent */
    uint64_t    lost;
    const char *mark;        /* NULL when absent */
    bool        final;
    int32_t     mpi;         /* enum ftio_mpi_state; 0 when absent */
    size_t      nfiles;
    const struct ftio_file_entry *files;
    bool        has_app;     /* `app` was sent (a process's first batch) */
    struct ftio_app_identity app;
    /* `unseen` (final batch): bytes the kernel counted for the process
     * (/proc/self/io rchar/wchar, less sockets, pipes and terminals) that no
     * record holds: what the shim could not see. */
    bool        has_unseen;
    uint64_t    unseen_read, unseen_write;
};

/* A decoded batch.  Owns its memory; reuse one across ftio_wire_decode()
 * calls to avoid reallocating (the decoder grows it as needed). */
struct ftio_batch {
    struct ftio_batch_header h;
    size_t              n;        /* number of records */
    struct ftio_record *rec;      /* n records (tid = 0, reserved = 0) */
    void               *storage;  /* private */
};

/* Encode header + n records as one msgpack map appended to a growing buffer.
 * Returns 0, or -1 on allocation failure (errno ENOMEM) or on input the
 * decoder would reject (errno EINVAL: job NULL/empty, a string longer than
 * FTIO_WIRE_MAX_STR, an empty file path, n > FTIO_WIRE_MAX_RECORDS, nfiles >
 * FTIO_WIRE_MAX_FILES); out->len is then unchanged.  h->version is ignored
 * (always FTIO_WIRE_VERSION); host NULL is sent as ""; mark NULL,
 * born 0, skew_ns 0 and mpi 0 are omitted, and so are `app` unless has_app (its NULL
 * strings and a uid < 0 left out), `unseen` unless has_unseen, and a file's
 * fs when NULL; rec[].tid/reserved are not sent.  Records are not
 * validated here: see the decoder's per-record rules below.
 * Start with a zeroed wbuf; reuse it (set len = 0) to avoid reallocating. */
struct ftio_wbuf {
    char  *data;
    size_t len, cap;
    void  *first;     /* the caller's memory (ftio_wbuf_use): never freed, grown into a heap copy */
};
int  ftio_wire_encode(struct ftio_wbuf *out, const struct ftio_batch_header *h,
                      const struct ftio_record *rec, size_t n);
void ftio_wbuf_free(struct ftio_wbuf *b);
/* Start b (zeroed, or emptied by ftio_wbuf_free) on the caller's buf of cap
 * bytes: nothing is allocated until more is needed, then a heap copy (the
 * shim's flusher: a short process's batches fit, and the thread allocates
 * nothing). */
void ftio_wbuf_use(struct ftio_wbuf *b, void *buf, size_t cap);

/* A batch gathered in pieces (the shim's flusher: records encoded a
 * cache-sized piece at a time straight from its rings, their clock mapped
 * on the way, the header made last).  ftio_wire_columns_add() encodes n
 * more records into the staged columns (0, or -1 with errno ENOMEM/EINVAL
 * and c unchanged).
 * ftio_wire_encode_columns() appends the header h and each column's key and
 * array header to `head` and fills iov[] with the whole batch in order:
 * pieces of head and the staged columns themselves (written out with
 * writev, or gathered; valid until head or c change).  Together they are
 * exactly the bytes ftio_wire_encode() makes of h and the same records.
 * Returns the number of pieces (<= FTIO_WIRE_IOV), or -1 as
 * ftio_wire_encode (head->len unchanged).  Start with a zeroed struct;
 * clear keeps the memory for the next batch, free releases it. */
#define FTIO_WIRE_COLUMNS 8
#define FTIO_WIRE_IOV     (2 * FTIO_WIRE_COLUMNS)
struct ftio_wire_columns { size_t n; struct ftio_wbuf col[FTIO_WIRE_COLUMNS]; };
/* The line ftio_wire_columns_add() maps both timestamps of every record
 * along on the way out, when given (the shim's flusher encodes straight
 * from its rings, whose stamps are time-stamp-counter ticks: libtrace/
 * clock.c): t -> ns - ((tick - t) * mult >> 32), mult being ns per tick in
 * 32.32 fixed point, the product exact (128 bits); 0 stays 0 ("no time").
 * NULL: the stamps are written as they are. */
struct ftio_wire_timeline {
    uint64_t tick;
    int64_t  ns;
    int64_t  mult;
};
int  ftio_wire_columns_add(struct ftio_wire_columns *c, const struct ftio_record *rec, size_t n,
                           const struct ftio_wire_timeline *line);
int  ftio_wire_encode_columns(struct ftio_wbuf *head, const struct ftio_batch_header *h,
                              const struct ftio_wire_columns *c, struct iovec iov[FTIO_WIRE_IOV]);
void ftio_wire_columns_clear(struct ftio_wire_columns *c);
void ftio_wire_columns_free(struct ftio_wire_columns *c);

/* Decode exactly one batch from buf[0..len).  On success returns 0 and sets
 * *used to the bytes consumed (a spool file holds batches back to back).
 * On failure returns -1 and writes a one-line reason to err; *used is then the
 * offset where decoding failed.  Returns 1 (not an error) when buf holds only
 * the beginning of a batch: the caller may read more, or report truncation
 * (*used = len then; every proper prefix of a valid batch returns 1).
 * err may be NULL / errlen 0, used may be NULL.  `out` must start zeroed ({0}); on -1 or 1 it
 * holds an empty batch (n = 0, header zeroed), never partial data.
 *
 * Memory: all strings (job, host, mark, file paths) and rec[] point into
 * storage owned by `out`; they stay valid until the next decode into the same
 * `out` or ftio_batch_free().  The input buffer may be freed right away.
 *
 * Validation (anything else is rejected with -1, the whole batch):
 *  - the batch is a map; keys are strings; unknown keys (and non-string keys)
 *    are skipped for forward compatibility; a known key twice is an error.
 *  - required keys: v (== 1), job (non-empty str, valid UTF-8), seq, ts, te, bytes, op.
 *    Optional, with their default when absent: host "" (never NULL), pid 0, born 0,
 *    rank -1, nranks 0, clock [0, 0], lost 0, skew_ns 0, mpi 0 (0..2), files [], mark NULL
 *    (nil accepted as absent), final false, off -1, layer POSIX, fid 0,
 *    flags 0.  Strings: str type, <= FTIO_WIRE_MAX_STR bytes, no NUL byte.
 *  - numbers: any msgpack int width, signed or unsigned, or a finite float
 *    (truncated toward zero), range-checked: seq, lost, ts, te >= 0;
 *    rank in [-1, INT32_MAX], nranks in [0, INT32_MAX], rank < nranks when
 *    nranks > 0; op < FTIO_OP_COUNT, layer < FTIO_LAYER_COUNT, fid uint32,
 *    flags uint16 (unknown flag bits are kept); born >= 0; pid, clock, off,
 *    bytes, skew_ns any int64.
 *  - columns: all present columns have the same length n <= FTIO_WIRE_MAX_RECORDS.
 *  - files: <= FTIO_WIRE_MAX_FILES entries [uint32 id, non-empty path] or
 *    [uint32 id, non-empty path, fs string] (fs NULL when absent).
 *  - app (optional map): exe, exe_id, args, args_norm, name (strings) and uid
 *    (int >= 0); each optional, unknown keys skipped, a known one twice is an
 *    error; has_app true when the key was present.
 *  - unseen (optional): [uint64 read, uint64 write]; has_unseen true then.
 *  - per record: te < ts rejects the batch (a monotonic clock cannot do it,
 *    so the sender is broken or the data corrupt); so does bytes < 0 on a
 *    read/write (failed calls are not data records).  Negative bytes on
 *    metadata ops are accepted (e.g. a failed close's return value). */
int  ftio_wire_decode(const void *buf, size_t len, struct ftio_batch *out,
                      size_t *used, char *err, size_t errlen);
void ftio_batch_free(struct ftio_batch *b);

/* Human names, for tools and logs. */
const char *ftio_op_name(int op);
const char *ftio_layer_name(int layer);

#endif
