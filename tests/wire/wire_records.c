/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_records.c -- `ftio-wire records`: shim spool files (PROTOCOL.md §3) as
 * the numeric columns the MPI-IO tests check (tests/mpiio/check_records.py).
 *
 *   ftio-wire records RECORDS_OUT FILES_OUT SPOOL...
 *
 * Appends one line per record to RECORDS_OUT:
 *     rank layer op flags bytes offset fid t_start t_end
 * and one "fid path" line per file entry to FILES_OUT; prints per input
 * "<name>: <batches> batches, <records> records" on stdout.  An input that
 * does not decode cleanly (truncated, malformed) is an error: one line on
 * stderr, exit 1.  Sequence numbers, losses and final batches are checked
 * with `ftio-wire recv`, which reads the same files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftio_wire.h"
#include "wire.h"

int wire_cmd_records(int argc, char **argv)
{
    int help = argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (argc < 4 || help) {
        fputs("usage: ftio-wire records RECORDS_OUT FILES_OUT SPOOL...\n", help ? stdout : stderr);
        return help ? 0 : 2;
    }
    FILE *rec = fopen(argv[1], "a"), *files = fopen(argv[2], "a");
    if (!rec || !files) {
        fprintf(stderr, "ftio-wire records: cannot write %s / %s: %s\n", argv[1], argv[2],
                strerror(errno));
        if (rec)
            fclose(rec);
        if (files)
            fclose(files);
        return 1;
    }
    int status = 0;
    for (int a = 3; a < argc; a++) {
        size_t len = 0, pos = 0, batches = 0, records = 0;
        char *buf = wire_slurp("records", argv[a], &len);
        if (!buf) {
            status = 1;
            continue;
        }
        struct ftio_batch b = {0};
        while (pos < len) {
            size_t used = 0;
            char err[256] = "";
            int rc = ftio_wire_decode(buf + pos, len - pos, &b, &used, err, sizeof err);
            if (rc != 0) {
                fprintf(stderr, "ftio-wire records: %s: offset %zu: %s\n", argv[a], pos,
                        rc > 0 ? "truncated batch" : err);
                status = 1;
                break;
            }
            for (size_t i = 0; i < b.h.nfiles; i++)
                fprintf(files, "%u %s\n", b.h.files[i].id, b.h.files[i].path);
            for (size_t i = 0; i < b.n; i++) {
                const struct ftio_record *r = &b.rec[i];
                fprintf(rec, "%d %u %u %u %lld %lld %u %llu %llu\n", b.h.rank, r->layer, r->op,
                        r->flags, (long long)r->bytes, (long long)r->offset, r->file_id,
                        (unsigned long long)r->t_start, (unsigned long long)r->t_end);
            }
            records += b.n;
            batches++;
            pos += used;
        }
        printf("%s: %zu batches, %zu records\n", argv[a], batches, records);
        ftio_batch_free(&b);
        free(buf);
    }
    int closed = fclose(rec);
    closed |= fclose(files);
    if (closed != 0) {
        fprintf(stderr, "ftio-wire records: write error: %s\n", strerror(errno));
        status = 1;
    }
    return status;
}
