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
 * logs are rows with an error, counted in the summary), 1 when nothing could
 * be read or an output failed, 2 on bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scan/scan.h"

static const char usage_line[] =
    "usage: ftio scan [--csv FILE] [--jsonl FILE] [--threads N] [--quiet|--progress]\n"
    "                 [-m read|write|both] [-f HZ] [--max-samples N] [--compat] [--lenient]\n"
    "                 [--dxt posix|mpiio] DIR|FILE...\n";

static const char help_text[] =
    "Analyse every job of an archive of traces (each file one job; directories are\n"
    "walked recursively, files of no trace format in them skipped) and write one row\n"
    "per job; print a summary (periodic jobs, temporal classes) at the end.\n"
    "Under `mpirun -np N` the ranks split the files and rank 0 writes everything.\n"
    "\n"
    "      --csv FILE         rows as CSV ('-': stdout, the summary then goes to stderr)\n"
    "      --jsonl FILE       rows as JSON Lines ('-': stdout)\n"
    "      --threads N        analysis threads (default: online cores; under MPI,\n"
    "                         online cores / ranks on the node)\n"
    "      --quiet            no progress lines on stderr\n"
    "      --progress         progress lines even when stderr is no terminal\n"
    "  -m, --mode MODE        read, write or both (default both)\n"
    "  -f, --freq HZ          sampling frequency (default 10)\n"
    "      --max-samples N    lower the frequency of jobs longer than N/fs (default 8192)\n"
    "      --compat           the published FTIO's detector and sampling\n"
    "      --lenient          analyse what could be read from damaged files (row warning)\n"
    "      --dxt LAYER        Darshan DXT layer: posix or mpiio (default: mpiio if present)\n"
    "  -h, --help             this help\n";

static int usage(const char *why, const char *arg)
{
    if (why)
        fprintf(stderr, "ftio scan: %s%s%s\n", why, arg ? ": " : "", arg ? arg : "");
    fputs(usage_line, stderr);
    return 2;
}

/* "-x V", "--long V", "--long=V": 1 matched (*v set), 0 not, -1 value missing */
static int opt(int argc, char **argv, int *i, const char *s, const char *l, const char **v)
{
    const char *a = argv[*i];
    size_t ln = strlen(l);
    if (strncmp(a, l, ln) == 0 && a[ln] == '=') {
        *v = a + ln + 1;
        return 1;
    }
    if (!((s && strcmp(a, s) == 0) || strcmp(a, l) == 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *v = argv[++*i];
    return 1;
}

int scan_parse_args(int argc, char **argv, struct scan_opts *o, int *first_path)
{
    memset(o, 0, sizeof *o);
    ftio_options_default(&o->analysis);
    ftio_read_options_default(&o->read);
    o->do_read = o->do_write = true;
    o->max_samples = 8192;
    o->progress = isatty(2);
    bool quiet = false, force = false, compat = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char *end;
        int r;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0)
            break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_line, stdout);
            fputs(help_text, stdout);
            return -1;
        } else if ((r = opt(argc, argv, &i, NULL, "--csv", &v)) != 0) {
            if (r < 0)
                return usage("--csv needs a file name", NULL);
            o->csv = v;
        } else if ((r = opt(argc, argv, &i, NULL, "--jsonl", &v)) != 0) {
            if (r < 0)
                return usage("--jsonl needs a file name", NULL);
            o->jsonl = v;
        } else if ((r = opt(argc, argv, &i, NULL, "--threads", &v)) != 0) {
            long n = r < 0 ? 0 : strtol(v, &end, 10);
            if (r < 0 || *end || n < 1 || n > 4096)
                return usage("--threads needs a count from 1 to 4096", v);
            o->threads = (int)n;
        } else if ((r = opt(argc, argv, &i, "-m", "--mode", &v)) != 0) {
            if (r < 0)
                return usage("-m needs read, write or both", NULL);
            if (strcmp(v, "read") == 0)
                o->do_write = false;
            else if (strcmp(v, "write") == 0)
                o->do_read = false;
            else if (strcmp(v, "both") != 0 && strcmp(v, "all") != 0)
                return usage("-m needs read, write or both", v);
        } else if ((r = opt(argc, argv, &i, "-f", "--freq", &v)) != 0) {
            double d = r < 0 ? 0 : strtod(v, &end);
            if (r < 0 || *end || !(d > 0) || !isfinite(d))
                return usage("-f needs a positive frequency in Hz", v);
            o->analysis.fs = d;
        } else if ((r = opt(argc, argv, &i, NULL, "--max-samples", &v)) != 0) {
            double d = r < 0 ? 0 : strtod(v, &end);
            if (r < 0 || *end || !(d >= 64) || d > 1e9)
                return usage("--max-samples needs a count from 64 to 1e9", v);
            o->max_samples = d;
        } else if ((r = opt(argc, argv, &i, NULL, "--dxt", &v)) != 0) {
            if (r < 0)
                return usage("--dxt needs posix or mpiio", NULL);
            if (strcmp(v, "posix") == 0)
                o->read.dxt = FTIO_DXT_POSIX;
            else if (strcmp(v, "mpiio") == 0)
                o->read.dxt = FTIO_DXT_MPIIO;
            else
                return usage("--dxt needs posix or mpiio", v);
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (strcmp(a, "--progress") == 0) {
            force = true;
        } else if (strcmp(a, "--compat") == 0) {
            compat = true;
        } else if (strcmp(a, "--lenient") == 0) {
            o->read.lenient = true;
        } else {
            return usage("unknown option", a);
        }
    }
    if (compat) {
        double fs = o->analysis.fs;
        o->analysis.detector = FTIO_DETECTOR_COMPAT;
        o->analysis.sampling = FTIO_SAMPLING_HOLD;
        o->analysis.fs = fs;
    }
    o->progress = !quiet && (force || o->progress);
    if (o->csv && o->jsonl && strcmp(o->csv, "-") == 0 && strcmp(o->jsonl, "-") == 0)
        return usage("--csv and --jsonl cannot both go to stdout", NULL);
    if (i >= argc)
        return usage("no directory or trace file given", NULL);
    *first_path = i;
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
    if (scan_output_open(&out, &o) != 0) {
        scan_files_free(&f);
        return 1;
    }
    struct scan_summary sum;
    memset(&sum, 0, sizeof sum);
    rc = scan_run(&o, &f, NULL, 0, scan_output_sink, &out, &sum, 1);
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
