/* SPDX-License-Identifier: BSD-3-Clause */
/* flush_points.c -- explicit flush points with <ftio.h>.
 *
 * A checkpoint loop that tells the shim where each checkpoint ends:
 * ftio_try_flush_named("checkpoint-<i>") sends everything recorded so far,
 * tagged with that label, so the daemon sees the phase boundary at once.
 * The header declares the API weak: without libftio.so the helpers do
 * nothing and the program runs unchanged.
 *
 *   flush_points DIR [ITERATIONS]
 *   LD_PRELOAD=libftio.so flush_points /tmp 5
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftio.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: flush_points DIR [ITERATIONS]\n");
        return 2;
    }
    char *end;
    long n = argc == 3 ? strtol(argv[2], &end, 10) : 3;
    if (argc == 3 && (*end || n <= 0 || n > 1000000)) {
        fprintf(stderr, "flush_points: bad iteration count '%s'\n", argv[2]);
        return 2;
    }
    static char block[1 << 16];
    memset(block, 'f', sizeof block);
    printf("libftio.so %s\n", ftio_loaded() ? "loaded" : "not loaded");
    for (long i = 1; i <= n; i++) {
        char path[4096], label[64];
        snprintf(path, sizeof path, "%s/flush-%ld.dat", argv[1], i);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "flush_points: %s: %s\n", path, strerror(errno));
            return 1;
        }
        for (int k = 0; k < 16; k++)
            fwrite(block, 1, sizeof block, f);
        if (fclose(f) != 0) {
            fprintf(stderr, "flush_points: %s: %s\n", path, strerror(errno));
            return 1;
        }
        snprintf(label, sizeof label, "checkpoint-%ld", i);
        int rc = ftio_try_flush_named(label);
        printf("%s: %s\n", label, rc == 0 ? "flushed" : "no shim");
    }
    return 0;
}
