/* SPDX-License-Identifier: BSD-3-Clause */
/* plot_export.c -- CSV exports of predictor/plot/ (plot.h): the sampled
 * signal and the spectrum, one header line then one row per sample or bin,
 * numbers with 17 significant digits (they read back exactly), job names
 * quoted as RFC 4180 says when they need it.
 */
#include <math.h>
#include <string.h>
#include "plot/plot.h"

static void csv_field(FILE *f, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_key(FILE *f, const char *job, const char *mode)
{
    csv_field(f, job);
    fputc(',', f);
    csv_field(f, mode);
}

void ftio_plot_csv_signal_header(FILE *f)
{
    fputs("job,mode,time_s,bandwidth_B_per_s\n", f);
}

void ftio_plot_csv_spectrum_header(FILE *f)
{
    fputs("job,mode,bin,frequency_Hz,period_s,amplitude,power,above_threshold,candidate,dominant\n", f);
}

int ftio_plot_csv_signal(FILE *f, const char *job, const char *mode, const struct ftio_samples *x)
{
    for (size_t k = 0; k < x->n; k++) {
        csv_key(f, job, mode);
        fprintf(f, ",%.17g,%.17g\n", x->t0 + (double)k / x->fs, x->x[k]);
    }
    return ferror(f) ? -1 : 0;
}

static bool is_candidate(const struct ftio_result *r, size_t k)
{
    for (size_t i = 0; r && i < r->ncand && i < FTIO_RESULT_CANDIDATES; i++)
        if (r->cand[i].bin == k)
            return true;
    return false;
}

int ftio_plot_csv_spectrum(FILE *f, const char *job, const char *mode,
                           const struct ftio_spectrum_view *v, const struct ftio_result *r)
{
    for (size_t k = 1; k <= v->half; k++) {
        double fr = v->fs * (double)k / (double)v->n, p = ftio_spectrum_value(v, k);
        csv_key(f, job, mode);
        fprintf(f, ",%zu,%.17g,%.17g,%.17g,%.17g,%d,%d,%d\n", k, fr, 1.0 / fr, v->amplitude[k], p,
                isfinite(v->threshold) && p > v->threshold, is_candidate(r, k),
                r && r->has_period && r->dominant.bin == k);
    }
    return ferror(f) ? -1 : 0;
}
