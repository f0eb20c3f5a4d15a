/* dxt.c -- Darshan DXT text, the output of darshan-dxt-parser (FORMATS.md §5).
 *
 * Data lines look like
 *   X_POSIX  <rank>  write  <segment>  <offset>  <length>  <start>  <end>  [OST columns]
 *   X_MPIIO  <rank>  read   <segment>  [<offset>]  <length>  <start>  <end>
 * (older darshan versions print no offset column for MPI-IO; a count of four
 * numbers tells them apart).  Comment/header lines start with '#'.  Both layers
 * are collected; the selected one (--dxt, default MPI-IO when present, else
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
        for (size_t i = 0; i < src->n; i++)
            if (ftio_requests_push_rate(&d->req, src->t_start[i], src->t_end[i], src->rate[i]) != 0 ||
                ftio_trace_dir_tag(d, i < l->dir[w].nfid ? l->dir[w].fid[i] : 0) != 0)
                return -1;
        d->bytes += l->bytes[w];
        if (src->n)
            d->overlap_missing = true;
    }
    t->records += l->n;
    return 0;
}

/* Parse one X_ line (NUL-terminated, without the module token consumed).
 * Returns 0 and fills the fields, or -1 with a reason. */
static int parse_line(char *line, long *rank, int *is_write, double *len, double *ts, double *te,
                      const char **why)
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
    double num[5];
    int n = 0;
    while ((tok = strtok_r(NULL, " \t\r", &save)) && n < 5) {
        if (tok[0] == '[')
            break;   /* Lustre OST columns */
        num[n] = strtod(tok, &end);
        if (*end || end == tok || !isfinite(num[n])) {
            *why = "non-numeric field";
            return -1;
        }
        n++;
    }
    if (n < 4) {
        *why = "too few fields (expected segment, [offset,] length, start, end)";
        return -1;
    }
    if (tok && tok[0] != '[') {
        /* A sixth number: not a DXT line we know; guessing which columns
         * are the times would make up a trace. */
        *why = "too many fields (expected segment, [offset,] length, start, end)";
        return -1;
    }
    int k = n == 4 ? 1 : 2;   /* index of length */
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
        if (n > 0 && *p == '#' && file_header(t, p, n, &cur_file) != 0) {
            rc = FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
            break;
        }
        if (n == 0 || *p == '#')
            continue;
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
        if (parse_line(line, &rank, &is_write, &bytes, &ts, &te, &why) != 0) {
            rc = FTIO_READER_FAIL(c, "line %zu: %s", lineno, why);
            break;
        }
        struct dxt_layer_data *l = &layer[mpiio];
        if (ftio_requests_push_bytes(&l->dir[is_write].req, ts, te, bytes) != 0 ||
            ftio_trace_dir_tag(&l->dir[is_write], cur_file) != 0) {
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
            free(layer[i].dir[w].fid);
        }
    }
    return rc;
}
