/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_dump.c -- `ftio-wire dump` prints spool files (batches of PROTOCOL.md
 * §1 back to back) as text, one line per batch / file entry / record, and
 * `ftio-wire gen` writes a small synthetic spool file.  Debugging and test
 * helpers (tests/wire/dump.sh): the line format is key=value so shell tests
 * can grep and awk it.
 *
 *   ftio-wire dump [-s] FILE...     dump ("-" = stdin); -s: batch lines only
 *   ftio-wire gen BATCHES [--records R] [--period SEC] [--job J]
 *                 [--rank K --nranks M] [--seq0 S] > FILE
 *       writes BATCHES batches; batch b holds R back-to-back 1 MiB writes of
 *       1 ms each starting at b * period (an I/O burst every `period`
 *       seconds); the last batch is final.
 *
 * Output:
 *   batch file=F offset=O bytes=B v=1 job=J host=H pid=P rank=R nranks=N seq=S
 *         clock_mono=M clock_real=W skew_ns=K lost=L final=0|1 mark=TEXT|- mpi=0|1|2 files=NF n=NR
 *   app exe=PATH|- exe_id=ID|- args=HEX|- args_norm=HEX|- name=NAME|- uid=U|-
 *   file id=0x%08x path=PATH
 *   rec ts=NS te=NS op=NAME layer=NAME bytes=B off=O fid=0x%08x flags=0x%x
 *   total file=F batches=NB records=NR lost=L bytes_rw=SUM
 * Exit status: 0, or 1 with "ftio-wire dump: F: offset O: reason" on stderr
 * for a truncated or malformed file (what precedes it is still printed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftio_wire.h"
#include "wire.h"

static int dump_file(const char *path, int summary)
{
    size_t len;
    char *data = wire_slurp("dump", path, &len);
    if (!data)
        return 1;
    struct ftio_batch b = { 0 };
    size_t off = 0, nbatches = 0, nrec = 0;
    uint64_t lost = 0;
    int64_t bytes_rw = 0;
    int status = 0;
    char err[256];
    while (off < len) {
        size_t used;
        int rc = ftio_wire_decode(data + off, len - off, &b, &used, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "ftio-wire dump: %s: offset %zu: %s\n", path,
                    rc == 1 ? off : off + used, err);
            status = 1;
            break;
        }
        const struct ftio_batch_header *h = &b.h;
        printf("batch file=%s offset=%zu bytes=%zu v=%d job=%s host=%s pid=%" PRId64
               " rank=%" PRId32 " nranks=%" PRId32 " seq=%" PRIu64 " clock_mono=%" PRId64
               " clock_real=%" PRId64 " skew_ns=%" PRId64 " lost=%" PRIu64 " final=%d mark=%s"
               " mpi=%d files=%zu n=%zu\n",
               path, off, used, h->version, h->job, h->host, h->pid, h->rank, h->nranks,
               h->seq, h->clock_mono, h->clock_real, h->skew_ns, h->lost, h->final,
               h->mark ? h->mark : "-", h->mpi, h->nfiles, b.n);
        if (!summary && h->has_app) {
            const struct ftio_app_identity *a = &h->app;
            printf("app exe=%s exe_id=%s args=%s args_norm=%s name=%s uid=", a->exe ? a->exe : "-",
                   a->exe_id ? a->exe_id : "-", a->args ? a->args : "-",
                   a->args_norm ? a->args_norm : "-", a->name ? a->name : "-");
            if (a->uid >= 0)
                printf("%" PRId64 "\n", a->uid);
            else
                printf("-\n");
        }
        for (size_t i = 0; !summary && i < h->nfiles; i++)
            printf("file id=0x%08" PRIx32 " path=%s\n", h->files[i].id, h->files[i].path);
        for (size_t i = 0; i < b.n; i++) {
            const struct ftio_record *r = &b.rec[i];
            if (ftio_op_is_data(r->op))
                bytes_rw += r->bytes;
            if (summary)
                continue;
            printf("rec ts=%" PRIu64 " te=%" PRIu64 " op=%s layer=%s bytes=%" PRId64
                   " off=%" PRId64 " fid=0x%08" PRIx32 " flags=0x%x\n",
                   r->t_start, r->t_end, ftio_op_name(r->op), ftio_layer_name(r->layer),
                   r->bytes, r->offset, r->file_id, r->flags);
        }
        nbatches++;
        nrec += b.n;
        lost += h->lost;
        off += used;
    }
    printf("total file=%s batches=%zu records=%zu lost=%" PRIu64 " bytes_rw=%" PRId64 "\n",
           path, nbatches, nrec, lost, bytes_rw);
    ftio_batch_free(&b);
    free(data);
    return status;
}

/* Parses a non-negative integer argument or exits with a one-line error. */
static long long arg_num(const char *opt, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || errno || *end || end == s || v < min || v > max) {
        fprintf(stderr, "ftio-wire gen: %s needs an integer in [%lld, %lld]\n", opt, min, max);
        exit(2);
    }
    return v;
}

static const char gen_usage[] =
    "usage: ftio-wire gen BATCHES [--records R] [--period SEC] [--job J] [--rank K --nranks M]\n"
    "                     [--seq0 S] > FILE\n";

int wire_cmd_gen(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(gen_usage, stdout);
        return 0;
    }
    long long batches = arg_num("BATCHES", argc > 1 ? argv[1] : NULL, 1, 1000000);
    long long records = 8, rank = -1, nranks = 0, seq0 = 0;
    double period = 10.0;
    const char *job = "gen-job";
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--records")) records = arg_num(o, v, 0, FTIO_WIRE_MAX_RECORDS);
        else if (!strcmp(o, "--rank")) rank = arg_num(o, v, -1, INT32_MAX);
        else if (!strcmp(o, "--nranks")) nranks = arg_num(o, v, 0, INT32_MAX);
        else if (!strcmp(o, "--seq0")) seq0 = arg_num(o, v, 0, INT64_MAX);
        else if (!strcmp(o, "--job") && v && *v) job = v;
        else if (!strcmp(o, "--period") && v && atof(v) > 0) period = atof(v);
        else {
            fprintf(stderr, "ftio-wire gen: bad option '%s'\n", o);
            return 2;
        }
        i++;
    }
    if (nranks > 0 && rank >= nranks) {
        fprintf(stderr, "ftio-wire gen: --rank must be < --nranks\n");
        return 2;
    }
    struct ftio_record *rec = calloc(records ? (size_t)records : 1, sizeof *rec);
    static const struct ftio_file_entry files[] = { { 0x2a2a2a2au, "/scratch/gen/out.dat", NULL } };
    const int64_t mono0 = 1000000000000ll, real0 = 1763741234000000000ll;
    struct ftio_wbuf w = { 0 };
    for (long long bi = 0; rec && bi < batches; bi++) {
        uint64_t start = (uint64_t)mono0 + (uint64_t)((double)bi * period * 1e9);
        for (long long i = 0; i < records; i++) {
            struct ftio_record *r = &rec[i];
            r->t_start = start + (uint64_t)i * 1000000u;
            r->t_end = r->t_start + 1000000u;
            r->bytes = 1 << 20;
            r->offset = (int64_t)(bi * records + i) << 20;
            r->op = FTIO_OP_WRITE;
            r->layer = FTIO_LAYER_POSIX;
            r->file_id = files[0].id;
        }
        struct ftio_batch_header h = {
            .job = job, .host = "genhost", .pid = 4242, .rank = (int32_t)rank,
            .nranks = (int32_t)nranks, .seq = (uint64_t)(seq0 + bi), .clock_mono = mono0,
            .clock_real = real0, .final = bi == batches - 1,
            .nfiles = bi == 0, .files = files,
        };
        w.len = 0;
        if (ftio_wire_encode(&w, &h, rec, (size_t)records) < 0 ||
            fwrite(w.data, 1, w.len, stdout) != w.len) {
            fprintf(stderr, "ftio-wire gen: %s\n", strerror(errno));
            free(rec);
            ftio_wbuf_free(&w);
            return 1;
        }
    }
    int ok = rec != NULL && fflush(stdout) == 0;
    if (!ok)
        fprintf(stderr, "ftio-wire gen: %s\n", rec ? strerror(errno) : "out of memory");
    free(rec);
    ftio_wbuf_free(&w);
    return ok ? 0 : 1;
}

int wire_cmd_dump(int argc, char **argv)
{
    int summary = 0, first = 1;
    if (argc >= 2 && !strcmp(argv[1], "-s")) {
        summary = 1;
        first = 2;
    }
    int help = argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (first >= argc || help) {
        fputs("usage: ftio-wire dump [-s] FILE...   (\"-\": stdin; -s: batch lines only)\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    int status = 0;
    for (int i = first; i < argc; i++)
        status |= dump_file(argv[i], summary);
    return status;
}
