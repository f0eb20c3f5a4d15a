/* main.c -- ftiod: options, sockets, signals and the life of the daemon.
 *
 * Start-up binds every socket first (a busy port is a clear error before
 * anything runs), then starts the analysis thread (analyze.c) and runs the
 * ingest loop (ingest.c) in this thread until SIGINT/SIGTERM.  Shutdown:
 * the ingest loop takes what is queued, the analysis thread publishes the
 * final summary of every job and leaves, the PUB socket lingers so those
 * last messages reach the subscribers.  SIGHUP reopens --log (logrotate):
 * the handler only sets a flag, the analysis thread, which owns the file,
 * reopens it between two lines.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>
#include "auth.h"
#include "curve.h"
#include "daemon.h"

static struct ftiod *the_daemon;   /* for the signal handler only */

static void on_signal(int sig)
{
    if (!the_daemon)
        return;
    if (sig == SIGHUP)
        the_daemon->reopen = 1;
    else
        the_daemon->stop = 1;
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

static void usage(FILE *out)
{
    fprintf(out,
"usage: ftiod [options]\n"
"       ftiod --status [--status-endpoint E] [--server-key K --key FILE] [--json]\n"
"Receives I/O records from libftio.so (ZeroMQ ROUTER), predicts each job's I/O\n"
"phases online and publishes the predictions (ZeroMQ PUB, JSON).\n"
"\n"
"  --listen E           ingest endpoint for the shims (tcp://127.0.0.1:5555)\n"
"  --pub E              PUB endpoint for predictions (tcp://127.0.0.1:5556)\n"
"  --status-endpoint E  REP endpoint for --status (tcp://127.0.0.1:5557)\n"
"  --log FILE           append everything published as JSON Lines\n"
"  -f, --freq HZ        sampling frequency of the signal (10)\n"
"  -t, --tol X          candidate tolerance (0.8)\n"
"  --no-psd             amplitude instead of power spectrum\n"
"  --compat             the published FTIO detector and adaptive window, digit\n"
"                       for digit (default: the robust detector)\n"
"  --sampling M         hold or average (average): average is the default online\n"
"                       because it conserves volume and does not depend on\n"
"                       where the bin grid falls, which hold does for aliasing-\n"
"                       prone signals when the window start is not t_0\n"
"  --step S             data seconds between analyses of a job and mode (1),\n"
"                       the boundaries of `ftio --window --step`\n"
"  --settle S           seconds a boundary waits for late records (1.5; the\n"
"                       shim flushes every second)\n"
"  --min-interval S     live: at least S wall seconds between analyses of one\n"
"                       job and mode (0)\n"
"  --window S           fixed analysis window of S s (default: adaptive)\n"
"  --horizon S          seconds of signal kept per job and mode (3600)\n"
"  --job-timeout S      end a job after S s of silence (300)\n"
"  --keep-ended S       keep an ended job S s for late batches (a replayed spool\n"
"                       file): they give a corrected end message (600)\n"
"  --state-dir DIR      keep every job's state in DIR: a restarted ftiod goes on\n"
"                       with the same jobs (PROTOCOL.md §4)\n"
"  --max-jobs N         jobs tracked at once (256)\n"
"  --max-procs N        processes per job (65536)\n"
"  --max-msg BYTES      largest message accepted (268435456)\n"
"  --summary-records N  records kept per job and mode to lay the end summary's\n"
"                       grid on the earliest record (131072, 0 = never)\n"
"  --rcvhwm N           batches queued per sender before it must wait (10000)\n"
"\n"
"Security (docs/SECURITY.md):\n"
"  --auth MODE          munge (default): every batch must carry a MUNGE credential;\n"
"                       a job belongs to the uid of its first batch.  none: no\n"
"                       authentication, only on ipc:// or loopback --listen\n"
"  --munge-socket PATH  munged's socket (libmunge's default)\n"
"  --curve-secret FILE  CURVE secret key (ftio keygen): PUB and status encrypted\n"
"  --curve-clients DIR  public keys allowed to subscribe and to see every job\n"
"  --socket-mode MODE   octal permissions of ipc:// endpoints (e.g. 0660)\n"
"  --socket-group G     group of ipc:// endpoints\n"
"  --max-connections N  open ingest connections (min(10000, fd limit - 256))\n"
"  --user-jobs N        jobs one uid may own at once (32, 0 = no bound)\n"
"  --user-procs N       processes of one uid, all jobs (65536, 0 = no bound)\n"
"  --user-rate N        records per second of one uid (0 = no bound)\n"
"  --max-memory MB      memory the jobs may reserve (4096)\n"
"\n"
"  --status             ask a running ftiod for its jobs and exit\n"
"  --server-key K       with --status: the daemon's CURVE public key (or file)\n"
"  --key FILE           with --status: our CURVE key pair (ftio keygen)\n"
"  --json               with --status: print the raw JSON\n"
"  -v, --verbose        log jobs and every analysis on stderr\n"
"  -V, --version        print the version\n"
"  -h, --help           this help\n");
}

static int parse_double(const char *opt, const char *s, double min, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min) {
        fprintf(stderr, "ftiod: %s: invalid value '%s' (a number >= %g)\n", opt, s, min);
        return -1;
    }
    *out = v;
    return 0;
}

enum {
    OPT_LISTEN = 256, OPT_PUB, OPT_STATUS_EP, OPT_LOG, OPT_NOPSD, OPT_MIN_INTERVAL,
    OPT_WINDOW, OPT_HORIZON, OPT_JOB_TIMEOUT, OPT_MAX_JOBS, OPT_MAX_PROCS,
    OPT_MAX_MSG, OPT_RCVHWM, OPT_STATUS, OPT_JSON, OPT_SAMPLING,
    OPT_SUMMARY_RECORDS, OPT_COMPAT, OPT_STEP, OPT_SETTLE,
    OPT_AUTH, OPT_MUNGE_SOCKET, OPT_CURVE_SECRET, OPT_CURVE_CLIENTS, OPT_SOCKET_MODE,
    OPT_SOCKET_GROUP, OPT_MAX_CONNECTIONS, OPT_USER_JOBS, OPT_USER_PROCS, OPT_USER_RATE,
    OPT_MAX_MEMORY, OPT_SERVER_KEY, OPT_KEY, OPT_KEEP_ENDED, OPT_STATE_DIR,
};

/* Client side of --status. */
struct status_opts { const char *server_key, *key; };

/* Returns 0 to run, 1 to exit 0 (help/version), -1 on error. */
static int parse_args(int argc, char **argv, struct ftiod_config *c, bool *status, bool *json,
                      struct status_opts *so)
{
    static const struct option longopts[] = {
        {"listen", 1, 0, OPT_LISTEN},           {"pub", 1, 0, OPT_PUB},
        {"status-endpoint", 1, 0, OPT_STATUS_EP}, {"log", 1, 0, OPT_LOG},
        {"freq", 1, 0, 'f'},                    {"tol", 1, 0, 't'},
        {"no-psd", 0, 0, OPT_NOPSD},            {"compat", 0, 0, OPT_COMPAT},
        {"step", 1, 0, OPT_STEP},               {"settle", 1, 0, OPT_SETTLE},            {"min-interval", 1, 0, OPT_MIN_INTERVAL},
        {"sampling", 1, 0, OPT_SAMPLING},      {"summary-records", 1, 0, OPT_SUMMARY_RECORDS},
        {"window", 1, 0, OPT_WINDOW},           {"horizon", 1, 0, OPT_HORIZON},
        {"job-timeout", 1, 0, OPT_JOB_TIMEOUT}, {"max-jobs", 1, 0, OPT_MAX_JOBS},
        {"keep-ended", 1, 0, OPT_KEEP_ENDED},   {"state-dir", 1, 0, OPT_STATE_DIR},
        {"max-procs", 1, 0, OPT_MAX_PROCS},     {"max-msg", 1, 0, OPT_MAX_MSG},
        {"rcvhwm", 1, 0, OPT_RCVHWM},           {"status", 0, 0, OPT_STATUS},           {"json", 0, 0, OPT_JSON},
        {"verbose", 0, 0, 'v'},                 {"version", 0, 0, 'V'},
        {"auth", 1, 0, OPT_AUTH},               {"munge-socket", 1, 0, OPT_MUNGE_SOCKET},
        {"curve-secret", 1, 0, OPT_CURVE_SECRET}, {"curve-clients", 1, 0, OPT_CURVE_CLIENTS},
        {"socket-mode", 1, 0, OPT_SOCKET_MODE}, {"socket-group", 1, 0, OPT_SOCKET_GROUP},
        {"max-connections", 1, 0, OPT_MAX_CONNECTIONS}, {"user-jobs", 1, 0, OPT_USER_JOBS},
        {"user-procs", 1, 0, OPT_USER_PROCS},   {"user-rate", 1, 0, OPT_USER_RATE},
        {"max-memory", 1, 0, OPT_MAX_MEMORY},   {"server-key", 1, 0, OPT_SERVER_KEY},
        {"key", 1, 0, OPT_KEY},
        {"help", 0, 0, 'h'},                    {0, 0, 0, 0},
    };
    int ch;
    double v;
    while ((ch = getopt_long(argc, argv, "f:t:vVh", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_LISTEN: c->listen = optarg; break;
        case OPT_PUB: c->pub = optarg; break;
        case OPT_STATUS_EP: c->status = optarg; break;
        case OPT_LOG: c->log_path = optarg; break;
        case 'f':
            if (parse_double("--freq", optarg, 1e-3, &v) < 0)
                return -1;
            if (v > 1e4) {
                fprintf(stderr, "ftiod: --freq: at most 10000 Hz\n");
                return -1;
            }
            c->opts.fs = c->limits.fs = v;
            break;
        case 't':
            if (parse_double("--tol", optarg, 0, &v) < 0)
                return -1;
            c->opts.tol = v;
            break;
        case OPT_NOPSD: c->opts.psd = false; break;
        case OPT_COMPAT: c->opts.detector = FTIO_DETECTOR_COMPAT; break;
        case OPT_SAMPLING:
            if (strcmp(optarg, "hold") == 0) {
                c->opts.sampling = FTIO_SAMPLING_HOLD;
            } else if (strcmp(optarg, "average") == 0) {
                c->opts.sampling = FTIO_SAMPLING_AVERAGE;
            } else {
                fprintf(stderr, "ftiod: --sampling: invalid value '%s' (hold or average)\n",
                        optarg);
                usage(stderr);
                return -1;
            }
            break;
        case OPT_MIN_INTERVAL:
            if (parse_double("--min-interval", optarg, 0, &c->min_interval) < 0)
                return -1;
            break;
        case OPT_WINDOW:
            if (parse_double("--window", optarg, 0, &c->window) < 0)
                return -1;
            break;
        case OPT_STEP:
            if (parse_double("--step", optarg, 0.001, &c->step) < 0)
                return -1;
            break;
        case OPT_SETTLE:
            if (parse_double("--settle", optarg, 0, &c->settle) < 0)
                return -1;
            break;
        case OPT_HORIZON:
            if (parse_double("--horizon", optarg, 1, &c->limits.horizon) < 0)
                return -1;
            break;
        case OPT_JOB_TIMEOUT:
            if (parse_double("--job-timeout", optarg, 0.001, &c->job_timeout) < 0)
                return -1;
            break;
        case OPT_KEEP_ENDED:
            if (parse_double("--keep-ended", optarg, 0, &c->keep_ended) < 0)
                return -1;
            break;
        case OPT_STATE_DIR: c->state_dir = optarg; break;
        case OPT_MAX_JOBS:
            if (parse_double("--max-jobs", optarg, 1, &v) < 0)
                return -1;
            c->max_jobs = (size_t)v;
            break;
        case OPT_MAX_PROCS:
            if (parse_double("--max-procs", optarg, 1, &v) < 0)
                return -1;
            c->limits.max_procs = (size_t)v;
            break;
        case OPT_MAX_MSG:
            if (parse_double("--max-msg", optarg, 64, &v) < 0)
                return -1;
            c->max_msg = (int64_t)v;
            break;
        case OPT_SUMMARY_RECORDS:
            if (parse_double("--summary-records", optarg, 0, &v) < 0)
                return -1;
            c->limits.summary_records = (size_t)fmin(v, 1e9);
            break;
        case OPT_RCVHWM:
            if (parse_double("--rcvhwm", optarg, 0, &v) < 0)
                return -1;
            c->rcvhwm = (int)fmin(v, 1e9);
            break;
        case OPT_AUTH:
            if ((c->auth = ftio_auth_mode_parse(optarg)) < 0) {
                fprintf(stderr, "ftiod: --auth: invalid value '%s' (munge or none)\n", optarg);
                return -1;
            }
            break;
        case OPT_MUNGE_SOCKET: c->munge_socket = optarg; break;
        case OPT_CURVE_SECRET: c->curve_secret = optarg; break;
        case OPT_CURVE_CLIENTS: c->curve_clients = optarg; break;
        case OPT_SOCKET_MODE: {
            char *end;
            errno = 0;
            long m = strtol(optarg, &end, 8);
            if (errno || end == optarg || *end || m < 0 || m > 0777) {
                fprintf(stderr, "ftiod: --socket-mode: invalid value '%s' (octal, e.g. 0660)\n",
                        optarg);
                return -1;
            }
            c->socket_mode = m;
            break;
        }
        case OPT_SOCKET_GROUP: c->socket_group = optarg; break;
        case OPT_MAX_CONNECTIONS:
            if (parse_double("--max-connections", optarg, 1, &v) < 0)
                return -1;
            c->max_connections = (size_t)fmin(v, 1e7);
            break;
        case OPT_USER_JOBS:
            if (parse_double("--user-jobs", optarg, 0, &v) < 0)
                return -1;
            c->user_jobs = (size_t)fmin(v, 1e9);
            break;
        case OPT_USER_PROCS:
            if (parse_double("--user-procs", optarg, 0, &v) < 0)
                return -1;
            c->user_procs = (size_t)fmin(v, 1e12);
            break;
        case OPT_USER_RATE:
            if (parse_double("--user-rate", optarg, 0, &c->user_rate) < 0)
                return -1;
            break;
        case OPT_MAX_MEMORY:
            if (parse_double("--max-memory", optarg, 1, &v) < 0)
                return -1;
            c->max_memory = fmin(v, 1e9) * 1048576;
            break;
        case OPT_SERVER_KEY: so->server_key = optarg; break;
        case OPT_KEY: so->key = optarg; break;
        case OPT_STATUS: *status = true; break;
        case OPT_JSON: *json = true; break;
        case 'v': c->verbose++; break;
        case 'V': printf("ftiod %s\n", FTIO_VERSION); return 1;
        case 'h': usage(stdout); return 1;
        default:
            fprintf(stderr, "ftiod: try 'ftiod --help'\n");
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ftiod: unexpected argument '%s' (try 'ftiod --help')\n", argv[optind]);
        return -1;
    }
    if (c->window > 0 && c->window > c->limits.horizon) {
        fprintf(stderr, "ftiod: --window %g is longer than --horizon %g\n", c->window,
                c->limits.horizon);
        return -1;
    }
    if (c->limits.horizon * c->limits.fs > 1e8) {
        fprintf(stderr, "ftiod: --horizon x --freq is over 1e8 bins per job and mode\n");
        return -1;
    }
    return 0;
}

static void config_default(struct ftiod_config *c)
{
    memset(c, 0, sizeof *c);
    c->listen = "tcp://127.0.0.1:5555";
    c->pub = "tcp://127.0.0.1:5556";
    c->status = "tcp://127.0.0.1:5557";
    c->min_interval = 0;
    c->step = 1.0;
    c->settle = 1.5;
    c->job_timeout = 300.0;
    c->keep_ended = 600.0;
    c->max_jobs = 256;
    c->max_msg = 256ll << 20;
    c->rcvhwm = 10000;
    c->auth = FTIO_AUTH_MUNGE;
    c->socket_mode = -1;
    c->user_jobs = 32;
    c->user_procs = 65536;
    c->max_memory = 4096.0 * 1048576;
    job_limits_default(&c->limits);
    ftio_options_default(&c->opts);
    /* Online the window start is not the trace's t_0 when the bins are laid
     * out, and hold samples of an aliasing-prone signal depend on the grid's
     * phase; the average (exact integral per bin) conserves volume and does
     * not.  --sampling hold gives the offline [compat] default. */
    c->opts.sampling = FTIO_SAMPLING_AVERAGE;
    c->limits.fs = c->opts.fs;
}

/* The online loop's boundaries must fall on bin edges: whole bins per step. */
static int check_step(struct ftiod_config *c)
{
    double bins = c->step * c->limits.fs;
    if (fabs(bins - round(bins)) > 1e-9 * bins || round(bins) < 1) {
        fprintf(stderr, "ftiod: --step %g s is not a whole number of bins at %g Hz\n",
                c->step, c->limits.fs);
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

/* ipc:// endpoints: --socket-mode / --socket-group on the socket file. */
static int ipc_permissions(const struct ftiod_config *c, const char *ep, const char *what)
{
    if (strncmp(ep, "ipc://", 6) || (c->socket_mode < 0 && !c->socket_group))
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
    if (c->socket_mode >= 0 && chmod(path, (mode_t)c->socket_mode) != 0) {
        ftiod_log_at(FTIOD_ERROR, "%s %s: chmod %lo: %s", what, ep, c->socket_mode,
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
     * than asked. */
    mode_t old = umask(d->cfg.socket_mode >= 0 ? 0077 : umask(0));
    int rc = zmq_bind(s, endpoint);
    umask(old);
    if (rc < 0) {
        ftiod_log_at(FTIOD_ERROR,
                     "cannot bind %s endpoint %s: %s", what, endpoint, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    if (ipc_permissions(&d->cfg, endpoint, what) != 0) {
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
        !(d->quota = ftiod_quota_new())) {
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
    bool status = false, json = false;
    struct status_opts so = {0};
    config_default(&d->cfg);
    int rc = parse_args(argc, argv, &d->cfg, &status, &json, &so);
    if (rc == 0 && !status && check_step(&d->cfg) != 0)
        rc = -1;
    if (rc != 0) {
        free(d);
        return rc > 0 ? 0 : 2;
    }
    if (status) {
        struct ftio_query_opts q = {
            .endpoint = d->cfg.status, .server_key = so.server_key, .key_file = so.key,
            .timeout = 3.0, .munge = getenv("FTIO_AUTH") == NULL ||
                                     ftio_auth_mode_parse(getenv("FTIO_AUTH")) != FTIO_AUTH_NONE,
        };
        rc = ftiod_status_client(&q, json);
        free(d);
        return rc;
    }
    if (so.server_key || so.key) {
        fprintf(stderr, "ftiod: --server-key and --key go with --status\n");
        free(d);
        return 2;
    }

    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->wake, NULL);
    job_table_init(&d->jobs, d->cfg.max_jobs);
    d->started = ftiod_now();
    d->zctx = zmq_ctx_new();
    rc = 1;
    char curve_secret[41] = "";
    pthread_t zap_th;
    bool zap_started = false;
    if (!d->zctx || security_setup(d, curve_secret) != 0 || ftiod_publish_open(d) < 0)
        goto out;
    if (d->cfg.state_dir) {
        char err[512];
        if (!(d->state = ftiod_state_open(d->cfg.state_dir, err, sizeof err))) {
            ftiod_log("%s", err);
            goto out;
        }
        if (ftiod_state_restore(d->state, d) != 0)
            goto out;
    }
    const char *curve = d->cfg.curve_secret ? curve_secret : NULL;
    if (!(d->router = bind_socket(d, ZMQ_ROUTER, d->cfg.listen, "--listen", "ingest", NULL)))
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
    pthread_t th;
    int started = ftiod_analysis_start(d, &th);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < 0) {
        ftiod_log_at(FTIOD_ERROR, "cannot start the analysis thread");
        goto out;
    }
    ftiod_log_at(FTIOD_NOTICE,
                 "listening on %s (auth %s, at most %zu connections), publishing on %s, "
                 "status on %s", d->cfg.listen, ftio_auth_mode_name(d->cfg.auth),
                 d->cfg.max_connections, d->cfg.pub, d->cfg.status);

    rc = ftiod_ingest_loop(d) < 0 ? 1 : 0;

    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    pthread_join(th, NULL);
    ftiod_log_at(FTIOD_NOTICE, "stopped (%llu batches, %llu records, %llu predictions published)",
                 (unsigned long long)d->stats.batches, (unsigned long long)d->stats.records,
                 (unsigned long long)d->stats.published);
out:
    d->zap_stop = 1;
    if (zap_started)
        pthread_join(zap_th, NULL);
    if (d->router)
        zmq_close(d->router);
    if (d->rep)
        zmq_close(d->rep);
    if (d->pub)
        zmq_close(d->pub);
    if (d->zctx)
        zmq_ctx_term(d->zctx);
    ftiod_publish_close(d);
    ftiod_auth_free(d->auth);
    ftiod_quota_free(d->quota);
    for (size_t i = 0; i < d->jobs.n; i++)
        ftiod_state_release(d->jobs.job[i]);
    ftiod_state_close(d->state);
    job_table_free(&d->jobs);
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    the_daemon = NULL;
    free(d);
    return rc;
}
