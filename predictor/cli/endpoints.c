/* SPDX-License-Identifier: BSD-3-Clause */
/* endpoints.c -- how the client subcommands reach ftiod.
 *
 * Where ftiod is when no option says so: the environment (FTIO_ENDPOINT,
 * FTIO_PUB, FTIO_STATUS), else the daemon's own configuration file
 * ($SYSCONFDIR/ftio/ftiod.conf: its listen, pub and status-endpoint, so that
 * on the daemon's host `ftio sub` just works), else ftiod's built-in
 * defaults.  A wildcard bind address in the file (tcp://ANY:P written with a
 * star, or tcp://0.0.0.0:P) is reached at tcp://127.0.0.1:P.
 *
 * And the options of the commands that ask ftiod's control socket (`ftio
 * end`, `ftio claim`): which daemons, how long to wait, which CURVE keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "auth.h"
#include "cliopt.h"
#include "ftio_paths.h"   /* FTIOD_CONFIG_DEFAULT */
#include "commands.h"
#include "defaults.h"

/* Bind address -> an address to connect to (in buf). */
static const char *connectable(const char *ep, char *buf, size_t len)
{
    static const char *const wild[] = {"tcp://*:", "tcp://0.0.0.0:"};
    for (size_t i = 0; i < 2; i++)
        if (strncmp(ep, wild[i], strlen(wild[i])) == 0) {
            snprintf(buf, len, "tcp://127.0.0.1:%s", ep + strlen(wild[i]));
            return buf;
        }
    return ep;
}

static void keep_endpoint(char *dst, size_t len, const char *ep)
{
    char tmp[512];
    snprintf(dst, len, "%s", connectable(ep, tmp, sizeof tmp));
}

void ftio_default_endpoints(struct ftio_endpoints *e)
{
    static char listen[512], pub[512], status[512];
    const char *l = NULL, *p = NULL, *s = NULL;
    /* FTIO_DAEMON_CONFIG: the tests' (and a site's) other file. */
    const char *path = getenv("FTIO_DAEMON_CONFIG");
    if (!path || !*path)
        path = FTIOD_CONFIG_DEFAULT;
    if (strcmp(path, "none") != 0 && access(path, R_OK) == 0) {
        struct cliopt t[] = {
            {"listen", 0, CLIOPT_STRING, "E", NULL, NULL, .to.s = &l},
            {"pub", 0, CLIOPT_STRING, "E", NULL, NULL, .to.s = &p},
            {"status-endpoint", 0, CLIOPT_LIST, "E", NULL, NULL, .to.s = &s},
            {0},
        };
        struct cliopt_parser cp = {.prog = "ftio", .opts = t, .ignore_unknown = true};
        if (cliopt_parse_file(&cp, path, true) == 0) {
            if (l)
                keep_endpoint(listen, sizeof listen, l);
            if (p)
                keep_endpoint(pub, sizeof pub, p);
            if (s)
                keep_endpoint(status, sizeof status, s);
        }
        cliopt_free(&cp);
    }
    const char *env;
    e->listen = (env = getenv("FTIO_ENDPOINT")) && *env ? env : listen[0] ? listen
                                                                          : FTIO_DEFAULT_ENDPOINT;
    e->pub = (env = getenv("FTIO_PUB")) && *env ? env : pub[0] ? pub : FTIO_DEFAULT_PUB;
    e->status = (env = getenv("FTIO_STATUS")) && *env ? env : status[0] ? status
                                                                        : FTIO_DEFAULT_STATUS;
}

/* The options, the operands, --key only with --server-key: what
 * cliopt_parse_argv returns. */
static int client_parse(struct ftio_control_client *c, int argc, char **argv)
{
    const struct ftio_control_cmd *cmd = c->cmd;
    struct ftio_endpoints ep;
    ftio_default_endpoints(&ep);
    c->endpoints = ep.status;
    c->q = (struct ftio_query_opts){.munge = ftio_auth_query_munge()};
    snprintf(c->endpoint_help, sizeof c->endpoint_help,
             "ftiod's status endpoint (its --status-endpoint);\nseveral (E,E or repeated)%s",
             cmd->tell_each ? ": each is told" : " are tried in turn");
    snprintf(c->timeout_help, sizeof c->timeout_help, "wait at most S seconds for %s",
             cmd->tell_each ? "each answer" : "the answer");
    snprintf(c->usage, sizeof c->usage,
             "usage: %s [--endpoint E] [--timeout S] [--server-key K [--key FILE]] %s\n", cmd->prog,
             cmd->operands);
    snprintf(c->epilog, sizeof c->epilog,
             "Environment: FTIO_STATUS (default --endpoint, else ftiod's configuration\n"
             "file, FTIO_DAEMON_CONFIG), FTIO_AUTH=none for a daemon without MUNGE%s%s.\n"
             "Exit status: %s", cmd->environment ? ";\n" : "",
             cmd->environment ? cmd->environment : "", cmd->exit_status);
    const struct cliopt t[] = {
        {"endpoint", 'e', CLIOPT_LIST, "E", c->endpoint_help,
         "$FTIO_STATUS, ftiod.conf's status-endpoint or " FTIO_DEFAULT_STATUS,
         .to.s = &c->endpoints, .flags = CLIOPT_DEF_DOC},
        {"status-endpoint", 0, CLIOPT_LIST, "E", "the same as --endpoint", NULL,
         .to.s = &c->endpoints},
        {"timeout", 0, CLIOPT_DOUBLE, "S", c->timeout_help, "5", .to.d = &c->q.timeout, .min = 0,
         .max = 3600, .flags = CLIOPT_MIN_OPEN},
        {"server-key", 0, CLIOPT_STRING, "K", "ftiod's CURVE public key (or file)", NULL,
         .to.s = &c->q.server_key},
        {"key", 0, CLIOPT_STRING, "FILE", "our CURVE key pair (ftio keygen)", NULL,
         .to.s = &c->q.key_file},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    _Static_assert(sizeof t == sizeof c->t, "room for the control client's options");
    memcpy(c->t, t, sizeof t);
    c->p = (struct cliopt_parser){
        .prog = cmd->prog, .version = FTIO_VERSION, .usage = c->usage, .about = cmd->about,
        .epilog = c->epilog, .opts = c->t,
    };
    if (cliopt_defaults(&c->p) != 0)
        return -2;
    int first = cliopt_parse_command(&c->p, argc, argv, cmd->min_args, cmd->max_args,
                                     cmd->args_error);
    if (first >= 0 && c->q.key_file && !c->q.server_key)
        first = cliopt_error(&c->p, "--key needs --server-key");
    return first;
}

int ftio_control_client_main(const struct ftio_control_cmd *cmd, int argc, char **argv)
{
    struct ftio_control_client c = {.cmd = cmd};
    int first = client_parse(&c, argc, argv);
    int rc = first < 0 ? CLIOPT_EXIT_STATUS(first) : cmd->run(&c, argv + first, argc - first);
    cliopt_free(&c.p);
    return rc;
}

bool ftio_control_client_valid(const struct ftio_control_client *c, enum ftio_control_verb v,
                               const char *job, int64_t uid)
{
    char req[FTIO_CONTROL_REQ_MAX], err[256];
    if (ftio_control_encode(req, sizeof req, v, job, uid, err, sizeof err) == 0)
        return true;
    fprintf(stderr, "%s: %s\n", c->cmd->prog, err);
    return false;
}
