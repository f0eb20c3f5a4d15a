/* SPDX-License-Identifier: BSD-3-Clause */
/* dxt.c -- Darshan DXT text, the output of darshan-dxt-parser (FORMATS.md §5).
 *
 * Data lines look like
 *   X_POSIX  <rank>  write  <segment>  <offset>  <length>  <start>  <end>  [<thread>]  [OST columns]
 *   X_MPIIO  <rank>  read   <segment>  [<offset>]  <length>  <start>  <end>  [<thread>]
 * Each file's block has a column header ("# Module Rank Wt/Rd Segment Offset
 * Length Start(s) End(s) Pthread-ID"); darshan-dxt-parser 3.5 adds the
 * Pthread-ID column (`N/A` for logs that did not record threads), older
 * versions end at End(s), and the oldest print no offset column for MPI-IO
 * (a count of four numbers tells them apart).  The latest header says whether
 * a thread column follows the times; text without headers may end its lines
 * with `N/A`.  Other comment lines start with '#'.  Both layers are
 * collected; the selected one (--dxt, default MPI-IO when present, else
 * POSIX) is merged into the trace, so bytes are never counted twice.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"

#define DXT_MAX_LINE 4096

struct dxt_layer_data {
    struct ftio_trace_dir dir[2];  /* [0] read, [1] write: requests and their file ids */
    double bytes[2];
    size_t n;
};

static int move_layer(struct ftio_trace *t, struct dxt_layer_data *l)
{
    for (int w = 0; w < 2; w++) {
        struct ftio_trace_dir *d = ftio_trace_dir_of(t, w);
        const struct ftio_requests *src = &l->dir[w].req;
        size_t before = d->req.n;
        if (ftio_trace_append_requests(&d->req, src) != 0)   /* file ids and processes too */
            return -1;
        if (l->dir[w].nproc)
            d->nproc = before + l->dir[w].nproc;
        d->bytes += l->bytes[w];
        if (src->n)
            d->overlap_missing = true;
    }
    t->records += l->n;
    return 0;
}

/* What the latest "# Module ..." header says about the columns. */
enum dxt_thread_col {
    DXT_THREAD_UNKNOWN,   /* no header yet: a trailing N/A is the thread column */
    DXT_THREAD_NONE,      /* header without Pthread-ID (darshan-dxt-parser < 3.5) */
    DXT_THREAD_PRESENT,   /* header with Pthread-ID: one token after End(s) */
};

/* A column header line ('#' already seen): which thread layout follows. */
static enum dxt_thread_col header_layout(const char *p, size_t n, enum dxt_thread_col cur)
{
    if (!memmem(p, n, "Module", 6) || !memmem(p, n, "End(s)", 6))
        return cur;
    return memmem(p, n, "Pthread-ID", 10) ? DXT_THREAD_PRESENT : DXT_THREAD_NONE;
}

/* A thread column value: N/A or a pthread id (an unsigned integer). */
static int is_thread_id(const char *tok)
{
    if (strcmp(tok, "N/A") == 0)
        return 1;
    if (!*tok)
        return 0;
    for (const char *q = tok; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    return 1;
}

/* Parse one X_ line (NUL-terminated, module token included).  Returns 0 and
 * fills the fields, or -1 with a reason. */
static int parse_line(char *line, enum dxt_thread_col thr, long *rank, int *is_write, double *len,
                      double *ts, double *te, const char **why)
{
    char *save, *tok = strtok_r(line, " \t\r", &save);   /* module */
    tok = strtok_r(NULL, " \t\r", &save);
    char *end;
    if (!tok || (*rank = strtol(tok, &end, 10), *end) || *rank < 0) {
        *why = "bad rank";
        return -1;
    }
    tok = strtok_r(NULL, " \t\r", &save);
    if (tok && strcmp(tok, "write") == 0)
        *is_write = 1;
    else if (tok && strcmp(tok, "read") == 0)
        *is_write = 0;
    else {
        *why = "operation is not read or write";
        return -1;
    }
    /* The columns after the operation, up to the Lustre OST columns ("[ 3]"). */
    char *col[8];
    int m = 0;
    while ((tok = strtok_r(NULL, " \t\r", &save)) && tok[0] != '[') {
        if (m == (int)(sizeof col / sizeof col[0])) {
            *why = "too many fields (expected segment, [offset,] length, start, end[, thread])";
            return -1;
        }
        col[m++] = tok;
    }
    /* The thread column, which a header announced or a trailing N/A shows.
     * Only darshan-dxt-parser 3.5 prints it, and always with the offset. */
    int want = 0;
    if (thr == DXT_THREAD_PRESENT || (thr == DXT_THREAD_UNKNOWN && m > 0 &&
                                      strcmp(col[m - 1], "N/A") == 0)) {
        if (m == 0 || !is_thread_id(col[m - 1])) {
            *why = "no thread column (the header names Pthread-ID)";
            return -1;
        }
        m--;
        want = 5;
    }
    double num[5];
    for (int i = 0; i < m && i < 5; i++) {
        num[i] = strtod(col[i], &end);
        if (*end || end == col[i] || !isfinite(num[i])) {
            *why = "non-numeric field";
            return -1;
        }
    }
    if (m < (want ? want : 4)) {
        *why = "too few fields (expected segment, [offset,] length, start, end)";
        return -1;
    }
    if (m > 5) {
        /* A number too many: not a DXT line we know; guessing which columns
         * are the times would make up a trace. */
        *why = "too many fields (expected segment, [offset,] length, start, end[, thread])";
        return -1;
    }
    int k = m == 4 ? 1 : 2;   /* index of length */
    *len = num[k];
    *ts = num[k + 1];
    *te = num[k + 2];
    if (*len < 0 || *te < *ts) {
        *why = "negative length or end before start";
        return -1;
    }
    return 0;
}

/* "# DXT, file_id: ID, file_name: PATH": the file of the records that follow
 * (Darshan's 64-bit record id folded to our 32-bit file ids). */
/* "# DXT, mnt_pt: /scratch, fs_type: lustre": the current file's file
 * system, as ftio names them ("lustre:/scratch"). */
static int mount_header(struct ftio_trace *t, const char *p, size_t n, uint32_t cur)
{
    static const char tag[] = "# DXT, mnt_pt:";
    char line[DXT_MAX_LINE], fs[DXT_MAX_LINE + 2];
    if (!cur || n < sizeof tag || n >= sizeof line || memcmp(p, tag, sizeof tag - 1) != 0)
        return 0;
    memcpy(line, p, n);
    line[n] = 0;
    char *mnt = line + sizeof tag - 1, *comma = strchr(mnt, ','), *type;
    if (!comma || !(type = strstr(comma, "fs_type:")))
        return 0;
    *comma = 0;
    type += strlen("fs_type:");
    mnt += strspn(mnt, " ");
    type += strspn(type, " ");
    type[strcspn(type, " \r")] = 0;
    mnt[strcspn(mnt, " \r")] = 0;
    if (!*mnt || !*type)
        return 0;
    snprintf(fs, sizeof fs, "%s:%s", type, mnt);
    return ftio_trace_add_file_fs(t, cur, fs);
}

static int file_header(struct ftio_trace *t, const char *p, size_t n, uint32_t *cur)
{
    static const char tag[] = "# DXT, file_id:";
    if (n < sizeof tag || memcmp(p, tag, sizeof tag - 1) != 0)
        return 0;
    char line[DXT_MAX_LINE];
    if (n >= sizeof line)
        return 0;
    memcpy(line, p, n);
    line[n] = 0;
    char *end;
    unsigned long long id = strtoull(line + sizeof tag - 1, &end, 10);
    *cur = ftio_fold_file_id(id);
    const char *name = strstr(end, "file_name:");
    if (!name)
        return 0;
    name += strlen("file_name:");
    while (*name == ' ')
        name++;
    size_t k = strlen(name);
    while (k && (name[k - 1] == ' ' || name[k - 1] == '\r'))
        line[name - line + --k] = 0;
    return ftio_trace_add_file(t, *cur, name);
}

int ftio_read_dxt(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    uint32_t cur_file = 0;
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    struct dxt_layer_data layer[2];   /* [0] POSIX, [1] MPI-IO */
    memset(layer, 0, sizeof layer);
    size_t lineno = 0, off = 0, data_lines = 0;
    enum dxt_thread_col thr = DXT_THREAD_UNKNOWN;
    int rc = 0;
    char line[DXT_MAX_LINE];
    while (off < len && rc == 0) {
        lineno++;
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
        const char *p = buf + off;
        off += n + (nl != NULL);
        while (n && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        if (n == 0)
            continue;
        if (*p == '#') {
            if (file_header(t, p, n, &cur_file) != 0 || mount_header(t, p, n, cur_file) != 0) {
                rc = FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
                break;
            }
            thr = header_layout(p, n, thr);
            continue;
        }
        int mpiio = n >= 7 && memcmp(p, "X_MPIIO", 7) == 0;
        if (!mpiio && !(n >= 7 && memcmp(p, "X_POSIX", 7) == 0)) {
            rc = FTIO_READER_FAIL(c, "line %zu: not a DXT record (expected X_POSIX or X_MPIIO)", lineno);
            break;
        }
        if (n >= sizeof line) {
            rc = FTIO_READER_FAIL(c, "line %zu: line too long", lineno);
            break;
        }
        memcpy(line, p, n);
        line[n] = 0;
        long rank;
        int is_write;
        double bytes, ts, te;
        const char *why;
        if (parse_line(line, thr, &rank, &is_write, &bytes, &ts, &te, &why) != 0) {
            rc = FTIO_READER_FAIL(c, "line %zu: %s", lineno, why);
            break;
        }
        struct dxt_layer_data *l = &layer[mpiio];
        if (ftio_requests_push_bytes(&l->dir[is_write].req, ts, te, bytes) != 0 ||
            ftio_trace_dir_tag(&l->dir[is_write], cur_file) != 0 ||
            ftio_trace_dir_proc(t, &l->dir[is_write], rank) != 0) {
            rc = FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
            break;
        }
        l->bytes[is_write] += bytes;
        l->n++;
        if (ftio_trace_see_rank(t, rank) != 0)
            rc = FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
        data_lines++;
    }
    if (rc == 0 && data_lines == 0)
        rc = FTIO_READER_FAIL(c, "line %zu: no X_POSIX or X_MPIIO records", lineno);
    /* Merge the chosen layer even after an error: --lenient keeps it. */
    int use_mpiio = c->o->dxt == FTIO_DXT_MPIIO ||
                    (c->o->dxt == FTIO_DXT_AUTO && layer[1].n > 0);
    if (move_layer(t, &layer[use_mpiio]) != 0 && rc == 0)
        rc = FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
    for (int i = 0; i < 2; i++) {
        for (int w = 0; w < 2; w++) {
            ftio_requests_free(&layer[i].dir[w].req);
        }
    }
    return rc;
}
