/* SPDX-License-Identifier: BSD-3-Clause */
/* commands.h -- entry points of the `ftio` command's parts.
 *
 *   ftio [options] FILE...   offline analysis  (ftio_main.c, offline.c)
 *   ftio sub [options]       subscribe to ftiod's predictions      (sub.c)
 *   ftio replay FILE...      send spool files to a running ftiod   (replay.c)
 *   ftio end JOB             end a job in ftiod now                (end.c)
 *   ftio claim JOB USER      give a job id to a user               (claim.c)
 *   ftio keygen NAME         a CURVE key pair                      (keygen.c)
 *   ftio relay               a node's connection to ftiod          (relay.c)
 *   ftio report LOG.jsonl    the page of a finished live job   (report_cmd.c)
 *   ftio history list|show|forget|key  the memory of runs      (history.c)
 *
 * Each returns the process exit status (0 ok, 1 failure, 2 usage).  argv[0]
 * is the subcommand name.
 */
#ifndef FTIO_CLI_COMMANDS_H
#define FTIO_CLI_COMMANDS_H

#include <stdbool.h>
#include "analysis.h"
#include "cliopt.h"
#include "control.h"
#include "trace.h"

int ftio_cmd_sub(int argc, char **argv);
int ftio_cmd_replay(int argc, char **argv);
int ftio_cmd_keygen(int argc, char **argv);
int ftio_cmd_relay(int argc, char **argv);
int ftio_cmd_report(int argc, char **argv);
int ftio_cmd_history(int argc, char **argv);
/* The page of a status socket's `last` answer (one prediction per mode, or
 * "steps" of them, or an ended job's "summary"): `ftio sub --last --plot`.
 * from: the page's subtitle.  0, or 1 with the reason said on stderr. */
struct json_t;
int ftio_report_last_page(struct json_t *answer, const char *job, const char *from,
                          const char *out);

/* Where ftiod is when no option says so (endpoints.c): FTIO_ENDPOINT,
 * FTIO_PUB, FTIO_STATUS, else the daemon's configuration file
 * (FTIO_DAEMON_CONFIG, default FTIOD_CONFIG_DEFAULT of ftio_paths.h), else ftiod's defaults. */
struct ftio_endpoints { const char *listen, *pub, *status; };
void ftio_default_endpoints(struct ftio_endpoints *e);

/* What `ftio end` and `ftio claim` share (endpoints.c): they ask every ftiod
 * of a list on its control socket, with the options --endpoint E[,E...]
 * (alias --status-endpoint), --timeout S, --server-key K, --key FILE. */
struct ftio_control_client;
struct ftio_control_cmd {
    const char *prog;           /* "ftio end" */
    const char *operands;       /* in the synopsis, after the options: "[JOB]" */
    int min_args, max_args;     /* how many */
    const char *args_error;     /* the complaint when their number is wrong */
    bool tell_each;             /* every daemon of a list is told (claim), not
                                   tried in turn until one knows the job (end) */
    const char *about;          /* --help: what it does */
    const char *environment;    /* --help: its own variables, or NULL */
    const char *exit_status;    /* --help: after "Exit status: " */
    /* The command's work on its operands, after the options: the exit status. */
    int (*run)(const struct ftio_control_client *c, char **args, int nargs);
};
struct ftio_control_client {
    const struct ftio_control_cmd *cmd;
    const char *endpoints;      /* status endpoints, comma-separated */
    struct ftio_query_opts q;   /* keys, timeout; MUNGE unless FTIO_AUTH=none */
    struct cliopt_parser p;     /* owns a repeated --endpoint's list */
    struct cliopt t[8];
    char endpoint_help[128], timeout_help[64], usage[160], epilog[640];
};
/* `ftio end` (end.c) and `ftio claim` (claim.c). */
extern const struct ftio_control_cmd ftio_end_cmd, ftio_claim_cmd;
/* Parse the command line (the options, the number of operands, --key only
 * with --server-key), then cmd->run; returns the exit status. */
int ftio_control_client_main(const struct ftio_control_cmd *cmd, int argc, char **argv);
/* Can the request be sent (a job id that fits the protocol)?  true, or
 * false after "PROG: reason" on stderr (a usage error). */
bool ftio_control_client_valid(const struct ftio_control_client *c, enum ftio_control_verb v,
                               const char *job, int64_t uid);

/* Options of the offline analysis, parsed by ftio_main.c. */
struct ftio_cli {
    struct ftio_options      analysis;
    struct ftio_read_options read;
    enum ftio_io_mode        mode;
    bool   both;             /* -m both: write and read, analysed one after the other */
    bool   json;
    bool   sliding;          /* --window given */
    double window;           /* fixed window length; 0 = adaptive */
    double step;             /* --step: time between sliding analyses */
    double max_memory_mb;    /* --max-memory: bound on the analysis' memory */
    const char *plot;            /* --plot FILE.html (predictor/plot/) */
    const char *export_signal;   /* --export-signal FILE.csv */
    const char *export_spectrum; /* --export-spectrum FILE.csv */
    int    nfiles;
    char **files;
};

/* sub_machine.c: `ftio sub --machine` (the options of sub.c that apply). */
struct sub_machine_opts {
    const char *endpoints;          /* PUB endpoints, comma-separated */
    const char *status_endpoints;   /* --last: control sockets */
    const char *server_key, *key;
    bool json, last;
    int count;
    double timeout, duration;
};
int ftio_sub_machine(const struct sub_machine_opts *o);

/* report_machine.c: `ftio report --machine ...` (argv as ftio report's). */
int ftio_report_machine(int argc, char **argv);

/* phases.c: describe each phase of mode of trace t (answer r, sampled at
 * fs) into obj ("phases" and the typical phase's fields in "phase") or as
 * a line of text; 0, or -1 out of memory. */
int ftio_cli_phases(const struct ftio_trace *t, enum ftio_io_mode mode, const struct ftio_result *r,
                    double fs, json_t *obj, FILE *text);

/* Analyse every job of the set and print the result; returns exit status. */
int ftio_cli_analyze(const struct ftio_cli *cli, const struct ftio_trace_set *set);

#endif
