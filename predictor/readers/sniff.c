/* SPDX-License-Identifier: BSD-3-Clause */
/* sniff.c -- guess a trace's format from its first bytes (FORMATS.md asks
 * for content detection; the file name's extension only breaks ties for text
 * that looks like nothing we know).
 *
 * msgpack: a spool file starts with a map (one wire batch), a TMIO msgpack
 * file with an array (one mode item).  JSON starts with '{'.  Darshan DXT text
 * has lines starting "# DXT," or X_POSIX/X_MPIIO; CSV has a header line of
 * comma-separated names, `rank` or `t_start` among them.  Only the first
 * SNIFF_MAX bytes are looked at.
 */
#include <string.h>
#include <strings.h>
#include "readers.h"

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcasecmp(name + n - s, suffix) == 0;
}

/* The sniffer looks at this many bytes at most: the format shows in the
 * first lines, and looking further would page in a multi-GB file (a sparse
 * or binary file of no format was read whole to say "unknown"). */
#define SNIFF_MAX 8192

/* Does a line of head [p, p+len) start (after blanks) with `word`?  Lines
 * only, so a README that mentions X_POSIX in prose is no DXT trace. */
static int line_starts(const char *p, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i < len;) {
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (len - i >= w && memcmp(p + i, word, w) == 0)
            return 1;
        const char *nl = memchr(p + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - p) + 1;
    }
    return 0;
}

/* Is line [p, p+n) a CSV header: comma-separated names, one of them exactly
 * `rank` or `t_start` (FORMATS.md §6)? */
static int csv_header(const char *p, size_t n)
{
    if (!memchr(p, ',', n))
        return 0;
    int named = 0;
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && p[j] != ',')
            j++;
        size_t a = i, b = j;
        while (a < b && (p[a] == ' ' || p[a] == '\t' || p[a] == '"'))
            a++;
        while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' || p[b - 1] == '\r' || p[b - 1] == '"'))
            b--;
        for (size_t k = a; k < b; k++)
            if (!(p[k] == '_' || (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') ||
                  (p[k] >= '0' && p[k] <= '9')))
                return 0;   /* prose, not a column name */
        if ((b - a == 4 && memcmp(p + a, "rank", 4) == 0) ||
            (b - a == 7 && memcmp(p + a, "t_start", 7) == 0))
            named = 1;
        i = j + 1;
    }
    return named;
}

enum ftio_trace_format ftio_trace_detect(const void *data, size_t len, const char *name)
{
    const unsigned char *p = data;
    if (len == 0)
        return FTIO_FORMAT_AUTO;
    if (len > SNIFF_MAX)
        len = SNIFF_MAX;
    unsigned char c = p[0];
    if ((c >= 0x80 && c <= 0x8f) || c == 0xde || c == 0xdf)
        return FTIO_FORMAT_SPOOL;
    if ((c >= 0x90 && c <= 0x9f) || c == 0xdc || c == 0xdd)
        return FTIO_FORMAT_TMIO_MSGPACK;

    /* binary Darshan log: "3.xx" format version, then the magic number in
     * either byte order */
    if (len >= 16 && p[0] == '3' && p[1] == '.') {
        static const unsigned char magic_le[8] = { 0x37, 0x35, 0x64, 0, 0, 0, 0, 0 };
        static const unsigned char magic_be[8] = { 0, 0, 0, 0, 0, 0x64, 0x35, 0x37 };
        if (memcmp(p + 8, magic_le, 8) == 0 || memcmp(p + 8, magic_be, 8) == 0)
            return FTIO_FORMAT_DARSHAN;
    }

    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i < len && p[i] == '{')
        return FTIO_FORMAT_TMIO_JSON;

    const char *s = data;
    if (line_starts(s, len, "# DXT,") || line_starts(s, len, "X_POSIX") ||
        line_starts(s, len, "X_MPIIO") || line_starts(s, len, "# darshan log version"))
        return FTIO_FORMAT_DXT;
    /* CSV: first non-comment line with a comma naming the columns. */
    while (i < len && p[i] == '#') {
        while (i < len && p[i] != '\n')
            i++;
        while (i < len && (p[i] == '\n' || p[i] == '\r' || p[i] == ' '))
            i++;
    }
    const char *nl = memchr(s + i, '\n', len - i);
    size_t linelen = nl ? (size_t)(nl - (s + i)) : len - i;
    if (csv_header(s + i, linelen))
        return FTIO_FORMAT_CSV;

    if (has_suffix(name, ".jsonl") || has_suffix(name, ".json"))
        return FTIO_FORMAT_TMIO_JSON;
    if (has_suffix(name, ".darshan"))
        return FTIO_FORMAT_DARSHAN;
    if (has_suffix(name, ".csv"))
        return FTIO_FORMAT_CSV;
    if (has_suffix(name, ".txt") || has_suffix(name, ".dxt"))
        return FTIO_FORMAT_DXT;
    return FTIO_FORMAT_AUTO;
}
