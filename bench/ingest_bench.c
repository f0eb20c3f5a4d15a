/* SPDX-License-Identifier: BSD-3-Clause */
/* ingest_bench.c -- ftiod ingest benchmark ($(B)/bench/ingest).
 *
 *   ingest [--ftiod PATH] [--tcp] [--duration S] [--ranks R] [--batch N]
 *          [--senders T] [--latency-samples K] [--rcvhwm N] [--munge SOCKET]
 *          [--relays K]
 *
 * --relays K: K `ftio relay` processes stand between the senders and the
 * daemon (sender thread i connects to relay i mod K), as on a machine where
 * every node runs one: the daemon then has K connections whatever the number
 * of simulated processes (--ranks).  The latency part is skipped.
 *
 * --munge: the daemon runs --auth munge and every batch is signed as the
 * shim signs it (common/auth.h: one MUNGE session per sender thread, a MAC
 * computed per send): the cost of authentication on the ingest rate.
 *
 * Starts its own ftiod (--rcvhwm N, default 100: ZeroMQ's receive queue is
 * the only part of the daemon's memory that the senders, not the daemon,
 * size; ipc:// endpoints in a temporary directory, or TCP
 * loopback ports 56400-56402 with --tcp) and measures three things:
 *
 *  1. Throughput: T sender threads play R simulated ranks, each sending
 *     batches of N write records for S seconds and reading ftiod's
 *     acknowledgements as the shim does (PROTOCOL.md §1.4).  The rate is the records the
 *     daemon has decoded and merged (its own counter, read over the status
 *     socket), divided by the time from the first send until the daemon had
 *     merged everything sent.  To keep the senders cheap, each rank's batch is
 *     encoded once with a sequence number >= 2^16 (so msgpack stores it as a
 *     fixed 4-byte uint32; the daemon refuses a first jump past 2^20 as
 *     forged) and only that field is patched before each send.
 *  2. Memory: the daemon's VmRSS, sampled every second during (1).
 *  3. Latency: a job holding one hour of signal at 10 Hz (ftiod --window 3600,
 *     so every analysis is over 36000 samples); then K times a batch with a
 *     `mark` is sent and the time until its prediction arrives on the PUB
 *     socket is measured: the prediction of the boundary the batch made due
 *     (its `records` include the batch and its window ends within a step of
 *     the batch's record; an older boundary's prediction published later
 *     does not count).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <zmq.h>
#include "auth.h"
#include "transport.h"
#include "control.h"
#include "curve.h"
#include "wire.h"
#include "timeutil.h"

struct bench {
    const char *ftiod;
    char dir[256], in[300], pub[300], st[300], hwm_arg[32];
    bool tcp;
    double duration;
    int ranks, senders, lat_samples;
    size_t batch;
    pid_t pid;
    void *ctx;
    atomic_ullong sent_records;
    atomic_int stop, release;
    int rcvhwm;
    const char *munge;      /* munged's socket: authenticated ingest */
    int relays;             /* --relays K */
    pid_t relay_pid[100];
    char relay_ep[100][300];
    const char *ftio;       /* the ftio binary (ftio relay) */
    atomic_ullong acked;
};

static double now_s(void)
{
    return (double)ftio_mono_ns() * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {
    }
}

/* ---- the daemon ----------------------------------------------------------------- */

static int start_daemon(struct bench *b)
{
    b->pid = fork();
    if (b->pid < 0)
        return -1;
    if (b->pid == 0) {
        char log[300];
        snprintf(log, sizeof log, "%s/ftiod.err", b->dir);
        if (!freopen(log, "w", stderr))
            _exit(127);
        /* --config none: the machine's /etc/ftio/ftiod.conf has no say here. */
        const char *argv[32] = {"ftiod", "--config", "none", "--auth", b->munge ? "munge" : "none",
                                "--listen", b->in, "--pub", b->pub, "--status-endpoint", b->st,
                                "--window", "3600", "--horizon", "3600", "--min-interval", "1",
                                "--rcvhwm", b->hwm_arg};
        int n = 19;
        if (b->munge) {
            argv[n++] = "--munge-socket";
            argv[n++] = b->munge;
        }
        argv[n] = NULL;
        execv(b->ftiod, (char *const *)argv);
        _exit(127);
    }
    return 0;
}

/* The daemon's status document, or NULL (asked as root: with --munge the
 * credential makes us an admin). */
static json_t *status(struct bench *b)
{
    struct ftio_query_opts q = {.endpoint = b->st, .timeout = 5, .munge = b->munge != NULL};
    char *reply = NULL, err[256];
    if (ftio_query(&q, "status", &reply, err, sizeof err) != 0)
        return NULL;
    json_t *root = json_loads(reply, 0, NULL);
    free(reply);
    return root;
}

static double merged_records(struct bench *b)
{
    json_t *s = status(b);
    double r = s ? json_number_value(json_object_get(json_object_get(s, "totals"), "records")) : -1;
    json_decref(s);
    return r;
}

static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* ---- throughput senders ---------------------------------------------------------- */

struct sender {
    struct bench *b;
    int first_rank, nranks;
    int index;              /* sender thread i: relay i mod K */
};

/* Offset of the 4 bytes of seq in an encoded batch (after "seq" and 0xce, msgpack uint32). */
static size_t seq_offset(const struct ftio_wbuf *w)
{
    for (size_t i = 0; i + 13 <= w->len; i++)
        if (!memcmp(w->data + i, "\xa3seq\xce", 5))
            return i + 5;
    return 0;
}

static void *sender_main(void *arg)
{
    struct sender *s = arg;
    struct bench *b = s->b;
    void *sock = zmq_socket(b->ctx, ZMQ_DEALER);
    int hwm = 64, linger = 10000;
    zmq_setsockopt(sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(sock, b->relays ? b->relay_ep[s->index % b->relays]
                                : b->in);
    struct ftio_auth_sender *auth = NULL;
    char err[256];
    const char *ep = b->relays ? b->relay_ep[s->index % b->relays] : b->in;
    if (b->munge && ftio_auth_sender_from_env(FTIO_AUTH_MUNGE, ep, &auth, err, sizeof err) != 0) {
        fprintf(stderr, "ingest: %s\n", err);
        exit(1);
    }

    struct ftio_wbuf *w = calloc((size_t)s->nranks, sizeof *w);
    size_t *off = calloc((size_t)s->nranks, sizeof *off);
    struct ftio_record *rec = calloc(b->batch, sizeof *rec);
    int64_t mono, real;
    ftio_clock_anchor(&mono, &real);
    for (size_t i = 0; i < b->batch; i++)   /* one second of small writes */
        rec[i] = (struct ftio_record){.t_start = (uint64_t)mono + i * 1000000000ull / b->batch,
                                      .t_end = (uint64_t)mono + i * 1000000000ull / b->batch + 20000,
                                      .offset = (int64_t)i * 4096, .bytes = 4096, .file_id = 1,
                                      .op = FTIO_OP_WRITE, .layer = FTIO_LAYER_POSIX};
    for (int r = 0; r < s->nranks; r++) {
        struct ftio_batch_header h = {.job = "bench", .host = "bench",
                                      .pid = 10000 + s->first_rank + r,
                                      .rank = s->first_rank + r, .nranks = b->ranks,
                                      .seq = 1ull << 16, .clock_mono = mono, .clock_real = real};
        ftio_wire_encode(&w[r], &h, rec, b->batch);
        off[r] = seq_offset(&w[r]);
        if (!off[r]) {
            fprintf(stderr, "ingest: cannot find seq in the encoded batch\n");
            exit(1);
        }
    }
    uint64_t seq = 1ull << 16;
    while (!atomic_load(&b->stop)) {
        for (int r = 0; r < s->nranks && !atomic_load(&b->stop); r++) {
            unsigned char *p = (unsigned char *)w[r].data + off[r];
            for (int k = 0; k < 4; k++)
                p[k] = (unsigned char)(seq >> (24 - 8 * k));
            if (ftio_batch_send(sock, auth, w[r].data, w[r].len, 0) < 0)
                break;
            atomic_fetch_add(&b->sent_records, b->batch);
            struct ftio_ack a;
            while (ftio_ack_recv(sock, &a))
                atomic_fetch_add(&b->acked, 1);
        }
        seq++;
    }
    /* Keep the connection until the daemon has merged everything: a peer
     * closing while the daemon's queue is full can lose the queue's tail. */
    while (!atomic_load(&b->release))
        sleep_s(0.01);
    zmq_close(sock);
    if (auth) {
        ftio_auth_sender_free(auth);
        free(auth);
    }
    for (int r = 0; r < s->nranks; r++)
        ftio_wbuf_free(&w[r]);
    free(w);
    free(off);
    free(rec);
    return NULL;
}

static void throughput(struct bench *b)
{
    pthread_t th[64];
    struct sender sd[64];
    int per = (b->ranks + b->senders - 1) / b->senders;
    double base = merged_records(b);
    double t0 = now_s();
    int n = 0;
    for (int i = 0; i < b->senders && i * per < b->ranks; i++, n++) {
        sd[i] = (struct sender){b, i * per, b->ranks - i * per < per ? b->ranks - i * per : per, i};
        pthread_create(&th[i], NULL, sender_main, &sd[i]);
    }
    long rss_min = -1, rss_max = -1, rss_first = -1, rss_last = -1;
    printf("throughput: %d ranks, batches of %zu records, %d sender thread(s), %s, %.0f s\n",
           b->ranks, b->batch, n, b->tcp ? "tcp loopback" : "ipc", b->duration);
    printf("  %6s %14s %12s\n", "t (s)", "merged rec/s", "ftiod RSS");
    double last_t = t0, last_r = base;
    while (now_s() - t0 < b->duration) {
        sleep_s(1.0);
        double t = now_s(), r = merged_records(b);
        long kb = rss_kb(b->pid);
        if (t - t0 > 2) {   /* after warm-up */
            if (rss_first < 0)
                rss_first = kb;
            rss_min = rss_min < 0 || kb < rss_min ? kb : rss_min;
            rss_max = kb > rss_max ? kb : rss_max;
            rss_last = kb;
        }
        printf("  %6.1f %14.0f %9ld kB\n", t - t0, (r - last_r) / (t - last_t), kb);
        last_t = t;
        last_r = r;
    }
    atomic_store(&b->stop, 1);
    sleep_s(0.05);   /* senders finish the batch they were sending */
    double sent = (double)atomic_load(&b->sent_records);
    double r;
    while ((r = merged_records(b)) >= 0 && r - base < sent && now_s() - t0 < b->duration + 60)
        sleep_s(0.01);
    double t1 = now_s();
    /* While the senders are still connected. */
    json_t *st = status(b);
    if (st) {
        json_t *jobs = json_object_get(st, "jobs");
        json_t *j0 = json_array_size(jobs) ? json_array_get(jobs, 0) : NULL;
        printf("  ftiod: %.0f ingest connections, %.0f processes in the job\n",
               json_number_value(json_object_get(json_object_get(st, "totals"), "connections")),
               j0 ? json_number_value(json_object_get(j0, "processes")) : 0.0);
        json_decref(st);
    }
    atomic_store(&b->release, 1);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    sent = (double)atomic_load(&b->sent_records);
    printf("  sent %.0f records; daemon merged %.0f in %.2f s: %.2f M records/s\n", sent, r - base,
           t1 - t0, (r - base) / (t1 - t0) / 1e6);
    printf("  ftiod RSS after warm-up: first %ld kB, min %ld kB, max %ld kB, last %ld kB\n",
           rss_first, rss_min, rss_max, rss_last);
    printf("  acknowledgements read by the senders: %llu\n", (unsigned long long)atomic_load(&b->acked));
    if (b->relays) {
        long sum = 0;
        for (int i = 0; i < b->relays; i++)
            sum += rss_kb(b->relay_pid[i]);
        printf("  %d relays: RSS %ld kB in all (%ld kB each)\n", b->relays, sum, sum / b->relays);
    }
}

static int start_relays(struct bench *b)
{
    for (int i = 0; i < b->relays; i++) {
        snprintf(b->relay_ep[i], sizeof b->relay_ep[i], "ipc://%s/relay%d", b->dir, i);
        b->relay_pid[i] = fork();
        if (b->relay_pid[i] < 0)
            return -1;
        if (b->relay_pid[i] == 0) {
            execl(b->ftio, "ftio", "relay", "--listen", b->relay_ep[i], "--upstream", b->in,
                  (char *)NULL);
            _exit(127);
        }
    }
    sleep_s(0.3);
    return 0;
}

/* ---- latency ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void latency(struct bench *b)
{
    void *push = zmq_socket(b->ctx, ZMQ_DEALER), *sub = zmq_socket(b->ctx, ZMQ_SUB);
    int linger = 5000;
    zmq_setsockopt(push, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "ftio.lat.write", 14);
    zmq_connect(push, b->in);
    zmq_connect(sub, b->pub);
    sleep_s(0.3);

    /* One hour of history: a 1 MiB write burst of 2 s every 30 s, as 120
     * batches with no mark (they are analysed at most every --min-interval). */
    int64_t mono, real;
    ftio_clock_anchor(&mono, &real);
    /* Shift this "process's" monotonic clock by 10^4 s so that an hour ago
     * is still a positive monotonic time on a freshly booted machine. */
    const int64_t shift = 10000ll * 1000000000ll;
    mono += shift;
    const double hour = 3600, period = 30;
    int64_t t_begin = mono - (int64_t)(hour * 1e9);
    struct ftio_record rec[64];
    struct ftio_wbuf w = {0};
    uint64_t seq = 0, records = 0;
    for (double t = 0; t < hour; t += period) {
        for (int i = 0; i < 64; i++) {
            int64_t s = t_begin + (int64_t)((t + 2.0 * i / 64) * 1e9);
            rec[i] = (struct ftio_record){.t_start = (uint64_t)s, .t_end = (uint64_t)s + 31000000,
                                          .offset = -1, .bytes = 16384, .op = FTIO_OP_WRITE};
        }
        struct ftio_batch_header h = {.job = "lat", .host = "bench", .pid = 1, .rank = -1,
                                      .seq = seq++, .clock_mono = mono, .clock_real = real};
        w.len = 0;
        ftio_wire_encode(&w, &h, rec, 64);
        ftio_batch_send(push, NULL, w.data, w.len, 0);
        records += 64;
    }
    sleep_s(2.0);   /* let the history be merged and analysed */
    /* drain what was published so far */
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        int rc = zmq_msg_recv(&m, sub, ZMQ_DONTWAIT);
        zmq_msg_close(&m);
        if (rc < 0)
            break;
    }

    double *lat = calloc((size_t)b->lat_samples, sizeof *lat);
    int got = 0;
    int samples_seen = 0;
    for (int k = 0; k < b->lat_samples; k++) {
        sleep_s(1.1);   /* past --min-interval, so only the mark can explain speed */
        int64_t m2 = ftio_mono_ns() + shift;
        rec[0] = (struct ftio_record){.t_start = (uint64_t)m2 - 5000000, .t_end = (uint64_t)m2,
                                      .offset = -1, .bytes = 4096, .op = FTIO_OP_WRITE};
        struct ftio_batch_header h = {.job = "lat", .host = "bench", .pid = 1, .rank = -1,
                                      .seq = seq++, .clock_mono = mono, .clock_real = real,
                                      .mark = "checkpoint"};
        w.len = 0;
        ftio_wire_encode(&w, &h, rec, 1);
        records += 1;
        /* The record's end in epoch seconds, as ftiod dates it. */
        double rec_end = (double)(real + (m2 - mono)) * 1e-9;
        double t0 = now_s();
        ftio_batch_send(push, NULL, w.data, w.len, 0);
        for (;;) {
            zmq_pollitem_t it = {.socket = sub, .events = ZMQ_POLLIN};
            if (zmq_poll(&it, 1, 5000) <= 0) {
                fprintf(stderr, "latency: no prediction within 5 s\n");
                break;
            }
            char topic[64];
            zmq_recv(sub, topic, sizeof topic, 0);
            zmq_msg_t m;
            zmq_msg_init(&m);
            zmq_msg_recv(&m, sub, 0);
            double t1 = now_s();
            json_t *o = json_loadb(zmq_msg_data(&m), zmq_msg_size(&m), 0, NULL);
            zmq_msg_close(&m);
            double recs = json_number_value(json_object_get(o, "records"));
            json_t *win = json_object_get(o, "window");
            samples_seen = (int)json_number_value(json_object_get(win, "samples"));
            double wend = json_number_value(json_object_get(win, "end"));
            bool stale = json_is_true(json_object_get(o, "stale"));
            json_decref(o);
            if (getenv("INGEST_DEBUG"))
                fprintf(stderr, "latency: records %.0f of %llu, window end %+.3f s from the "
                        "record, stale %d\n", recs, (unsigned long long)records, wend - rec_end,
                        stale);
            /* The prediction of the newest boundary, the one our batch made
             * due: its window ends within a --step (1 s) before the batch's
             * record.  `records` alone is not enough: a prediction of an
             * older boundary published after the merge counts it too. */
            if (recs >= (double)records && wend >= rec_end - 1.0 - 1e-3) {
                lat[got++] = (t1 - t0) * 1e3;
                break;
            }
        }
    }
    qsort(lat, (size_t)got, sizeof *lat, cmp_double);
    if (got)
        printf("latency: flush-marked batch -> published prediction, window of %d samples "
               "(1 h at 10 Hz): median %.2f ms, p90 %.2f ms, max %.2f ms (%d samples)\n",
               samples_seen, lat[got / 2], lat[(int)(got * 0.9)], lat[got - 1], got);
    else
        printf("latency: no measurement\n");
    free(lat);
    ftio_wbuf_free(&w);
    zmq_close(push);
    zmq_close(sub);
}

int main(int argc, char **argv)
{
    struct bench b = {.duration = 10, .ranks = 64, .senders = 1, .batch = 4096,
                      .lat_samples = 20, .rcvhwm = 100};
    static char def[4096];
    snprintf(def, sizeof def, "%s", argv[0]);
    char *slash = strrchr(def, '/');
    if (slash)
        strcpy(slash, "/../bin/ftiod");
    else
        strcpy(def, "ftiod");
    b.ftiod = def;
    static char deff[4096];
    snprintf(deff, sizeof deff, "%.4080s", def);
    deff[strlen(deff) - 1] = '\0';          /* .../bin/ftio */
    b.ftio = deff;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--tcp")) b.tcp = true;
        else if (!strcmp(a, "--relays")) { b.relays = atoi(v); i++; }
        else if (!strcmp(a, "--ftiod")) { b.ftiod = v; i++; }
        else if (!strcmp(a, "--duration")) { b.duration = atof(v); i++; }
        else if (!strcmp(a, "--ranks")) { b.ranks = atoi(v); i++; }
        else if (!strcmp(a, "--batch")) { b.batch = (size_t)atol(v); i++; }
        else if (!strcmp(a, "--senders")) { b.senders = atoi(v); i++; }
        else if (!strcmp(a, "--latency-samples")) { b.lat_samples = atoi(v); i++; }
        else if (!strcmp(a, "--rcvhwm")) { b.rcvhwm = atoi(v); i++; }
        else if (!strcmp(a, "--munge")) { b.munge = v; i++; setenv("FTIO_MUNGE_SOCKET", v, 1); }
        else {
            fprintf(stderr, "usage: ingest [--ftiod PATH] [--tcp] [--duration S] [--ranks R] "
                            "[--batch N] [--senders T] [--latency-samples K] [--rcvhwm N] [--relays K]\n");
            return 2;
        }
    }
    if (b.ranks < 1 || b.senders < 1 || b.senders > 64 || b.batch < 1 || !(b.duration > 0) ||
        b.relays < 0 || b.relays > 100) {
        fprintf(stderr, "ingest: bad option value\n");
        return 2;
    }
    snprintf(b.hwm_arg, sizeof b.hwm_arg, "%d", b.rcvhwm);
    snprintf(b.dir, sizeof b.dir, "%s/ftio-ingest.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(b.dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (b.tcp) {
        snprintf(b.in, sizeof b.in, "tcp://127.0.0.1:56400");
        snprintf(b.pub, sizeof b.pub, "tcp://127.0.0.1:56401");
        snprintf(b.st, sizeof b.st, "tcp://127.0.0.1:56402");
    } else {
        snprintf(b.in, sizeof b.in, "ipc://%s/in", b.dir);
        snprintf(b.pub, sizeof b.pub, "ipc://%s/pub", b.dir);
        snprintf(b.st, sizeof b.st, "ipc://%s/st", b.dir);
    }
    b.ctx = zmq_ctx_new();
    if (start_daemon(&b) < 0) {
        perror("fork");
        return 1;
    }
    json_t *s = NULL;
    for (int i = 0; i < 50 && !(s = status(&b)); i++)
        sleep_s(0.1);
    if (!s) {
        fprintf(stderr, "ingest: %s did not start (see %s/ftiod.err)\n", b.ftiod, b.dir);
        kill(b.pid, SIGKILL);
        return 1;
    }
    json_decref(s);
    if (b.relays && start_relays(&b) < 0) {
        perror("fork");
        return 1;
    }
    throughput(&b);
    if (!b.relays)
        latency(&b);
    for (int i = 0; i < b.relays; i++) {
        kill(b.relay_pid[i], SIGTERM);
        waitpid(b.relay_pid[i], NULL, 0);
    }
    kill(b.pid, SIGTERM);
    int st;
    waitpid(b.pid, &st, 0);
    zmq_ctx_term(b.ctx);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b.dir);
    if (system(cmd) != 0)
        fprintf(stderr, "ingest: could not remove %s\n", b.dir);
    return 0;
}
