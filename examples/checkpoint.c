/* SPDX-License-Identifier: BSD-3-Clause */
/* checkpoint.c -- MPI checkpointing mini-app: the periodic I/O pattern ftio
 * is built to predict.
 *
 * Every iteration each rank computes for a while (sleep, or a busy loop with
 * --busy), then all ranks write one checkpoint: rank r writes its block at
 * offset r * block of DIR/checkpoint.mpiio with a collective
 * MPI_File_write_at_all (or MPI_File_iwrite_at + MPI_Wait with
 * --nonblocking, or its own POSIX file DIR/checkpoint.<rank>.posix with
 * --posix; with --root-only rank 0 alone writes, as codes whose rank 0 does
 * all the I/O do, e.g. LAMMPS).  The file is reopened and overwritten each iteration, as a
 * rolling checkpoint is.  Run it under the shim to watch a periodic signal:
 *
 *   LD_PRELOAD=libftio.so mpirun -np 4 checkpoint -n 20 -c 2 -b 8M -o /tmp
 *
 * With --read SEC each iteration also reads its checkpoint back SEC seconds
 * after writing it (a restart test, or an analysis step): a read phase and a
 * write phase per iteration, each with the iteration's period.
 * Each rank writes iterations * block bytes in total; rank 0 prints a
 * one-line summary (and, with --verbose, one line per iteration with its
 * phases' start times).  With --fsync each checkpoint is made durable
 * (MPI_File_sync, or fsync) before its file is closed; with --phases rank 0
 * prints at the end every rank's checkpoint phases as
 *     phase checkpoint ITERATION RANK START END BYTES
 * (CLOCK_REALTIME, the open to the close: the truth a benchmark takes the
 * phases' times from, bench/contention).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct options {
    int    iterations;
    long long block;           /* bytes per rank per checkpoint */
    double compute;            /* seconds per iteration */
    double jitter;             /* +- fraction of compute, uniform */
    double read_after;         /* < 0: no read phase; else s after the write */
    int    busy, posix, nonblocking, root_only, verbose, fsync, phases;
    const char *dir;
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: checkpoint [options]\n"
        "  -n, --iterations N    checkpoints to write (default 5)\n"
        "  -b, --block SIZE      bytes per rank per checkpoint, k/M/G suffixes (default 1M)\n"
        "  -c, --compute SEC     compute time before each checkpoint (default 1)\n"
        "  -j, --jitter FRAC     vary compute time by up to +-FRAC of it (default 0)\n"
        "      --busy            compute with a busy loop instead of sleeping\n"
        "      --posix           file per process with POSIX pwrite instead of MPI-IO\n"
        "      --root-only       rank 0 alone writes (its POSIX file); the others only compute\n"
        "      --nonblocking     MPI_File_iwrite_at + MPI_Wait instead of write_at_all\n"
        "  -r, --read SEC        read the checkpoint back SEC s after writing it\n"
        "  -o, --output DIR      where checkpoint files go (default .)\n"
        "      --fsync           make each checkpoint durable before closing it\n"
        "      --phases          print every rank's checkpoint phases at the end (wall clock)\n"
        "  -v, --verbose         one line per iteration (rank 0)\n"
        "  -h, --help            this help\n");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v < 1 || v > INT_MAX)
        return -1;
    *out = (long long)v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "bad OPTION 'VALUE' (WHAT IS ALLOWED)" in err; returns -1. */
static int bad_value(char *err, size_t errlen, const char *option, const char *value, const char *allowed)
{
    snprintf(err, errlen, "bad %s '%s' (%s)", option, value, allowed);
    return -1;
}

/* 0 ok, 1 --help, -1 bad input (message in err). */
static int parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
    enum { OPT_BUSY = 256, OPT_POSIX, OPT_NONBLOCKING, OPT_ROOT_ONLY, OPT_FSYNC, OPT_PHASES };
    static const struct option longopts[] = {
        {"iterations", required_argument, 0, 'n'}, {"block", required_argument, 0, 'b'},
        {"compute", required_argument, 0, 'c'},    {"jitter", required_argument, 0, 'j'},
        {"busy", no_argument, 0, OPT_BUSY},        {"posix", no_argument, 0, OPT_POSIX},
        {"nonblocking", no_argument, 0, OPT_NONBLOCKING}, {"read", required_argument, 0, 'r'},
        {"root-only", no_argument, 0, OPT_ROOT_ONLY},
        {"fsync", no_argument, 0, OPT_FSYNC},      {"phases", no_argument, 0, OPT_PHASES},
        {"output", required_argument, 0, 'o'},     {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0},
    };
    *o = (struct options){ .iterations = 5, .block = 1 << 20, .compute = 1.0, .read_after = -1,
                           .dir = "." };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":n:b:c:j:r:o:vh", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'n':
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || n < 1 || n > 1000000)
                return bad_value(err, errlen, "--iterations", optarg, "1..1000000");
            o->iterations = (int)n;
            break;
        case 'b':
            if (parse_size(optarg, &o->block))
                return bad_value(err, errlen, "--block", optarg, "1 byte .. 2 GiB-1, k/M/G suffixes");
            break;
        case 'c':
            if (parse_double(optarg, 0, 86400, &o->compute))
                return bad_value(err, errlen, "--compute", optarg, "seconds, 0..86400");
            break;
        case 'j':
            if (parse_double(optarg, 0, 1, &o->jitter))
                return bad_value(err, errlen, "--jitter", optarg, "fraction, 0..1");
            break;
        case 'r':
            if (parse_double(optarg, 0, 86400, &o->read_after))
                return bad_value(err, errlen, "--read", optarg, "seconds, 0..86400");
            break;
        case OPT_BUSY: o->busy = 1; break;
        case OPT_POSIX: o->posix = 1; break;
        case OPT_NONBLOCKING: o->nonblocking = 1; break;
        case OPT_ROOT_ONLY: o->root_only = o->posix = 1; break;
        case OPT_FSYNC: o->fsync = 1; break;
        case OPT_PHASES: o->phases = 1; break;
        case 'o': o->dir = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'h': return 1;
        case ':':
            snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
            return -1;
        default:
            snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
        return -1;
    }
    if (o->posix && o->nonblocking) {
        snprintf(err, errlen, "--posix and --nonblocking exclude each other");
        return -1;
    }
    if (o->read_after >= 0 && (o->posix || o->nonblocking)) {
        snprintf(err, errlen, "--read goes with the collective MPI-IO checkpoint only");
        return -1;
    }
    return 0;
}

/* The compute phase: sleep, or spin on arithmetic the compiler must keep. */
static void compute(double seconds, int busy)
{
    if (seconds <= 0)
        return;
    if (!busy) {
        struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
        while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
            ;
        return;
    }
    volatile double x = 1.0;
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --phases: rank 0 prints every rank's [start, end] of each checkpoint. */
static void print_phases(const struct options *o, int rank, int nranks, const double *mine)
{
    size_t n = 2 * (size_t)o->iterations;
    double *all = rank == 0 ? malloc(n * (size_t)nranks * sizeof *all) : NULL;
    MPI_Gather(mine, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (int r = 0; all && r < nranks; r++)
        for (int it = 0; it < o->iterations; it++)
            if (!o->root_only || r == 0)
                printf("phase checkpoint %d %d %.6f %.6f %lld\n", it, r, all[r * n + 2 * it],
                       all[r * n + 2 * it + 1], o->block);
    free(all);
}

static void fail(int rank, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "checkpoint: rank %d: %s: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void write_mpiio(const struct options *o, int rank, const char *buf)
{
    char path[4096];
    MPI_File fh;
    MPI_Status st;
    int rc;
    snprintf(path, sizeof path, "%s/checkpoint.mpiio", o->dir);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        fail(rank, path, rc);
    MPI_Offset off = (MPI_Offset)rank * o->block;
    if (o->nonblocking) {
        MPI_Request req;
        rc = MPI_File_iwrite_at(fh, off, buf, (int)o->block, MPI_BYTE, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, &st);
    } else {
        rc = MPI_File_write_at_all(fh, off, buf, (int)o->block, MPI_BYTE, &st);
    }
    if (rc != MPI_SUCCESS)
        fail(rank, "write", rc);
    if (o->fsync && (rc = MPI_File_sync(fh)) != MPI_SUCCESS)
        fail(rank, "sync", rc);
    rc = MPI_File_close(&fh);
    if (rc != MPI_SUCCESS)
        fail(rank, "close", rc);
}

static void read_mpiio(const struct options *o, int rank, char *buf)
{
    char path[4096];
    MPI_File fh;
    MPI_Status st;
    snprintf(path, sizeof path, "%s/checkpoint.mpiio", o->dir);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        fail(rank, path, rc);
    rc = MPI_File_read_at_all(fh, (MPI_Offset)rank * o->block, buf, (int)o->block, MPI_BYTE, &st);
    if (rc != MPI_SUCCESS)
        fail(rank, "read", rc);
    rc = MPI_File_close(&fh);
    if (rc != MPI_SUCCESS)
        fail(rank, "close", rc);
}

static void write_posix(const struct options *o, int rank, const char *buf)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/checkpoint.%d.posix", o->dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0) {
        fprintf(stderr, "checkpoint: rank %d: %s: %s\n", rank, path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long long done = 0; done < o->block;) {
        ssize_t n = pwrite(fd, buf + done, (size_t)(o->block - done), (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "checkpoint: rank %d: write %s: %s\n", rank, path,
                    n < 0 ? strerror(errno) : "no progress");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        done += n;
    }
    if (o->fsync && fsync(fd) != 0) {
        fprintf(stderr, "checkpoint: rank %d: fsync %s: %s\n", rank, path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (close(fd) != 0) {
        fprintf(stderr, "checkpoint: rank %d: close %s: %s\n", rank, path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    struct options o;
    char err[256];
    int p = parse(argc, argv, &o, err, sizeof err);
    if (p != 0) {
        if (rank == 0) {
            if (p > 0)
                usage(stdout);
            else
                fprintf(stderr, "checkpoint: %s\n", err);
        }
        MPI_Finalize();
        return p > 0 ? 0 : 2;
    }

    char *buf = malloc((size_t)o.block);
    if (!buf) {
        fprintf(stderr, "checkpoint: rank %d: cannot allocate %lld bytes\n", rank, o.block);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    unsigned seed = 12345u + 7919u * (unsigned)rank;
    double *span = calloc(2 * (size_t)o.iterations, sizeof *span);   /* --phases */
    if (!span) {
        fprintf(stderr, "checkpoint: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t_start = now(), t_io = 0;
    for (int it = 0; it < o.iterations; it++) {
        double c = o.compute;
        if (o.jitter > 0)
            c *= 1.0 + o.jitter * (2.0 * rand_r(&seed) / (double)RAND_MAX - 1.0);
        compute(c, o.busy);
        memset(buf, 'a' + it % 26, (size_t)o.block);
        double t0 = now();
        span[2 * it] = wall();
        if (o.root_only) {
            if (rank == 0)
                write_posix(&o, rank, buf);
        } else if (o.posix)
            write_posix(&o, rank, buf);
        else
            write_mpiio(&o, rank, buf);
        double dt = now() - t0;
        span[2 * it + 1] = wall();
        t_io += dt;
        double rt = 0, t1 = NAN;
        if (o.read_after >= 0) {
            compute(o.read_after, o.busy);
            t1 = now();
            read_mpiio(&o, rank, buf);
            rt = now() - t1;
            t_io += rt;
        }
        /* The phases' own start times (CLOCK_MONOTONIC): the truth an
         * accuracy test takes its periods from. */
        if (o.verbose && rank == 0)
            printf("iteration %d: compute %.3f s, checkpoint %.3f s, read back %.3f s, "
                   "checkpoint at %.6f, read at %.6f\n", it, c, dt, rt, t0, t1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double total = now() - t_start;
    if (o.phases)
        print_phases(&o, rank, nranks, span);
    free(span);
    if (rank == 0)
        printf("checkpoint: %d ranks, %d iterations, %lld bytes per rank each, %s, "
               "total %.3f s, rank-0 I/O %.3f s\n",
               nranks, o.iterations, o.block,
               o.root_only ? "posix, rank 0 only" : o.posix ? "posix" : o.nonblocking ? "mpiio-nonblocking" : "mpiio-collective",
               total, t_io);
    free(buf);
    MPI_Finalize();
    return 0;
}
