/* SPDX-License-Identifier: BSD-3-Clause */
/* endpoints.c -- where the client subcommands find ftiod when no option
 * says so: the environment (FTIO_ENDPOINT, FTIO_PUB, FTIO_STATUS), else the
 * daemon's own configuration file ($SYSCONFDIR/ftio/ftiod.conf: its listen, pub
 * and status-endpoint, so that on the daemon's host `ftio sub` just works),
 * else ftiod's built-in defaults.  A wildcard bind address in the file
 * (tcp://ANY:P written with a star, or tcp://0.0.0.0:P) is reached at
 * tcp://127.0.0.1:P.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
