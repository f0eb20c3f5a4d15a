/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_format.c -- a scan row as text: one CSV line (RFC 4180 quoting; the
 * header is scan_csv_header) and one JSON Lines object with the same fields
 * (nested "read"/"write" objects for the per-mode analysis).  Unknown values
 * are empty in CSV and null in JSON; a mode that was not asked for (-m) is
 * empty / null as a whole.  Written by hand rather than with Jansson: this
 * is on the hot path of a scan, and escaping is all it needs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "scan/scan.h"
#include "grow.h"

#define LIT(b, s) scan_buf_add((b), (s), sizeof(s) - 1)

void scan_buf_add(struct scan_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (FTIO_GROW(b->s, b->cap, b->n + n + 1) < 0) {
        b->oom = true;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void scan_buf_printf(struct scan_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        scan_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    scan_buf_add(b, big, (size_t)n);
    free(big);
}

void scan_buf_free(struct scan_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* ---- CSV ---------------------------------------------------------------- */

const char scan_csv_header[] =
    "file,job,uid,exe,nprocs,run_time,start,end,bytes_read,bytes_written,format,source,"
    "read_fs,read_period,read_confidence,read_class,read_phases,read_periodic,read_phase_bytes,read_note,"
    "write_fs,write_period,write_confidence,write_class,write_phases,write_periodic,write_phase_bytes,write_note,"
    "temporal,read_when,write_when,"
    "read_activities,read_act1_pattern,read_act1_period,read_act1_confidence,"
    "read_act2_pattern,read_act2_period,read_act2_confidence,"
    "write_activities,write_act1_pattern,write_act1_period,write_act1_confidence,"
    "write_act2_pattern,write_act2_period,write_act2_confidence,"
    "warning,error\n";

static void csv_str(struct scan_buf *b, const char *s, bool comma)
{
    if (s && s[0]) {
        if (strpbrk(s, ",\"\r\n")) {
            LIT(b, "\"");
            for (const char *p = s; *p; p++) {
                const char *q = strchr(p, '"');
                size_t n = q ? (size_t)(q - p) : strlen(p);
                scan_buf_add(b, p, n);
                if (!q)
                    break;
                LIT(b, "\"\"");
                p = q;
            }
            LIT(b, "\"");
        } else {
            scan_buf_add(b, s, strlen(s));
        }
    }
    if (comma)
        LIT(b, ",");
}

static void csv_num(struct scan_buf *b, double v, const char *fmt)
{
    if (isfinite(v))
        scan_buf_printf(b, fmt, v);
    LIT(b, ",");
}

static void csv_int(struct scan_buf *b, int64_t v)
{
    if (v >= 0)
        scan_buf_printf(b, "%lld", (long long)v);
    LIT(b, ",");
}

static void csv_mode(struct scan_buf *b, const struct scan_mode *m, bool asked)
{
    if (!asked || !m->analysed) {
        LIT(b, ",,,,,,,");
        csv_str(b, asked ? m->note : NULL, true);
        return;
    }
    csv_num(b, m->fs, "%.9g");
    csv_num(b, m->has_period ? m->period : NAN, "%.9g");
    csv_num(b, m->has_period ? m->confidence : NAN, "%.9g");
    csv_str(b, ftio_class_name(m->cls), true);
    scan_buf_printf(b, "%zu,%d,", m->phases, m->periodic ? 1 : 0);
    csv_num(b, m->phase_bytes, "%.0f");
    csv_str(b, m->note, true);
}

/* The activity columns of a mode: count, then pattern, period, confidence
 * of the first and second activities (empty when absent). */
static void csv_activities(struct scan_buf *b, const struct scan_mode *m, bool asked)
{
    if (!asked || !m->analysed) {
        LIT(b, ",,,,,,,");
        return;
    }
    scan_buf_printf(b, "%zu,", m->nact);
    for (int k = 0; k < 2; k++) {
        const struct scan_activity *a = &m->act[k];
        csv_str(b, a->pattern, true);
        csv_num(b, a->has_period ? a->period : NAN, "%.9g");
        csv_num(b, a->has_period ? a->confidence : NAN, "%.9g");
    }
}

void scan_format_csv(struct scan_buf *b, const struct scan_row *r, const struct scan_opts *o)
{
    if (r->filtered)
        return;
    csv_str(b, r->file, true);
    if (r->error) {
        for (const char *h = strchr(scan_csv_header, ','); h && (h = strchr(h + 1, ',')) != NULL;)
            LIT(b, ",");   /* every column but file and error empty */
        csv_str(b, r->error, false);
        LIT(b, "\n");
        return;
    }
    csv_str(b, r->job, true);
    csv_int(b, r->uid);
    csv_str(b, r->exe, true);
    csv_int(b, r->nprocs);
    csv_num(b, r->run_time > 0 ? r->run_time : NAN, "%.9g");
    csv_num(b, r->start, "%.3f");
    csv_num(b, r->end, "%.3f");
    csv_num(b, r->bytes[SCAN_READ], "%.0f");
    csv_num(b, r->bytes[SCAN_WRITE], "%.0f");
    csv_str(b, r->format, true);
    csv_str(b, r->source, true);
    csv_mode(b, &r->mode[SCAN_READ], o->do_read);
    csv_mode(b, &r->mode[SCAN_WRITE], o->do_write);
    csv_str(b, r->temporal, true);
    csv_str(b, scan_when_word(SCAN_READ, scan_when(r->temporal, SCAN_READ)), true);
    csv_str(b, scan_when_word(SCAN_WRITE, scan_when(r->temporal, SCAN_WRITE)), true);
    csv_activities(b, &r->mode[SCAN_READ], o->do_read);
    csv_activities(b, &r->mode[SCAN_WRITE], o->do_write);
    csv_str(b, r->warning, true);
    LIT(b, "\n");
}

/* ---- JSON Lines --------------------------------------------------------- */

static void json_str(struct scan_buf *b, const char *key, const char *s)
{
    scan_buf_printf(b, "\"%s\":", key);
    if (!s) {
        LIT(b, "null");
        return;
    }
    LIT(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = { '\\', (char)*p };
            scan_buf_add(b, e, 2);
        } else if (*p < 0x20) {
            scan_buf_printf(b, "\\u%04x", *p);
        } else {
            /* bytes >= 0x80 pass through: valid UTF-8 stays valid; a log's
             * invalid bytes are replaced so that the line stays JSON */
            size_t n = 1;
            unsigned c = *p;
            size_t want = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                        : (c & 0xf8) == 0xf0 ? 4 : 0;
            while (n < want && (p[n] & 0xc0) == 0x80)
                n++;
            if (want == 0 || n != want) {
                LIT(b, "\\ufffd");
            } else {
                scan_buf_add(b, (const char *)p, n);
                p += n - 1;
            }
        }
    }
    LIT(b, "\"");
}

static void json_num(struct scan_buf *b, const char *key, double v, const char *fmt)
{
    scan_buf_printf(b, "\"%s\":", key);
    if (isfinite(v))
        scan_buf_printf(b, fmt, v);
    else
        LIT(b, "null");
}

static void json_int(struct scan_buf *b, const char *key, int64_t v)
{
    if (v >= 0)
        scan_buf_printf(b, "\"%s\":%lld", key, (long long)v);
    else
        scan_buf_printf(b, "\"%s\":null", key);
}

static void json_mode(struct scan_buf *b, const char *key, const struct scan_mode *m, bool asked)
{
    scan_buf_printf(b, ",\"%s\":", key);
    if (!asked) {
        LIT(b, "null");
        return;
    }
    LIT(b, "{");
    json_num(b, "fs", m->analysed ? m->fs : NAN, "%.9g");
    LIT(b, ",");
    json_num(b, "period", m->analysed && m->has_period ? m->period : NAN, "%.9g");
    LIT(b, ",");
    json_num(b, "confidence", m->analysed && m->has_period ? m->confidence : NAN, "%.9g");
    LIT(b, ",");
    json_str(b, "class", m->analysed ? ftio_class_name(m->cls) : NULL);
    if (m->analysed)
        scan_buf_printf(b, ",\"phases\":%zu,\"periodic\":%s,", m->phases, m->periodic ? "true" : "false");
    else
        LIT(b, ",\"phases\":null,\"periodic\":null,");
    json_num(b, "phase_bytes", m->analysed ? m->phase_bytes : NAN, "%.0f");
    LIT(b, ",");
    json_str(b, "note", m->note[0] ? m->note : NULL);
    /* "activities": the count and the first two (ALGORITHM.md §10). */
    if (m->analysed) {
        scan_buf_printf(b, ",\"activities\":%zu,\"top_activities\":[", m->nact);
        for (size_t k = 0; k < 2 && k < m->nact; k++) {
            const struct scan_activity *a = &m->act[k];
            if (k)
                LIT(b, ",");
            LIT(b, "{");
            json_str(b, "pattern", a->pattern);
            LIT(b, ",");
            json_num(b, "period", a->has_period ? a->period : NAN, "%.9g");
            LIT(b, ",");
            json_num(b, "confidence", a->has_period ? a->confidence : NAN, "%.9g");
            LIT(b, "}");
        }
        LIT(b, "]");
    } else {
        LIT(b, ",\"activities\":null,\"top_activities\":null");
    }
    LIT(b, "}");
}

void scan_format_jsonl(struct scan_buf *b, const struct scan_row *r, const struct scan_opts *o)
{
    if (r->filtered)
        return;
    LIT(b, "{");
    json_str(b, "file", r->file);
    if (r->error) {
        LIT(b, ",");
        json_str(b, "error", r->error);
        LIT(b, "}\n");
        return;
    }
    LIT(b, ",");
    json_str(b, "job", r->job[0] ? r->job : NULL);
    LIT(b, ",");
    json_int(b, "uid", r->uid);
    LIT(b, ",");
    json_str(b, "exe", r->exe);
    LIT(b, ",");
    json_int(b, "nprocs", r->nprocs);
    LIT(b, ",");
    json_num(b, "run_time", r->run_time > 0 ? r->run_time : NAN, "%.9g");
    LIT(b, ",");
    json_num(b, "start", r->start, "%.3f");
    LIT(b, ",");
    json_num(b, "end", r->end, "%.3f");
    LIT(b, ",");
    json_num(b, "bytes_read", r->bytes[SCAN_READ], "%.0f");
    LIT(b, ",");
    json_num(b, "bytes_written", r->bytes[SCAN_WRITE], "%.0f");
    LIT(b, ",");
    json_str(b, "format", r->format);
    LIT(b, ",");
    json_str(b, "source", r->source);
    json_mode(b, "read", &r->mode[SCAN_READ], o->do_read);
    json_mode(b, "write", &r->mode[SCAN_WRITE], o->do_write);
    LIT(b, ",");
    json_str(b, "temporal", r->temporal[0] ? r->temporal : NULL);
    LIT(b, ",");
    json_str(b, "read_when", scan_when_word(SCAN_READ, scan_when(r->temporal, SCAN_READ)));
    LIT(b, ",");
    json_str(b, "write_when", scan_when_word(SCAN_WRITE, scan_when(r->temporal, SCAN_WRITE)));
    LIT(b, ",");
    json_str(b, "temporal_note", r->temporal_note);
    LIT(b, ",");
    json_str(b, "warning", r->warning);
    LIT(b, ",\"error\":null}\n");
}
