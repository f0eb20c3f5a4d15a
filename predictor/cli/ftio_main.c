/* SPDX-License-Identifier: BSD-3-Clause */
/* ftio_main.c -- the `ftio` command: option parsing and dispatch.
 *
 * `ftio [options] FILE...` reads trace files of any supported format
 * (trace.h), merges them, and prints the period analysis (offline.c);
 * `ftio sub` and `ftio replay` dispatch to their own files (commands.h).
 * The options are one table (common/cliopt.h) parsed with getopt_long_only,
 * so that the reference implementation's single-dash long options (-ts,
 * -te) keep working; the analysis options and their bounds are shared with
 * ftiod (analysis_options.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_options.h"
#include "bigarray.h"
#include "cliopt.h"
#include "commands.h"
#include "units.h"
#include "scan/scan.h"

#ifndef FTIO_VERSION
#define FTIO_VERSION "unknown"
#endif

static const char usage_text[] =
    "usage: ftio [options] FILE...\n"
    "       ftio scan DIR|FILE... | ftio sub [options] | ftio replay FILE... | ftio end [JOB]\n"
    "       ftio relay --listen E --upstream E | ftio report LOG.jsonl [--job J] [-o FILE.html]\n"
    "       ftio keygen NAME | ftio claim JOB USER | ftio history list|show|forget|key\n"
    "       (each subcommand: --help; see ftio(1))\n";

static const char about_text[] =
    "Detect the period of the I/O phases in trace files and predict the next one.\n"
    "\n"
    "Formats (detected from content): ftio spool files, TMIO JSONL/JSON/msgpack,\n"
    "custom JSON, Darshan DXT text (darshan-dxt-parser), binary Darshan logs (.darshan,\n"
    "formats 3.00-3.41), CSV rank,op,t_start,t_end,bytes.\n"
    "Several files are merged (spool files per job).  Options may be written\n"
    "-f10, -f 10, --freq=10 or --freq 10; long ones with one dash too (-ts, -te).\n";

static const char epilog_text[] =
    "Exit status: 0, 1 when a trace cannot be read or analysed, 2 on a usage error.\n";

static const char *const format_names[] = {
    "spool", "tmio-json", "json", "tmio-msgpack", "dxt", "csv", "darshan", NULL,
};
static const int format_values[] = {
    FTIO_FORMAT_SPOOL, FTIO_FORMAT_TMIO_JSON, FTIO_FORMAT_TMIO_JSON, FTIO_FORMAT_TMIO_MSGPACK,
    FTIO_FORMAT_DXT, FTIO_FORMAT_CSV, FTIO_FORMAT_DARSHAN,
};
static const char *const dxt_names[] = {"posix", "mpiio", NULL};
static const int dxt_values[] = {FTIO_DXT_POSIX, FTIO_DXT_MPIIO};

/* What ftio's options set. */
struct ftio_settings {
    struct ftio_analysis_args a;   /* the analysis options, resolved into cli */
    struct ftio_cli cli;
    int format, dxt;               /* the readers' enums, as cliopt's ints */
};
/* Freed big arrays kept for reuse by the next stage (bigarray.h): the
 * sweep's scratch (8 B per request) serves the activities and the phase
 * walk after it; no more, so the peak stays the sweep's. */
#define OFFLINE_KEEP_BYTES ((size_t)256 << 20)

#define AT(member) CLIOPT_AT(struct ftio_settings, member)

/* The option table of `ftio`: the analysis options shared with ftiod and
 * ftio scan (CLIOPT_SHARED: analysis_options.h), with ftio's own words where
 * they differ, and the readers'. */
static const struct cliopt ftio_opts[] = {
    {.type = CLIOPT_SECTION, .help = "Analysis:"},
    {"freq", .type = CLIOPT_SHARED},
    {"mode", .type = CLIOPT_SHARED},
    {"tol", .type = CLIOPT_SHARED},
    {"ts", .type = CLIOPT_SHARED},
    {"te", .type = CLIOPT_SHARED},
    {"top", .type = CLIOPT_SHARED},
    {"no-psd", .type = CLIOPT_SHARED},
    {"compat", .type = CLIOPT_SHARED},
    {"sampling", .type = CLIOPT_SHARED,
     .help = "hold (zero-order hold, the published FTIO's and the\n"
             "default of --compat) or average (bin averages: conserve\n"
             "the volume, do not depend on where the grid falls)"},
    {"autocorrelation", .type = CLIOPT_SHARED},
    {"window", .type = CLIOPT_SHARED,
     .help = "sliding analysis with a fixed window of S seconds, or\n"
             "'adaptive' (frequency hits, as ftiod); one line per step"},
    {"step", .type = CLIOPT_SHARED, .help = "time between sliding analyses"},
    {"max-memory", .type = CLIOPT_SHARED,
     .help = "bound on the analysis' memory; the samples are also\n"
             "capped by what the input justifies (64 per record)"},
    {"detector", .type = CLIOPT_SHARED},
    {.type = CLIOPT_SECTION, .help = "Input and output:"},
    {"dxt", 0, CLIOPT_CHOICE, "LAYER", "Darshan DXT layer: posix or mpiio (default: mpiio if present)",
     NULL, AT(dxt), .choices = dxt_names, .values = dxt_values},
    {"format", 0, CLIOPT_CHOICE, "F",
     "force the format: spool, tmio-json, tmio-msgpack, dxt,\n"
     "darshan or csv (default: detected)", NULL,
     AT(format), .choices = format_names, .values = format_values},
    {"lenient", 0, CLIOPT_FLAG, NULL, "analyse what could be read from damaged files", NULL,
     AT(cli.read.lenient)},
    {"max-span", 0, CLIOPT_DOUBLE, "S",
     "drop (with a warning) requests longer than S seconds,\n"
     "as ftiod drops those longer than its horizon",
     CLIOPT_NUM(FTIO_MAX_SPAN_DEFAULT),
     AT(cli.read.max_span), .min = FTIO_MAX_SPAN_MIN, .max = FTIO_MAX_SPAN_MAX},
    {"absolute-time", 0, CLIOPT_FLAG, NULL,
     "spool files: keep Unix epoch times (default: relative)", NULL, AT(cli.read.absolute_time)},
    {"keep-nested", 0, CLIOPT_FLAG, NULL, "spool files: count data at POSIX, drop MPI-IO records",
     NULL, AT(cli.read.keep_nested)},
    {"json", 0, CLIOPT_FLAG, NULL, "print the JSON prediction object (PROTOCOL.md §2)", NULL,
     AT(cli.json)},
    /* Pictures and exports (predictor/plot/), opened by the analysis. */
    {"plot", 0, CLIOPT_STRING, "FILE.html",
     "also write a self-contained HTML page: signal, phases,\n"
     "reconstruction, next phase, spectrum (and, with --window,\n"
     "the prediction history)", NULL, AT(cli.plot)},
    {"export-signal", 0, CLIOPT_STRING, "FILE.csv",
     "the sampled signal: job,mode,time_s,bandwidth_B_per_s", NULL, AT(cli.export_signal)},
    {"export-spectrum", 0, CLIOPT_STRING, "FILE.csv",
     "the spectrum: frequency, period, amplitude, power share,\n"
     "threshold and candidate flags per bin", NULL, AT(cli.export_spectrum)},
    CLIOPT_HELP_VERSION("the version"),
    {0},
};
#undef AT

/* Parse the command line into *out: 0, or 2 on a usage error (--help and
 * --version exit 0 here). */
static int parse_args(int argc, char **argv, struct ftio_cli *out)
{
    struct ftio_settings s;
    memset(&s, 0, sizeof s);
    struct ftio_analysis_args *a = &s.a;
    struct ftio_cli *cli = &s.cli;
    ftio_analysis_args_default(a);
    ftio_read_options_default(&cli->read);
    s.format = (int)cli->read.format;
    s.dxt = (int)cli->read.dxt;
    struct cliopt shared[FTIO_AOPT_ENTRIES + 1], t[sizeof ftio_opts / sizeof ftio_opts[0]];
    shared[ftio_analysis_cliopts(a, ~0u, shared)] = (struct cliopt){0};
    struct cliopt_parser p = {
        .prog = "ftio", .version = FTIO_VERSION, .usage = usage_text, .about = about_text,
        .epilog = epilog_text, .opts = t, .long_only = true,
    };
    if (cliopt_bind(t, ftio_opts, &s, shared) != 0)
        return 2;
    int first = cliopt_parse_argv(&p, argc, argv);
    cliopt_free(&p);
    if (first == -1)
        exit(0);
    if (first < 0)
        return 2;
    char err[256];
    if (ftio_analysis_args_finish(a, true, err, sizeof err) != 0 ||
        (a->window_set && ftio_analysis_check_step(a->step, a->opts.fs, err, sizeof err) != 0)) {
        fprintf(stderr, "ftio: %s\n", err);
        return 2;
    }
    if (first >= argc) {
        fprintf(stderr, "ftio: no trace file given (see ftio --help)\n");
        return 2;
    }
    cli->analysis = a->opts;
    cli->both = a->mode == 3;
    cli->mode = cli->both ? FTIO_MODE_WRITE : (enum ftio_io_mode)a->mode;
    cli->sliding = a->window_set;
    cli->window = a->window;
    cli->step = a->step;
    cli->max_memory_mb = a->max_memory_mb;
    cli->read.format = (enum ftio_trace_format)s.format;
    cli->read.dxt = (enum ftio_dxt_layer)s.dxt;
    cli->read.bare_mode = cli->mode == FTIO_MODE_READ ? FTIO_MODE_READ : FTIO_MODE_WRITE;
    /* one analysis describes its phases (cli/phases.c); --window's steps do not */
    cli->read.phases = !cli->sliding;
    cli->files = argv + first;
    cli->nfiles = argc - first;
    *out = *cli;
    return 0;
}

/* I/O the trace records and the signal does not hold (Darshan's DFS and
 * DAOS modules, modules this reader does not know): named, with its bytes,
 * and what it does to the answer (its confidence is capped by the share the
 * signal holds, offline.c). */
static void warn_unread(const struct ftio_trace *t)
{
    char rd[FTIO_UNITS_LEN], wr[FTIO_UNITS_LEN];
    double seen = ftio_trace_bytes(t, FTIO_MODE_READ) + ftio_trace_bytes(t, FTIO_MODE_WRITE);
    double unread = t->unread_bytes[0] + t->unread_bytes[1];
    fprintf(stderr, "ftio: warning: %s%sDarshan's %s module%s: I/O that ftio does not read", t->job,
            t->job[0] ? ": " : "", t->unread, strchr(t->unread, ',') ? "s" : "");
    if (isnan(unread))
        fprintf(stderr, " (bytes unknown); the answer's confidence is at most 0.5\n");
    else
        fprintf(stderr, ", %s written and %s read; the signal holds %.3g %% of the job's I/O, "
                "and the answer's confidence is at most that share\n",
                ftio_fmt_bytes(t->unread_bytes[1], wr, sizeof wr),
                ftio_fmt_bytes(t->unread_bytes[0], rd, sizeof rd),
                unread > 0 ? 100 * seen / (seen + unread) : 100.0);
}

int main(int argc, char **argv)
{
    /* run, or the description of a command that asks ftiod's control socket */
    static const struct {
        const char *name;
        int (*run)(int, char **);
        const struct ftio_control_cmd *control;
    } sub[] = {
        { "sub", ftio_cmd_sub, NULL }, { "replay", ftio_cmd_replay, NULL },
        { "end", NULL, &ftio_end_cmd }, { "claim", NULL, &ftio_claim_cmd },
        { "keygen", ftio_cmd_keygen, NULL }, { "scan", ftio_cmd_scan, NULL },
        { "relay", ftio_cmd_relay, NULL }, { "report", ftio_cmd_report, NULL },
        { "history", ftio_cmd_history, NULL },
    };
    for (size_t i = 0; argc > 1 && i < sizeof sub / sizeof sub[0]; i++)
        if (strcmp(argv[1], sub[i].name) == 0)
            return sub[i].run ? sub[i].run(argc - 1, argv + 1)
                              : ftio_control_client_main(sub[i].control, argc - 1, argv + 1);
    struct ftio_cli cli;
    memset(&cli, 0, sizeof cli);
    int rc = parse_args(argc, argv, &cli);
    if (rc != 0)
        return rc;
    struct ftio_trace_set set = { 0 };
    char err[1024], warn[1024];
    ftio_big_keep(OFFLINE_KEEP_BYTES);   /* the analysis' scratch reuses its pages */
    for (int i = 0; i < cli.nfiles; i++) {
        if (ftio_trace_read_file(&set, cli.files[i], &cli.read, err, sizeof err,
                                 warn, sizeof warn) != 0) {
            fprintf(stderr, "ftio: %s\n", err);
            ftio_trace_set_free(&set);
            return 1;
        }
        if (warn[0])
            fprintf(stderr, "ftio: warning: %s\n", warn);
    }
    ftio_trace_set_finish(&set, &cli.read);
    for (size_t j = 0; j < set.n; j++)
        if (set.job[j].unread[0])
            warn_unread(&set.job[j]);
    for (size_t j = 0; j < set.n; j++)
        if (set.job[j].dropped_long)
            fprintf(stderr, "ftio: warning: %s%s%llu requests longer than --max-span %g s dropped "
                    "(%.6g bytes): a bad timestamp?\n", set.job[j].job, set.job[j].job[0] ? ": " : "",
                    (unsigned long long)set.job[j].dropped_long, cli.read.max_span,
                    set.job[j].dropped_long_bytes);
    rc = ftio_cli_analyze(&cli, &set);
    ftio_trace_set_free(&set);
    return rc;
}
