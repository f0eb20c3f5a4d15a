/* SPDX-License-Identifier: BSD-3-Clause */
/* mounts.c -- which file system a traced file lives on, as "TYPE:MOUNTPOINT"
 * ("ext4:/", "tmpfs:/dev/shm", "lustre:/lus/grand"): the third element of a
 * batch's `files` entry (PROTOCOL.md §1), for ftiod's per-file-system view.
 *
 * Flusher thread only, once per file (files.c asks when it sends a file's
 * entry), never on the application's path.  /proc/self/mountinfo is read
 * once and kept; a file is matched by its device (stat's st_dev against the
 * mounts' major:minor; of bind mounts of one device, the longest mount point
 * that prefixes the path), else by the longest mount point that prefixes its
 * path (a file already deleted).  A device no mount has (mounted since) makes
 * the table be read again, at most once a second.
 *
 * The names handed out are kept for good (files.c holds them in its file
 * entries, and sends them again: the next batch when one could not be sent,
 * every entry in a fork child): a table read again frees only its own array,
 * never a name; a name read again is the one already handed out (one copy per
 * distinct "TYPE:MOUNTPOINT" the process ever saw).
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

struct mount {
    dev_t       dev;
    size_t      mlen;     /* length of the mount point in `name` after "TYPE:" */
    const char *point;    /* the mount point (inside name) */
    const char *name;     /* "TYPE:MOUNTPOINT", one of `names` */
};

static struct {
    struct mount *m;
    size_t        n;
    int64_t       read_ns;
    char        **names;  /* every name handed out: never freed */
    size_t        nnames, names_cap;
} mt;

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* "TYPE:POINT", the copy kept in mt.names (made on first sight), or NULL. */
static const char *intern(const char *type, size_t tl, const char *point, size_t pl)
{
    for (size_t i = 0; i < mt.nnames; i++) {
        const char *s = mt.names[i];
        if (strncmp(s, type, tl) == 0 && s[tl] == ':' && strcmp(s + tl + 1, point) == 0)
            return s;
    }
    if (mt.nnames == mt.names_cap) {
        size_t nc = mt.names_cap ? mt.names_cap * 2 : 64;
        char **v = realloc(mt.names, nc * sizeof *v);
        if (!v)
            return NULL;
        mt.names = v;
        mt.names_cap = nc;
    }
    char *name = malloc(tl + 1 + pl + 1);
    if (!name)
        return NULL;
    memcpy(name, type, tl);
    name[tl] = ':';
    memcpy(name + tl + 1, point, pl + 1);
    mt.names[mt.nnames++] = name;
    return name;
}

/* The table goes; its names stay (files.c may hold them). */
static void forget(void)
{
    free(mt.m);
    mt.m = NULL;
    mt.n = 0;
}

/* One line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE ...". */
static void parse_line(char *line, size_t *cap)
{
    char *f[6], *save = NULL, *tok = strtok_r(line, " ", &save);
    int nf = 0;
    while (tok && nf < 6) {
        f[nf++] = tok;
        tok = strtok_r(NULL, " ", &save);
    }
    while (tok && strcmp(tok, "-") != 0)
        tok = strtok_r(NULL, " ", &save);
    char *type = tok ? strtok_r(NULL, " ", &save) : NULL;
    unsigned maj, min;
    if (nf < 6 || !type || sscanf(f[2], "%u:%u", &maj, &min) != 2)
        return;
    unescape(f[4]);
    unescape(type);
    size_t tl = strlen(type), pl = strlen(f[4]);
    if (mt.n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct mount *m = realloc(mt.m, nc * sizeof *m);
        if (!m)
            return;
        mt.m = m;
        *cap = nc;
    }
    const char *name = intern(type, tl, f[4], pl);
    if (name)
        mt.m[mt.n++] = (struct mount){ makedev(maj, min), pl, name + tl + 1, name };
}

static void read_mounts(void)
{
    mt.read_ns = ftio_mono_ns();
    forget();
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t cap = 0, len = 0, size = 16384;
    char *buf = malloc(size);
    for (ssize_t r; buf; len += (size_t)r) {
        if (len + 1 >= size) {
            char *b = realloc(buf, size * 2);
            if (!b)
                break;
            buf = b;
            size *= 2;
        }
        r = read(fd, buf + len, size - len - 1);
        if (r <= 0)
            break;
    }
    close(fd);
    if (!buf)
        return;
    buf[len] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        parse_line(line, &cap);
    free(buf);
}

/* Does mount point p (length n) hold path? */
static int holds(const char *p, size_t n, const char *path)
{
    return strncmp(path, p, n) == 0 && (path[n] == '/' || path[n] == '\0' || (n == 1 && p[0] == '/'));
}

static const char *best(const char *path, const dev_t *dev)
{
    const struct mount *b = NULL;
    for (size_t i = 0; i < mt.n; i++) {
        const struct mount *m = &mt.m[i];
        if ((dev && m->dev != *dev) || !holds(m->point, m->mlen, path))
            continue;
        if (!b || m->mlen >= b->mlen)      /* later lines mount over earlier ones */
            b = m;
    }
    return b ? b->name : NULL;
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
