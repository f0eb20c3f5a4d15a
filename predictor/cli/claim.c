/* SPDX-License-Identifier: BSD-3-Clause */
/* claim.c -- `ftio claim`: tell ftiod that a job id belongs to a user,
 * before the job's first batch (docs/SECURITY.md "Job ids").
 *
 *   ftio claim [--endpoint E] [--timeout S] [--server-key K [--key FILE]] JOB USER
 *
 * What the SPANK plugin does for each Slurm step (slurm/spank_ftio.c), for
 * other batch systems' prologs: only root or ftiod's own uid may claim
 * (MUNGE proves it).  Sends "claim JOB UID" (common/control.h) to every
 * daemon of the endpoint list (a job may reach any of them through the
 * relays).  Exit status: 0 when every daemon took the claim, 1 when one
 * refused or did not answer within the timeout (default 5 s), 2 on usage
 * errors.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"
#include "cliopt.h"
#include "commands.h"
#include "control.h"
#include "defaults.h"

struct claim_ctx {
    struct ftio_query_opts q;
    const char *job;
    int64_t uid;
    int failed;
};

static int claim_one(const char *endpoint, void *arg)
{
    struct claim_ctx *c = arg;
    char err[512];
    json_t *ans = NULL;
    c->q.endpoint = endpoint;
    if (ftio_control_call(&c->q, FTIO_CTL_CLAIM, c->job, c->uid, &ans, err, sizeof err) != 0) {
        fprintf(stderr, "ftio claim: %s\n", err);
        c->failed = 1;
    } else if (ftio_control_error(ans)) {
        fprintf(stderr, "ftio claim: %s: %s: %s\n", endpoint, c->job, ftio_control_error(ans));
        c->failed = 1;
    }
    json_decref(ans);
    return 0;
}

/* A user name or a numeric uid; -1 when neither. */
static int64_t user_uid(const char *u)
{
    struct passwd *pw = getpwnam(u);
    if (pw)
        return (int64_t)pw->pw_uid;
    char *end;
    errno = 0;
    long long v = strtoll(u, &end, 10);
    return !errno && end != u && !*end && v >= 0 && v < 4294967295LL ? (int64_t)v : -1;
}

int ftio_cmd_claim(int argc, char **argv)
{
    struct ftio_endpoints ep;
    ftio_default_endpoints(&ep);
    const char *endpoint = ep.status, *server_key = NULL, *key = NULL;
    double timeout = 5;
    struct cliopt t[] = {
        {"endpoint", 'e', CLIOPT_LIST, "E",
         "ftiod's status endpoint (its --status-endpoint);\nseveral (E,E or repeated): each is told",
         "$FTIO_STATUS, ftiod.conf's status-endpoint or " FTIO_DEFAULT_STATUS, .to.s = &endpoint},
        {"status-endpoint", 0, CLIOPT_LIST, "E", "the same as --endpoint", NULL,
         .to.s = &endpoint},
        {"timeout", 0, CLIOPT_DOUBLE, "S", "wait at most S seconds for each answer", "5",
         .to.d = &timeout, .min = 0, .max = 3600, .flags = CLIOPT_MIN_OPEN},
        {"server-key", 0, CLIOPT_STRING, "K", "ftiod's CURVE public key (or file)", NULL,
         .to.s = &server_key},
        {"key", 0, CLIOPT_STRING, "FILE", "our CURVE key pair (ftio keygen)", NULL, .to.s = &key},
        {"help", 'h', CLIOPT_HELP, NULL, "this help", NULL, .to.p = NULL},
        {"version", 'V', CLIOPT_VERSION, NULL, "the version", NULL, .to.p = NULL},
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio claim", .version = FTIO_VERSION, .opts = t,
        .usage = "usage: ftio claim [--endpoint E] [--timeout S] [--server-key K [--key FILE]] "
                 "JOB USER\n",
        .about = "Tell ftiod that job id JOB belongs to USER (a name or a uid) before the job\n"
                 "starts (a batch system's prolog; Slurm's plugin does it for every step):\n"
                 "nobody else's batches can then take that id.  Only root or ftiod's own\n"
                 "user may claim (MUNGE proves who asks).\n",
        .epilog = "Environment: FTIO_STATUS (default --endpoint, else ftiod's configuration\n"
                  "file, FTIO_DAEMON_CONFIG), FTIO_AUTH=none for a daemon without MUNGE.\n"
                  "Exit status: 0 when every daemon took the claim, 1 when one refused or\n"
                  "did not answer, 2 on a usage error.\n",
    };
    int first = cliopt_parse_argv(&p, argc, argv), rc = 0;
    if (first == -1)
        rc = 0;
    else if (first < 0)
        rc = 2;
    else if (argc - first != 2)
        rc = -cliopt_error(&p, "a job id and a user expected (see ftio claim --help)");
    else if (key && !server_key)
        rc = -cliopt_error(&p, "--key needs --server-key");
    if (first < 0 || rc != 0) {
        cliopt_free(&p);
        return rc;
    }
    const char *job = argv[first], *user = argv[first + 1];
    cliopt_free(&p);
    int64_t uid = user_uid(user);
    if (uid < 0) {
        fprintf(stderr, "ftio claim: %s: no such user\n", user);
        return 2;
    }
    char req[FTIO_CONTROL_REQ_MAX], err[256];
    if (ftio_control_encode(req, sizeof req, FTIO_CTL_CLAIM, job, uid, err, sizeof err) != 0) {
        fprintf(stderr, "ftio claim: %s\n", err);
        return 2;
    }
    struct claim_ctx c = {
        .q = {.server_key = server_key, .key_file = key, .timeout = timeout,
              .munge = ftio_auth_client_mode(NULL, 0) != FTIO_AUTH_NONE},
        .job = job, .uid = uid,
    };
    cliopt_each(endpoint, claim_one, &c);
    return c.failed ? 1 : 0;
}
