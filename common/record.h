/* SPDX-License-Identifier: BSD-3-Clause */
/* record.h -- the I/O request record shared by the shim, the wire format and
 * the daemon.
 *
 * One record is one completed I/O request of one process.  The shim fills them
 * on the hot path into per-thread rings (so the struct is fixed-size, 48 bytes,
 * no pointers), the flusher turns rings into column-oriented msgpack batches
 * (wire.h), and the daemon / offline readers turn batches back into records.
 * Rank, pid, host and job live in the batch header, never in a record.
 */
#ifndef FTIO_RECORD_H
#define FTIO_RECORD_H

#include <stdint.h>

enum ftio_op {
    FTIO_OP_READ  = 0,
    FTIO_OP_WRITE = 1,
    FTIO_OP_OPEN  = 2,
    FTIO_OP_CLOSE = 3,
    FTIO_OP_SYNC  = 4,
    FTIO_OP_SEEK  = 5,
    FTIO_OP_STAT  = 6,
    FTIO_OP_META  = 7,   /* any other metadata call (rename, truncate, ...) */
    FTIO_OP_COUNT
};

enum ftio_layer {
    FTIO_LAYER_POSIX = 0,
    FTIO_LAYER_STDIO = 1,
    FTIO_LAYER_MPIIO = 2,
    FTIO_LAYER_API   = 3,   /* explicit records from ftio.h */
    FTIO_LAYER_COUNT
};

enum ftio_flag {
    FTIO_FLAG_ASYNC      = 1u << 0,  /* timed from post to completion */
    FTIO_FLAG_COLLECTIVE = 1u << 1,
    FTIO_FLAG_NESTED     = 1u << 2,  /* POSIX call issued inside an MPI-IO call */
};

/* 48 bytes; times are CLOCK_MONOTONIC nanoseconds of the sending process. */
struct ftio_record {
    uint64_t t_start;
    uint64_t t_end;
    int64_t  offset;     /* file offset in bytes, -1 when unknown */
    int64_t  bytes;      /* bytes transferred (the call's return value) */
    uint32_t file_id;    /* hash of the absolute path, 0 when unknown */
    uint8_t  op;         /* enum ftio_op */
    uint8_t  layer;      /* enum ftio_layer */
    uint16_t flags;      /* enum ftio_flag bits */
    uint32_t tid;        /* small per-process thread number */
    uint32_t reserved;   /* not sent; in the shim's rings, the slot's sequence number (libtrace/ring.c) */
};

_Static_assert(sizeof(struct ftio_record) == 48, "record must stay 48 bytes");

static inline int ftio_op_is_data(int op) { return op == FTIO_OP_READ || op == FTIO_OP_WRITE; }

#endif
