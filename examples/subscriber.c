/* SPDX-License-Identifier: BSD-3-Clause */
/* subscriber.c -- how a scheduler (or a burst-buffer manager, or a data
 * stager) consumes ftiod's predictions.
 *
 *   subscriber [--endpoint tcp://127.0.0.1:5556] [--job J] [--transfer BYTES]
 *              [--bandwidth B/S] [--count N]
 *
 * ftiod publishes, per job and mode, a JSON prediction (PROTOCOL.md §2) on
 * the topic `ftio.<job>.<mode>`; `next.start`, `next.end` (Unix epoch
 * seconds) and `next.bytes` say when the job's next I/O burst is expected and
 * how big it is.  This example plays a scheduler that wants to run its own
 * transfer of --transfer bytes at --bandwidth B/s on the shared file system
 * without colliding with the job's bursts: if it fits before next.start it
 * goes now, otherwise it waits for next.end.  A `class` of "none" (no
 * dominant period) means: no advice, fall back to the default policy.
 * Since protocol v3 every prediction also lists the job's `activities` (one
 * per file pattern: dumps, checkpoints ...), each with its own period and
 * next phase: printed below the advice, and for each mode of `.end`.
 * Since protocol v4 `source` says where an answer comes from: "observed"
 * (the job's own data) or "history" (the application's earlier runs,
 * published from the job's first batch, before its first output).
 *
 * Build: cc subscriber.c -lzmq -ljansson   (the Makefile builds $(B)/bin/subscriber)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include <zmq.h>

static double now_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A number from a JSON object, NAN when absent or null. */
static double num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Protocol v3: one line per activity (pattern, share of the bytes, period,
 * next phase); '*' marks the one whose period is the job's. */
static void print_activities(json_t *p)
{
    json_t *arr = json_object_get(p, "activities"), *a;
    size_t i;
    double t = now_epoch();
    json_array_foreach(arr, i, a) {
        const char *pat = json_string_value(json_object_get(a, "pattern"));
        const char *cls = json_string_value(json_object_get(a, "class"));
        double period = num(a, "period"), conf = num(a, "confidence"), share = num(a, "share");
        double start = num(json_object_get(a, "next"), "start");
        printf("   %cactivity %s (%.0f %% of bytes): ", json_is_true(json_object_get(a, "matches_job")) ? '*' : ' ',
               pat ? pat : "?", 100 * share);
        if (isnan(period))
            printf("no period (%s)\n", cls ? cls : "none");
        else if (isnan(start))
            printf("period %.2f s (conf %.2f, %s)\n", period, conf, cls ? cls : "");
        else
            printf("period %.2f s (conf %.2f, %s), next in %.2f s\n", period, conf, cls ? cls : "",
                   start - t);
    }
}

static void advise(json_t *p, double transfer, double bandwidth)
{
    const char *job = json_string_value(json_object_get(p, "job"));
    const char *mode = json_string_value(json_object_get(p, "mode"));
    const char *cls = json_string_value(json_object_get(p, "class"));
    json_t *next = json_object_get(p, "next");
    double start = num(next, "start"), end = num(next, "end"), bytes = num(next, "bytes");
    double period = num(p, "period"), conf = num(p, "confidence");

    if (!cls || !strcmp(cls, "none") || isnan(start)) {
        printf("%s/%s: no periodic behaviour detected (yet): default policy\n", job, mode);
        print_activities(p);
        return;
    }
    double t = now_epoch();
    double need = transfer / bandwidth;          /* seconds our transfer takes */
    printf("%s/%s: period %.2f s (conf %.2f, %s); next burst in %.2f s, %.1f MiB, %.2f s long\n",
           job, mode, period, conf, cls, start - t, bytes / 1048576.0, end - start);
    /* protocol v4: from the application's earlier runs, not yet this job's data */
    const char *source = json_string_value(json_object_get(p, "source"));
    json_t *hist = json_object_get(p, "history");
    if (source && !strcmp(source, "history") && json_is_object(hist))
        printf("     (from the application's earlier runs: %.0f runs, matched by %s; not seen in "
               "this job yet)\n", num(hist, "runs"), json_string_value(json_object_get(hist, "level")));
    if (t + need <= start)
        printf("  -> start our %.1f MiB transfer now: done %.2f s before the burst\n",
               transfer / 1048576.0, start - (t + need));
    else
        printf("  -> defer our transfer to %.2f s from now (after the burst); "
               "it fits if the gap (%.2f s) is longer than %.2f s\n",
               end - t, period - (end - start), need);
    print_activities(p);
}

int main(int argc, char **argv)
{
    const char *endpoint = "tcp://127.0.0.1:5556", *job = NULL;
    double transfer = 256.0 * 1048576, bandwidth = 1e9;
    long count = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--endpoint")) endpoint = argv[i + 1];
        else if (!strcmp(argv[i], "--job")) job = argv[i + 1];
        else if (!strcmp(argv[i], "--transfer")) transfer = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--bandwidth")) bandwidth = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--count")) count = atol(argv[i + 1]);
        else {
            fprintf(stderr, "subscriber: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!(bandwidth > 0)) {
        fprintf(stderr, "subscriber: --bandwidth must be positive\n");
        return 2;
    }

    void *ctx = zmq_ctx_new();
    void *sub = zmq_socket(ctx, ZMQ_SUB);
    /* Topics are "ftio.<job>.<mode>": the trailing dot keeps job 12 from
     * matching job 123. */
    char prefix[512];
    if (job)
        snprintf(prefix, sizeof prefix, "ftio.%s.", job);
    else
        snprintf(prefix, sizeof prefix, "ftio.");
    zmq_setsockopt(sub, ZMQ_SUBSCRIBE, prefix, strlen(prefix));
    if (zmq_connect(sub, endpoint) != 0) {
        fprintf(stderr, "subscriber: connect %s: %s\n", endpoint, zmq_strerror(errno));
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (long n = 0; count == 0 || n < count; n++) {
        char topic[512];
        int len = zmq_recv(sub, topic, sizeof topic - 1, 0);   /* frame 1: topic */
        if (len < 0)
            break;
        topic[len < (int)sizeof topic ? len : (int)sizeof topic - 1] = 0;
        zmq_msg_t body;                                        /* frame 2: JSON */
        zmq_msg_init(&body);
        if (zmq_msg_recv(&body, sub, 0) < 0)
            break;
        json_t *p = json_loadb(zmq_msg_data(&body), zmq_msg_size(&body), 0, NULL);
        zmq_msg_close(&body);
        if (!p || !strcmp(topic, "ftio.machine")) {   /* the machine forecast: not a job's */
            json_decref(p);
            continue;
        }
        size_t tl = strlen(topic);
        if (tl > 4 && !strcmp(topic + tl - 4, ".end")) {
            printf("%s: job finished; final predictions in \"summary\"\n", topic);
            const char *m;
            json_t *s;
            json_object_foreach(json_object_get(p, "summary"), m, s) {
                printf("  %s: period %.2f s\n", m, num(s, "period"));
                print_activities(s);
            }
        } else
            advise(p, transfer, bandwidth);
        json_decref(p);
    }
    zmq_close(sub);
    zmq_ctx_term(ctx);
    return 0;
}
