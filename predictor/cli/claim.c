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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cliopt.h"
#include "commands.h"
#include "control.h"

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

/* After the options: JOB USER. */
static int claim(const struct ftio_control_client *cc, char **args, int nargs)
{
    (void)nargs;   /* 2 */
    int64_t uid = cliopt_user_uid(args[1]);
    if (uid < 0) {
        fprintf(stderr, "ftio claim: %s: no such user\n", args[1]);
        return 2;
    }
    if (!ftio_control_client_valid(cc, FTIO_CTL_CLAIM, args[0], uid))
        return 2;
    struct claim_ctx c = {.q = cc->q, .job = args[0], .uid = uid};
    cliopt_each(cc->endpoints, claim_one, &c);
    return c.failed ? 1 : 0;
}

const struct ftio_control_cmd ftio_claim_cmd = {
    .prog = "ftio claim", .operands = "JOB USER", .min_args = 2, .max_args = 2,
    .args_error = "a job id and a user expected", .tell_each = true, .run = claim,
    .about = "Tell ftiod that job id JOB belongs to USER (a name or a uid) before the job\n"
             "starts (a batch system's prolog; Slurm's plugin does it for every step):\n"
             "nobody else's batches can then take that id.  Only root or ftiod's own\n"
             "user may claim (MUNGE proves who asks).\n",
    .exit_status = "0 when every daemon took the claim, 1 when one refused or\n"
                   "did not answer, 2 on a usage error.\n",
};
