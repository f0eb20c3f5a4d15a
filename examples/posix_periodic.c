/* SPDX-License-Identifier: BSD-3-Clause */
/* posix_periodic.c -- a plain POSIX program (no MPI, no ftio.h) with
 * periodic I/O bursts: the smallest thing to trace with libftio.so.
 *
 * Every period it "computes" (sleeps), then writes a checkpoint file of
 * BYTES in BLOCK-sized write() calls, fsyncs and closes it, and prints
 * `iteration I: wrote BYTES to PATH from START to END` (epoch seconds).  Run it under
 * the shim and watch ftiod predict the next burst:
 *
 *   LD_PRELOAD=libftio.so posix_periodic -d /tmp/ckpt -n 20 -p 2 -b 64M
 *
 * Options: -d DIR (default .), -n ITERATIONS (10), -p PERIOD seconds (1.0),
 * -b BYTES per checkpoint (16M), -k BLOCK bytes per write (1M); sizes accept
 * K/M/G suffixes.  Bad options: one-line error, exit status 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v <= 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* now: CLOCK_REALTIME in seconds, the clock of ftiod's messages; each
 * iteration prints when its checkpoint started and ended, the truth a test
 * compares ftio's answer with (tests/daemon/posix_only.sh). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "posix_periodic: %s '%s' (usage: posix_periodic [-d DIR] [-n N] [-p SECONDS] "
                    "[-b BYTES] [-k BLOCK])\n", msg, arg);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = ".";
    long iterations = 10;
    double period = 1.0;
    long long bytes = 16ll << 20, block = 1ll << 20;
    int c;
    while ((c = getopt(argc, argv, "d:n:p:b:k:")) != -1) {
        char *end;
        switch (c) {
        case 'd': dir = optarg; break;
        case 'n':
            iterations = strtol(optarg, &end, 10);
            if (*end || iterations <= 0)
                usage_error("bad iteration count", optarg);
            break;
        case 'p':
            period = strtod(optarg, &end);
            if (*end || period < 0 || period > 86400)
                usage_error("bad period", optarg);
            break;
        case 'b':
            if (parse_size(optarg, &bytes))
                usage_error("bad size", optarg);
            break;
        case 'k':
            if (parse_size(optarg, &block) || block > (1ll << 30))
                usage_error("bad block size", optarg);
            break;
        default:
            usage_error("bad option", argv[optind - 1]);
        }
    }
    char *buf = malloc((size_t)block);
    if (!buf) {
        fprintf(stderr, "posix_periodic: cannot allocate %lld bytes\n", block);
        return 1;
    }
    memset(buf, 'c', (size_t)block);
    for (long it = 0; it < iterations; it++) {
        struct timespec ts = { (time_t)period, (long)((period - (double)(time_t)period) * 1e9) };
        nanosleep(&ts, NULL);
        char path[4096];
        snprintf(path, sizeof path, "%s/ckpt-%ld.dat", dir, it % 2);
        double t0 = now();
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0) {
            fprintf(stderr, "posix_periodic: %s: %s\n", path, strerror(errno));
            return 1;
        }
        for (long long done = 0; done < bytes;) {
            size_t n = (size_t)(bytes - done < block ? bytes - done : block);
            ssize_t w = write(fd, buf, n);
            if (w < 0) {
                fprintf(stderr, "posix_periodic: write %s: %s\n", path, strerror(errno));
                return 1;
            }
            done += w;
        }
        if (fsync(fd) != 0 || close(fd) != 0) {
            fprintf(stderr, "posix_periodic: %s: %s\n", path, strerror(errno));
            return 1;
        }
        printf("iteration %ld: wrote %lld bytes to %s from %.6f to %.6f\n", it, bytes, path, t0, now());
        fflush(stdout);
    }
    free(buf);
    return 0;
}
