/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_cli.c -- `ftio scan`: options, the output files and the summary, on
 * top of the engine (scan_engine.c); also used by ftio-scan-mpi (scan_mpi.c),
 * which takes the same options.
 *
 * Started by an MPI launcher with more than one rank (OMPI_COMM_WORLD_SIZE
 * or PMI_SIZE > 1), `ftio scan` replaces itself with ftio-scan-mpi (next to
 * the ftio binary, else on PATH), so that `mpirun -np N ftio scan ...` splits
 * the work over the ranks while `ftio` itself never links libmpi (it runs on
 * login nodes without MPI).  FTIO_SCAN_NO_MPI=1 turns the handover off.
 *
 * Exit status: 0 when the scan ran and read at least one job (unreadable
 * logs are rows with an error, counted in the summary), 1 when a path given
 * does not exist, nothing could be read or an output failed, 2 on bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "analysis_options.h"
#include "cliopt.h"
#include "scan/scan.h"

static const char usage_line[] =
    "usage: ftio scan [--csv FILE] [--jsonl FILE] [--threads N] [--quiet|--progress]\n"
    "                 [-m read|write|both] [-f HZ] [--max-samples N] [--compat] [--lenient]\n"
    "                 [--dxt posix|mpiio] [--user U] [--exe TEXT] [--since T] [--until T]\n"
    "                 [--min-bytes N] [--history STORE] DIR|FILE...\n";

static const char help_text[] =
    "Analyse every job of an archive of traces (each file one job; directories are\n"
    "walked recursively, files of no trace format in them skipped) and write one row\n"
    "per job; print a summary (periodic jobs, temporal classes) at the end.\n"
    "Under `mpirun -np N` the ranks split the files and rank 0 writes everything.\n";

static const char *const scan_mode_names[] = {"read", "write", "both", "all", NULL};
static const int scan_mode_values[] = {0, 1, 2, 2};
static const char *const scan_dxt_names[] = {"posix", "mpiio", NULL};
static const int scan_dxt_values[] = {FTIO_DXT_POSIX, FTIO_DXT_MPIIO};

/* --since/--until: YYYY-MM-DD[THH:MM[:SS]][Z] in UTC, or Unix seconds. */
static int set_time(const struct cliopt *opt, const char *v, char *err, size_t errlen)
{
    double *t = opt->ctx;
    char *end;
    double n = strtod(v, &end);
    if (*v && !*end && isfinite(n)) {
        *t = n;
        return 0;
    }
    static const char *const fmts[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M",
                                       "%Y-%m-%d %H:%M", "%Y-%m-%d"};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        struct tm tm = {0};
        const char *rest = strptime(v, fmts[i], &tm);
        if (rest && (!*rest || strcmp(rest, "Z") == 0)) {
            *t = (double)timegm(&tm);
            return 0;
        }
    }
    snprintf(err, errlen, "not a time: '%s' (YYYY-MM-DD[THH:MM[:SS]] UTC, or Unix seconds)", v);
    return -1;
}

/* --min-bytes: a number with an optional K, M, G, T (powers of 1024; KiB ... too). */
static int set_bytes(const struct cliopt *opt, const char *v, char *err, size_t errlen)
{
    double *b = opt->ctx;
    char *end;
    double n = strtod(v, &end);
    static const char *const unit[] = {"", "K", "M", "G", "T"};
    for (int i = 0; *v && end != v && isfinite(n) && n >= 0 && i < 5; i++) {
        size_t u = strlen(unit[i]);
        if (strncasecmp(end, unit[i], u) == 0 &&
            (!end[u] || strcasecmp(end + u, "B") == 0 || (i && strcasecmp(end + u, "iB") == 0))) {
            *b = n * pow(1024.0, i);
            return 0;
        }
    }
    snprintf(err, errlen, "not a size: '%s' (a number of bytes, with K, M, G or T)", v);
    return -1;
}

/* What ftio scan's options set. */
struct scan_settings {
    struct scan_opts o;
    struct ftio_analysis_args a;   /* -f, --compat (analysis_options.h) */
    int mode, dxt;                 /* scan_mode_values, the readers' layer */
    bool quiet, force;
};
#define AT(member) CLIOPT_AT(struct scan_settings, member)

/* The option table of `ftio scan` (and ftio-scan-mpi): its own options and
 * the shared analysis ones it takes (-f, --compat: analysis_options.h). */
static const struct cliopt scan_opts_table[] = {
    {"csv", 0, CLIOPT_STRING, "FILE", "rows as CSV ('-': stdout, the summary then goes to stderr)",
     NULL, AT(o.csv)},
    {"jsonl", 0, CLIOPT_STRING, "FILE", "rows as JSON Lines ('-': stdout)", NULL, AT(o.jsonl)},
    {"threads", 0, CLIOPT_INT, "N",
     "analysis threads (default: online cores; under MPI,\nonline cores / ranks on the node)", NULL,
     AT(o.threads), .min = 1, .max = 4096},
    {"quiet", 'q', CLIOPT_FLAG, NULL, "no progress lines on stderr", NULL, AT(quiet)},
    {"progress", 0, CLIOPT_FLAG, NULL, "progress lines even when stderr is no terminal", NULL,
     AT(force)},
    {"mode", 'm', CLIOPT_CHOICE, "MODE", "read, write or both", "both", AT(mode),
     .choices = scan_mode_names, .values = scan_mode_values},
    {"freq", .type = CLIOPT_SHARED},
    {"compat", .type = CLIOPT_SHARED, .help = "the published FTIO's detector and sampling"},
    {"max-samples", 0, CLIOPT_DOUBLE, "N", "lower the frequency of jobs longer than N/fs", "8192",
     AT(o.max_samples), .min = 64, .max = 1e9},
    {"lenient", 0, CLIOPT_FLAG, NULL, "analyse what could be read from damaged files (row warning)",
     NULL, AT(o.read.lenient)},
    {"dxt", 0, CLIOPT_CHOICE, "LAYER",
     "Darshan DXT layer: posix or mpiio (default: mpiio if present)", NULL, AT(dxt),
     .choices = scan_dxt_names, .values = scan_dxt_values},
    {"user", 0, CLIOPT_CUSTOM, "U", "only the jobs of user U (a name or a uid)", NULL,
     AT(o.filter_uid), .set = cliopt_set_user},
    {"exe", 0, CLIOPT_STRING, "TEXT", "only the jobs whose command line contains TEXT", NULL,
     AT(o.filter_exe)},
    {"since", 0, CLIOPT_CUSTOM, "T",
     "only the jobs that started at or after T (YYYY-MM-DD[THH:MM[:SS]]\nUTC, or Unix seconds)",
     NULL, AT(o.since), .set = set_time},
    {"until", 0, CLIOPT_CUSTOM, "T", "only the jobs that started before T", NULL, AT(o.until),
     .set = set_time},
    {"min-bytes", 0, CLIOPT_CUSTOM, "N", "only the jobs that moved N bytes or more (read +\nwritten;"
     " K, M, G, T: powers of 1024)", NULL, AT(o.min_bytes), .set = set_bytes},
    {"history", 0, CLIOPT_STRING, "STORE",
     "record every job as a run of its application in ftiod's\nmemory of runs (a SQLite file or a"
     " postgresql:// URI)", NULL, AT(o.history)},
    CLIOPT_HELP_VERSION("the version"),
    {0},
};
#undef AT

int scan_parse_args(int argc, char **argv, struct scan_opts *out, int *first_path)
{
    struct scan_settings s;
    memset(&s, 0, sizeof s);
    struct scan_opts *o = &s.o;
    o->filter_uid = -1;
    o->since = o->until = NAN;
    ftio_analysis_args_default(&s.a);
    ftio_read_options_default(&o->read);
    s.dxt = (int)o->read.dxt;
    struct cliopt shared[FTIO_AOPT_ENTRIES + 1], t[sizeof scan_opts_table / sizeof scan_opts_table[0]];
    shared[ftio_analysis_cliopts(&s.a, ~0u, shared)] = (struct cliopt){0};
    struct cliopt_parser p = {
        .prog = "ftio scan", .version = FTIO_VERSION, .usage = usage_line, .about = help_text,
        .epilog = "Exit status: 0 when at least one job was read, 1 when a path given does\n"
                  "not exist, nothing could be read or an output failed, 2 on a usage error.\n",
        .opts = t,
    };
    if (cliopt_bind(t, scan_opts_table, &s, shared) != 0 || cliopt_defaults(&p) != 0)
        return 2;
    int first = cliopt_parse_argv(&p, argc, argv), rc = 0;
    char err[256];
    if (first == -1)
        rc = -1;
    else if (first < 0)
        rc = 2;
    else if (ftio_analysis_args_finish(&s.a, true, err, sizeof err) != 0)
        rc = -cliopt_error(&p, "%s", err);
    else if (o->csv && o->jsonl && strcmp(o->csv, "-") == 0 && strcmp(o->jsonl, "-") == 0)
        rc = -cliopt_error(&p, "--csv and --jsonl cannot both go to stdout");
    else if (first >= argc)
        rc = -cliopt_error(&p, "no directory or trace file given (see ftio scan --help)");
    else if (!isnan(o->since) && !isnan(o->until) && o->until <= o->since)
        rc = -cliopt_error(&p, "--until must be after --since");
    cliopt_free(&p);
    if (rc != 0)
        return rc;
    /* A path on the command line that is not there is a mistake, not an
     * unreadable job among others. */
    for (int i = first; i < argc; i++)
        if (access(argv[i], F_OK) != 0) {
            fprintf(stderr, "ftio scan: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
    o->analysis = s.a.opts;
    o->do_read = s.mode != 1;
    o->do_write = s.mode != 0;
    o->read.dxt = (enum ftio_dxt_layer)s.dxt;
    o->progress = !s.quiet && (s.force || isatty(2));
    *out = *o;
    *first_path = first;
    return 0;
}

/* ---- outputs ------------------------------------------------------------ */

static FILE *open_out(const char *name, bool *is_stdout)
{
    *is_stdout = strcmp(name, "-") == 0;
    if (*is_stdout)
        return stdout;
    FILE *f = fopen(name, "w");
    if (!f)
        fprintf(stderr, "ftio scan: %s: %s\n", name, strerror(errno));
    return f;
}

int scan_output_open(struct scan_output *out, const struct scan_opts *o)
{
    memset(out, 0, sizeof *out);
    if (o->csv && !(out->csv = open_out(o->csv, &out->csv_stdout)))
        return -1;
    if (o->jsonl && !(out->jsonl = open_out(o->jsonl, &out->jsonl_stdout))) {
        scan_output_close(out);
        return -1;
    }
    if (out->csv)
        fputs(scan_csv_header, out->csv);
    return 0;
}

int scan_output_sink(void *ctx, size_t index, const char *csv, size_t csv_len, const char *jsonl,
                     size_t jsonl_len)
{
    struct scan_output *out = ctx;
    (void)index;
    if (out->csv && csv_len && fwrite(csv, 1, csv_len, out->csv) != csv_len)
        return -1;
    if (out->jsonl && jsonl_len && fwrite(jsonl, 1, jsonl_len, out->jsonl) != jsonl_len)
        return -1;
    return 0;
}

int scan_output_close(struct scan_output *out)
{
    int rc = 0;
    FILE *f[2] = { out->csv, out->jsonl };
    bool so[2] = { out->csv_stdout, out->jsonl_stdout };
    for (int i = 0; i < 2; i++) {
        if (!f[i])
            continue;
        if (so[i])
            rc |= fflush(f[i]) != 0 || ferror(f[i]);
        else
            rc |= ferror(f[i]) | (fclose(f[i]) != 0);
    }
    out->csv = out->jsonl = NULL;
    return rc ? -1 : 0;
}

int scan_finish(const struct scan_summary *s, const struct scan_opts *o, const struct scan_output *out)
{
    FILE *f = out->csv_stdout || out->jsonl_stdout ? stderr : stdout;
    scan_summary_print(f, s, o);
    fflush(f);
    if (s->jobs == 0 && s->filtered > 0) {
        fprintf(stderr, "ftio scan: no job passed the filters (%.0f filtered out)\n", s->filtered);
        return 1;
    }
    if (s->jobs == 0) {
        fprintf(stderr, "ftio scan: no job could be read\n");
        return 1;
    }
    return 0;
}

/* ---- MPI handover ------------------------------------------------------- */

static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}

static void exec_mpi_helper(int argc, char **argv)
{
    char self[PATH_MAX], helper[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(helper, sizeof helper, "%s/ftio-scan-mpi", self);
            args[0] = helper;
            execv(helper, args);
        }
    }
    args[0] = "ftio-scan-mpi";
    execvp("ftio-scan-mpi", args);
    free(args);
}

int ftio_cmd_scan(int argc, char **argv)
{
    struct scan_opts o;
    int first;
    int rc = scan_parse_args(argc, argv, &o, &first);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    const char *no_mpi = getenv("FTIO_SCAN_NO_MPI");
    if ((env_long("OMPI_COMM_WORLD_SIZE") > 1 || env_long("PMI_SIZE") > 1) &&
        !(no_mpi && strcmp(no_mpi, "0") != 0)) {
        exec_mpi_helper(argc, argv);
        fprintf(stderr, "ftio scan: started by an MPI launcher but ftio-scan-mpi was not found "
                        "next to ftio nor on PATH (set FTIO_SCAN_NO_MPI=1 to scan in every rank)\n");
        return 1;
    }
    struct scan_files f = { 0 };
    if (scan_files_collect(&f, argv + first, argc - first) != 0) {
        fprintf(stderr, "ftio scan: out of memory\n");
        scan_files_free(&f);
        return 1;
    }
    struct scan_output out;
    if ((o.history && !(o.hist = scan_history_open(o.history))) || scan_output_open(&out, &o) != 0) {
        scan_history_close(o.hist);
        scan_files_free(&f);
        return 1;
    }
    struct scan_summary sum;
    memset(&sum, 0, sizeof sum);
    rc = scan_run(&o, &f, NULL, 0, scan_output_sink, &out, &sum, 1);
    if (o.hist) {
        double c[3];
        scan_history_counts(o.hist, c);
        scan_history_report(o.hist, c);
        if (scan_history_close(o.hist) != 0 && rc == 0)
            rc = -1;
    }
    if (scan_output_close(&out) != 0 || rc != 0) {
        fprintf(stderr, "ftio scan: %s\n", rc != 0 ? "out of memory or output failed"
                                                  : "writing the rows failed");
        scan_files_free(&f);
        return 1;
    }
    rc = scan_finish(&sum, &o, &out);
    scan_files_free(&f);
    return rc;
}
