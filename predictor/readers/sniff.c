/* sniff.c -- guess a trace's format from its first bytes (FORMATS.md asks
 * for content detection; the file name's extension only breaks ties for text
 * that looks like nothing we know).
 *
 * msgpack: a spool file starts with a map (one wire batch), a TMIO msgpack
 * file with an array (one mode item).  JSON starts with '{'.  Darshan DXT text
 * has "# DXT" headers or X_POSIX/X_MPIIO lines; CSV has a header line with
 * commas naming rank,op,... .
 */
#include <string.h>
#include <strings.h>
#include "readers.h"

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcasecmp(name + n - s, suffix) == 0;
}

/* Does the first `len` bytes contain `needle`?  (memmem on the head only:
 * detection must stay O(1) on multi-GB traces.) */
static int head_has(const char *buf, size_t len, const char *needle)
{
    return memmem(buf, len, needle, strlen(needle)) != NULL;
}

enum ftio_trace_format ftio_trace_detect(const void *data, size_t len, const char *name)
{
    const unsigned char *p = data;
    if (len == 0)
        return FTIO_FORMAT_AUTO;
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

    size_t head = len < 65536 ? len : 65536;
    const char *s = data;
    if (head_has(s, head, "# DXT") || head_has(s, head, "X_POSIX") ||
        head_has(s, head, "X_MPIIO") || head_has(s, head, "# darshan log version"))
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
    if (memchr(s + i, ',', linelen) && (memmem(s + i, linelen, "rank", 4) ||
                                        memmem(s + i, linelen, "t_start", 7)))
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
