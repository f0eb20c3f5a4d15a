/* SPDX-License-Identifier: BSD-3-Clause */
/* ftiod_main.c -- ftiod: options, sockets, signals and the life of the daemon.
 *
 * The settings are one static table, ftiod_opts[] (common/cliopt.h), the
 * one home of each default: the command line, the configuration file
 * (--config, default $SYSCONFDIR/ftio/ftiod.conf; the command line wins),
 * the environment column, --help and --print-config (packaging/ftiod.conf)
 * read it; the analysis options and their bounds are ftio's
 * (analysis_options.h).
 *
 * Start-up binds every socket first (a busy port is a clear error before
 * anything runs), then starts the analysis threads (scheduler.c) and runs
 * the ingest loop (ingest.c) in this thread until SIGINT/SIGTERM.  Shutdown
 * takes 2 s at most: the analysis threads publish the final summaries they
 * have time for (scheduler.c) and leave, the PUB socket lingers what is
 * left of the 2 s so those last messages reach the subscribers.  SIGHUP
 * reopens --log (logrotate): the handler only sets a flag, an analysis
 * thread reopens it between two lines.
 */
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>
#include "analysis_options.h"
#include "auth.h"
#include "cliopt.h"
#include "control.h"
#include "curve.h"
#include "daemon.h"
#include "defaults.h"
#include "history_glue.h"
#include "ftio_paths.h"   /* FTIOD_CONFIG_DEFAULT: $(SYSCONFDIR)/ftio/ftiod.conf */
#include "machine.h"
#include "timeutil.h"
#include "zmtp_listen.h"

static struct ftiod *the_daemon;   /* for the signal handler only */
/* The jobs at exit: their memory goes back with the process (below).
 * volatile: a store to a static nothing reads is otherwise dropped, and a
 * leak checker then finds the table lost. */
static volatile struct job_table jobs_at_exit;

static void on_signal(int sig)
{
    if (!the_daemon)
        return;
    if (sig == SIGHUP)
        the_daemon->reopen = 1;
    else {
        if (!the_daemon->stop)   /* clock_gettime is async-signal-safe */
            the_daemon->signalled_ns = ftio_mono_ns();
        the_daemon->stop = 1;
    }
}

/* The threads other than this one must not take the signals (a signal
 * interrupts the blocking call of whichever thread takes it): they are
 * started with these blocked and inherit the mask. */
static void block_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, old);
}

static const char usage_text[] =
    "usage: ftiod [--config FILE|none] [options]\n"
    "       ftiod --status [--status-endpoint E[,E...]] [--server-key K --key FILE] [--json]\n";

static const char about_text[] =
    "Receives I/O records from libftio.so (ZeroMQ ROUTER), predicts each job's I/O\n"
    "phases online and publishes the predictions (ZeroMQ PUB, JSON).\n"
    "Every long option can also be a line `option = value` of the configuration\n"
    "file (a bare `option` for a flag); the command line wins.\n";

/* The environment comes before this, from the table's env column. */
static const char epilog_text[] =
    "Exit status: 0, 1 when the daemon cannot start (or --status fails), 2 on a\n"
    "usage or configuration error.\n";

/* --socket-mode: octal permissions */
static int set_socket_mode(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long m = strtol(val, &end, 8);
    if (errno || end == val || *end || m < 0 || m > 0777) {
        snprintf(err, errlen, "must be octal permissions in [0, 0777] (e.g. 0660), not '%s'", val);
        return -1;
    }
    *(long *)o->ctx = m;
    return 0;
}

static const char *const auth_names[] = {"munge", "none", NULL};
static const int auth_values[] = {FTIO_AUTH_MUNGE, FTIO_AUTH_NONE};

/* SIGTERM to exit, s (the analysis threads take SCHED_STOP_BUDGET of it). */
#define STOP_BOUND 1.85

static const char *const catch_up_names[] = {"newest", "every", NULL};
static const int catch_up_values[] = {FTIOD_CATCH_UP_NEWEST, FTIOD_CATCH_UP_EVERY};

/* What the command line asks besides the daemon's configuration. */
struct ftiod_cmdline {
    bool status, json, print_config;
    const char *server_key, *key, *config;
};

/* Everything ftiod's options set: the daemon's configuration, the analysis
 * options shared with ftio (resolved into cfg after parsing, parse_args)
 * and what the command line asks besides. */
struct ftiod_settings {
    struct ftiod_config cfg;
    struct ftio_analysis_args a;
    struct ftiod_cmdline cl;
};
#define AT(member) CLIOPT_AT(struct ftiod_settings, member)

/* ftiod's settings, the one home of each: name, type, help, default (what
 * cliopt_defaults() sets, checked against the bounds), bounds, environment
 * variable; the command line, the configuration file, --help,
 * --print-config (packaging/ftiod.conf) and the man page's check
 * (tests/cli/options.sh) all read it.  The analysis options are ftio's
 * (CLIOPT_SHARED: analysis_options.h's bounds), with ftiod's own words and
 * defaults where they differ. */
static const struct cliopt ftiod_opts[] = {
    {.type = CLIOPT_SECTION, .help = "Endpoints and files:"},
    {"listen", 0, CLIOPT_STRING, "E", "ingest endpoint for the shims", FTIO_DEFAULT_ENDPOINT,
     AT(cfg.listen)},
    {"pub", 0, CLIOPT_STRING, "E", "PUB endpoint for predictions", FTIO_DEFAULT_PUB, AT(cfg.pub)},
    {"status-endpoint", 0, CLIOPT_LIST, "E",
     "REP endpoint for --status, ftio end and ftio sub --last;\n"
     "with --status: several (E,E or repeated) are all asked", FTIO_DEFAULT_STATUS,
     AT(cfg.status), .env = "FTIO_STATUS", .env_with = "status"},
    {"log", 0, CLIOPT_STRING, "FILE", "append everything published as JSON Lines", NULL,
     AT(cfg.log_path)},
    {"state-dir", 0, CLIOPT_STRING, "DIR",
     "keep every job's state in DIR: a restarted ftiod goes on\n"
     "with the same jobs (PROTOCOL.md §5)", NULL, AT(cfg.state_dir)},
    {"history", 0, CLIOPT_STRING, "STORE",
     "the memory of runs (predictions from a job's first\n"
     "batch): a SQLite file, a postgresql:// URI several\n"
     "daemons share, none, or auto (DIR/history.sqlite with\n"
     "--state-dir DIR, else none)", "auto", AT(cfg.history)},
    {"history-apps", 0, CLIOPT_SIZE, "N",
     "applications kept per user in the memory of runs, the\n"
     "least recently used forgotten (0 = no bound)", "1000", AT(cfg.history_apps),
     .min = 0, .max = 1e9},
    /* No def: the default file alone may be missing (parse_args). */
    {"config", 0, CLIOPT_STRING, "FILE",
     "configuration file ($FTIO_DAEMON_CONFIG, else\n"
     FTIOD_CONFIG_DEFAULT " when it exists; 'none': no file)", NULL, AT(cl.config),
     .flags = CLIOPT_NOCONF, .env = "FTIO_DAEMON_CONFIG"},
    {.type = CLIOPT_SECTION, .help = "Analysis (the same options and bounds as ftio's):"},
    {"freq", .type = CLIOPT_SHARED},
    {"tol", .type = CLIOPT_SHARED},
    {"no-psd", .type = CLIOPT_SHARED},
    {"compat", .type = CLIOPT_SHARED,
     .help = "the published FTIO detector and adaptive window, digit\n"
             "for digit (default: the robust detector)"},
    /* Online the window start is not the trace's t_0 when the bins are laid
     * out, and hold samples of an aliasing-prone signal depend on the grid's
     * phase; the average (exact integral per bin) conserves volume and does
     * not.  --sampling hold gives the offline [compat] default. */
    {"sampling", .type = CLIOPT_SHARED,
     .help = "hold or average: average online because it conserves\n"
             "volume and does not depend on where the bin grid falls",
     .def = "average"},
    {"window", .type = CLIOPT_SHARED, .help = "fixed analysis window of S s, or 'adaptive' (0)",
     .def = "adaptive"},
    {"step", .type = CLIOPT_SHARED,
     .help = "data seconds between analyses of a job and mode, the\n"
             "boundaries of `ftio --window --step`",
     .def = "1"},
    {"max-memory", .type = CLIOPT_SHARED,
     .help = "memory the jobs may use, MB (what each job holds now:\n"
             "a few dozen KB; while a job is short, its bins and\n"
             "--summary-records of records)",
     .def = "8192"},
    /* robust, unless --compat says otherwise (ftio_analysis_args_finish) */
    {"detector", .type = CLIOPT_SHARED, .flags = CLIOPT_DEF_DOC},
    {"settle", 0, CLIOPT_DOUBLE, "S",
     "seconds a boundary waits for late records (the shim\nflushes every second)", "1.5",
     AT(cfg.settle), .min = 0, .flags = CLIOPT_NOMAX},
    {"min-interval", 0, CLIOPT_DOUBLE, "S",
     "live: at least S wall seconds between analyses of one\njob and mode", "0",
     AT(cfg.min_interval), .min = 0, .flags = CLIOPT_NOMAX},
    {"threads", 0, CLIOPT_SIZE, "N", "analysis threads (0 = one per core)", "0", AT(cfg.threads),
     .min = 0, .max = 4096},
    {"catch-up", 0, CLIOPT_CHOICE, "HOW",
     "a job more than one boundary behind (a replay, a busy\n"
     "daemon): newest = its newest boundary at once; every =\n"
     "each boundary, the messages of `ftio --window`", "newest",
     AT(cfg.catch_up), .choices = catch_up_names, .values = catch_up_values},
    {"horizon", 0, CLIOPT_DOUBLE, "S", "seconds of signal kept per job and mode",
     CLIOPT_NUM(FTIO_DEFAULT_HORIZON),
     AT(cfg.limits.horizon), .min = 1, .flags = CLIOPT_NOMAX},
    {"summary-records", 0, CLIOPT_SIZE, "N",
     "records kept per job and mode, while its whole record\n"
     "is, to lay the end summary's grid on the earliest record\n"
     "(0 = never)", CLIOPT_NUM(JOB_SUMMARY_RECORDS_DEFAULT),
     AT(cfg.limits.summary_records), .min = 0, .max = 1e9},
    {.type = CLIOPT_SECTION, .help = "The whole machine (topic ftio.machine, PROTOCOL.md §2):"},
    {"machine-horizon", 0, CLIOPT_DOUBLE, "S",
     "seconds the machine forecast looks ahead (1-s steps)",
     CLIOPT_NUM(MACHINE_HORIZON_DEFAULT), AT(cfg.machine_horizon), .min = 10, .max = 86400},
    {"machine-history", 0, CLIOPT_DOUBLE, "S",
     "seconds of observed aggregate bandwidth it publishes",
     CLIOPT_NUM(MACHINE_HISTORY_DEFAULT), AT(cfg.machine_history), .min = 10, .max = 86400},
    {"machine-log", 0, CLIOPT_SIZE, "S",
     "a machine message in --log every S s (0: none; on\n"
     "--pub: every second)", CLIOPT_NUM(MACHINE_LOG_DEFAULT), AT(cfg.machine_log),
     .min = 0, .max = 86400},
    {"machine-jobs", 0, CLIOPT_SIZE, "N",
     "jobs listed with their predicted phases per message", CLIOPT_NUM(MACHINE_JOBS_DEFAULT),
     AT(cfg.machine_jobs), .min = 0, .max = 100000},
    {"metrics-listen", 0, CLIOPT_STRING, "[HOST:]PORT",
     "Prometheus metrics on http://HOST:PORT/metrics (HOST:\n"
     "127.0.0.1 unless given, * for any; default: none)", NULL, AT(cfg.metrics_listen)},
    {.type = CLIOPT_SECTION, .help = "Jobs and limits:"},
    {"job-timeout", 0, CLIOPT_DOUBLE, "S", "end a job after S s of silence", "300",
     AT(cfg.job_timeout), .min = 0.001, .flags = CLIOPT_NOMAX},
    {"settle-end", 0, CLIOPT_DOUBLE, "S",
     "a job whose processes all sent their final batch ends\n"
     "after S s without a new one (ended_by idle); at once\n"
     "when every MPI rank finalised (ended_by final)", "2",
     AT(cfg.settle_end), .min = 0, .max = 3600},
    {"keep-ended", 0, CLIOPT_SIZE, "N", "ended jobs kept for --status and ftio sub --last", "64",
     AT(cfg.keep_ended), .min = 0, .max = FTIOD_MAX_ENDED},
    {"late-batches", 0, CLIOPT_DOUBLE, "S",
     "an ended job takes late batches S s more (a spool file\n"
     "replayed after the end): they give a corrected .end", "600",
     AT(cfg.late_batches), .min = 0, .flags = CLIOPT_NOMAX},
    /* A site's login node: thousands of jobs at once (a job holds what it
     * sent, ~0.1 MB for a short one: README, bench/README.md "sitescale"). */
    {"max-jobs", 0, CLIOPT_SIZE, "N", "jobs tracked at once", "20000", AT(cfg.max_jobs),
     .min = 1, .max = 1e7},
    {"max-procs", 0, CLIOPT_SIZE, "N", "processes per job", CLIOPT_NUM(JOB_MAX_PROCS_DEFAULT), AT(cfg.limits.max_procs),
     .min = 1, .max = 1e9},
    {"max-msg", 0, CLIOPT_I64, "BYTES", "largest message accepted", "268435456", AT(cfg.max_msg),
     .min = 64, .max = 1e15},
    {"rcvhwm", 0, CLIOPT_INT, "N", "batches queued per sender before it must wait", "10000",
     AT(cfg.rcvhwm), .min = 0, .max = 1e9},
    {.type = CLIOPT_SECTION, .help = "Security (docs/SECURITY.md):"},
    {"auth", 0, CLIOPT_CHOICE, "MODE",
     "munge: every batch must carry a MUNGE credential; an id\n"
     "nobody claimed is its sender's, u<uid>:ID.  none: no\n"
     "authentication, only on ipc:// or loopback --listen", "munge",
     AT(cfg.auth), .choices = auth_names, .values = auth_values},
    {"munge-socket", 0, CLIOPT_STRING, "PATH", "munged's socket (default: libmunge's)", NULL,
     AT(cfg.munge_socket)},
    {"curve-secret", 0, CLIOPT_STRING, "FILE",
     "CURVE secret key (ftio keygen): PUB and status encrypted", NULL, AT(cfg.curve_secret)},
    {"curve-clients", 0, CLIOPT_STRING, "DIR",
     "public keys allowed to subscribe and to see every job", NULL, AT(cfg.curve_clients)},
    /* No def: unset (-1, config_default) is 0777 & ~umask (ipc_permissions). */
    {"socket-mode", 0, CLIOPT_CUSTOM, "MODE",
     "octal permissions of ipc:// endpoints (e.g. 0660;\ndefault: 0777 & ~umask)", NULL,
     AT(cfg.socket_mode), .set = set_socket_mode},
    {"socket-group", 0, CLIOPT_STRING, "G", "group of ipc:// endpoints", NULL,
     AT(cfg.socket_group)},
    /* No def: unset (0) is computed from the descriptor limit (security_setup). */
    {"max-connections", 0, CLIOPT_SIZE, "N",
     "open ingest connections (default min(10000, fd limit - 256))", NULL,
     AT(cfg.max_connections), .min = 1, .max = 1e7},
    {"user-jobs", 0, CLIOPT_SIZE, "N", "jobs one uid may own at once (0 = no bound)", "32",
     AT(cfg.user_jobs), .min = 0, .max = 1e9},
    {"user-procs", 0, CLIOPT_SIZE, "N", "processes of one uid, all jobs (0 = no bound)", "65536",
     AT(cfg.user_procs), .min = 0, .max = 1e12},
    {"user-rate", 0, CLIOPT_DOUBLE, "N", "records per second of one uid (0 = no bound)", "0",
     AT(cfg.user_rate), .min = 0, .flags = CLIOPT_NOMAX},
    {.type = CLIOPT_SECTION, .help = "Asking a running ftiod, and the rest:"},
    {"status", 0, CLIOPT_FLAG, NULL, "ask the running ftiod(s) for their jobs and exit", NULL,
     AT(cl.status), .flags = CLIOPT_NOCONF},
    {"server-key", 0, CLIOPT_STRING, "K",
     "with --status: the daemon's CURVE public key (or file)", NULL, AT(cl.server_key),
     .flags = CLIOPT_NOCONF},
    {"key", 0, CLIOPT_STRING, "FILE", "with --status: our CURVE key pair (ftio keygen)", NULL,
     AT(cl.key), .flags = CLIOPT_NOCONF},
    {"json", 0, CLIOPT_FLAG, NULL, "with --status: print the raw JSON", NULL, AT(cl.json),
     .flags = CLIOPT_NOCONF},
    {"verbose", 'v', CLIOPT_COUNT, NULL, "log jobs and every analysis on stderr", NULL,
     AT(cfg.verbose)},
    {"print-config", 0, CLIOPT_FLAG, NULL,
     "print every option as a configuration file (defaults) and exit", NULL,
     AT(cl.print_config), .flags = CLIOPT_NOCONF},
    CLIOPT_HELP_VERSION("print the version"),
    {0},
};
#undef AT

/* What is not a setting: the job limits the table does not set (how far a
 * record may be from the receiver's clock), the analysis options' own
 * defaults, unset sentinels. */
static void config_default(struct ftiod_settings *s)
{
    memset(s, 0, sizeof *s);
    job_limits_default(&s->cfg.limits);
    ftio_analysis_args_default(&s->a);
    s->cfg.socket_mode = -1;
}

/* The option table of ftiod (command line and configuration file alike)
 * into s.  Returns 0 to run, 1 to exit 0 (help, version, --print-config),
 * -1 on a usage or configuration error (exit 2). */
static int parse_args(int argc, char **argv, struct ftiod_settings *s)
{
    struct ftiod_config *c = &s->cfg;
    config_default(s);
    struct cliopt shared[FTIO_AOPT_ENTRIES + 1], t[sizeof ftiod_opts / sizeof ftiod_opts[0]];
    shared[ftio_analysis_cliopts(&s->a, ~0u, shared)] = (struct cliopt){0};
    struct cliopt_parser p = {
        .prog = "ftiod", .version = FTIO_VERSION, .usage = usage_text, .about = about_text,
        .epilog = epilog_text, .opts = t,
    };
    int rc = 0, first = cliopt_bind(t, ftiod_opts, s, shared) != 0 || cliopt_defaults(&p) != 0
                            ? -2 : cliopt_parse_command(&p, argc, argv, 0, 0, NULL);
    if (first == -1) {
        rc = 1;
    } else if (first < 0) {
        rc = -1;
    } else if (s->cl.print_config) {
        /* No compiled-in path here: packaging/ftiod.conf is this text for every PREFIX. */
        printf("# ftiod.conf -- ftiod's configuration file (ftiod --config, default\n"
               "# SYSCONFDIR/ftio/ftiod.conf): one `option = value` per line, a bare `option` for\n"
               "# a flag, # comments.  Every long option of ftiod(1) is accepted, with the\n"
               "# same checks; the command line wins.  Below: every option, commented out,\n"
               "# with its default.\n");
        cliopt_config_template(&p, stdout);
        rc = 1;
    } else {
        /* --config (or FTIO_DAEMON_CONFIG, the file the clients read too)
         * must exist; the default alone may be missing. */
        const char *file = s->cl.config ? s->cl.config : FTIOD_CONFIG_DEFAULT;
        if (strcmp(file, "none") != 0 && cliopt_parse_file(&p, file, !s->cl.config) < 0)
            rc = -1;
    }
    char err[256];
    if (rc == 0 && ftio_analysis_args_finish(&s->a, false, err, sizeof err) != 0) {
        cliopt_error(&p, "%s", err);
        rc = -1;
    }
    /* Strings from the configuration file live as long as the daemon. */
    c->cliopt_strings = p;
    c->cliopt_strings.opts = NULL;
    if (rc != 0)
        return rc;
    c->limits.opts = s->a.opts;
    c->limits.step = s->a.step;
    c->limits.window = s->a.window;
    c->max_memory = s->a.max_memory_mb * 1048576;
    if (s->cl.status)
        return 0;
    if (strchr(c->status, ',')) {
        fprintf(stderr, "ftiod: --status-endpoint: one endpoint to bind, not a list\n");
        return -1;
    }
    if (c->limits.window > 0 && c->limits.window > c->limits.horizon) {
        fprintf(stderr, "ftiod: --window %g is longer than --horizon %g\n", c->limits.window,
                c->limits.horizon);
        return -1;
    }
    if (ftiod_metrics_check(c->metrics_listen, err, sizeof err) != 0) {
        fprintf(stderr, "ftiod: %s\n", err);
        return -1;
    }
    if (c->limits.horizon * c->limits.opts.fs > 1e8) {
        fprintf(stderr, "ftiod: --horizon x --freq is over 1e8 bins per job and mode\n");
        return -1;
    }
    return 0;
}

/* The online loop's boundaries must fall on bin edges: whole bins per step
 * (the bound ftio --window --step shares, analysis_options.h). */
static int check_step(struct ftiod_config *c)
{
    char err[160];
    if (ftio_analysis_check_step(c->limits.step, c->limits.opts.fs, err, sizeof err) != 0) {
        fprintf(stderr, "ftiod: %s\n", err);
        return -1;
    }
    return 0;
}

/* Is the endpoint reachable from this host only (ipc://, inproc://,
 * tcp:// on a loopback address)? */
static bool local_only(const char *ep)
{
    if (!strncmp(ep, "ipc://", 6) || !strncmp(ep, "inproc://", 9))
        return true;
    if (strncmp(ep, "tcp://", 6))
        return false;
    const char *h = ep + 6;
    return !strncmp(h, "127.", 4) || !strncmp(h, "localhost:", 10) || !strncmp(h, "[::1]:", 6);
}

/* ipc:// endpoints: the socket file's group (--socket-group) and mode:
 * --socket-mode, else what bind(2) would give under ftiod's umask (0777 &
 * ~umask: 0750 under the unit's UMask=0027).  bind_socket() binds under
 * umask 0077 and this sets the mode after, so no socket is ever looser than
 * asked, and ftiod's own umask is never changed (docs/SECURITY.md). */
static int ipc_permissions(const struct ftiod_config *c, const char *ep, const char *what,
                           mode_t umask_was)
{
    if (strncmp(ep, "ipc://", 6))
        return 0;
    const char *path = ep + 6;
    if (c->socket_group) {
        struct group *g = getgrnam(c->socket_group);
        char *end;
        long gid = g ? (long)g->gr_gid : strtol(c->socket_group, &end, 10);
        if ((!g && (*end || gid < 0)) || chown(path, (uid_t)-1, (gid_t)gid) != 0) {
            ftiod_log_at(FTIOD_ERROR,
                         "%s %s: cannot give it to group %s: %s", what, ep, c->socket_group,
                         g || !*end ? strerror(errno) : "no such group");
            return -1;
        }
    }
    mode_t mode = c->socket_mode >= 0 ? (mode_t)c->socket_mode : 0777 & ~umask_was;
    if (chmod(path, mode) != 0) {
        ftiod_log_at(FTIOD_ERROR, "%s %s: chmod %03o: %s", what, ep, (unsigned)mode,
                     strerror(errno));
        return -1;
    }
    return 0;
}

/* domain: the ZAP domain (zap.c), NULL for none.  curve: serve CURVE with
 * the daemon's secret key. */
static void *bind_socket(struct ftiod *d, int type, const char *endpoint, const char *what,
                         const char *domain, const char *curve_secret)
{
    void *s = zmq_socket(d->zctx, type);
    if (!s)
        return NULL;
    int linger = type == ZMQ_PUB ? 2000 : 0, one = 1, handshake = 10000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_HANDSHAKE_IVL, &handshake, sizeof handshake);
    if (type == ZMQ_ROUTER) {
        int hwm = d->cfg.rcvhwm;
        zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &d->cfg.max_msg, sizeof d->cfg.max_msg);
        zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof hwm);
    }
    if (curve_secret && (zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof one) != 0 ||
                         zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, curve_secret, 40) != 0)) {
        ftiod_log_at(FTIOD_ERROR, "%s: cannot serve CURVE: %s", what, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    if (domain)
        zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, domain, strlen(domain));
    /* No window in which an ipc:// socket file has looser permissions
     * than asked: bound private, then given its mode (ipc_permissions).
     * ftiod's umask is back before any other thread of ours starts. */
    mode_t old = umask(0077);
    int rc = zmq_bind(s, endpoint);
    umask(old);
    if (rc < 0) {
        ftiod_log_at(FTIOD_ERROR,
                     "cannot bind %s endpoint %s: %s", what, endpoint, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    if (ipc_permissions(&d->cfg, endpoint, what, old) != 0) {
        zmq_close(s);
        return NULL;
    }
    return s;
}

/* Checks of the security options before anything is bound; says what is
 * open to whom. */
static int security_setup(struct ftiod *d, char curve_secret[41])
{
    struct ftiod_config *c = &d->cfg;
    if (c->auth == FTIO_AUTH_NONE) {
        if (!local_only(c->listen)) {
            ftiod_log_at(FTIOD_ERROR,
                         "--auth none is allowed only on an ipc:// or loopback --listen (not %s)",
                         c->listen);
            return -1;
        }
        ftiod_log_at(FTIOD_WARNING,
                     "--auth none: batches are not authenticated; any local user can send into "
                     "any job on %s", c->listen);
    }
    char err[512];
    if (!(d->auth = ftiod_auth_new(c->auth, c->munge_socket, err, sizeof err)) ||
        !(d->quota = ftiod_quota_new()) || !(d->claims = ftiod_claims_new())) {
        ftiod_log_at(FTIOD_ERROR, "%s", d->auth ? "out of memory" : err);
        return -1;
    }
    if (c->curve_clients && !c->curve_secret) {
        ftiod_log_at(FTIOD_ERROR, "--curve-clients needs --curve-secret");
        return -1;
    }
    if (c->curve_secret) {
        char pub[41];
        if (ftio_curve_load_pair(c->curve_secret, pub, curve_secret, err, sizeof err) != 0) {
            ftiod_log_at(FTIOD_ERROR, "--curve-secret: %s", err);
            return -1;
        }
        struct stat st;
        if (stat(c->curve_secret, &st) == 0 && (st.st_mode & 077))
            ftiod_log_at(FTIOD_WARNING,
                         "--curve-secret %s is readable by others (mode %03o): chmod 600 it",
                         c->curve_secret, (unsigned)(st.st_mode & 0777));
        if (!c->curve_clients)
            ftiod_log_at(FTIOD_WARNING,
                         "--curve-secret without --curve-clients: nobody may subscribe, "
                         "users see their own jobs only");
        ftiod_log_at(FTIOD_INFO, "CURVE on --pub and --status-endpoint; server public key %s", pub);
    } else if (!local_only(c->pub) || !local_only(c->status)) {
        ftiod_log_at(FTIOD_WARNING,
                     "without --curve-secret, anyone who reaches %s reads every prediction",
                     c->pub);
    }
    /* Connections cost descriptors: take what the hard limit allows and
     * bound the ingest connections below it, so the status socket can
     * always accept. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
        double room = (double)rl.rlim_cur - 256;
        if (c->max_connections == 0)
            c->max_connections = (size_t)fmax(16, fmin(10000, room));
        else if ((double)c->max_connections > room)
            ftiod_log_at(FTIOD_WARNING,
                         "--max-connections %zu is above the descriptor limit %.0f - 256",
                         c->max_connections, (double)rl.rlim_cur);
    } else if (c->max_connections == 0) {
        c->max_connections = 768;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct ftiod *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "ftiod: out of memory\n");
        return 1;
    }
    struct ftiod_settings s;
    int rc = parse_args(argc, argv, &s);
    struct ftiod_cmdline cl = s.cl;
    d->cfg = s.cfg;
    if (rc == 0 && !cl.status && check_step(&d->cfg) != 0)
        rc = -1;
    if (rc == 0 && !cl.status && (cl.server_key || cl.key)) {
        fprintf(stderr, "ftiod: --server-key and --key go with --status\n");
        rc = -1;
    }
    if (rc != 0) {
        cliopt_free(&d->cfg.cliopt_strings);
        free(d);
        return rc > 0 ? 0 : 2;
    }
    if (cl.status) {
        struct ftio_query_opts q = {
            .server_key = cl.server_key, .key_file = cl.key,
            .timeout = 3.0, .munge = ftio_auth_query_munge(),
        };
        rc = ftiod_status_client(&q, d->cfg.status, cl.json);
        cliopt_free(&d->cfg.cliopt_strings);
        free(d);
        return rc;
    }

    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->pub_lock, NULL);
    pthread_cond_init(&d->wake, NULL);
    job_table_init(&d->jobs, d->cfg.max_jobs);
    d->started = ftiod_now();
    d->zctx = zmq_ctx_new();
    rc = 1;
    double t_ingest = 0, t_threads = 0;
    char curve_secret[41] = "";
    pthread_t zap_th;
    bool zap_started = false;
    if (!d->zctx || security_setup(d, curve_secret) != 0 || ftiod_publish_open(d) < 0)
        goto out;
    if (!(d->machine = ftiod_machine_new(d->cfg.machine_horizon, d->cfg.machine_history))) {
        ftiod_log_at(FTIOD_ERROR, "out of memory");
        goto out;
    }
    if (d->cfg.state_dir) {
        char err[512];
        if (!(d->state = ftiod_state_open(d->cfg.state_dir, err, sizeof err))) {
            ftiod_log_at(FTIOD_ERROR, "%s", err);   /* fatal: the daemon stops */
            goto out;
        }
        if (ftiod_state_restore(d->state, d) != 0)
            goto out;
    }
    const char *curve = d->cfg.curve_secret ? curve_secret : NULL;
    if (!(d->router = bind_socket(d, ZMQ_ROUTER, d->cfg.listen, "--listen", "ingest", NULL)))
        goto out;
    /* ipc://: the shims' direct way in beside it, as private until its mode */
    mode_t um = umask(0077);
    const char *direct = ftiod_zmtp_listen_open(d, d->cfg.listen);   /* zmtp_listen.c */
    umask(um);
    if (direct && ipc_permissions(&d->cfg, direct, "--listen", um) != 0)
        goto out;
    /* The ZAP handler before any peer can connect to a socket with a domain. */
    sigset_t old;
    block_signals(&old);
    int zap_rc = ftiod_zap_start(d, &zap_th);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (zap_rc != 0)
        goto out;
    zap_started = true;
    if (!(d->pub = bind_socket(d, ZMQ_PUB, d->cfg.pub, "--pub", curve ? "pub" : NULL, curve)) ||
        !(d->rep = bind_socket(d, ZMQ_REP, d->cfg.status, "--status-endpoint",
                               curve ? "status" : NULL, curve)))
        goto out;
    memset(curve_secret, 0, sizeof curve_secret);

    the_daemon = d;
    struct sigaction sa = {.sa_handler = on_signal};   /* no SA_RESTART: wake zmq_poll */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    block_signals(&old);
    int started = ftiod_analysis_start(d);
    if (started == 0 && ftiod_history_start(d) != 0)   /* the memory of runs' thread */
        started = -1;
    int machine = started < 0 ? 0 : ftiod_machine_start(d);
    int metrics = started < 0 || machine < 0 ? 0 : ftiod_metrics_start(d);
    int trimmer = started < 0 || machine < 0 ? 0 : ftiod_pool_trimmer_start(d);   /* heap.c */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < 0 || machine < 0 || metrics < 0 || trimmer < 0) {
        if (started < 0 || machine < 0 || trimmer < 0)
            ftiod_log_at(FTIOD_ERROR, "cannot start the analysis threads");
        goto out;
    }
    ftiod_log_at(FTIOD_NOTICE,
                 "listening on %s (auth %s, at most %zu connections), publishing on %s, "
                 "status on %s", d->cfg.listen, ftio_auth_mode_name(d->cfg.auth),
                 d->cfg.max_connections, d->cfg.pub, d->cfg.status);

    rc = ftiod_ingest_loop(d) < 0 ? 1 : 0;
    t_ingest = ftiod_now();

    ftiod_metrics_stop(d);
    ftiod_machine_stop(d);
    ftiod_analysis_stop(d);
    ftiod_history_stop(d);   /* after the last .end: its run is written */
    ftiod_pool_trimmer_stop(d);   /* after the ends: a trim under way does not delay them */
    t_threads = ftiod_now();
    ftiod_log_at(FTIOD_NOTICE, "stopped (%llu batches, %llu records, %llu predictions published)",
                 (unsigned long long)d->stats.batches, (unsigned long long)d->stats.records,
                 (unsigned long long)d->stats.published);
out:
    ftiod_metrics_stop(d);
    ftiod_machine_stop(d);
    if (d->pool)
        ftiod_analysis_stop(d);
    ftiod_history_stop(d);
    ftiod_pool_trimmer_stop(d);
    d->zap_stop = 1;
    if (zap_started)
        pthread_join(zap_th, NULL);
    /* The last acknowledgements and the end messages may linger for what
     * is left of the 2 s. */
    int linger = d->stop_at > 0 ? (int)(1000 * (STOP_BOUND - (ftiod_now() - d->stop_at))) : 0;
    if (linger < 50)
        linger = 50;
    ftiod_ingest_close(d, linger);
    if (d->rep)
        zmq_close(d->rep);
    if (d->pub) {
        zmq_setsockopt(d->pub, ZMQ_LINGER, &linger, sizeof linger);
        zmq_close(d->pub);
    }
    if (d->zctx)
        zmq_ctx_term(d->zctx);
    ftiod_publish_close(d);
    /* Where a stop's time went (bench/sitescale.sh --open), from the signal:
     * a starved daemon may see it late. */
    if (d->stop_at > 0 && t_threads > 0) {
        double sig = d->signalled_ns ? (double)d->signalled_ns * 1e-9 : d->stop_at;
        ftiod_log_at(FTIOD_INFO, "exit: the analysis threads saw the stop at %.2f s, the ingest "
                     "stopped at %.2f s, the analyses at %.2f s, the sockets closed at %.2f s "
                     "after the signal", d->stop_at - sig, t_ingest - sig, t_threads - sig,
                     ftiod_now() - sig);
    }
    ftiod_auth_free(d->auth);
    ftiod_quota_free(d->quota);
    ftiod_claims_free(d->claims);
    ftiod_state_release_all(d->state, &d->jobs);
    ftiod_state_close(d->state);
    /* Not freed block by block: 10,000 jobs with an hour of history took
     * 2.3 s of a stop bounded at 2 s on a loaded machine (issue 27).  The
     * table stays reachable, so a leak checker finds nothing lost. */
    jobs_at_exit = d->jobs;
    ftiod_machine_free(d->machine);
    ftiod_ended_free(d);
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->pub_lock);
    the_daemon = NULL;
    cliopt_free(&d->cfg.cliopt_strings);
    free(d);
    return rc;
}
