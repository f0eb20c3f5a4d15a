/* SPDX-License-Identifier: BSD-3-Clause */
/* shapes.c -- small MPI programs with the output shapes real codes have, for
 * the realapps benchmark (bench/README.md "realapps").  Every phase the ranks
 * "compute" (sleep, after a barrier, like a time step), then write:
 *
 *   rank0    only rank 0 writes (out.K, all ranks' share), the others wait
 *   uneven   each rank writes ckpt.K.R: the first half at page-cache speed,
 *            then one fdatasync per block (a burst, then a plateau)
 *   heights  each rank writes field.K.R every phase and, every 3rd phase,
 *            restart.K.R of 6x its size (two activities, two heights)
 *   stagger  rank R starts its output R x 0.3 s after the others (out.K.R)
 *   drift    the computation grows by 2 % per phase (out.K.R)
 *
 * Each rank notes its own phase start and end (CLOCK_REALTIME) and bytes;
 * rank 0 prints them at the end (phaselog.h): that is the truth.
 *
 *   mpirun -np 4 shapes SHAPE [-n PHASES] [-c COMPUTE_S] [-b BYTES] [-o DIR] [-s 1]
 * Defaults: 15 phases, 3 s, 16M per rank and phase (K/M/G suffixes), DIR ".";
 * -s 1: each file is fsync'ed before it is closed (bench/contention: the
 * phases then take the storage's time, and collide).
 * Bad options: one line on stderr, exit status 2. */
#include "phaselog.h"
#include "realapp.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)

static char block[BLOCK];
static int sync_close;                 /* -s 1: fsync each file before closing it */

struct shape_opts { long long bytes; };

static void take_option(void *ctx, int letter, const char *arg)
{
    if (letter == 's')
        sync_close = (int)realapp_int(arg, 0, 1, "-s: 0 or 1");
    else
        ((struct shape_opts *)ctx)->bytes = realapp_size(arg);
}

/* write_file: BYTES into PATH in blocks; the blocks from SYNC_FROM on are
 * each followed by fdatasync (SYNC_FROM >= BYTES: none).  Returns BYTES. */
static long long write_file(const char *path, long long bytes, long long sync_from)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "shapes: %s: %s\n", path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long long off = 0; off < bytes;) {
        size_t n = bytes - off < BLOCK ? (size_t)(bytes - off) : BLOCK;
        ssize_t w = write(fd, block, n);
        if (w <= 0) {
            fprintf(stderr, "shapes: write %s: %s\n", path, strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        off += w;
        if (off > sync_from)
            fdatasync(fd);
    }
    if (sync_close)
        fsync(fd);
    close(fd);
    return bytes;
}

int main(int argc, char **argv)
{
    struct realapp a;
    realapp_init(&a, &argc, &argv, "shapes",
                 "shapes rank0|uneven|heights|stagger|drift [-n PHASES] [-c COMPUTE_S] [-b BYTES] "
                 "[-o DIR] [-s 1]");
    if (argc < 2)
        realapp_usage("no shape", "");
    const char *shape = argv[1];
    if (strcmp(shape, "rank0") && strcmp(shape, "uneven") && strcmp(shape, "heights") &&
        strcmp(shape, "stagger") && strcmp(shape, "drift"))
        realapp_usage("unknown shape", shape);
    struct shape_opts so = { 16ll << 20 };
    realapp_options(&a, argc, argv, 2, "b:s:", take_option, &so);
    long long bytes = so.bytes;
    int rank = a.rank, size = a.size;
    const char *dir = a.dir;
    memset(block, 'x', sizeof block);
    char path[4096];
    for (int k = 0; k < a.phases; k++) {
        double c_k = !strcmp(shape, "drift") ? a.compute * pow(1.02, k) : a.compute;
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_until(phaselog_now() + c_k);
        if (!strcmp(shape, "stagger"))
            sleep_until(phaselog_now() + 0.3 * rank);
        double t0 = phaselog_now();
        if (!strcmp(shape, "rank0")) {
            if (rank == 0) {
                snprintf(path, sizeof path, "%s/out.%d", dir, k);
                long long b = write_file(path, bytes * size, bytes * size);
                phaselog_add("output", k, t0, phaselog_now(), b);
            }
        } else if (!strcmp(shape, "uneven")) {
            snprintf(path, sizeof path, "%s/ckpt.%d.%d", dir, k, rank);
            long long b = write_file(path, bytes, bytes / 2);
            phaselog_add("ckpt", k, t0, phaselog_now(), b);
        } else if (!strcmp(shape, "heights")) {
            snprintf(path, sizeof path, "%s/field.%d.%d", dir, k, rank);
            long long b = write_file(path, bytes / 4, bytes);
            phaselog_add("fields", k, t0, phaselog_now(), b);
            if (k % 3 == 2) {
                double t1 = phaselog_now();
                snprintf(path, sizeof path, "%s/restart.%d.%d", dir, k, rank);
                b = write_file(path, bytes * 6 / 4, bytes * 2);
                phaselog_add("restarts", k, t1, phaselog_now(), b);
            }
        } else {
            snprintf(path, sizeof path, "%s/out.%d.%d", dir, k, rank);
            long long b = write_file(path, bytes, bytes);
            phaselog_add("output", k, t0, phaselog_now(), b);
        }
    }
    phaselog_print(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
