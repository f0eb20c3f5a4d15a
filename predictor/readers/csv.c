/* SPDX-License-Identifier: BSD-3-Clause */
/* csv.c -- plain CSV traces (FORMATS.md §6): a header naming the columns
 * rank,op,t_start,t_end,bytes (any order; extra columns ignored, but every row
 * has as many fields as the header), then one
 * request per line, op "read" or "write".  Blank lines and lines starting
 * with '#' are skipped.  For hand-made and scripted traces.
 *
 * Fields are read in place (no copy of the line), numbers through
 * readers/numscan.c with strtod()'s own value, and strtod() itself for what
 * that does not take (hex, "1e400" ...), so the same rows read the same as
 * with strtod() alone, at > 5 M rows/s.  Errors: "line L: why (byte O)", O
 * the offset of the offending field.  Pages of the file already read are
 * handed back to the kernel as we go (as readers/spool_read.c does).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "readers.h"

#define CSV_MAX_LINE 4096
#define CSV_MAX_COLS 64
#define RELEASE_EVERY (16u << 20)

enum { COL_RANK, COL_OP, COL_TS, COL_TE, COL_BYTES, NCOLS };
static const char *const col_names[NCOLS] = { "rank", "op", "t_start", "t_end", "bytes" };

struct field { const char *p; size_t n; };

/* Split line [p, e) on commas; fields trimmed of spaces and tabs (and a
 * trailing '\r').  -1 when more than max. */
static int split(const char *p, const char *e, struct field *f, int max)
{
    int n = 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (n == max)
            return -1;
        const char *comma = memchr(p, ',', (size_t)(e - p));
        const char *fe = comma ? comma : e;
        while (fe > p && (fe[-1] == ' ' || fe[-1] == '\t' || fe[-1] == '\r'))
            fe--;
        f[n].p = p;
        f[n].n = (size_t)(fe - p);
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static bool field_is(const struct field *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

/* A finite number filling the whole field, as strtod() reads it. */
static int parse_num(const struct field *f, double *out)
{
    const char *e = ftio_scan_number(f->p, f->p + f->n, false, out);
    if (e != f->p + f->n) {
        if (memchr(f->p, 0, f->n))
            return -1;
        char b[CSV_MAX_LINE];   /* fields are shorter than a line */
        memcpy(b, f->p, f->n);
        b[f->n] = 0;
        char *end;
        *out = strtod(b, &end);
        if (end == b || *end)
            return -1;
    }
    return isfinite(*out) ? 0 : -1;
}

#define FAIL_AT(c, lineno, at, fmt, ...) \
    FTIO_READER_FAIL(c, "line %zu: " fmt " (byte %zu)", lineno, __VA_ARGS__, (size_t)((at) - buf))

int ftio_read_csv(struct ftio_reader_ctx *c, const char *buf, size_t len)
{
    struct ftio_trace *t = ftio_trace_of_job(c->set, "");
    if (!t)
        return FTIO_READER_FAIL(c, "offset 0: out of memory");
    int col[NCOLS];
    int have_header = 0, header_nf = 0;
    size_t lineno = 0, off = 0, rows = 0, released = 0, page = (size_t)sysconf(_SC_PAGESIZE);
    struct field field[CSV_MAX_COLS];
    double last_rank = -1;
    while (off < len) {
        lineno++;
        const char *p = buf + off;
        const char *nl = memchr(p, '\n', len - off);
        size_t n = nl ? (size_t)(nl - p) : len - off;
        off += n + (nl != NULL);
        if (n >= CSV_MAX_LINE)
            return FAIL_AT(c, lineno, p, "line too long (%zu bytes)", n);
        const char *e = p + n, *s = p;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == e || *s == '#')
            continue;
        int nf = split(s, e, field, CSV_MAX_COLS);
        if (nf < 0)
            return FAIL_AT(c, lineno, p, "too many columns (over %d)", CSV_MAX_COLS);
        if (!have_header) {
            for (int k = 0; k < NCOLS; k++) {
                col[k] = -1;
                for (int f = 0; f < nf; f++)
                    if (field_is(&field[f], col_names[k]))
                        col[k] = f;
                if (col[k] < 0)
                    return FAIL_AT(c, lineno, p, "header lacks column \"%s\" "
                                   "(expected rank,op,t_start,t_end,bytes)", col_names[k]);
            }
            have_header = 1;
            header_nf = nf;
            continue;
        }
        /* Every row has the header's columns: a row with more or fewer is
         * not one we can read without guessing which value is which. */
        if (nf != header_nf)
            return FAIL_AT(c, lineno, p, "%d fields, the header has %d", nf, header_nf);
        const struct field *fr = &field[col[COL_RANK]], *fo = &field[col[COL_OP]];
        double rank, ts, te, bytes;
        if (parse_num(fr, &rank) || rank < 0 || rank > FTIO_MAX_RANKS ||
            rank != (double)(int64_t)rank)
            return FAIL_AT(c, lineno, fr->p, "bad rank \"%.*s\"", (int)fr->n, fr->p);
        int is_write;
        if (field_is(fo, "write"))
            is_write = 1;
        else if (field_is(fo, "read"))
            is_write = 0;
        else
            return FAIL_AT(c, lineno, fo->p, "op \"%.*s\" is not read or write", (int)fo->n, fo->p);
        const struct field *num[3] = { &field[col[COL_TS]], &field[col[COL_TE]],
                                       &field[col[COL_BYTES]] };
        double *val[3] = { &ts, &te, &bytes };
        for (int k = 0; k < 3; k++)
            if (parse_num(num[k], val[k]))
                return FAIL_AT(c, lineno, num[k]->p, "t_start, t_end and bytes must be numbers, "
                               "not \"%.*s\"", (int)num[k]->n, num[k]->p);
        if (bytes < 0 || te < ts)
            return FAIL_AT(c, lineno, p, "negative bytes or end before start%s", "");
        struct ftio_trace_dir *d = ftio_trace_dir_of(t, is_write);
        if (ftio_requests_push_bytes(&d->req, ts, te, bytes) != 0 ||
            ftio_trace_dir_proc(t, d, (int64_t)rank) != 0 ||
            (rank != last_rank && ftio_trace_see_rank(t, (int64_t)rank) != 0))
            return FAIL_AT(c, lineno, p, "out of memory%s", "");
        last_rank = rank;
        d->bytes += bytes;
        d->overlap_missing = true;
        t->records++;
        rows++;
        if (c->mapped && off - released >= RELEASE_EVERY) {
            size_t upto = off & ~(page - 1);
            madvise((char *)buf + released, upto - released, MADV_DONTNEED);
            released = upto;
        }
    }
    if (!have_header)
        return FTIO_READER_FAIL(c, "line %zu: no header line (byte %zu)", lineno, len);
    if (rows == 0)
        return FTIO_READER_FAIL(c, "line %zu: no data rows (byte %zu)", lineno, len);
    return 0;
}
