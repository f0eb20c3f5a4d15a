/* SPDX-License-Identifier: BSD-3-Clause */
/* end.c -- `ftio end`: tell ftiod that a job is over (the batch system's
 * epilog, a killed job), so its `ftio.<job>.end` comes at once, saying how
 * complete it is, instead of after --job-timeout of silence.
 *
 *   ftio end [--endpoint E] [--timeout S] [--server-key K [--key FILE]] [JOB]
 *
 * JOB defaults to SLURM_JOB_ID (an epilog runs with it set), the endpoint
 * to FTIO_STATUS, else the daemon's configuration file (endpoints.c).
 *
 * Sends "end JOB" (common/control.h) on ftiod's status socket (REQ/REP,
 * --status-endpoint) with a MUNGE credential (only the job's owner,
 * root, or an admin CURVE key may end it) and prints the answer.  A job that
 * already ended (among the daemon's recently ended jobs, its status
 * document's "ended") is said to have ended, and not told again.  Exit
 * status: 0 when the daemon is ending the job or it had ended, 1 when it does
 * not know it or does not answer within the timeout (default 5 s), 2 on
 * usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "cliopt.h"
#include "commands.h"
#include "control.h"
#include "curve.h"

struct end_ctx {
    struct ftio_query_opts q;
    const char *job;
    bool several;             /* endpoint is a list: try each daemon */
    bool ended, failed;
    char last[512];           /* the last daemon's answer */
};

/* Had the job ended already at this daemon (its status document's recently
 * ended jobs)?  1 (stop) when it had, and says when. */
static int had_ended(const char *endpoint, void *arg)
{
    struct end_ctx *c = arg;
    char err[512], *ans = NULL;
    c->q.endpoint = endpoint;
    if (ftio_query(&c->q, "status", &ans, err, sizeof err) != 0)
        return 0;   /* the end request says what is wrong */
    json_t *root = json_loads(ans, 0, NULL);
    free(ans);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "ended"), i, e) {
        const char *job = json_string_value(json_object_get(e, "job"));
        if (!job || strcmp(job, c->job) != 0)
            continue;
        char at[40] = "?";
        json_t *t = json_object_get(e, "ended_at");
        if (json_is_number(t)) {
            time_t s = (time_t)json_number_value(t);
            struct tm tm;
            strftime(at, sizeof at, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&s, &tm));
        }
        const char *by = json_string_value(json_object_get(e, "ended_by"));
        printf("ftio end: job %s already ended at %s (%s)%s%s\n", c->job, at, by ? by : "?",
               c->several ? ", at " : "", c->several ? endpoint : "");
        c->ended = true;
        break;
    }
    json_decref(root);
    return c->ended;
}

/* Ask one daemon; 1 (stop) once one is ending the job. */
static int end_one(const char *endpoint, void *arg)
{
    struct end_ctx *c = arg;
    char err[512];
    json_t *ans = NULL;
    c->q.endpoint = endpoint;
    if (ftio_control_call(&c->q, FTIO_CTL_END, c->job, -1, &ans, err, sizeof err) != 0) {
        fprintf(stderr, "ftio end: %s\n", err);
        c->failed = true;
        return 0;
    }
    const char *e = ftio_control_error(ans);
    if (!e && json_is_string(json_object_get(ans, "ending"))) {
        printf("ftio end: ftiod%s%s is ending job %s\n", c->several ? " at " : "",
               c->several ? endpoint : "", json_string_value(json_object_get(ans, "ending")));
        c->ended = true;
    } else {
        snprintf(c->last, sizeof c->last, "%s", e ? e : "unexpected answer");
        if (!e || strcmp(e, "no such job") != 0) {   /* refused: say so now */
            fprintf(stderr, "ftio end: %s: %s\n", c->job, c->last);
            c->failed = true;
        }
    }
    json_decref(ans);
    return c->ended;
}

/* After the options: [JOB].  0 when a daemon of the list is ending the job
 * or had ended it, 1 when none could. */
static int end_job(const struct ftio_control_client *cc, char **args, int nargs)
{
    const char *job = nargs ? args[0] : getenv("SLURM_JOB_ID");
    if (!job || !*job) {
        fprintf(stderr, "ftio end: no job given (and no SLURM_JOB_ID)\n");
        return 2;
    }
    if (!ftio_control_client_valid(cc, FTIO_CTL_END, job, -1))
        return 2;
    /* The owner proves who they are with MUNGE; an admin key may end any job. */
    struct end_ctx c = {.q = cc->q, .job = job, .several = strchr(cc->endpoints, ',') != NULL};
    cliopt_each(cc->endpoints, had_ended, &c);
    if (!c.ended)
        cliopt_each(cc->endpoints, end_one, &c);
    if (c.ended)
        return 0;
    if (!c.failed)   /* every daemon answered: none knows the job */
        fprintf(stderr, "ftio end: %s: %s\n", job, c.last);
    return 1;
}

const struct ftio_control_cmd ftio_end_cmd = {
    .prog = "ftio end", .operands = "[JOB]", .min_args = 0, .max_args = 1,
    .args_error = "one job at a time", .run = end_job,
    .about = "Tell ftiod that job JOB is over (a batch system's epilog): its end summary\n"
             "is published at once instead of after --job-timeout of silence.  Only the\n"
             "job's owner, root or an admin key may end it.\n",
    .environment = "SLURM_JOB_ID (default JOB)",
    .exit_status = "0 when ftiod is ending the job or it had ended (said so), 1\n"
                   "when it does not know it or does not answer, 2 on a usage error.\n",
};
