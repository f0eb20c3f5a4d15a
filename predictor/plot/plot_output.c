/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_output.c -- the output files of predictor/plot/ (plot.h): written to
 * a temporary file in the target's directory and renamed over the target
 * once complete, so that a page or CSV file is either whole or absent, and
 * an unwritable path is reported before any analysis runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plot/plot.h"

int ftio_plot_output_open(struct ftio_plot_output *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a directory", path);
        return -1;
    }
    size_t n = strlen(path) + 16;
    o->path = strdup(path);
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        snprintf(err, errlen, "out of memory");
        ftio_plot_output_discard(o);
        return -1;
    }
    snprintf(o->tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        ftio_plot_output_discard(o);
        return -1;
    }
    /* mkstemp makes 0600; a page is a document like any other. */
    mode_t mask = umask(0);
    umask(mask);
    (void)!fchmod(fd, 0666 & ~mask);     /* on failure the file stays private */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        ftio_plot_output_discard(o);
        return -1;
    }
    return 0;
}

int ftio_plot_output_commit(struct ftio_plot_output *o, char *err, size_t errlen)
{
    int bad = ferror(o->f);
    int saved = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(saved ? saved : EIO));
        ftio_plot_output_discard(o);
        return -1;
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return 0;
}

void ftio_plot_output_discard(struct ftio_plot_output *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
