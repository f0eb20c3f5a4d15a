/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_files.c -- the work list of a scan: the command line's paths, each
 * directory walked recursively with its entries in name order (so that every
 * run, and every MPI rank, sees the same list in the same order).  Symbolic
 * links to files are taken; links to directories are not followed (no loops).
 * Whether a file found in a directory is a trace at all is decided later, by
 * content (scan_job.c), on the one read of the file.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "scan/scan.h"
#include "grow.h"

int scan_files_add(struct scan_files *f, const char *path, bool named)
{
    if (FTIO_GROW(f->file, f->cap, f->n + 1) < 0)
        return -1;
    char *copy = strdup(path);
    if (!copy)
        return -1;
    f->file[f->n++] = (struct scan_file){ copy, named };
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct scan_files *f, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return scan_files_add(f, dir, true);   /* unreadable directory: an error row */
    size_t n = 0, cap = 0;
    char **names = NULL;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (FTIO_GROW(names, cap, n + 1) < 0) {
            rc = -1;
            break;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == 0)
        qsort(names, n, sizeof *names, cmp_name);
    size_t dl = strlen(dir);
    int slash = dl > 0 && dir[dl - 1] == '/';
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t len = dl + 1 + strlen(names[i]) + 1;
        char *p = malloc(len);
        if (!p) {
            rc = -1;
            break;
        }
        snprintf(p, len, "%s%s%s", dir, slash ? "" : "/", names[i]);
        struct stat ls, st;
        if (lstat(p, &ls) == 0 && S_ISDIR(ls.st_mode))
            rc = walk(f, p);
        else if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            rc = scan_files_add(f, p, false);
        /* sockets, fifos, devices, dangling links: not traces */
        free(p);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int scan_files_collect(struct scan_files *f, char *const *paths, int npaths)
{
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        int rc = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) ? walk(f, paths[i])
                                                                 : scan_files_add(f, paths[i], true);
        if (rc != 0)
            return -1;
    }
    return 0;
}

void scan_files_free(struct scan_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->file[i].path);
    free(f->file);
    memset(f, 0, sizeof *f);
}
