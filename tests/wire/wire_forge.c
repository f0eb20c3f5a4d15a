/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_forge.c -- the subcommands of ftio-wire that forge batches for ftiod
 * (PROTOCOL.md §1) without the shim, so the daemon's tests can control
 * exactly what it receives.
 *
 *   ftio-wire periodic [--endpoint E | --spool DIR] [--job J] [--ranks R]
 *              [--period P] [--duration D] [--bytes B] [--phases N]
 *              [--offset S] [--speed X] [--mark] [--no-final] [--skip SEQ]
 *              [--nested] [--read]
 *       A job of R processes writing B bytes each in a phase of D seconds
 *       every P seconds, N phases.  Times lie in the past (the job "ran"
 *       ending now - S) unless --speed X > 0 paces the phases in real time
 *       (X times faster).  --mark marks each phase's batches (flush points),
 *       --skip drops batch SEQ of every process (a sequence gap), --nested
 *       adds a nested POSIX copy of every write (must not be counted),
 *       --read adds read phases half a period later.  --first-clock gives
 *       the first batch of rank 0 a realtime anchor of EPOCH_S (a node whose
 *       clock says 1970, or is a year behind: its records lie there).
 *       --mpi makes the processes MPI ranks as the shim does (a header-only
 *       batch with mpi 1 first, mpi 2 on the final one); --clock R:S puts
 *       rank R's node clock S seconds ahead (negative: behind); --join R:K
 *       starts rank R at phase K (with --mpi: its MPI_Init batch then, its
 *       data from phase K+1); with --speed every batch's anchor is taken when
 *       it is sent, as the shim's.  Hostile values: --lost N in rank 0's
 *       first batch, --huge adds two records of 2^63-1 bytes to it.
 *   ftio-wire tmio FILE.jsonl --spool DIR [--job J] [--ranks R]
 *       Convert the rank-level requests of a TMIO trace (write_sync and
 *       read_sync) into spool files, one per simulated process.
 *   ftio-wire fuzz --endpoint E [--count N] [--seed S]
 *       Random, truncated, bit-flipped, multi-frame, wrong-version and
 *       hostile-but-valid messages.
 *   ftio-wire fleet --endpoint E --jobs N [--seconds S] [--history H]
 *              [--prefix P] [--seed X] [--info FILE]
 *       N live jobs from one process (bench/sitescale): each one process
 *       that flushes once a second while it does I/O, a period of 10 to 600
 *       s (log-uniform), a write burst of min(10, P/4) s per period, one
 *       request per second of burst; every other job also reads, half a
 *       period later.  --history H first sends each job's last H hours
 *       (batches of up to 4096 records), then S seconds live, then `final`.
 *       --info FILE: the wall time the live part started and each job's
 *       period, as JSON.
 *
 * Spool files are named ftio-<job>-gen-<pid>.msgpack like the shim's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <msgpack.h>
#include <zmq.h>
#include "auth.h"
#include "ftio_wire.h"
#include "transport.h"
#include "wire.h"
#include "timeutil.h"
#include "grow.h"
#include "../kit/xorshift.h"

#define MONO0 5000000000ll   /* monotonic anchor of every simulated process */

int wire_out_open(struct wire_out *o, const char *endpoint, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->dir = dir;
    if (endpoint) {
        o->ctx = zmq_ctx_new();
        o->sock = zmq_socket(o->ctx, ZMQ_DEALER);
        int linger = 20000, hwm = 100000;
        zmq_setsockopt(o->sock, ZMQ_LINGER, &linger, sizeof linger);
        zmq_setsockopt(o->sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
        if (zmq_connect(o->sock, endpoint) < 0) {
            fprintf(stderr, "ftio-wire: connect %s: %s\n", endpoint, zmq_strerror(errno));
            return -1;
        }
        char err[256];
        if (ftio_auth_sender_from_env(-1, endpoint, &o->auth, err, sizeof err) != 0) {
            fprintf(stderr, "ftio-wire: %s\n", err);
            return -1;
        }
    }
    return 0;
}

void wire_out_close(struct wire_out *o)
{
    if (o->sock)
        zmq_close(o->sock);
    if (o->ctx)
        zmq_ctx_term(o->ctx);
    if (o->auth) {
        ftio_auth_sender_free(o->auth);
        free(o->auth);
    }
}

int wire_out_batch(struct wire_out *o, const struct ftio_batch_header *h,
                     const struct ftio_record *rec, size_t n)
{
    struct ftio_wbuf w = {0};
    if (ftio_wire_encode(&w, h, rec, n) < 0) {
        fprintf(stderr, "ftio-wire: encode failed\n");
        return -1;
    }
    int rc = 0;
    if (o->sock) {
        if (ftio_batch_send(o->sock, o->auth, w.data, w.len, 0) < 0)
            rc = -1;
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/ftio-%s-%s-%lld.msgpack", o->dir, h->job, h->host,
                 (long long)h->pid);
        FILE *f = fopen(path, "ab");
        if (!f || fwrite(w.data, 1, w.len, f) != w.len)
            rc = -1;
        if (f)
            fclose(f);
    }
    ftio_wbuf_free(&w);
    return rc;
}

const char *wire_arg_str(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return def;
}
double wire_arg_num(int argc, char **argv, const char *name, double def)
{
    const char *s = wire_arg_str(argc, argv, name, NULL);
    return s ? atof(s) : def;
}
bool wire_arg_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name))
            return true;
    return false;
}

void wire_sleep(double s)
{
    if (s <= 0)
        return;
    struct timespec t = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {
    }
}

/* ---- periodic ------------------------------------------------------------ */

static const char periodic_usage[] =
    "usage: ftio-wire periodic (--endpoint E | --spool DIR) [--job J] [--ranks R] [--period P]\n"
    "                          [--duration D] [--bytes B] [--phases N] [--offset S] [--speed X]\n"
    "                          [--mark] [--no-final] [--skip SEQ] [--nested] [--read]\n"
    "                          [--first-clock EPOCH_S] [--mpi] [--clock R:S] [--join R:K]\n"
    "                          [--lost N] [--huge] [--app EXE:ARGS[:NAME[:UID]]]\n";

int wire_cmd_periodic(int argc, char **argv)
{
    if (wire_arg_flag(argc, argv, "--help")) {
        fputs(periodic_usage, stdout);
        return 0;
    }
    const char *endpoint = wire_arg_str(argc, argv, "--endpoint", NULL);
    const char *dir = wire_arg_str(argc, argv, "--spool", NULL);
    const char *job = wire_arg_str(argc, argv, "--job", "gen");
    int ranks = (int)wire_arg_num(argc, argv, "--ranks", 4);
    double period = wire_arg_num(argc, argv, "--period", 3);
    double dur = wire_arg_num(argc, argv, "--duration", 0.5);
    double bytes = wire_arg_num(argc, argv, "--bytes", 1 << 20);
    int phases = (int)wire_arg_num(argc, argv, "--phases", 10);
    double offset = wire_arg_num(argc, argv, "--offset", 1);
    double speed = wire_arg_num(argc, argv, "--speed", 0);
    long skip = (long)wire_arg_num(argc, argv, "--skip", -1);
    double first_clock = wire_arg_num(argc, argv, "--first-clock", NAN);
    bool mark = wire_arg_flag(argc, argv, "--mark"), nested = wire_arg_flag(argc, argv, "--nested");
    bool final = !wire_arg_flag(argc, argv, "--no-final"), reads = wire_arg_flag(argc, argv, "--read");
    bool mpi = wire_arg_flag(argc, argv, "--mpi"), huge = wire_arg_flag(argc, argv, "--huge");
    int clock_rank = -1, join_rank = -1, join_phase = 0;
    double clock_off = 0;
    const char *cs = wire_arg_str(argc, argv, "--clock", NULL), *js = wire_arg_str(argc, argv, "--join", NULL);
    const char *ls = wire_arg_str(argc, argv, "--lost", NULL);
    uint64_t lost = ls ? strtoull(ls, NULL, 0) : 0;
    /* --app: the identity each rank's first batch carries (PROTOCOL.md §1
     * `app`): ARGS stands for both hashes, UID is what the sender claims */
    const char *as = wire_arg_str(argc, argv, "--app", NULL);
    char app_buf[1024] = "";
    struct ftio_app_identity app = { .uid = -1 };
    if (as) {
        snprintf(app_buf, sizeof app_buf, "%s", as);
        char *save = NULL, *f[4] = { NULL };
        for (int i = 0; i < 4; i++)
            f[i] = strtok_r(i ? NULL : app_buf, ":", &save);
        app = (struct ftio_app_identity){ .exe = f[0], .exe_id = "0:0:0", .args = f[1],
                                          .args_norm = f[1], .name = f[2],
                                          .uid = f[3] ? atoll(f[3]) : -1 };
    }
    if ((cs && sscanf(cs, "%d:%lf", &clock_rank, &clock_off) != 2) ||
        (js && sscanf(js, "%d:%d", &join_rank, &join_phase) != 2)) {
        fprintf(stderr, "ftio-wire periodic: --clock R:S, --join R:K\n%s", periodic_usage);
        return 2;
    }
    if ((!endpoint) == (!dir) || ranks < 1 || phases < 1 || !(period > 0)) {
        fprintf(stderr, "ftio-wire periodic: need --endpoint or --spool, ranks/phases >= 1\n%s",
                periodic_usage);
        return 2;
    }
    struct wire_out o;
    if (wire_out_open(&o, endpoint, dir) < 0)
        return 1;
    /* Time 0 of the job in wall ns: in the past so that it "ended" now -
     * offset, or now when pacing in real time. */
    int64_t real0 = ftio_real_ns();
    if (speed <= 0)
        real0 -= (int64_t)((phases * period + offset) * 1e9);
    const int per_phase = 4;   /* records per rank per phase */
    struct ftio_record rec[2 * 2 * per_phase + 2];
    uint64_t *seq = calloc((size_t)ranks, sizeof *seq);
    int64_t start_real = ftio_real_ns();
    /* Rank r's anchor: the job's time 0, or (--speed) the moment of sending,
     * on a clock --clock puts off by its offset. */
#define ANCHOR(h, r)                                                                 \
    do {                                                                             \
        int64_t skew_ = (r) == clock_rank ? (int64_t)(clock_off * 1e9) : 0;          \
        if (speed > 0) {                                                             \
            int64_t now_ = ftio_real_ns();                                           \
            (h).clock_mono = MONO0 + (now_ - start_real);                            \
            (h).clock_real = now_ + skew_;                                           \
        } else {                                                                     \
            (h).clock_mono = MONO0;                                                  \
            (h).clock_real = real0 + skew_;                                          \
        }                                                                            \
    } while (0)
    for (int p = 0; p < phases; p++) {
        if (speed > 0)
            wire_sleep(p == 0 ? 0 : period / speed);
        for (int r = 0; r < ranks; r++) {
            if (r == join_rank && p < join_phase)
                continue;
            if (mpi && (p == 0 || (r == join_rank && p == join_phase))) {
                struct ftio_batch_header hello = {
                    .job = job, .host = "gen", .pid = 1000 + r, .rank = r, .nranks = ranks,
                    .seq = seq[r]++, .mpi = FTIO_MPI_INIT,
                };
                ANCHOR(hello, r);
                if (wire_out_batch(&o, &hello, NULL, 0) < 0) {
                    fprintf(stderr, "ftio-wire: send failed\n");
                    return 1;
                }
                if (r == join_rank)
                    continue;   /* its data from the next phase */
            }
            size_t n = 0;
            for (int mode = 0; mode < (reads ? 2 : 1); mode++) {
                double start = p * period + (mode ? period / 2 : 0) + 0.01 * r;
                for (int k = 0; k < per_phase; k++) {
                    double ts = start + dur * k / per_phase, te = start + dur * (k + 1) / per_phase;
                    struct ftio_record x = {
                        .t_start = (uint64_t)(MONO0 + (int64_t)llround(ts * 1e9)),
                        .t_end = (uint64_t)(MONO0 + (int64_t)llround(te * 1e9)),
                        .offset = -1, .bytes = (int64_t)(bytes / per_phase),
                        .file_id = 42, .op = mode ? FTIO_OP_READ : FTIO_OP_WRITE,
                        .layer = nested ? FTIO_LAYER_MPIIO : FTIO_LAYER_POSIX,
                    };
                    rec[n++] = x;
                    if (nested && !mode) {
                        x.layer = FTIO_LAYER_POSIX;
                        x.flags = FTIO_FLAG_NESTED;
                        rec[n++] = x;
                    }
                }
            }
            struct ftio_batch_header h = {
                .job = job, .host = "gen", .pid = 1000 + r, .rank = ranks > 1 || mpi ? r : -1,
                .nranks = ranks > 1 || mpi ? ranks : 0, .seq = seq[r]++, .clock_mono = MONO0,
                .clock_real = real0, .mark = mark ? "phase" : NULL,
                .mpi = mpi ? FTIO_MPI_INIT : FTIO_MPI_NONE,
            };
            ANCHOR(h, r);
            if (r == 0 && p == 0) {
                h.lost = lost;
                for (int k = 0; huge && k < 2; k++) {
                    struct ftio_record x = rec[0];
                    x.bytes = INT64_MAX;
                    rec[n++] = x;
                }
            }
            if (r == 0 && h.seq == 0 && !isnan(first_clock))
                h.clock_real = (int64_t)(first_clock * 1e9);
            if (as && p == 0) {
                h.has_app = true;
                h.app = app;
            }
            if ((long)h.seq == skip)
                continue;
            if (wire_out_batch(&o, &h, rec, n) < 0) {
                fprintf(stderr, "ftio-wire: send failed\n");
                return 1;
            }
        }
    }
    if (final)
        for (int r = 0; r < ranks; r++) {
            struct ftio_batch_header h = {
                .job = job, .host = "gen", .pid = 1000 + r, .rank = ranks > 1 || mpi ? r : -1,
                .nranks = ranks > 1 || mpi ? ranks : 0, .seq = seq[r]++, .clock_mono = MONO0,
                .clock_real = real0, .final = true,
                .mpi = mpi ? FTIO_MPI_FINALIZED : FTIO_MPI_NONE,
            };
            ANCHOR(h, r);
            wire_out_batch(&o, &h, NULL, 0);
        }
#undef ANCHOR
    free(seq);
    wire_out_close(&o);
    return 0;
}

/* ---- tmio -> spool ----------------------------------------------------------- */

struct req { double ts, te, rate; int op; };

static int cmp_req(const void *a, const void *b)
{
    const struct req *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int wire_cmd_tmio(int argc, char **argv)
{
    static const char usage[] = "usage: ftio-wire tmio FILE.jsonl --spool DIR [--job J] [--ranks R]\n";
    if (wire_arg_flag(argc, argv, "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    const char *file = argc > 1 ? argv[1] : NULL;
    const char *dir = wire_arg_str(argc, argv, "--spool", NULL);
    const char *job = wire_arg_str(argc, argv, "--job", "tmio");
    int ranks = (int)wire_arg_num(argc, argv, "--ranks", 8);
    if (!file || !dir || ranks < 1) {
        fputs(usage, stderr);
        return 2;
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "ftio-wire tmio: %s: %s\n", file, strerror(errno));
        return 1;
    }
    struct req *req = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t llen = 0;
    while (getline(&line, &llen, f) > 0) {
        json_t *root = json_loads(line, 0, NULL);
        if (!root)
            continue;
        const char *names[2] = {"write_sync", "read_sync"};
        for (int m = 0; m < 2; m++) {
            json_t *bw = json_object_get(json_object_get(root, names[m]), "bandwidth");
            json_t *b = json_object_get(bw, "b_rank_avr"), *s = json_object_get(bw, "t_rank_s"),
                   *e = json_object_get(bw, "t_rank_e");
            for (size_t i = 0; i < json_array_size(b); i++) {
                if (FTIO_GROW(req, cap, n + 1) < 0) {
                    fprintf(stderr, "ftio-wire: out of memory\n");
                    exit(2);
                }
                req[n++] = (struct req){json_number_value(json_array_get(s, i)),
                                        json_number_value(json_array_get(e, i)),
                                        json_number_value(json_array_get(b, i)),
                                        m ? FTIO_OP_READ : FTIO_OP_WRITE};
            }
        }
        json_decref(root);
    }
    free(line);
    fclose(f);
    qsort(req, n, sizeof *req, cmp_req);
    struct wire_out o;
    wire_out_open(&o, NULL, dir);
    /* The trace "ran" from yesterday's midnight (UTC): a whole second, so
     * epoch times round alike, and recent, as ftiod takes no records older
     * than its max_past (30 days). */
    const int64_t day = 86400ll * 1000000000ll;
    const int64_t real0 = (ftio_real_ns() / day - 1) * day;
    const size_t per_batch = 8;
    for (int r = 0; r < ranks; r++) {
        struct ftio_record rec[8];
        size_t k = 0;
        uint64_t seq = 0;
        size_t mine = n > (size_t)r ? (n - (size_t)r + (size_t)ranks - 1) / (size_t)ranks : 0;
        for (size_t m = 0; m < mine || (mine == 0 && m == 0); m++) {
            if (m < mine) {
                struct req *q = &req[(size_t)r + m * (size_t)ranks];
                /* Bytes from rate x duration, scaled by 1000 so that rounding
                 * to whole bytes hardly changes the signal's shape. */
                rec[k++] = (struct ftio_record){
                    .t_start = (uint64_t)(MONO0 + llround(q->ts * 1e9)),
                    .t_end = (uint64_t)(MONO0 + llround(q->te * 1e9)),
                    .offset = -1, .bytes = llround(q->rate * (q->te - q->ts) * 1000),
                    .file_id = 7, .op = (uint8_t)q->op, .layer = FTIO_LAYER_POSIX,
                };
            }
            bool last = m + 1 >= mine;
            if (k == per_batch || last) {
                struct ftio_batch_header h = {
                    .job = job, .host = "gen", .pid = 2000 + r, .rank = r, .nranks = ranks,
                    .seq = seq++, .clock_mono = MONO0, .clock_real = real0, .final = last,
                };
                wire_out_batch(&o, &h, rec, k);
                k = 0;
            }
        }
    }
    free(req);
    return 0;
}

/* ---- fuzz -------------------------------------------------------------------- */

static uint64_t rng;
static uint64_t rnd(void)
{
    return ftio_xorshift64(&rng);
}

/* A valid batch of job "fuzz" to mutate. */
static void valid_batch(struct ftio_wbuf *w, uint64_t seq)
{
    struct ftio_record rec[16];
    for (int i = 0; i < 16; i++)
        rec[i] = (struct ftio_record){.t_start = MONO0 + (uint64_t)i * 1000000,
                                      .t_end = MONO0 + (uint64_t)i * 1000000 + 500000,
                                      .offset = i * 4096, .bytes = 4096, .file_id = 9,
                                      .op = FTIO_OP_WRITE};
    struct ftio_batch_header h = {.job = "fuzz", .host = "h", .pid = 1, .rank = -1,
                                  .seq = seq, .clock_mono = MONO0,
                                  .clock_real = ftio_real_ns() - 10000000000ll};
    w->len = 0;
    ftio_wire_encode(w, &h, rec, 16);
}

/* Well-formed msgpack that is hostile: wrong version, wrong types, lying
 * lengths, absurd values. */
static void hostile(msgpack_sbuffer *sb, int kind)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    switch (kind) {
    case 0:   /* wrong version */
        msgpack_pack_map(&pk, 2);
        msgpack_pack_str_with_body(&pk, "v", 1);
        msgpack_pack_int(&pk, 2);
        msgpack_pack_str_with_body(&pk, "job", 3);
        msgpack_pack_str_with_body(&pk, "x", 1);
        break;
    case 1:   /* not a map */
        msgpack_pack_array(&pk, 3);
        msgpack_pack_int(&pk, 1);
        msgpack_pack_nil(&pk);
        msgpack_pack_true(&pk);
        break;
    case 2: { /* a column header claiming 2^31 elements */
        char hdr[] = {(char)0x81, (char)0xa2, 't', 's', (char)0xdd, 0x7f, (char)0xff,
                      (char)0xff, (char)0xff};
        msgpack_sbuffer_write(sb, hdr, sizeof hdr);
        break;
    }
    case 3:   /* columns of different lengths */
        msgpack_pack_map(&pk, 6);
        msgpack_pack_str_with_body(&pk, "v", 1);
        msgpack_pack_int(&pk, 1);
        msgpack_pack_str_with_body(&pk, "job", 3);
        msgpack_pack_str_with_body(&pk, "fuzz", 4);
        msgpack_pack_str_with_body(&pk, "seq", 3);
        msgpack_pack_int(&pk, 0);
        msgpack_pack_str_with_body(&pk, "ts", 2);
        msgpack_pack_array(&pk, 2);
        msgpack_pack_int(&pk, 1);
        msgpack_pack_int(&pk, 2);
        msgpack_pack_str_with_body(&pk, "te", 2);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_int(&pk, 3);
        msgpack_pack_str_with_body(&pk, "bytes", 5);
        msgpack_pack_array(&pk, 0);
        break;
    default:  /* deep nesting */
        for (int i = 0; i < 10000; i++)
            msgpack_pack_array(&pk, 1);
        msgpack_pack_nil(&pk);
        break;
    }
}

int wire_cmd_fuzz(int argc, char **argv)
{
    const char *endpoint = wire_arg_str(argc, argv, "--endpoint", NULL);
    int help = wire_arg_flag(argc, argv, "--help");
    if (!endpoint || help) {
        fputs("usage: ftio-wire fuzz --endpoint E [--count N] [--seed S]\n", help ? stdout : stderr);
        return help ? 0 : 2;
    }
    long count = (long)wire_arg_num(argc, argv, "--count", 5000);
    rng = (uint64_t)wire_arg_num(argc, argv, "--seed", 12345) | 1;
    struct wire_out o;
    if (!endpoint || wire_out_open(&o, endpoint, NULL) < 0)
        return 2;
    struct ftio_wbuf w = {0};
    char *buf = malloc(1 << 16);
    for (long i = 0; i < count; i++) {
        int kind = (int)(rnd() % 6);
        size_t len = 0;
        const void *data = buf;
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        valid_batch(&w, (uint64_t)i);
        switch (kind) {
        case 0:   /* random bytes */
            len = rnd() % 512;
            for (size_t k = 0; k < len; k++)
                buf[k] = (char)rnd();
            break;
        case 1:   /* truncated */
            len = w.len ? rnd() % w.len : 0;
            memcpy(buf, w.data, len);
            break;
        case 2:   /* bit flips */
            len = w.len;
            memcpy(buf, w.data, len);
            for (int k = 0; k < 4; k++)
                buf[rnd() % len] ^= (char)(1 << (rnd() % 8));
            break;
        case 3:   /* more frames than batch + authentication */
            zmq_send(o.sock, "", 0, ZMQ_SNDMORE);
            zmq_send(o.sock, w.data, w.len, ZMQ_SNDMORE);
            zmq_send(o.sock, w.data, w.len, ZMQ_SNDMORE);
            data = w.data;
            len = w.len;
            break;
        case 4:   /* hostile but well-formed msgpack */
            hostile(&sb, (int)(rnd() % 5));
            data = sb.data;
            len = sb.size;
            break;
        default:  /* valid batch with trailing garbage */
            memcpy(buf, w.data, w.len);
            buf[w.len] = (char)0xc1;
            len = w.len + 1;
            break;
        }
        if (o.auth && rnd() % 4 == 0) {
            /* a forged authentication frame: magic + random MAC + a real
             * credential, or random bytes */
            unsigned char frame[FTIO_AUTH_FRAME_MAX];
            size_t flen = ftio_auth_frame(o.auth, data, len, frame, sizeof frame);
            if (rnd() % 2)
                for (int k = 0; k < FTIO_AUTH_MAC_LEN; k++)
                    frame[FTIO_AUTH_MAGIC_LEN + k] = (unsigned char)rnd();
            else
                for (size_t k = 0; k < flen; k++)
                    frame[k] = (unsigned char)rnd();
            zmq_send(o.sock, "", 0, ZMQ_SNDMORE);
            zmq_send(o.sock, data, len, ZMQ_SNDMORE);
            zmq_send(o.sock, frame, flen, 0);
        } else {
            ftio_batch_send(o.sock, o.auth, data, len, 0);
        }
        msgpack_sbuffer_destroy(&sb);
    }
    free(buf);
    ftio_wbuf_free(&w);
    wire_out_close(&o);
    return 0;
}

/* ---- fleet ------------------------------------------------------------------ */

#define FLEET_MONO0 200000000000000ll   /* 2e5 s: room for 24 h of history */
#define FLEET_BATCH 4096

struct fleet_job {
    char name[64];
    double origin;        /* wall s of the job's time 0 */
    double period, burst; /* s */
    bool reads;
    uint64_t seq;
    /* the next request of each mode: period m, second i of the burst */
    int64_t m[2];
    int i[2];
};

/* Wall start of the next request of mode k. */
static double fleet_next(const struct fleet_job *f, int k)
{
    return f->origin + (double)f->m[k] * f->period + (k ? f->period / 2 : 0) + f->i[k];
}

static void fleet_advance(struct fleet_job *f, int k)
{
    if (++f->i[k] >= (int)f->burst) {
        f->i[k] = 0;
        f->m[k]++;
    }
}

/* A batch's anchor taken when it is sent, as the shim takes it when it
 * encodes one: record times stay FLEET_MONO0 + (wall - real0).  (A fixed
 * anchor at the sender's start is more than 5 s old for the history batches
 * read once ftiod caught up with the sender: job_clock.c holds such a batch
 * for its clock until the process's next one, the job's `final`.) */
static void fleet_anchor(struct ftio_batch_header *h, int64_t real0)
{
    int64_t now = ftio_real_ns();
    h->clock_mono = FLEET_MONO0 + (now - real0);
    h->clock_real = now;
}

/* Send the requests of f that end by `until` (wall s), in batches. */
static int fleet_send(struct wire_out *o, struct fleet_job *f, double until, int64_t real0,
                      double start, struct ftio_record *rec)
{
    for (;;) {
        size_t n = 0;
        for (int k = 0; k < (f->reads ? 2 : 1); k++)
            while (n < FLEET_BATCH && fleet_next(f, k) + 0.8 <= until) {
                double ts = fleet_next(f, k) - start;
                rec[n++] = (struct ftio_record){
                    .t_start = (uint64_t)(FLEET_MONO0 + (int64_t)llround(ts * 1e9)),
                    .t_end = (uint64_t)(FLEET_MONO0 + (int64_t)llround((ts + 0.8) * 1e9)),
                    .offset = -1, .bytes = 1 << 20, .file_id = 7,
                    .op = k ? FTIO_OP_READ : FTIO_OP_WRITE, .layer = FTIO_LAYER_POSIX,
                };
                fleet_advance(f, k);
            }
        if (n == 0)
            return 0;
        struct ftio_batch_header h = {
            .job = f->name, .host = "fleet", .pid = 1, .rank = -1, .seq = f->seq++,
        };
        fleet_anchor(&h, real0);
        if (wire_out_batch(o, &h, rec, n) < 0)
            return -1;
        if (n < FLEET_BATCH)
            return 0;
    }
}

int wire_cmd_fleet(int argc, char **argv)
{
    static const char usage[] =
        "usage: ftio-wire fleet --endpoint E --jobs N [--seconds S] [--history H] [--prefix P]\n"
        "                       [--seed X] [--info FILE]\n";
    if (wire_arg_flag(argc, argv, "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    const char *endpoint = wire_arg_str(argc, argv, "--endpoint", NULL);
    const char *prefix = wire_arg_str(argc, argv, "--prefix", "fleet");
    const char *info = wire_arg_str(argc, argv, "--info", NULL);
    long njobs = (long)wire_arg_num(argc, argv, "--jobs", 0);
    double seconds = wire_arg_num(argc, argv, "--seconds", 60);
    double history = wire_arg_num(argc, argv, "--history", 0) * 3600;
    unsigned seed = (unsigned)wire_arg_num(argc, argv, "--seed", 1);
    if (!endpoint || njobs < 1 || njobs > 1000000 || !(seconds > 0) || history < 0 ||
        history > 48 * 3600) {
        fprintf(stderr, "ftio-wire fleet: need --endpoint, 1 <= --jobs <= 1e6, --seconds > 0, "
                        "0 <= --history <= 48\n%s", usage);
        return 2;
    }
    struct fleet_job *jobs = calloc((size_t)njobs, sizeof *jobs);
    struct ftio_record *rec = malloc(FLEET_BATCH * sizeof *rec);
    struct wire_out o;
    if (!jobs || !rec || wire_out_open(&o, endpoint, NULL) < 0) {
        free(jobs);
        free(rec);
        return 1;
    }
    srand(seed);
    int64_t real0 = ftio_real_ns();
    double start = (double)real0 * 1e-9;
    for (long j = 0; j < njobs; j++) {
        struct fleet_job *f = &jobs[j];
        snprintf(f->name, sizeof f->name, "%s%ld", prefix, j);
        f->period = round(10 * pow(60, (double)rand() / RAND_MAX));
        f->burst = fmax(1, fmin(10, floor(f->period / 4)));
        f->reads = j % 2 == 1;
        /* The job started `history` ago, at a random phase of its period. */
        f->origin = start - history - f->period * ((double)rand() / RAND_MAX);
    }
    int rc = 0;
    /* History: everything before the start, job after job. */
    for (long j = 0; j < njobs && rc == 0 && history > 0; j++)
        rc = fleet_send(&o, &jobs[j], start, real0, start, rec);
    double live0 = (double)ftio_real_ns() * 1e-9;
    if (info) {
        FILE *fi = fopen(info, "w");
        if (fi) {
            fprintf(fi, "{\"live_start\": %.6f, \"seconds\": %g, \"history_h\": %g, \"jobs\": [",
                    live0, seconds, history / 3600);
            for (long j = 0; j < njobs; j++)
                fprintf(fi, "%s{\"job\": \"%s\", \"period\": %g, \"burst\": %g, \"reads\": %s}",
                        j ? ", " : "", jobs[j].name, jobs[j].period, jobs[j].burst,
                        jobs[j].reads ? "true" : "false");
            fprintf(fi, "]}\n");
            fclose(fi);
        }
    }
    /* Live: job j flushes at live0 + k + j/N, once a second, what it did. */
    for (long k = 1; rc == 0 && k <= (long)ceil(seconds); k++)
        for (long j = 0; j < njobs && rc == 0; j++) {
            double w = live0 + (double)k + (double)j / (double)njobs;
            double now = (double)ftio_real_ns() * 1e-9;
            if (w > now)
                wire_sleep(w - now);
            rc = fleet_send(&o, &jobs[j], w, real0, start, rec);
        }
    for (long j = 0; j < njobs && rc == 0; j++) {
        struct ftio_batch_header h = {
            .job = jobs[j].name, .host = "fleet", .pid = 1, .rank = -1, .seq = jobs[j].seq++,
            .final = true,
        };
        fleet_anchor(&h, real0);
        rc = wire_out_batch(&o, &h, NULL, 0);
    }
    if (rc != 0)
        fprintf(stderr, "ftio-wire fleet: send failed\n");
    wire_out_close(&o);
    free(jobs);
    free(rec);
    return rc == 0 ? 0 : 1;
}
