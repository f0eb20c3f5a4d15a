/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_mpi.c -- ftio-scan-mpi: `ftio scan` over MPI ranks (many nodes).
 * Built with mpicc as its own program so that `ftio` never links libmpi;
 * `ftio scan` execs it when an MPI launcher started it (scan_cli.c), and it
 * can be run directly: `mpirun -np N ftio-scan-mpi [scan options] DIR...`.
 *
 * Rank 0 walks the paths and broadcasts the work list; rank r takes items
 * r, r+N, r+2N, ... (the list is sorted, so neighbouring files -- often one
 * campaign of similar jobs -- spread over all ranks) and runs the threaded
 * engine on them, keeping its rows' text; at the end rank 0 gathers every
 * rank's rows and writes them in work-list order, so the output is the same
 * as a threaded `ftio scan` of the same paths, and the summaries are summed
 * with one reduction.  Only rank 0 prints (progress: its share, scaled).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scan/scan.h"

/* A rank's rows: records (u64 index, u64 csv_len, u64 jsonl_len, text). */
static int keep_rows(void *ctx, size_t index, const char *csv, size_t csv_len, const char *jsonl,
                     size_t jsonl_len)
{
    struct scan_buf *b = ctx;
    uint64_t h[3] = { index, csv_len, jsonl_len };
    scan_buf_add(b, (const char *)h, sizeof h);
    scan_buf_add(b, csv, csv_len);
    scan_buf_add(b, jsonl, jsonl_len);
    return b->oom ? -1 : 0;
}

/* The work list as one buffer: per path a flag byte (named) and the path
 * with its NUL. */
static int share_files(struct scan_files *f, int rank, char **paths, int npaths)
{
    struct scan_buf b = { 0 };
    uint64_t len = 0;
    int ok = 1;
    if (rank == 0) {
        ok = scan_files_collect(f, paths, npaths) == 0;
        for (size_t i = 0; ok && i < f->n; i++) {
            char flag = f->file[i].named ? 1 : 0;
            scan_buf_add(&b, &flag, 1);
            scan_buf_add(&b, f->file[i].path, strlen(f->file[i].path) + 1);
        }
        ok = ok && !b.oom && b.n < INT32_MAX;
        len = ok ? b.n : 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (!ok) {
        scan_buf_free(&b);
        return -1;
    }
    if (rank != 0) {
        b.s = malloc(len ? len : 1);
        b.n = len;
        if (!b.s)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Bcast(b.s, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        /* rebuild the list from the buffer: flags then paths */
        for (size_t off = 0; off < len;) {
            bool named = b.s[off] != 0;
            char *p = b.s + off + 1;
            if (scan_files_add(f, p, named) != 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
            off += 1 + strlen(p) + 1;
        }
    }
    scan_buf_free(&b);
    return 0;
}

/* Rank 0: write everyone's rows in work-list order. */
static int merge_rows(struct scan_output *out, const char *all, const int *displ, int size, size_t nfiles,
                      const int *counts)
{
    size_t *cur = calloc((size_t)size, sizeof *cur);
    if (!cur)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        int r = (int)(i % (size_t)size);
        if (cur[r] + 24 > (size_t)counts[r]) {
            rc = -1;
            break;
        }
        const char *p = all + displ[r] + cur[r];
        uint64_t h[3];
        memcpy(h, p, sizeof h);
        if (h[0] != i) {
            rc = -1;
            break;
        }
        const char *csv = p + sizeof h, *jsonl = csv + h[1];
        rc = scan_output_sink(out, i, csv, h[1], jsonl, h[2]);
        cur[r] += sizeof h + h[1] + h[2];
    }
    free(cur);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* every rank parses the options; only rank 0 says what is wrong */
    if (rank != 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
            close(nul);
        }
    }
    struct scan_opts o;
    int first;
    int rc = scan_parse_args(argc, argv, &o, &first);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.threads == 0) {
        const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
        if (!local)
            local = getenv("MPI_LOCALNRANKS");
        long per = local ? strtol(local, NULL, 10) : 1;
        o.threads = scan_online_cores() / (int)(per > 0 ? per : 1);
        if (o.threads < 1)
            o.threads = 1;
    }
    if (rank != 0)
        o.progress = false;

    struct scan_files f = { 0 };
    if (share_files(&f, rank, argv + first, argc - first) != 0) {
        if (rank == 0)
            fprintf(stderr, "ftio scan: out of memory for the work list\n");
        scan_files_free(&f);
        MPI_Finalize();
        return 1;
    }
    struct scan_output out;
    int ok = 1;
    if (rank == 0)
        ok = scan_output_open(&out, &o) == 0;
    /* --history: each rank records its jobs on its own connection */
    if (o.history && !(o.hist = scan_history_open(o.history)))
        ok = 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok) {
        scan_files_free(&f);
        MPI_Finalize();
        return 1;
    }

    size_t nmine = 0;
    size_t *mine = malloc((f.n / (size_t)size + 1) * sizeof *mine);
    if (!mine)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = (size_t)rank; i < f.n; i += (size_t)size)
        mine[nmine++] = i;
    struct scan_buf rows = { 0 };
    struct scan_summary sum;
    memset(&sum, 0, sizeof sum);
    int failed = scan_run(&o, &f, mine, nmine, keep_rows, &rows, &sum, size) != 0 || rows.n > INT32_MAX;
    free(mine);

    /* gather the rows and the summaries at rank 0 */
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    int mylen = failed ? 0 : (int)rows.n;
    int *counts = NULL, *displ = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displ = calloc((size_t)size, sizeof *displ);
        if (!counts || !displ)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&mylen, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < size; r++) {
            displ[r] = (int)total;
            total += counts[r];
        }
        if (total > INT32_MAX) {
            fprintf(stderr, "ftio scan: more than 2 GB of rows: split the archive\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        all = malloc(total ? (size_t)total : 1);
        if (!all)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(rows.s ? rows.s : "", mylen, MPI_CHAR, all, counts, displ, MPI_CHAR, 0, MPI_COMM_WORLD);
    scan_buf_free(&rows);
    struct scan_summary total;
    double seconds = sum.seconds;
    MPI_Reduce(&sum, &total, (int)SCAN_SUMMARY_NFIELDS, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&seconds, &total.seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double hist[3] = { 0, 0, 0 }, hist_all[3];
    if (o.hist)
        scan_history_counts(o.hist, hist);
    MPI_Reduce(hist, hist_all, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (o.hist && rank == 0)
        scan_history_report(o.hist, hist_all);
    if (scan_history_close(o.hist) != 0)
        failed = 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    any_failed |= failed;

    rc = 0;
    if (rank == 0) {
        if (any_failed || merge_rows(&out, all, displ, size, f.n, counts) != 0) {
            fprintf(stderr, "ftio scan: out of memory or output failed\n");
            rc = 1;
        }
        if (scan_output_close(&out) != 0 && rc == 0) {
            fprintf(stderr, "ftio scan: writing the rows failed\n");
            rc = 1;
        }
        if (rc == 0)
            rc = scan_finish(&total, &o, &out);
    }
    free(all);
    free(counts);
    free(displ);
    scan_files_free(&f);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
