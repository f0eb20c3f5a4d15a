/* SPDX-License-Identifier: BSD-3-Clause */
/* wire_recv.c -- `ftio-wire recv`: the test receiver for libftio.so's stream
 * (PROTOCOL.md §1).
 *
 * Binds a ZeroMQ ROUTER socket as ftiod does, decodes every batch with
 * ftio_wire_decode(), acknowledges it (PROTOCOL.md §1.4; -N: never, like a
 * hung daemon) and prints totals as key=value lines, so shell tests can
 * assert exact counts.  It also decodes spool files (the same batch maps, back to back).
 * Used by the shim, MPI-IO and daemon tests.
 *
 * Usage:
 *   ftio-wire recv [-e ENDPOINT] [-i IDLE_S] [-t TOTAL_S] [-n NPIDS] [-w RAWFILE]
 *             [-R READYFILE] [-r] [-N] [-D SEQ] [FILE...]
 *     -e ENDPOINT  bind a ROUTER there (e.g. ipc:///tmp/x/s.sock) and receive
 *     -N           receive but never acknowledge
 *     -D SEQ       the first copy of each process's batch SEQ is neither counted
 *                  nor acknowledged (as by a daemon that stopped with it in
 *                  its queue); the copies that come again are taken
 *     -i IDLE_S    stop after IDLE_S seconds without a message (default 5)
 *     -t TOTAL_S   stop after TOTAL_S seconds in all (default 120)
 *     -n NPIDS     stop as soon as NPIDS distinct pids sent a final batch
 *     -w RAWFILE   append every received (valid) message to RAWFILE, which
 *                  then reads like a spool file: `ftio-wire recv RAWFILE SPOOL...`
 *                  gives the totals of socket + spool together
 *     -R READYFILE create READYFILE once the socket is bound
 *     -r           also print one line per record:
 *                  rec pid= layer= op= bytes= off= fid= flags= ts= te=
 *     FILE...      decode these spool files (after receiving, if -e)
 *
 * Output (stdout), one key=value per line; keys absent when zero:
 *   batches= records= bad= pids= finals= lost= seq_gaps= seq_dups= files=
 *   dropped=               first copies dropped (-D)
 *   count.<layer>.<op>=N   bytes.<layer>.<op>=N      (layer: posix stdio mpiio
 *   nested.<layer>.<op>=N  async.<layer>.<op>=N       api; op: read write open
 *   coll.<layer>.<op>=N    count.<layer>=N            close sync seek stat meta)
 *   mark=<label>           one line per mark, in arrival order
 *   file=<path>            one line per distinct file id -> path
 *   fs=<TYPE:MOUNT> <path> the file system of each file that has one
 *   pid=<pid> rank= nranks= job= host= batches= records= final=0|1 seqmax=
 *   unseen_batches= unseen.read= unseen.write=   the final batches' `unseen`
 * A batch is counted once per (process, seq), as ftiod counts it: a copy
 * that comes again (a resend, the same batch spooled) only adds to seq_dups.
 * seq_gaps counts, per pid, the numbers missing from 0..max(seq).
 * Exit status: 0, or 2 on usage/IO errors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>
#include "record.h"
#include "transport.h"
#include "ftio_wire.h"
#include "wire.h"
#include "grow.h"

#define MAX_PIDS  4096
#define MAX_FILES 65536

struct pid_info {
    int64_t   pid;
    int32_t   rank, nranks;
    char      job[256], host[256];
    uint64_t  batches, records;
    int       final;
    int       dropped;      /* -D: its batch SEQ was dropped once */
    uint64_t *seqs;
    size_t    nseq, capseq;
};

static struct {
    uint64_t batches, records, bad, lost, dups, dropped;
    uint64_t unseen[2];         /* the final batches' kernel cross-check, summed */
    size_t   nunseen;           /* batches that carried one */
    uint64_t count[FTIO_LAYER_COUNT][FTIO_OP_COUNT];
    int64_t  bytes[FTIO_LAYER_COUNT][FTIO_OP_COUNT];
    uint64_t nested[FTIO_LAYER_COUNT][FTIO_OP_COUNT];
    uint64_t async[FTIO_LAYER_COUNT][FTIO_OP_COUNT];
    uint64_t coll[FTIO_LAYER_COUNT][FTIO_OP_COUNT];
    struct pid_info pids[MAX_PIDS];
    size_t   npids;
    uint32_t file_ids[MAX_FILES];
    char    *file_paths[MAX_FILES];
    char    *file_fs[MAX_FILES];     /* the entry's file system, NULL: none sent */
    size_t   nfiles;
    char   **marks;
    size_t   nmarks, capmarks;
    int      per_record;
} st;

static struct pid_info *pid_info(const struct ftio_batch_header *h)
{
    for (size_t i = 0; i < st.npids; i++)
        if (st.pids[i].pid == h->pid && strcmp(st.pids[i].host, h->host ? h->host : "") == 0)
            return &st.pids[i];
    if (st.npids == MAX_PIDS)
        return NULL;
    struct pid_info *p = &st.pids[st.npids++];
    p->pid = h->pid;
    snprintf(p->host, sizeof p->host, "%s", h->host ? h->host : "");
    return p;
}

static void add_file(uint32_t id, const char *path, const char *fs)
{
    for (size_t i = 0; i < st.nfiles; i++)
        if (st.file_ids[i] == id)
            return;
    if (st.nfiles == MAX_FILES)
        return;
    st.file_ids[st.nfiles] = id;
    st.file_fs[st.nfiles] = fs ? strdup(fs) : NULL;
    st.file_paths[st.nfiles++] = strdup(path ? path : "");
}

/* Has this process sent seq already?  (A resend, a spooled copy: counted
 * once, as ftiod counts it; seq_dups says how many came again.) */
static int seen_seq(const struct pid_info *p, uint64_t seq)
{
    for (size_t k = p->nseq; k-- > 0;)
        if (p->seqs[k] == seq)
            return 1;
    return 0;
}

static void account(const struct ftio_batch *b)
{
    const struct ftio_batch_header *h = &b->h;
    struct pid_info *p = pid_info(h);
    if (p && seen_seq(p, h->seq)) {
        st.dups++;
        return;
    }
    st.batches++;
    st.records += b->n;
    st.lost += h->lost;
    if (h->has_unseen) {
        st.unseen[0] += h->unseen_read;
        st.unseen[1] += h->unseen_write;
        st.nunseen++;
    }
    if (p) {
        p->rank = h->rank;
        p->nranks = h->nranks;
        snprintf(p->job, sizeof p->job, "%s", h->job ? h->job : "");
        p->batches++;
        p->records += b->n;
        if (h->final)
            p->final = 1;
        if (FTIO_GROW(p->seqs, p->capseq, p->nseq + 1) < 0) {
            fprintf(stderr, "ftio-wire recv: out of memory\n");
            exit(2);
        }
        p->seqs[p->nseq++] = h->seq;
    }
    for (size_t i = 0; i < h->nfiles; i++)
        add_file(h->files[i].id, h->files[i].path, h->files[i].fs);
    if (h->mark) {
        if (FTIO_GROW(st.marks, st.capmarks, st.nmarks + 1) == 0)
            st.marks[st.nmarks++] = strdup(h->mark);
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct ftio_record *r = &b->rec[i];
        if (r->layer >= FTIO_LAYER_COUNT || r->op >= FTIO_OP_COUNT)
            continue;
        st.count[r->layer][r->op]++;
        st.bytes[r->layer][r->op] += r->bytes;
        if (r->flags & FTIO_FLAG_NESTED)
            st.nested[r->layer][r->op]++;
        if (r->flags & FTIO_FLAG_ASYNC)
            st.async[r->layer][r->op]++;
        if (r->flags & FTIO_FLAG_COLLECTIVE)
            st.coll[r->layer][r->op]++;
        if (st.per_record)
            printf("rec pid=%lld layer=%s op=%s bytes=%lld off=%lld fid=%u flags=%u ts=%llu te=%llu\n",
                   (long long)h->pid, ftio_layer_name(r->layer), ftio_op_name(r->op), (long long)r->bytes,
                   (long long)r->offset, r->file_id, r->flags, (unsigned long long)r->t_start,
                   (unsigned long long)r->t_end);
    }
}

/* Decode every batch in buf; returns the number of bad/truncated ones. */
static int decode_all(const char *what, const char *buf, size_t len, struct ftio_batch *b)
{
    size_t pos = 0;
    int bad = 0;
    while (pos < len) {
        size_t used = 0;
        char err[256] = "";
        int rc = ftio_wire_decode(buf + pos, len - pos, b, &used, err, sizeof err);
        if (rc == 0) {
            account(b);
            pos += used;
            continue;
        }
        fprintf(stderr, "ftio-wire recv: %s: %s at byte %zu\n", what,
                rc == 1 ? "truncated batch" : err, pos + used);
        bad++;
        break;
    }
    return bad;
}

static int decode_file(const char *path, struct ftio_batch *b)
{
    size_t len;
    char *buf = wire_slurp("recv", path, &len);
    if (!buf)
        return -1;
    st.bad += (uint64_t)decode_all(path, buf, len, b);
    free(buf);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t finals(void)
{
    size_t n = 0;
    for (size_t i = 0; i < st.npids; i++)
        n += st.pids[i].final != 0;
    return n;
}

static void report(void)
{
    uint64_t gaps = 0, dups = st.dups;
    for (size_t i = 0; i < st.npids; i++) {
        struct pid_info *p = &st.pids[i];
        qsort(p->seqs, p->nseq, sizeof *p->seqs, cmp_u64);
        uint64_t expect = 0;
        for (size_t k = 0; k < p->nseq; k++) {
            gaps += p->seqs[k] - expect;
            expect = p->seqs[k] + 1;
        }
    }
    printf("batches=%llu\nrecords=%llu\nbad=%llu\npids=%zu\nfinals=%zu\nlost=%llu\n"
           "seq_gaps=%llu\nseq_dups=%llu\nfiles=%zu\n",
           (unsigned long long)st.batches, (unsigned long long)st.records,
           (unsigned long long)st.bad, st.npids, finals(), (unsigned long long)st.lost,
           (unsigned long long)gaps, (unsigned long long)dups, st.nfiles);
    if (st.dropped)
        printf("dropped=%llu\n", (unsigned long long)st.dropped);
    if (st.nunseen)
        printf("unseen_batches=%zu\nunseen.read=%llu\nunseen.write=%llu\n", st.nunseen,
               (unsigned long long)st.unseen[0], (unsigned long long)st.unseen[1]);
    for (int l = 0; l < FTIO_LAYER_COUNT; l++) {
        uint64_t total = 0;
        for (int o = 0; o < FTIO_OP_COUNT; o++) {
            total += st.count[l][o];
            if (st.count[l][o])
                printf("count.%s.%s=%llu\nbytes.%s.%s=%lld\n", ftio_layer_name(l), ftio_op_name(o),
                       (unsigned long long)st.count[l][o], ftio_layer_name(l), ftio_op_name(o),
                       (long long)st.bytes[l][o]);
            if (st.nested[l][o])
                printf("nested.%s.%s=%llu\n", ftio_layer_name(l), ftio_op_name(o), (unsigned long long)st.nested[l][o]);
            if (st.async[l][o])
                printf("async.%s.%s=%llu\n", ftio_layer_name(l), ftio_op_name(o), (unsigned long long)st.async[l][o]);
            if (st.coll[l][o])
                printf("coll.%s.%s=%llu\n", ftio_layer_name(l), ftio_op_name(o), (unsigned long long)st.coll[l][o]);
        }
        if (total)
            printf("count.%s=%llu\n", ftio_layer_name(l), (unsigned long long)total);
    }
    for (size_t i = 0; i < st.nmarks; i++)
        printf("mark=%s\n", st.marks[i]);
    for (size_t i = 0; i < st.nfiles; i++)
        printf("file=%s\n", st.file_paths[i]);
    for (size_t i = 0; i < st.nfiles; i++)
        if (st.file_fs[i])
            printf("fs=%s %s\n", st.file_fs[i], st.file_paths[i]);
    for (size_t i = 0; i < st.npids; i++) {
        struct pid_info *p = &st.pids[i];
        printf("pid=%lld rank=%d nranks=%d job=%s host=%s batches=%llu records=%llu final=%d seqmax=%llu\n",
               (long long)p->pid, p->rank, p->nranks, p->job, p->host,
               (unsigned long long)p->batches, (unsigned long long)p->records, p->final,
               (unsigned long long)(p->nseq ? p->seqs[p->nseq - 1] : 0));
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int no_ack;   /* -N */
static long long drop_seq = -1;   /* -D */

/* -D: is this the first copy of the batch to drop (then it is dropped)? */
static int drop_first_copy(const struct ftio_batch *b)
{
    struct pid_info *p;
    if (drop_seq < 0 || b->h.seq != (uint64_t)drop_seq || !(p = pid_info(&b->h)) || p->dropped)
        return 0;
    p->dropped = 1;
    st.dropped++;
    return 1;
}

static int receive(const char *endpoint, double idle, double total, size_t npids,
                   const char *rawfile, const char *ready, struct ftio_batch *b)
{
    void *ctx = zmq_ctx_new();
    void *s = ctx ? zmq_socket(ctx, ZMQ_ROUTER) : NULL;
    if (!s || zmq_bind(s, endpoint) != 0) {
        fprintf(stderr, "ftio-wire recv: cannot bind %s: %s\n", endpoint, zmq_strerror(errno));
        return -1;
    }
    FILE *raw = NULL;
    if (rawfile && !(raw = fopen(rawfile, "ab"))) {
        fprintf(stderr, "ftio-wire recv: %s: %s\n", rawfile, strerror(errno));
        return -1;
    }
    if (ready) {
        FILE *f = fopen(ready, "w");
        if (f)
            fclose(f);
    }
    double start = now_s(), last = start;
    zmq_msg_t msg, id;
    zmq_msg_init(&msg);
    zmq_msg_init(&id);
    for (;;) {
        double t = now_s();
        if (t - last > idle || t - start > total || (npids && finals() >= npids))
            break;
        zmq_pollitem_t it = { .socket = s, .events = ZMQ_POLLIN };
        if (zmq_poll(&it, 1, 100) <= 0)
            continue;
        /* identity, delimiter, batch, [auth] */
        if (zmq_msg_recv(&id, s, ZMQ_DONTWAIT) < 0)
            continue;
        int nframes = 0, more = zmq_msg_more(&id), have = 0;
        while (more) {
            zmq_msg_t f;
            zmq_msg_init(&f);
            if (zmq_msg_recv(&f, s, 0) < 0) {
                zmq_msg_close(&f);
                break;
            }
            more = zmq_msg_more(&f);
            if (++nframes == 2) {
                zmq_msg_close(&msg);
                msg = f;
                have = 1;
            } else {
                zmq_msg_close(&f);
            }
        }
        last = now_s();
        if (!have) {
            fprintf(stderr, "ftio-wire recv: message without a batch frame\n");
            st.bad++;
            continue;
        }
        const char *data = zmq_msg_data(&msg);
        size_t len = zmq_msg_size(&msg), used = 0;
        char err[256] = "";
        int rc = ftio_wire_decode(data, len, b, &used, err, sizeof err);
        if (rc != 0 || used != len) {
            fprintf(stderr, "ftio-wire recv: bad message (%zu bytes): %s\n", len,
                    rc == 0 ? "trailing bytes" : rc == 1 ? "truncated" : err);
            st.bad++;
            continue;
        }
        if (drop_first_copy(b))
            continue;
        account(b);
        if (raw && fwrite(data, 1, len, raw) != len)
            fprintf(stderr, "ftio-wire recv: %s: short write\n", rawfile);
        if (!no_ack) {
            unsigned char ack[FTIO_ACK_LEN];
            ftio_ack_encode(ack, b->h.seq, FTIO_ACK_MERGED);
            zmq_send(s, zmq_msg_data(&id), zmq_msg_size(&id), ZMQ_SNDMORE | ZMQ_DONTWAIT);
            zmq_send(s, "", 0, ZMQ_SNDMORE | ZMQ_DONTWAIT);
            zmq_send(s, ack, sizeof ack, ZMQ_DONTWAIT);
        }
    }
    zmq_msg_close(&id);
    zmq_msg_close(&msg);
    if (raw)
        fclose(raw);
    /* A ROUTER closed right after queueing a reply can drop it (seen with
     * libzmq 4.3.4 on ipc://, whatever the linger): give the I/O thread a
     * moment to write the last acknowledgements, or the sender spools what
     * it was told nothing about. */
    if (!no_ack)
        nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000000 }, NULL);
    zmq_close(s);
    zmq_ctx_term(ctx);
    return 0;
}

int wire_cmd_recv(int argc, char **argv)
{
    const char *endpoint = NULL, *rawfile = NULL, *ready = NULL;
    double idle = 5, total = 120;
    long npids = 0;
    int c;
    if (argc >= 2 && !strcmp(argv[1], "--help"))
        argv[1] = "-h";
    while ((c = getopt(argc, argv, "e:i:t:n:w:R:rND:h")) != -1) {
        switch (c) {
        case 'e': endpoint = optarg; break;
        case 'i': idle = atof(optarg); break;
        case 't': total = atof(optarg); break;
        case 'n': npids = atol(optarg); break;
        case 'w': rawfile = optarg; break;
        case 'R': ready = optarg; break;
        case 'r': st.per_record = 1; break;
        case 'N': no_ack = 1; break;
        case 'D': drop_seq = atoll(optarg); break;
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: ftio-wire recv [-e ENDPOINT] [-i IDLE_S] [-t TOTAL_S] [-n NPIDS] "
                    "[-w RAWFILE] [-R READYFILE] [-r] [-N] [-D SEQ] [SPOOLFILE...]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (idle <= 0 || total <= 0 || npids < 0) {
        fprintf(stderr, "ftio-wire recv: -i, -t must be > 0 and -n >= 0\n");
        return 2;
    }
    if (!endpoint && optind == argc) {
        fprintf(stderr, "ftio-wire recv: nothing to do: give -e ENDPOINT and/or spool files\n");
        return 2;
    }
    struct ftio_batch b;
    memset(&b, 0, sizeof b);
    int rc = 0;
    if (endpoint && receive(endpoint, idle, total, (size_t)npids, rawfile, ready, &b) != 0)
        rc = 2;
    for (int i = optind; i < argc; i++)
        if (decode_file(argv[i], &b) != 0)
            rc = 2;
    report();
    ftio_batch_free(&b);
    return rc;
}
