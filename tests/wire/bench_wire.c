/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_wire.c -- throughput of the batch codec (common/wire.h).
 *
 * Encodes a realistic batch (monotonic ns timestamps, MiB-scale offsets, 32-bit
 * file ids: the values the shim sends) and decodes it repeatedly for about a
 * second, printing records/s for decode and encode.  ftiod's ingest target is
 * 5 M records/s decoded *and* merged on one core, so decoding alone must be
 * well above that.  "staged" is the shim's flusher's way (ftio_wire_columns_add
 * 512 records at a time, then ftio_wire_encode_columns and its pieces copied
 * out), the same bytes.
 *
 *   bench_wire [records_per_batch [seconds]]      (defaults: 10000, 1.0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeutil.h"
#include "wire.h"

static double now_s(void) { return (double)ftio_mono_ns() / 1e9; }

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    double secs = argc > 2 ? atof(argv[2]) : 1.0;
    if (n == 0 || n > FTIO_WIRE_MAX_RECORDS || !(secs > 0)) {
        fprintf(stderr, "usage: bench_wire [records 1..%u [seconds]]\n", FTIO_WIRE_MAX_RECORDS);
        return 2;
    }
    struct ftio_record *rec = calloc(n, sizeof *rec);
    if (!rec) {
        fprintf(stderr, "bench_wire: out of memory\n");
        return 1;
    }
    uint64_t t = 1234567890123456ull;          /* ~14 days of uptime, in ns */
    for (size_t i = 0; i < n; i++) {
        t += 1000 + (i * 7919) % 50000;
        rec[i].t_start = t;
        rec[i].t_end = t + 20000 + (i * 104729) % 2000000;
        rec[i].bytes = (i % 16 == 0) ? 0 : 1 << 20;
        rec[i].offset = (int64_t)i << 20;
        rec[i].op = (uint8_t)(i % 16 == 0 ? FTIO_OP_OPEN : FTIO_OP_WRITE);
        rec[i].layer = FTIO_LAYER_POSIX;
        rec[i].file_id = 0x9e3779b9u ^ (uint32_t)(i / 100);
    }
    struct ftio_file_entry files[] = { { 0x9e3779b9u, "/scratch/job/out.dat", NULL } };
    struct ftio_batch_header h = {
        .job = "4711", .host = "node001", .pid = 12345, .rank = 7, .nranks = 64, .seq = 1,
        .clock_mono = (int64_t)t, .clock_real = 1763741234520000000ll, .nfiles = 1, .files = files,
    };

    struct ftio_wbuf w = { 0 };
    size_t iters = 0;
    double t0 = now_s(), t1;
    do {
        w.len = 0;
        if (ftio_wire_encode(&w, &h, rec, n) < 0) {
            fprintf(stderr, "bench_wire: encode failed\n");
            return 1;
        }
        iters++;
    } while ((t1 = now_s()) - t0 < secs / 2);
    double enc_rate = (double)(n * iters) / (t1 - t0);

    /* The shim's way: staged 512 records at a time, then the batch. */
    struct ftio_wire_columns cols = { 0 };
    struct ftio_wbuf head = { 0 };
    struct ftio_wbuf ws = { .data = malloc(w.len), .cap = w.len };
    struct iovec iov[FTIO_WIRE_IOV];
    if (!ws.data) {
        fprintf(stderr, "bench_wire: out of memory\n");
        return 1;
    }
    iters = 0;
    t0 = now_s();
    do {
        ftio_wire_columns_clear(&cols);
        for (size_t i = 0; i < n; i += 512)
            if (ftio_wire_columns_add(&cols, rec + i, n - i < 512 ? n - i : 512, NULL) < 0) {
                fprintf(stderr, "bench_wire: staging failed\n");
                return 1;
            }
        head.len = ws.len = 0;
        int niov = ftio_wire_encode_columns(&head, &h, &cols, iov);
        if (niov < 0) {
            fprintf(stderr, "bench_wire: encode failed\n");
            return 1;
        }
        for (int k = 0; k < niov; k++) {       /* as the spool file's writev does */
            memcpy(ws.data + ws.len, iov[k].iov_base, iov[k].iov_len);
            ws.len += iov[k].iov_len;
        }
        iters++;
    } while ((t1 = now_s()) - t0 < secs / 2);
    double staged_rate = (double)(n * iters) / (t1 - t0);
    if (ws.len != w.len || memcmp(ws.data, w.data, w.len) != 0) {
        fprintf(stderr, "bench_wire: the staged batch differs from the encoded one\n");
        return 1;
    }
    ftio_wire_columns_free(&cols);
    ftio_wbuf_free(&ws);
    ftio_wbuf_free(&head);

    struct ftio_batch b = { 0 };
    char err[256];
    size_t used;
    iters = 0;
    t0 = now_s();
    do {
        if (ftio_wire_decode(w.data, w.len, &b, &used, err, sizeof err) != 0 || b.n != n) {
            fprintf(stderr, "bench_wire: decode failed: %s\n", err);
            return 1;
        }
        iters++;
    } while ((t1 = now_s()) - t0 < secs);
    double dec_rate = (double)(n * iters) / (t1 - t0);

    printf("batch: %zu records, %zu bytes (%.1f B/record)\n", n, w.len, (double)w.len / (double)n);
    printf("decode: %.1f M records/s (%.0f MB/s)\n", dec_rate / 1e6, dec_rate * (double)w.len / (double)n / 1e6);
    printf("encode: %.1f M records/s\n", enc_rate / 1e6);
    printf("encode staged (512 at a time): %.1f M records/s\n", staged_rate / 1e6);
    ftio_batch_free(&b);
    ftio_wbuf_free(&w);
    free(rec);
    return 0;
}
