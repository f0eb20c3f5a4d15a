/* SPDX-License-Identifier: BSD-3-Clause */
/* replay.c -- `ftio replay`: send spool files (PROTOCOL.md §3) to a running
 * ftiod, batch by batch, exactly as they were written.
 *
 *   ftio replay [--endpoint E] [--speed X | --realtime] FILES...
 *
 * --endpoint defaults to FTIO_ENDPOINT (where the shim sends), else the
 * daemon's configuration file (endpoints.c), else ftiod's default --listen
 * (common/defaults.h).
 *
 * Each file holds one process's batches in order.  The files are merged by
 * the earliest record start of each batch, keeping every file's own order, so
 * the daemon sees the job's earliest data first (its time 0) and each
 * process's sequence numbers in order.  Without --speed they go as fast as
 * the daemon takes them; --speed X paces them at X times the original rate
 * (--realtime = 1).  Batches the daemon already has are recognised by their
 * sequence numbers and dropped there, so replaying after a restart is safe.
 * ftiod acknowledges each batch (PROTOCOL.md §1.4): the exit status is 0 only
 * when every batch was acknowledged as merged.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>
#include "auth.h"
#include "cliopt.h"
#include "defaults.h"
#include "grow.h"
#include "transport.h"
#include "commands.h"
#include "timeutil.h"
#include "trace.h"
#include "wire.h"

struct rbatch {
    size_t off, len;   /* inside its file's buffer */
    int64_t key;       /* wall ns of its earliest record start */
    size_t n;
};

struct rfile {
    const char *path;
    char  *buf;
    size_t len;
    struct rbatch *b;
    size_t nb, cap, next;
};

static int read_whole(const char *path, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ftio replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 0, n = 0;
    char *b = NULL;
    for (;;) {
        /* 64 KiB at least per read: the first is 64 KiB, then doubled */
        if (FTIO_GROW(b, cap, n + (1 << 16)) < 0) {
            fprintf(stderr, "ftio replay: %s: out of memory\n", path);
            free(b);
            fclose(f);
            return -1;
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "ftio replay: %s: read error\n", path);
        free(b);
        return -1;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* Split a file into its batches; a truncated last batch (a process killed
 * while spooling) is reported and skipped. */
static int index_file(struct rfile *f, struct ftio_batch *scratch)
{
    size_t off = 0;
    int64_t last_key = INT64_MIN;
    /* Another trace format (a TMIO JSONL, a Darshan log ...) is no spool
     * file: say that, not the decoder's first complaint about its bytes. */
    enum ftio_trace_format fmt = f->len ? ftio_trace_detect(f->buf, f->len, f->path) : FTIO_FORMAT_AUTO;
    if (f->len && fmt != FTIO_FORMAT_SPOOL) {
        fprintf(stderr, "ftio replay: %s: not a spool file (%s%s); ftio replay sends the "
                "ftio-<job>-<host>-<pid>.msgpack files libftio.so spools, `ftio FILE` analyses "
                "other traces\n", f->path, fmt == FTIO_FORMAT_AUTO ? "no trace format" : "looks like ",
                fmt == FTIO_FORMAT_AUTO ? "" : ftio_trace_format_name(fmt));
        return -1;
    }
    while (off < f->len) {
        size_t used = 0;
        char err[256] = "";
        int rc = ftio_wire_decode(f->buf + off, f->len - off, scratch, &used, err, sizeof err);
        if (rc == 1) {
            fprintf(stderr, "ftio replay: %s: offset %zu: truncated last batch, skipped\n",
                    f->path, off);
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "ftio replay: %s: offset %zu: %s\n", f->path, off + used, err);
            return -1;
        }
        const struct ftio_batch_header *h = &scratch->h;
        /* The key only orders batches; times a hostile header or record
         * makes overflow are left out (ftiod rejects those records). */
        int64_t base, t, key = INT64_MAX;
        if (ftio_wall_base(h->clock_real, h->clock_mono, h->skew_ns, &base))
            for (size_t i = 0; i < scratch->n; i++)
                if (ftio_wall_ns(scratch->rec[i].t_start, base, &t) && t < key)
                    key = t;
        if (key == INT64_MAX)
            key = last_key != INT64_MIN ? last_key : h->clock_real;
        last_key = key;
        if (FTIO_GROW(f->b, f->cap, f->nb + 1) < 0) {
            fprintf(stderr, "ftio replay: out of memory\n");
            return -1;
        }
        f->b[f->nb++] = (struct rbatch){off, used, key, scratch->n};
        off += used;
    }
    return 0;
}

/* Is a daemon listening?  A DEALER with ZMQ_IMMEDIATE is writable only once
 * connected. */
static int probe(void *ctx, const char *endpoint)
{
    void *p = zmq_socket(ctx, ZMQ_DEALER);
    int one = 1, zero = 0, rc = -1;
    zmq_setsockopt(p, ZMQ_IMMEDIATE, &one, sizeof one);
    zmq_setsockopt(p, ZMQ_LINGER, &zero, sizeof zero);
    if (zmq_connect(p, endpoint) < 0) {
        fprintf(stderr, "ftio replay: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
    } else {
        zmq_pollitem_t it = {.socket = p, .events = ZMQ_POLLOUT};
        if (zmq_poll(&it, 1, 5000) > 0)
            rc = 0;
        else
            fprintf(stderr, "ftio replay: nobody listening at %s (is ftiod running?)\n", endpoint);
    }
    zmq_close(p);
    return rc;
}

#define ACK_IDLE_S 10.0
/* Batches sent and not yet acknowledged, at most.  ftiod's ROUTER drops an
 * acknowledgement rather than wait for a peer that does not read (it sends
 * them ZMQ_DONTWAIT), and the pipes between it and us hold ~1000 messages
 * each way: more in flight, and a daemon slower than the file could fill
 * them while we are blocked in a send, losing acknowledgements of batches it
 * merged (exit status 1 for a replay that went through). */
#define MAX_IN_FLIGHT 500

/* Count the acknowledgements queued so far. */
static void take_acks(void *s, size_t *acked, size_t *refused)
{
    struct ftio_ack a;
    while (ftio_ack_recv(s, &a))
        (*(a.status == FTIO_ACK_MERGED ? acked : refused))++;
}

/* Wait until at most `in_flight` of the `sent` batches are unacknowledged,
 * or until no acknowledgement came for ACK_IDLE_S.  0 when reached. */
static int wait_acks(void *s, size_t sent, size_t in_flight, size_t *acked, size_t *refused)
{
    int64_t last = ftio_mono_ns();
    size_t before = *acked + *refused;
    take_acks(s, acked, refused);
    while (sent - *acked - *refused > in_flight) {
        if (ftio_mono_ns() - last >= (int64_t)(ACK_IDLE_S * 1e9))
            return -1;
        zmq_pollitem_t it = {.socket = s, .events = ZMQ_POLLIN};
        zmq_poll(&it, 1, 100);
        take_acks(s, acked, refused);
        if (*acked + *refused != before) {
            before = *acked + *refused;
            last = ftio_mono_ns();
        }
    }
    return 0;
}

static void sleep_until(const struct timespec *t)
{
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR) {
    }
}

/* --realtime: --speed 1 */
static int set_realtime(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    (void)val, (void)err, (void)errlen;
    *(double *)o->ctx = 1;
    return 0;
}

static const char usage_text[] =
    "usage: ftio replay [--endpoint E] [--speed X | --realtime] FILE...\n";
static const char about_text[] =
    "Send spool files (ftio-<job>-<host>-<pid>.msgpack) to a running ftiod,\n"
    "batch by batch, merged in time order; batches it already has are dropped\n"
    "there, so replaying after a restart is safe.\n";
static const char epilog_text[] =
    "Environment: FTIO_ENDPOINT (default --endpoint, else ftiod's\n"
    "configuration file, FTIO_DAEMON_CONFIG), FTIO_AUTH (none for a daemon\n"
    "under --auth none).\n"
    "Exit status: 0 when every batch was acknowledged as merged, 1 otherwise,\n"
    "2 on a usage error.\n";

int ftio_cmd_replay(int argc, char **argv)
{
    struct ftio_endpoints ep;
    ftio_default_endpoints(&ep);
    const char *endpoint = ep.listen;
    double speed = 0;   /* 0: as fast as possible */
    struct cliopt t[] = {
        {"endpoint", 'e', CLIOPT_STRING, "E", "ftiod's ingest endpoint (its --listen)",
         "$FTIO_ENDPOINT, ftiod.conf's listen or " FTIO_DEFAULT_ENDPOINT, .to.s = &endpoint},
        {"speed", 's', CLIOPT_DOUBLE, "X", "pace the batches at X times their original rate",
         NULL, .to.d = &speed, .min = 0, .max = 1e6, .flags = CLIOPT_MIN_OPEN},
        {"realtime", 0, CLIOPT_CUSTOM, NULL, "as they were recorded (--speed 1)", NULL,
         .set = set_realtime, .ctx = &speed},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio replay", .version = FTIO_VERSION, .opts = t, .usage = usage_text,
        .about = about_text, .epilog = epilog_text,
    };
    int first_file = cliopt_parse_command(&p, argc, argv, 1, -1, "no spool files given");
    cliopt_free(&p);   /* it kept nothing: no list option, no file */
    if (first_file < 0)
        return CLIOPT_EXIT_STATUS(first_file);
    int nfiles = argc - first_file;

    int rc = 1;
    struct rfile *files = calloc((size_t)nfiles, sizeof *files);
    struct ftio_batch scratch = {0};
    void *ctx = NULL, *s = NULL;
    struct ftio_auth_sender *auth = NULL;
    if (!files)
        goto out;
    for (int i = 0; i < nfiles; i++) {
        files[i].path = argv[first_file + i];
        if (read_whole(files[i].path, &files[i].buf, &files[i].len) < 0 ||
            index_file(&files[i], &scratch) < 0)
            goto out;
    }

    /* The replaying user signs the batches (common/auth.h): ftiod gives
     * the job to, or checks it against, the uid of whoever replays. */
    char aerr[256];
    if (ftio_auth_sender_from_env(-1, endpoint, &auth, aerr, sizeof aerr) != 0) {
        fprintf(stderr, "ftio replay: cannot authenticate (%s); FTIO_AUTH=none for a daemon "
                        "running --auth none\n", aerr);
        goto out;
    }
    ctx = zmq_ctx_new();
    if (probe(ctx, endpoint) < 0)
        goto out;
    /* No ZMQ_IMMEDIATE on the sending socket: with it, libzmq was seen to
     * drop queued messages at close when the daemon's receive queue was
     * full.  Reachability was checked by probe(); the linger delivers the
     * tail. */
    s = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 30000, sndtimeo = 10000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_SNDTIMEO, &sndtimeo, sizeof sndtimeo);
    if (zmq_connect(s, endpoint) < 0) {
        fprintf(stderr, "ftio replay: cannot connect to %s: %s\n", endpoint, zmq_strerror(errno));
        goto out;
    }

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t key0 = 0;
    bool have_key0 = false;
    size_t sent = 0, records = 0, acked = 0, refused = 0;
    for (;;) {
        /* The file whose next batch starts earliest. */
        int pick = -1;
        for (int i = 0; i < nfiles; i++)
            if (files[i].next < files[i].nb &&
                (pick < 0 || files[i].b[files[i].next].key < files[pick].b[files[pick].next].key))
                pick = i;
        if (pick < 0)
            break;
        struct rfile *f = &files[pick];
        struct rbatch *b = &f->b[f->next++];
        if (!have_key0) {
            key0 = b->key;
            have_key0 = true;
        }
        if (speed > 0 && b->key > key0) {
            double at = (double)(b->key - key0) * 1e-9 / speed;
            struct timespec t = t0;
            t.tv_sec += (time_t)at;
            t.tv_nsec += (long)((at - floor(at)) * 1e9);
            if (t.tv_nsec >= 1000000000) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000;
            }
            sleep_until(&t);
        }
        if (ftio_batch_send(s, auth, f->buf + b->off, b->len, 0) < 0) {
            fprintf(stderr, "ftio replay: cannot send to %s (%s): is ftiod running?\n",
                    endpoint, errno == EAGAIN ? "timed out" : zmq_strerror(errno));
            goto out;
        }
        sent++;
        records += b->n;
        if (wait_acks(s, sent, MAX_IN_FLIGHT - 1, &acked, &refused) != 0)
            break;   /* ftiod stopped answering: reported as unacknowledged */
    }
    /* ftiod acknowledges every batch it decoded (PROTOCOL.md §1.4): wait
     * until all are, or until nothing came for ACK_IDLE_S. */
    wait_acks(s, sent, 0, &acked, &refused);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    size_t missing = sent - acked - refused;
    fprintf(stderr, "ftio replay: sent %zu batches (%zu records) from %d files to %s in %.2f s; "
            "%zu acknowledged, %zu refused, %zu unacknowledged\n",
            sent, records, nfiles, endpoint,
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
            acked, refused, missing);
    if (refused)
        fprintf(stderr, "ftio replay: ftiod refused %zu batches (another user's job, quotas or "
                        "authentication: see its log and --status)\n", refused);
    rc = refused || missing ? 1 : 0;
out:
    if (s)
        zmq_close(s);   /* lingers until everything queued is delivered */
    if (ctx)
        zmq_ctx_term(ctx);
    if (auth) {
        ftio_auth_sender_free(auth);
        free(auth);
    }
    ftio_batch_free(&scratch);
    for (int i = 0; files && i < nfiles; i++) {
        free(files[i].buf);
        free(files[i].b);
    }
    free(files);
    return rc;
}
