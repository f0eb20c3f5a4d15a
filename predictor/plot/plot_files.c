/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_files.c -- the outputs `ftio` writes for --plot, --export-signal and
 * --export-spectrum (plot.h), together: opened before the analysis, one
 * section per analysed job added to each, committed at the end.
 */
#include <stdlib.h>
#include <string.h>
#include "plot/plot.h"

struct ftio_plot_files {
    struct ftio_plot_page  *page;
    struct ftio_plot_output signal, spectrum;
    unsigned sections, signal_rows, spectrum_rows;
};

struct ftio_plot_files *ftio_plot_files_open(const char *page, const char *signal_csv,
                                             const char *spectrum_csv, const char *title,
                                             const char *subtitle, char *err, size_t errlen)
{
    struct ftio_plot_files *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (page && !(p->page = ftio_plot_page_open(page, title, subtitle, err, errlen)))
        goto fail;
    if (signal_csv && ftio_plot_output_open(&p->signal, signal_csv, err, errlen) != 0)
        goto fail;
    if (spectrum_csv && ftio_plot_output_open(&p->spectrum, spectrum_csv, err, errlen) != 0)
        goto fail;
    if (p->signal.f)
        ftio_plot_csv_signal_header(p->signal.f);
    if (p->spectrum.f)
        ftio_plot_csv_spectrum_header(p->spectrum.f);
    return p;
fail:
    ftio_plot_page_discard(p->page);
    ftio_plot_output_discard(&p->signal);
    ftio_plot_output_discard(&p->spectrum);
    free(p);
    return NULL;
}

int ftio_plot_files_add(struct ftio_plot_files *p, const struct ftio_plot_section *s,
                        char *err, size_t errlen)
{
    const char *job = s->job ? s->job : "";
    if (p->page) {
        if (ftio_plot_page_add(p->page, s) != 0)
            goto fail;
        p->sections++;
    }
    if (p->signal.f && s->samples) {
        if (ftio_plot_csv_signal(p->signal.f, job, s->mode, s->samples) != 0)
            goto fail;
        p->signal_rows++;
    }
    if (p->spectrum.f && s->spectrum) {
        if (ftio_plot_csv_spectrum(p->spectrum.f, job, s->mode, s->spectrum, s->result) != 0)
            goto fail;
        p->spectrum_rows++;
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot write the plot or export files (write error)");
    return -1;
}

int ftio_plot_files_add_page(struct ftio_plot_files *p, const struct ftio_plot_section *s,
                             char *err, size_t errlen)
{
    if (!p->page)
        return 0;
    if (ftio_plot_page_add(p->page, s) != 0) {
        snprintf(err, errlen, "cannot write the plot (write error)");
        return -1;
    }
    p->sections++;
    return 0;
}

int ftio_plot_files_close(struct ftio_plot_files *p, char *err, size_t errlen)
{
    int rc = 0;
    char e[512];
    if (p->page) {
        if (p->sections == 0)
            ftio_plot_page_discard(p->page);
        else if (ftio_plot_page_close(p->page, e, sizeof e) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    }
    struct { struct ftio_plot_output *o; unsigned rows; } csv[] = {
        { &p->signal, p->signal_rows }, { &p->spectrum, p->spectrum_rows },
    };
    for (size_t i = 0; i < 2; i++) {
        if (!csv[i].o->f)
            continue;
        if (csv[i].rows == 0)
            ftio_plot_output_discard(csv[i].o);
        else if (ftio_plot_output_commit(csv[i].o, e, sizeof e) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    }
    free(p);
    return rc;
}
