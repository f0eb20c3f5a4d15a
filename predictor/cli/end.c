/* end.c -- `ftio end`: tell ftiod that a job is over (the batch system's
 * epilog, a killed job), so its `ftio.<job>.end` comes at once, saying how
 * complete it is, instead of after --job-timeout of silence.
 *
 *   ftio end [--endpoint E] [--timeout S] [--server-key K [--key FILE]] JOB
 *
 * Sends "end JOB" on ftiod's status socket (REQ/REP, --status-endpoint,
 * default tcp://127.0.0.1:5557) with a MUNGE credential (only the job's owner,
 * root, or an admin CURVE key may end it) and prints the answer.  Exit status: 0 when
 * the daemon is ending the job, 1 when it does not know it or does not
 * answer within the timeout (default 5 s), 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"
#include "commands.h"
#include "curve.h"

static int end_usage(const char *why)
{
    if (why)
        fprintf(stderr, "ftio end: %s\n", why);
    fprintf(stderr, "usage: ftio end [--endpoint E] [--timeout S] [--server-key K [--key FILE]] JOB\n"
                    "  --endpoint E  ftiod's status endpoint (default tcp://127.0.0.1:5557)\n"
                    "  --server-key K  ftiod's CURVE public key;  --key FILE  our key pair\n"
                    "  --timeout S   wait at most S seconds for the answer (default 5)\n");
    return 2;
}

int ftio_cmd_end(int argc, char **argv)
{
    const char *endpoint = "tcp://127.0.0.1:5557", *job = NULL, *server_key = NULL, *key = NULL;
    double timeout = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            end_usage(NULL);
            return 0;
        } else if (!strcmp(a, "--endpoint") && i + 1 < argc) {
            endpoint = argv[++i];
        } else if (!strncmp(a, "--endpoint=", 11)) {
            endpoint = a + 11;
        } else if (!strcmp(a, "--server-key") && i + 1 < argc) {
            server_key = argv[++i];
        } else if (!strcmp(a, "--key") && i + 1 < argc) {
            key = argv[++i];
        } else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            char *e;
            timeout = strtod(argv[++i], &e);
            if (*e || !(timeout > 0) || timeout > 3600)
                return end_usage("--timeout needs seconds (0..3600]");
        } else if (a[0] == '-') {
            return end_usage("unknown option");
        } else if (!job) {
            job = a;
        } else {
            return end_usage("one job at a time");
        }
    }
    if (!job || !*job)
        return end_usage("no job given");
    if (key && !server_key)
        return end_usage("--key needs --server-key");
    char req[4 + 4096 + 1], err[512], *ans = NULL;
    int n = snprintf(req, sizeof req, "end %s", job);
    if (n < 0 || (size_t)n >= sizeof req) {
        fprintf(stderr, "ftio end: job id too long\n");
        return 2;
    }
    /* The owner proves who they are with MUNGE; an admin key may end any job. */
    const char *au = getenv("FTIO_AUTH");
    struct ftio_query_opts q = {
        .endpoint = endpoint, .server_key = server_key, .key_file = key, .timeout = timeout,
        .munge = !au || ftio_auth_mode_parse(au) != FTIO_AUTH_NONE,
    };
    if (ftio_query(&q, req, &ans, err, sizeof err) != 0) {
        fprintf(stderr, "ftio end: %s\n", err);
        return 1;
    }
    int rc = 1;
    if (strstr(ans, "\"ending\"")) {
        printf("ftio end: ftiod is ending job %s\n", job);
        rc = 0;
    } else {
        fprintf(stderr, "ftio end: %s: %s\n", job, ans);
    }
    free(ans);
    return rc;
}
