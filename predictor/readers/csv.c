/* csv.c -- plain CSV traces (FORMATS.md §6): a header naming the columns
 * rank,op,t_start,t_end,bytes (any order; extra columns ignored, but every row
 * has as many fields as the header), then one
 * request per line, op "read" or "write".  Blank lines and lines starting
 * with '#' are skipped.  For hand-made and scripted traces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"

#define CSV_MAX_LINE 4096
#define CSV_MAX_COLS 64

enum { COL_RANK, COL_OP, COL_TS, COL_TE, COL_BYTES, NCOLS };
static const char *const col_names[NCOLS] = { "rank", "op", "t_start", "t_end", "bytes" };

/* Split a NUL-terminated line on commas in place; trims spaces. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (n == max)
            return -1;
        field[n++] = p;
        char *comma = strchr(p, ',');
        char *end = comma ? comma : p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            end--;
        if (!comma) {
            *end = 0;
            return n;
        }
        *end = 0;
        p = comma + 1;
    }
}

static int parse_num(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return (end == s || *end || !isfinite(*out)) ? -1 : 0;
}

int ftio_read_csv(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    int col[NCOLS];
    int have_header = 0, header_nf = 0;
    size_t lineno = 0, off = 0, rows = 0;
    char line[CSV_MAX_LINE];
    char *field[CSV_MAX_COLS];
    while (off < len) {
        lineno++;
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
        const char *p = buf + off;
        off += n + (nl != NULL);
        if (n >= sizeof line)
            return FTIO_READER_FAIL(c, "line %zu: line too long", lineno);
        memcpy(line, p, n);
        line[n] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == 0 || *s == '#')
            continue;
        int nf = split(s, field, CSV_MAX_COLS);
        if (nf < 0)
            return FTIO_READER_FAIL(c, "line %zu: too many columns", lineno);
        if (!have_header) {
            for (int k = 0; k < NCOLS; k++) {
                col[k] = -1;
                for (int f = 0; f < nf; f++)
                    if (strcmp(field[f], col_names[k]) == 0)
                        col[k] = f;
                if (col[k] < 0)
                    return FTIO_READER_FAIL(c, "line %zu: header lacks column \"%s\" "
                                            "(expected rank,op,t_start,t_end,bytes)",
                                            lineno, col_names[k]);
            }
            have_header = 1;
            header_nf = nf;
            continue;
        }
        /* Every row has the header's columns: a row with more or fewer is
         * not one we can read without guessing which value is which. */
        if (nf != header_nf)
            return FTIO_READER_FAIL(c, "line %zu: %d fields, the header has %d",
                                    lineno, nf, header_nf);
        double rank, ts, te, bytes;
        if (parse_num(field[col[COL_RANK]], &rank) || rank < 0 || rank > FTIO_MAX_RANKS ||
            rank != (double)(int64_t)rank)
            return FTIO_READER_FAIL(c, "line %zu: bad rank \"%s\"", lineno, field[col[COL_RANK]]);
        int is_write;
        if (strcmp(field[col[COL_OP]], "write") == 0)
            is_write = 1;
        else if (strcmp(field[col[COL_OP]], "read") == 0)
            is_write = 0;
        else
            return FTIO_READER_FAIL(c, "line %zu: op \"%s\" is not read or write",
                                    lineno, field[col[COL_OP]]);
        if (parse_num(field[col[COL_TS]], &ts) || parse_num(field[col[COL_TE]], &te) ||
            parse_num(field[col[COL_BYTES]], &bytes))
            return FTIO_READER_FAIL(c, "line %zu: t_start, t_end and bytes must be numbers", lineno);
        if (bytes < 0 || te < ts)
            return FTIO_READER_FAIL(c, "line %zu: negative bytes or end before start", lineno);
        struct ftio_trace_dir *d = ftio_trace_dir_of(t, is_write);
        if (ftio_requests_push_bytes(&d->req, ts, te, bytes) != 0 ||
            ftio_trace_see_rank(t, (int64_t)rank) != 0)
            return FTIO_READER_FAIL(c, "line %zu: out of memory", lineno);
        d->bytes += bytes;
        d->overlap_missing = true;
        t->records++;
        rows++;
    }
    if (!have_header)
        return FTIO_READER_FAIL(c, "line %zu: no header line", lineno);
    if (rows == 0)
        return FTIO_READER_FAIL(c, "line %zu: no data rows", lineno);
    return 0;
}
