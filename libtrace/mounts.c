/* SPDX-License-Identifier: BSD-3-Clause */
/* mounts.c -- which file system a traced file lives on, as "TYPE:MOUNTPOINT"
 * ("ext4:/", "tmpfs:/dev/shm", "lustre:/lus/grand"): the third element of a
 * batch's `files` entry (PROTOCOL.md §1), for ftiod's per-file-system view.
 *
 * Flusher thread only, once per file (files.c asks when it sends a file's
 * entry), never on the application's path.  /proc/self/mountinfo is read
 * once and its text kept; a file is matched by its device (stat's st_dev
 * against the mounts' major:minor; of bind mounts of one device, the longest
 * mount point that prefixes the path), else by the longest mount point that
 * prefixes its path (a file already deleted).  A device no mount has (mounted
 * since) makes the table be read again, at most once a second.
 *
 * The text is scanned at each lookup (a few dozen lines; a process looks up
 * a few files) and only the name chosen is kept: a short process's first
 * batch does not allocate (no malloc arena for the flusher thread: bench/
 * README.md "exit latency"), the text and the names live in static buffers
 * (the text in a heap buffer only past TEXT_STATIC, a name past NAMES_STATIC).
 *
 * The names handed out are kept for good (files.c holds them in its file
 * entries, and sends them again: the next batch when one could not be sent,
 * every entry in a fork child): a name read again is the one already handed
 * out (one copy per distinct "TYPE:MOUNTPOINT" the process ever saw).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "internal.h"
#include "timeutil.h"

#define TEXT_STATIC  16384   /* mountinfo text kept without malloc (~80 bytes a mount) */
#define NAMES_STATIC 2048    /* "TYPE:POINT" names kept without malloc */
#define FIELD_MAX    4096    /* a mount point or type, unescaped */

/* A name beyond the static pool: a list of heap copies, never freed. */
struct heap_name {
    struct heap_name *next;
    char name[];
};

static struct {
    char   *text;            /* the table as read: text_static or a heap buffer */
    size_t  len;
    int64_t read_ns;
    char    text_static[TEXT_STATIC];
    size_t  pool_used;
    struct heap_name *heap;
    char    pool[NAMES_STATIC];   /* names handed out, one after the other */
} mt FTIO_FLUSHER_STATE;

/* mountinfo escapes space, tab, newline and backslash as \ooo: field [s, e)
 * unescaped into out (NUL-terminated); its length, or -1 when too long. */
static long unescape(const char *s, const char *e, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = s; p < e; p++) {
        if (o + 1 >= cap)
            return -1;
        if (e - p >= 4 && p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            out[o++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
    return (long)o;
}

/* "TYPE:POINT", the copy kept (made on first sight), or NULL. */
static const char *intern(const char *type, const char *point)
{
    size_t tl = strlen(type), pl = strlen(point), need = tl + 1 + pl + 1;
    for (size_t at = 0; at < mt.pool_used; at += strlen(mt.pool + at) + 1) {
        const char *n = mt.pool + at;
        if (strncmp(n, type, tl) == 0 && n[tl] == ':' && strcmp(n + tl + 1, point) == 0)
            return n;
    }
    for (struct heap_name *h = mt.heap; h; h = h->next)
        if (strncmp(h->name, type, tl) == 0 && h->name[tl] == ':' && strcmp(h->name + tl + 1, point) == 0)
            return h->name;
    char *name;
    if (need <= sizeof mt.pool - mt.pool_used) {
        name = mt.pool + mt.pool_used;
        mt.pool_used += need;
    } else {
        struct heap_name *h = malloc(sizeof *h + need);
        if (!h)
            return NULL;
        h->next = mt.heap;
        mt.heap = h;
        name = h->name;
    }
    memcpy(name, type, tl);
    name[tl] = ':';
    memcpy(name + tl + 1, point, pl + 1);
    return name;
}

static void read_mounts(void)
{
    mt.read_ns = ftio_mono_ns();
    if (mt.text != mt.text_static)
        free(mt.text);
    mt.text = mt.text_static;
    mt.len = 0;
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t cap = sizeof mt.text_static;
    for (ssize_t r;; mt.len += (size_t)r) {
        if (mt.len + 1 >= cap) {          /* a big table: on the heap */
            char *b = malloc(cap * 2);
            if (!b)
                break;
            memcpy(b, mt.text, mt.len);
            if (mt.text != mt.text_static)
                free(mt.text);
            mt.text = b;
            cap *= 2;
        }
        r = read(fd, mt.text + mt.len, cap - mt.len - 1);
        if (r <= 0)
            break;
    }
    close(fd);
    mt.text[mt.len] = '\0';
}

/* "MAJ:MIN" at s, by hand (sscanf's code is pages of libc a short
 * process's flusher would fault in for it).  1 with *dev, else 0. */
static int parse_dev(const char *s, dev_t *dev)
{
    unsigned long v[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            v[k] = v[k] * 10 + (unsigned long)(*s++ - '0');
        if (k == 0 && *s++ != ':')
            return 0;
    }
    *dev = makedev(v[0], v[1]);
    return *s == ' ';
}

/* Does mount point p (length n) hold path? */
static int holds(const char *p, size_t n, const char *path)
{
    return strncmp(path, p, n) == 0 && (path[n] == '/' || path[n] == '\0' || (n == 1 && p[0] == '/'));
}

/* The mount that holds path (on device *dev, unless dev is NULL): of
 * several, the longest point, and the later line at equal length (it mounts
 * over the earlier).  Each line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS
 * [OPTIONAL...] - TYPE SOURCE ...". */
static const char *best(const char *path, const dev_t *dev)
{
    char point[FIELD_MAX], type[256], best_point[FIELD_MAX], best_type[256];
    long best_len = -1;
    for (const char *line = mt.text, *next; line && *line; line = next) {
        const char *end = strchr(line, '\n');
        next = end ? end + 1 : NULL;
        if (!end)
            end = line + strlen(line);
        const char *f[6];
        const char *p = line;
        int nf = 0;
        while (nf < 6 && p < end) {            /* the fields' starts (single spaces) */
            f[nf++] = p;
            const char *sp = memchr(p, ' ', (size_t)(end - p));
            p = sp ? sp + 1 : end;
        }
        if (nf < 6)
            continue;
        dev_t d;
        if (!parse_dev(f[2], &d) || (dev && d != *dev))
            continue;
        const char *dash = p;                  /* " - " after the optional fields */
        while (dash < end && !(dash[0] == '-' && dash[1] == ' ' && dash[-1] == ' '))
            dash++;
        if (dash >= end)
            continue;
        const char *t = dash + 2, *te = memchr(t, ' ', (size_t)(end - t));
        long pl = unescape(f[4], f[5] - 1, point, sizeof point);
        if (pl < 0 || unescape(t, te ? te : end, type, sizeof type) < 0 || !holds(point, (size_t)pl, path) ||
            pl < best_len)
            continue;
        best_len = pl;
        memcpy(best_point, point, (size_t)pl + 1);
        ftio_strlcpy(best_type, sizeof best_type, type);
    }
    return best_len < 0 ? NULL : intern(best_type, best_point);
}

const char *ftio_mount_of(const char *path)
{
    if (!path || path[0] != '/')
        return NULL;
    if (!mt.read_ns)
        read_mounts();
    struct stat st;
    if (stat(path, &st) != 0)
        return best(path, NULL);
    const char *name = best(path, &st.st_dev);
    if (!name && ftio_mono_ns() - mt.read_ns > 1000000000ll) {
        read_mounts();                     /* mounted since we looked */
        name = best(path, &st.st_dev);
    }
    return name ? name : best(path, NULL);
}
