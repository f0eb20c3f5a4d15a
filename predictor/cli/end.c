/* end.c -- `ftio end`: tell ftiod that a job is over (the batch system's
 * epilog, a killed job), so its `ftio.<job>.end` comes at once, saying how
 * complete it is, instead of after --job-timeout of silence.
 *
 *   ftio end [--endpoint E] [--timeout S] JOB
 *
 * Sends "end JOB" on ftiod's status socket (REQ/REP, --status-endpoint,
 * default tcp://127.0.0.1:5557) and prints the answer.  Exit status: 0 when
 * the daemon is ending the job, 1 when it does not know it or does not
 * answer within the timeout (default 5 s), 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "commands.h"

static int end_usage(const char *why)
{
    if (why)
        fprintf(stderr, "ftio end: %s\n", why);
    fprintf(stderr, "usage: ftio end [--endpoint E] [--timeout S] JOB\n"
                    "  --endpoint E  ftiod's status endpoint (default tcp://127.0.0.1:5557)\n"
                    "  --timeout S   wait at most S seconds for the answer (default 5)\n");
    return 2;
}

int ftio_cmd_end(int argc, char **argv)
{
    const char *endpoint = "tcp://127.0.0.1:5557", *job = NULL;
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
    void *ctx = zmq_ctx_new();
    void *s = ctx ? zmq_socket(ctx, ZMQ_REQ) : NULL;
    int linger = 0, rc = 1;
    if (!s) {
        fprintf(stderr, "ftio end: %s\n", zmq_strerror(errno));
        goto out;
    }
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(s, endpoint) < 0) {
        fprintf(stderr, "ftio end: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
        goto out;
    }
    char req[4 + 4096 + 1];
    int n = snprintf(req, sizeof req, "end %s", job);
    if (n < 0 || (size_t)n >= sizeof req) {
        fprintf(stderr, "ftio end: job id too long\n");
        goto out;
    }
    zmq_send(s, req, (size_t)n, 0);
    zmq_pollitem_t it = {.socket = s, .events = ZMQ_POLLIN};
    if (zmq_poll(&it, 1, (long)(timeout * 1000)) <= 0) {
        fprintf(stderr, "ftio end: no answer from %s within %g s (is ftiod running?)\n", endpoint,
                timeout);
        goto out;
    }
    char ans[8192];
    int got = zmq_recv(s, ans, sizeof ans - 1, 0);
    if (got < 0) {
        fprintf(stderr, "ftio end: %s\n", zmq_strerror(errno));
        goto out;
    }
    ans[got < (int)sizeof ans - 1 ? got : (int)sizeof ans - 1] = 0;
    if (strstr(ans, "\"ending\"")) {
        printf("ftio end: ftiod is ending job %s\n", job);
        rc = 0;
    } else {
        fprintf(stderr, "ftio end: %s: %s\n", job, ans);
    }
out:
    if (s)
        zmq_close(s);
    if (ctx)
        zmq_ctx_term(ctx);
    return rc;
}
