/* main.c -- the `ftio` command: option parsing and dispatch.
 *
 * `ftio [options] FILE...` reads trace files of any supported format
 * (trace.h), merges them, and prints the period analysis (analyze.c);
 * `ftio sub` and `ftio replay` dispatch to their own files (commands.h).
 * Options follow the reference implementation, including single-dash long
 * options (-ts, -te), so they are parsed by hand rather than with getopt.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "scan/scan.h"

#ifndef FTIO_VERSION
#define FTIO_VERSION "unknown"
#endif

static const char usage_line[] =
    "usage: ftio [--compat] [-f HZ] [-m read|write|all] [-t TOL] [-ts S] [-te S] [-n K] [--no-psd]\n"
    "            [--sampling hold|average] [--autocorrelation] [--window S|adaptive [--step S]]\n"
    "            [--dxt posix|mpiio] [--format F] [--lenient] [--absolute-time] [--keep-nested]\n"
    "            [--max-memory MB] [--json] [--plot FILE.html] [--export-signal FILE.csv]\n"
    "            [--export-spectrum FILE.csv] FILE...\n"
    "       ftio scan DIR|FILE... | ftio sub [options] | ftio replay FILE... | ftio end JOB\n"
    "       ftio relay --listen E --upstream E | ftio report LOG.jsonl [--job J] [-o FILE.html]\n"
    "       ftio keygen NAME   (see ftio(1))\n";

static const char help_text[] =
    "Detect the period of the I/O phases in trace files and predict the next one.\n"
    "\n"
    "Formats (detected from content): ftio spool files, TMIO JSONL/JSON/msgpack,\n"
    "custom JSON, Darshan DXT text (darshan-dxt-parser), binary Darshan logs (.darshan,\n"
    "formats 3.00-3.41), CSV rank,op,t_start,t_end,bytes.\n"
    "Several files are merged (spool files per job).\n"
    "\n"
    "      --compat           the published FTIO, digit for digit: its z-score detector\n"
    "                         and zero-order hold (default: the robust detector)\n"
    "  -f, --freq HZ          sampling frequency (default 10)\n"
    "  -m, --mode MODE        write (default), read or all\n"
    "  -t, --tol TOL          candidate tolerance z/z_max (default 0.8)\n"
    "  -ts S, -te S           analyse only events in [S_start, S_end] (seconds)\n"
    "  -n K                   also list the K bins of largest amplitude\n"
    "      --no-psd           use amplitudes instead of the power spectrum\n"
    "      --sampling M       hold (default, as the reference) or average\n"
    "      --autocorrelation  cross-check the period with the autocorrelation\n"
    "      --window S         sliding analysis with a fixed window of S seconds,\n"
    "                         or 'adaptive' (frequency hits, as ftiod); one line per step\n"
    "      --step S           time between sliding analyses (default 1 s)\n"
    "      --dxt LAYER        Darshan DXT layer: posix or mpiio (default: mpiio if present)\n"
    "      --format F         force the format: spool, tmio-json, tmio-msgpack, dxt, darshan, csv\n"
    "      --lenient          analyse what could be read from damaged files\n"
    "      --absolute-time    spool files: keep Unix epoch times (default: relative)\n"
    "      --keep-nested      spool files: count data at POSIX, drop MPI-IO records\n"
    "      --json             print the JSON prediction object (PROTOCOL.md §2)\n"
    "      --plot FILE.html   also write a self-contained HTML page: signal, phases,\n"
    "                         reconstruction, next phase, spectrum (and, with --window,\n"
    "                         the prediction history)\n"
    "      --export-signal FILE.csv    the sampled signal: job,mode,time_s,bandwidth_B_per_s\n"
    "      --export-spectrum FILE.csv  the spectrum: frequency, period, amplitude, power share,\n"
    "                         threshold and candidate flags per bin\n"
    "      --max-memory MB    bound on the analysis' memory (default 4096); the samples\n"
    "                         are also capped by what the input justifies (64 per record)\n"
    "  -h, --help             this help;  -V, --version  the version\n";

static int usage(const char *why, const char *arg)
{
    if (why)
        fprintf(stderr, "ftio: %s%s%s\n", why, arg ? ": " : "", arg ? arg : "");
    fputs(usage_line, stderr);
    return 2;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return (end == s || *end || errno || !isfinite(*out)) ? -1 : 0;
}

/* Match "-x", "--long" and "--long=value"; sets *val to the value (next arg
 * or after '=').  Returns 1 when matched, 0 when not, -1 when the value is
 * missing. */
static int opt(int argc, char **argv, int *i, const char *shortname, const char *longname,
               const char **val)
{
    const char *a = argv[*i];
    size_t ln = longname ? strlen(longname) : 0;
    int hit = (shortname && strcmp(a, shortname) == 0) || (longname && strcmp(a, longname) == 0);
    if (!hit && longname && strncmp(a, longname, ln) == 0 && a[ln] == '=') {
        *val = a + ln + 1;
        return 1;
    }
    if (!hit)
        return 0;
    if (!val)
        return 1;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

static int flag(const char *a, const char *name)
{
    return strcmp(a, name) == 0;
}

static int parse_args(int argc, char **argv, struct ftio_cli *cli)
{
    ftio_options_default(&cli->analysis);
    ftio_read_options_default(&cli->read);
    cli->mode = FTIO_MODE_WRITE;
    cli->step = 1.0;
    cli->max_memory_mb = 4096;
    cli->files = calloc((size_t)argc, sizeof *cli->files);
    if (!cli->files)
        return usage("out of memory", NULL);
    int only_files = 0, compat = 0, sampling_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        double d;
        if (only_files || a[0] != '-' || a[1] == 0) {
            cli->files[cli->nfiles++] = argv[i];
            continue;
        }
#define VALUE(s, l) ((r = opt(argc, argv, &i, s, l, &v)) != 0)
        if (flag(a, "--")) {
            only_files = 1;
        } else if (flag(a, "-h") || flag(a, "--help")) {
            fputs(usage_line, stdout);
            fputs(help_text, stdout);
            exit(0);
        } else if (flag(a, "-V") || flag(a, "--version")) {
            printf("ftio %s\n", FTIO_VERSION);
            exit(0);
        } else if (VALUE("-f", "--freq")) {
            if (r < 0 || parse_double(v, &d) || d <= 0)
                return usage("-f needs a positive frequency in Hz", v);
            cli->analysis.fs = d;
        } else if (VALUE("-m", "--mode")) {
            if (r < 0)
                return usage("-m needs read, write or all", NULL);
            if (strcmp(v, "write") == 0)
                cli->mode = FTIO_MODE_WRITE;
            else if (strcmp(v, "read") == 0)
                cli->mode = FTIO_MODE_READ;
            else if (strcmp(v, "all") == 0)
                cli->mode = FTIO_MODE_ALL;
            else
                return usage("-m needs read, write or all", v);
        } else if (VALUE("-t", "--tol")) {
            if (r < 0 || parse_double(v, &d) || d < 0 || d >= 1)
                return usage("-t needs a tolerance in [0, 1)", v);
            cli->analysis.tol = d;
        } else if (VALUE("-ts", "--ts")) {
            if (r < 0 || parse_double(v, &d))
                return usage("-ts needs a time in seconds", v);
            cli->analysis.t_start = d;
        } else if (VALUE("-te", "--te")) {
            if (r < 0 || parse_double(v, &d))
                return usage("-te needs a time in seconds", v);
            cli->analysis.t_end = d;
        } else if (VALUE("-n", "--top")) {
            char *end;
            long k = r < 0 ? -1 : strtol(v, &end, 10);
            if (r < 0 || *end || k < 0 || k > FTIO_MAX_CANDIDATES)
                return usage("-n needs a count from 0 to 32", v);
            cli->analysis.top_n = (int)k;
        } else if (flag(a, "--no-psd")) {
            cli->analysis.psd = false;
        } else if (flag(a, "--compat")) {
            compat = 1;
        } else if (VALUE(NULL, "--sampling")) {
            sampling_set = 1;
            if (r < 0)
                return usage("--sampling needs hold or average", NULL);
            if (strcmp(v, "hold") == 0)
                cli->analysis.sampling = FTIO_SAMPLING_HOLD;
            else if (strcmp(v, "average") == 0)
                cli->analysis.sampling = FTIO_SAMPLING_AVERAGE;
            else
                return usage("--sampling needs hold or average", v);
        } else if (flag(a, "--autocorrelation") || flag(a, "-a")) {
            cli->analysis.autocorrelation = true;
        } else if (VALUE(NULL, "--window")) {
            if (r < 0)
                return usage("--window needs a length in seconds or 'adaptive'", NULL);
            if (strcmp(v, "adaptive") == 0)
                d = 0;
            else if (parse_double(v, &d) || d <= 0)
                return usage("--window needs a length in seconds or 'adaptive'", v);
            cli->sliding = true;
            cli->window = d;
        } else if (VALUE(NULL, "--max-memory")) {
            if (r < 0 || parse_double(v, &d) || !(d >= 1))
                return usage("--max-memory needs a size in MB (at least 1)", v);
            cli->max_memory_mb = d;
        } else if (VALUE(NULL, "--step")) {
            if (r < 0 || parse_double(v, &d) || d <= 0)
                return usage("--step needs a positive time in seconds", v);
            cli->step = d;
        } else if (VALUE(NULL, "--dxt")) {
            if (r < 0)
                return usage("--dxt needs posix or mpiio", NULL);
            if (strcmp(v, "posix") == 0)
                cli->read.dxt = FTIO_DXT_POSIX;
            else if (strcmp(v, "mpiio") == 0)
                cli->read.dxt = FTIO_DXT_MPIIO;
            else
                return usage("--dxt needs posix or mpiio", v);
        } else if (VALUE(NULL, "--format")) {
            static const struct { const char *name; enum ftio_trace_format f; } fmts[] = {
                { "spool", FTIO_FORMAT_SPOOL }, { "tmio-json", FTIO_FORMAT_TMIO_JSON },
                { "json", FTIO_FORMAT_TMIO_JSON }, { "tmio-msgpack", FTIO_FORMAT_TMIO_MSGPACK },
                { "dxt", FTIO_FORMAT_DXT }, { "csv", FTIO_FORMAT_CSV }, { "darshan", FTIO_FORMAT_DARSHAN },
            };
            size_t k, nf = sizeof fmts / sizeof fmts[0];
            for (k = 0; r > 0 && k < nf && strcmp(v, fmts[k].name) != 0; k++)
                ;
            if (r < 0 || k == nf)
                return usage("--format needs spool, tmio-json, tmio-msgpack, dxt or csv", v);
            cli->read.format = fmts[k].f;
        } else if (flag(a, "--lenient")) {
            cli->read.lenient = true;
        } else if (flag(a, "--absolute-time")) {
            cli->read.absolute_time = true;
        } else if (flag(a, "--keep-nested")) {
            cli->read.keep_nested = true;
        } else if (flag(a, "--json")) {
            cli->json = true;
        } else if (VALUE(NULL, "--plot") || VALUE(NULL, "--export-signal") ||
                   VALUE(NULL, "--export-spectrum")) {
            /* The output files, opened by the analysis (predictor/plot/). */
            const char **dst = strncmp(a, "--plot", 6) == 0 ? &cli->plot
                             : strncmp(a, "--export-signal", 15) == 0 ? &cli->export_signal
                                                                      : &cli->export_spectrum;
            if (r < 0 || !*v)
                return usage("option needs a file name", a);
            *dst = v;
        } else {
            return usage(r < 0 ? "option needs a value" : "unknown option", a);
        }
#undef VALUE
    }
    if (compat) {
        /* The published FTIO: its detector and, unless --sampling says
         * otherwise, its zero-order hold. */
        cli->analysis.detector = FTIO_DETECTOR_COMPAT;
        if (!sampling_set)
            cli->analysis.sampling = FTIO_SAMPLING_HOLD;
    }
    if (cli->nfiles == 0)
        return usage("no trace file given", NULL);
    if (isfinite(cli->analysis.t_start) && isfinite(cli->analysis.t_end) &&
        cli->analysis.t_end <= cli->analysis.t_start)
        return usage("-te must be after -ts", NULL);
    cli->read.bare_mode = cli->mode == FTIO_MODE_READ ? FTIO_MODE_READ : FTIO_MODE_WRITE;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int (*run)(int, char **); } sub[] = {
        { "sub", ftio_cmd_sub }, { "replay", ftio_cmd_replay }, { "end", ftio_cmd_end },
        { "keygen", ftio_cmd_keygen }, { "scan", ftio_cmd_scan }, { "relay", ftio_cmd_relay },
        { "report", ftio_cmd_report },
    };
    for (size_t i = 0; argc > 1 && i < sizeof sub / sizeof sub[0]; i++)
        if (strcmp(argv[1], sub[i].name) == 0)
            return sub[i].run(argc - 1, argv + 1);
    struct ftio_cli cli;
    memset(&cli, 0, sizeof cli);
    int rc = parse_args(argc, argv, &cli);
    if (rc != 0) {
        free(cli.files);
        return rc;
    }
    struct ftio_trace_set set = { 0 };
    char err[1024], warn[1024];
    for (int i = 0; i < cli.nfiles; i++) {
        if (ftio_trace_read_file(&set, cli.files[i], &cli.read, err, sizeof err,
                                 warn, sizeof warn) != 0) {
            fprintf(stderr, "ftio: %s\n", err);
            ftio_trace_set_free(&set);
            free(cli.files);
            return 1;
        }
        if (warn[0])
            fprintf(stderr, "ftio: warning: %s\n", warn);
    }
    ftio_trace_set_finish(&set, &cli.read);
    rc = ftio_cli_analyze(&cli, &set);
    ftio_trace_set_free(&set);
    free(cli.files);
    return rc;
}
