/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_wire.c -- libFuzzer harness for ftio_wire_decode() (not built by
 * default; the Check suite has its own 20k-mutation fuzz test).  Run with:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icommon \
 *     tests/wire/fuzz_wire.c common/wire_*.c common/names.c -o /tmp/fuzz_wire
 *   /tmp/fuzz_wire -max_total_time=300 CORPUS_DIR
 *
 * Any accepted input must decode to a consistent batch that re-encodes and
 * decodes to the same batch; anything else aborts.
 */
#include <stdlib.h>
#include <string.h>
#include "wire.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_consistent(const struct ftio_batch *b)
{
    CHECK(b->h.version == FTIO_WIRE_VERSION && b->h.job && b->h.host && b->h.job[0]);
    CHECK(strlen(b->h.job) <= FTIO_WIRE_MAX_STR && strlen(b->h.host) <= FTIO_WIRE_MAX_STR);
    CHECK(!b->h.mark || strlen(b->h.mark) <= FTIO_WIRE_MAX_STR);
    CHECK(b->h.rank >= -1 && b->h.nranks >= 0 && (b->h.nranks == 0 || b->h.rank < b->h.nranks));
    CHECK(b->h.nfiles <= FTIO_WIRE_MAX_FILES && b->n <= FTIO_WIRE_MAX_RECORDS);
    for (size_t i = 0; i < b->h.nfiles; i++)
        CHECK(b->h.files[i].path[0] && strlen(b->h.files[i].path) <= FTIO_WIRE_MAX_STR);
    for (size_t i = 0; i < b->n; i++) {
        const struct ftio_record *r = &b->rec[i];
        CHECK(r->t_end >= r->t_start && r->op < FTIO_OP_COUNT && r->layer < FTIO_LAYER_COUNT);
        CHECK(!ftio_op_is_data(r->op) || r->bytes >= 0);
        CHECK(r->tid == 0 && r->reserved == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ftio_batch b, b2;
    static struct ftio_wbuf w;
    size_t used;
    char err[128];
    int rc = ftio_wire_decode(data, size, &b, &used, err, sizeof err);
    CHECK(rc >= -1 && rc <= 1 && used <= size);
    if (rc != 0) {
        CHECK(b.n == 0 && err[0]);
        return 0;
    }
    check_consistent(&b);
    w.len = 0;
    CHECK(ftio_wire_encode(&w, &b.h, b.rec, b.n) == 0);
    CHECK(ftio_wire_decode(w.data, w.len, &b2, &used, err, sizeof err) == 0 && used == w.len);
    CHECK(b2.n == b.n && b2.h.nfiles == b.h.nfiles && b2.h.seq == b.h.seq);
    CHECK(strcmp(b2.h.job, b.h.job) == 0 && strcmp(b2.h.host, b.h.host) == 0);
    CHECK((!b2.h.mark && !b.h.mark) || (b2.h.mark && b.h.mark && !strcmp(b2.h.mark, b.h.mark)));
    CHECK(b.n == 0 || memcmp(b2.rec, b.rec, b.n * sizeof *b.rec) == 0);
    return 0;
}
