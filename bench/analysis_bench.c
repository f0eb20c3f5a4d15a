/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis_bench.c -- times the offline analysis pipeline of `ftio` step by
 * step on one trace file: parse (readers), signal (event sweep), sampling,
 * spectrum + detection + metrics (ftio_analyze), each the median of R runs,
 * then the sweep sampled as it goes (ftio_sample_requests: what `ftio`
 * does, no whole signal kept), and the process's peak RSS (getrusage).  bench/analysis.sh runs it on the
 * 10^6 and 10^7 request traces of `ftio-wire trace`; figures go to
 * bench/README.md ("analysis").
 *
 * usage: ftio-bench-analysis [-f HZ] [-m write|read|all] [-r RUNS] FILE
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "analysis.h"
#include "trace.h"

#define MAX_RUNS 31

/* CPU time of the process (all its threads): what a step costs, not what a
 * loaded machine lets it have. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    double fs = 10;
    int runs = 5;
    enum ftio_io_mode mode = FTIO_MODE_WRITE;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
            fs = atof(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            i++;
            mode = strcmp(argv[i], "read") == 0 ? FTIO_MODE_READ
                 : strcmp(argv[i], "all") == 0 ? FTIO_MODE_ALL : FTIO_MODE_WRITE;
        } else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fputs("usage: ftio-bench-analysis [-f HZ] [-m write|read|all] [-r RUNS] FILE\n", stderr);
            return 2;
        }
    }
    if (!file || fs <= 0 || runs < 1 || runs > MAX_RUNS) {
        fputs("usage: ftio-bench-analysis [-f HZ] [-m write|read|all] [-r RUNS] FILE\n", stderr);
        return 2;
    }
    double t_parse[MAX_RUNS], t_signal[MAX_RUNS], t_sample[MAX_RUNS], t_spectrum[MAX_RUNS],
           t_total[MAX_RUNS], t_streamed[MAX_RUNS];
    struct ftio_result res;
    size_t nreq = 0, nsamples = 0;
    double rss_after_parse = 0;
    struct ftio_analyzer *a = ftio_analyzer_new();
    struct ftio_options o;
    ftio_options_default(&o);
    o.fs = fs;
    char err[512], warn[512];
    for (int r = 0; r < runs; r++) {
        struct ftio_read_options ro;
        ftio_read_options_default(&ro);
        struct ftio_trace_set set = { 0 };
        double t0 = now();
        if (ftio_trace_read_file(&set, file, &ro, err, sizeof err, warn, sizeof warn) != 0) {
            fprintf(stderr, "ftio-bench-analysis: %s\n", err);
            return 1;
        }
        ftio_trace_set_finish(&set, &ro);
        double t1 = now();
        if (r == 0) {
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            rss_after_parse = (double)ru.ru_maxrss / 1024.0;
        }
        struct ftio_requests scratch = { 0 };
        const struct ftio_requests *req = ftio_trace_requests(&set.job[0], mode, &scratch);
        struct ftio_signal sig = { 0 };
        if (!req || ftio_signal_build(req, &sig) != 0) {
            fprintf(stderr, "ftio-bench-analysis: signal failed\n");
            return 1;
        }
        nreq = req->n;
        double t2 = now();
        struct ftio_samples x = { 0 };
        if (ftio_sample(&sig, o.fs, NAN, NAN, o.sampling, &x, err, sizeof err) != 0) {
            fprintf(stderr, "ftio-bench-analysis: %s\n", err);
            return 1;
        }
        double t3 = now();
        if (ftio_analyze(a, &x, &o, x.t1, &res, err, sizeof err) != 0) {
            fprintf(stderr, "ftio-bench-analysis: %s\n", err);
            return 1;
        }
        double t4 = now();
        nsamples = x.n;
        ftio_signal_free(&sig);
        double t5 = now();
        if (ftio_sample_requests(req, o.fs, NAN, NAN, o.sampling, &x, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "ftio-bench-analysis: %s\n", err);
            return 1;
        }
        t_streamed[r] = now() - t5;
        t_parse[r] = t1 - t0;
        t_signal[r] = t2 - t1;
        t_sample[r] = t3 - t2;
        t_spectrum[r] = t4 - t3;
        t_total[r] = t4 - t0;
        ftio_samples_free(&x);
        ftio_requests_free(&scratch);
        ftio_trace_set_free(&set);
    }
    ftio_analyzer_free(a);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("file        %s\n", file);
    printf("requests    %zu, samples %zu at fs %g Hz\n", nreq, nsamples, fs);
    printf("period      %s%.6g s (conf %.3f, class %s)\n", res.has_period ? "" : "none ",
           res.has_period ? res.dominant.period : 0.0,
           res.has_period ? res.dominant.confidence : 0.0, ftio_class_name(res.cls));
    printf("median of %d runs (s): parse %.4f  signal %.4f  sampling %.4f  spectrum %.4f  "
           "analysis-after-parse %.4f  total %.4f\n", runs, median(t_parse, runs),
           median(t_signal, runs), median(t_sample, runs), median(t_spectrum, runs),
           median(t_signal, runs) + median(t_sample, runs) + median(t_spectrum, runs),
           median(t_total, runs));
    printf("streamed    sweep + sampling without the signal %.4f s\n", median(t_streamed, runs));
    printf("peak RSS    %.1f MB (%.1f MB after the first parse)\n", (double)ru.ru_maxrss / 1024.0,
           rss_after_parse);
    return 0;
}
