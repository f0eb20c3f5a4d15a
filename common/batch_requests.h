/* SPDX-License-Identifier: BSD-3-Clause */
/* batch_requests.h -- the one conversion of a wire batch (wire.h) into
 * job-time I/O requests, used by both paths a batch can take: ftiod merging it
 * into its bins (predictor/daemon/job.c) and `ftio` reading a spool file
 * (predictor/readers/spool_read.c).  Every rule that decides what a record means
 * lives here, once, so that a trace gives the same requests whichever path it
 * takes (tests/daemon/test_parity.c checks it).
 *
 * The rules, in the order they are applied to a record:
 *  1. Data: only reads and writes are requests; every other op (open, close,
 *     sync, ...) is FTIO_REQ_OTHER.
 *  2. Nested records (POSIX calls the MPI library issues inside an MPI-IO
 *     call, FTIO_FLAG_NESTED) carry bytes the MPI-IO record already counts:
 *     each byte is counted once.  By default at the MPI-IO layer (nested POSIX
 *     records are FTIO_REQ_NESTED); with keep_nested at the POSIX layer
 *     (MPI-IO records are FTIO_REQ_NESTED, nested POSIX ones are data).
 *  3. Bytes: negative (a failed call; the decoder already rejects it on reads
 *     and writes) or above FTIO_MAX_REQUEST_BYTES (corrupt: no single call
 *     moves a petabyte) is FTIO_REQ_BAD.
 *  4. Clock: record times are CLOCK_MONOTONIC ns of the sending process; the
 *     batch's anchor maps them to wall (CLOCK_REALTIME) ns:
 *         wall = t + base,  base = clock_real - clock_mono + skew_ns
 *     in checked int64 arithmetic: an anchor or a time that overflows, or a
 *     wall time before the Unix epoch (no realtime clock reads that), makes
 *     the record FTIO_REQ_BAD.  Wall ns are exact; nothing is rounded yet.
 *  5. End before start (the decoder already rejects it, so only a hand-made
 *     record can do it) is FTIO_REQ_BAD: its duration is unknown.
 *  6. Plausibility: a request ending after opt.latest_ns, or starting before
 *     opt.earliest_ns, is FTIO_REQ_BAD.  ftiod sets them to its clock +
 *     max_future and - max_past: a record from the future would move its
 *     ring of bins, and one from a clock that says 1970 would stretch its
 *     job over decades of empty boundaries; `ftio` analyses recordings of
 *     any date, so it sets no bound (INT64_MAX, INT64_MIN).
 *  7. Time origin: job time is seconds since the job's origin, a wall ns
 *     value, computed as (double)(wall - origin) * 1e-9 by ftio_job_seconds()
 *     (the difference exact in int64, one rounding).  The origin is the
 *     earliest start of the data requests of the job's first batch that has
 *     any (ftio_batch_first_start()): ftiod must fix it when that batch
 *     arrives.  `ftio` starts from the same origin and, having the whole
 *     trace, moves time 0 to the earliest request at the end
 *     (ftio_trace_set_finish()); when the first batch holds the earliest
 *     request (the shim's own order) both paths give identical numbers.
 *  Zero-length requests get their 1 us in the analysis library (ALGORITHM.md
 *  §1), not here: a request keeps the times it was recorded with.
 */
#ifndef FTIO_BATCH_REQUESTS_H
#define FTIO_BATCH_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>
#include "wire.h"

/* Rule 3: no single request moves more (1 PiB); also keeps bytes exact as
 * a double. */
#define FTIO_MAX_REQUEST_BYTES (1ll << 50)

/* The reader's choices (rules 2 and 6). */
struct ftio_convert_options {
    bool    keep_nested;   /* count nested POSIX, drop MPI-IO instead */
    int64_t latest_ns;     /* wall ns no request may end after; INT64_MAX: none */
    int64_t earliest_ns;   /* wall ns no request may start before; INT64_MIN: none */
};
void ftio_convert_options_default(struct ftio_convert_options *o);

enum ftio_req_kind {
    FTIO_REQ_DATA = 0,     /* a request: *out is set */
    FTIO_REQ_OTHER,        /* not a read or a write */
    FTIO_REQ_NESTED,       /* counted at another layer (rule 2) */
    FTIO_REQ_BAD,          /* impossible bytes or times (rules 3-6) */
};

/* Why a record is FTIO_REQ_BAD (which rule; ftiod counts each in its `.end`). */
enum ftio_bad_reason {
    FTIO_BAD_SIZE = 0,     /* rule 3: negative or over FTIO_MAX_REQUEST_BYTES */
    FTIO_BAD_CLOCK,        /* rules 4-5: the anchor or a time overflows, before 1970, end < start */
    FTIO_BAD_FUTURE,       /* rule 6: ends after latest_ns */
    FTIO_BAD_PAST,         /* rule 6: starts before earliest_ns */
    FTIO_BAD_NREASONS
};

/* One request in wall ns (exact); is_write: write, else read.  For a
 * FTIO_REQ_BAD record only `bad` is set. */
struct ftio_wall_request {
    int64_t start_ns, end_ns;
    int64_t bytes;
    bool    is_write;
    enum ftio_bad_reason bad;
};

/* A batch's clock (rule 4), computed once per batch. */
struct ftio_batch_clock {
    int64_t base;          /* wall ns = monotonic ns + base */
    bool    ok;            /* false: the anchor overflows, every data record is bad */
};
struct ftio_batch_clock ftio_batch_clock_of(const struct ftio_batch_header *h);

/* Rules 1-6 for one record of a batch with clock c. */
enum ftio_req_kind ftio_record_request(const struct ftio_record *r, struct ftio_batch_clock c,
                                       const struct ftio_convert_options *o,
                                       struct ftio_wall_request *out);

/* Rule 7: the earliest start of batch b's data requests, per direction
 * (first[0] read, first[1] write; INT64_MAX for a direction without any)
 * and overall (*any); false when the batch has no data request (then
 * nothing is written). */
bool ftio_batch_first_start(const struct ftio_batch *b, const struct ftio_convert_options *o,
                            int64_t *any, int64_t first[2]);

/* The same pass, also counting batch b's data requests per direction
 * (count[0] reads, count[1] writes; always set): ftiod's merge reserves its
 * record logs from them without classifying every record a second time. */
bool ftio_batch_survey(const struct ftio_batch *b, const struct ftio_convert_options *o,
                       int64_t *any, int64_t first[2], size_t count[2]);

/* Rule 7: job seconds of wall ns w for origin o (both from this file, so
 * both >= 0 and the difference cannot overflow). */
static inline double ftio_job_seconds(int64_t w, int64_t origin)
{
    return (double)(w - origin) * 1e-9;
}

#endif
