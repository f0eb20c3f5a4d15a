/* spool2txt.c -- turn shim spool files (PROTOCOL.md §3) into the text the MPI
 * tests check (tests/mpiio/check_records.py).
 *
 *   mpiio-spool2txt RECORDS_OUT FILES_OUT SPOOL...
 *
 * Appends one line per record to RECORDS_OUT:
 *     rank layer op flags bytes offset fid t_start t_end
 * and one "fid path" line per file entry to FILES_OUT; prints per input
 * "<name>: <batches> batches, <records> records" on stdout.  An input that
 * does not decode cleanly (truncated, malformed) is an error: one line on
 * stderr, exit 1.  Sequence numbers, losses and final batches are checked
 * with ftio-recv, which reads the same files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, r;
    char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mpiio-spool2txt RECORDS_OUT FILES_OUT SPOOL...\n");
        return 2;
    }
    FILE *rec = fopen(argv[1], "a"), *files = fopen(argv[2], "a");
    if (!rec || !files) {
        fprintf(stderr, "mpiio-spool2txt: cannot write %s / %s: %s\n", argv[1], argv[2], strerror(errno));
        return 1;
    }
    int status = 0;
    for (int a = 3; a < argc; a++) {
        size_t len = 0, pos = 0, batches = 0, records = 0;
        char *buf = slurp(argv[a], &len);
        if (!buf) {
            fprintf(stderr, "mpiio-spool2txt: %s: %s\n", argv[a], strerror(errno));
            status = 1;
            continue;
        }
        struct ftio_batch b = {0};
        while (pos < len) {
            size_t used = 0;
            char err[256] = "";
            int rc = ftio_wire_decode(buf + pos, len - pos, &b, &used, err, sizeof err);
            if (rc != 0) {
                fprintf(stderr, "mpiio-spool2txt: %s: offset %zu: %s\n", argv[a], pos,
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
    fclose(rec);
    fclose(files);
    return status;
}
