/* SPDX-License-Identifier: BSD-3-Clause */
/* auth_cost.c -- what authentication costs per batch ($(B)/bench/auth-cost).
 *
 *   auth-cost [--munge SOCKET] [--rounds N]
 *
 * Measures, with a running munged (bench/auth.sh starts a private one):
 *   - the sender's session: one munge_encode (once per process image);
 *   - the sender's per-batch work: the auth frame (keyed BLAKE2b of the batch);
 *   - the daemon's first sight of a credential: munge_decode + MAC;
 *   - the daemon's per-batch check once the credential is cached: MAC.
 * Batches of 64, 4,096 and 65,536 records (the shim's largest), encoded as
 * the shim encodes them.  Medians of N rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"
#include "daemon/daemon.h"
#include "timeutil.h"
#include "wire.h"

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    const char *sock = NULL;
    int rounds = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--munge"))
            sock = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
    }
    if (rounds < 3 || rounds > 100000) {
        fprintf(stderr, "auth-cost: --rounds in [3, 100000]\n");
        return 2;
    }
    double *t = calloc((size_t)rounds, sizeof *t);
    char err[256];
    struct ftio_auth_sender s;
    for (int i = 0; i < rounds; i++) {
        int64_t t0 = ftio_mono_ns();
        if (ftio_auth_sender_init(&s, sock, (uid_t)-1, err, sizeof err) != 0) {
            fprintf(stderr, "auth-cost: %s\n", err);
            return 1;
        }
        t[i] = (double)(ftio_mono_ns() - t0) * 1e-3;
        if (i + 1 < rounds)
            ftio_auth_sender_free(&s);
    }
    printf("session (munge_encode, once per process image): %.1f us median, credential %zu bytes\n",
           median(t, rounds), s.cred_len);

    struct ftiod_auth *a = ftiod_auth_new(FTIO_AUTH_MUNGE, sock, err, sizeof err);
    if (!a) {
        fprintf(stderr, "auth-cost: %s\n", err);
        return 1;
    }
    static const size_t sizes[] = {64, 4096, 65536};
    unsigned char frame[FTIO_AUTH_FRAME_MAX];
    printf("%10s %10s %14s %14s %16s %14s\n", "records", "bytes", "sign us", "sign ns/rec",
           "first check us", "check us");
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        struct ftio_record *rec = calloc(n, sizeof *rec);
        for (size_t i = 0; i < n; i++)
            rec[i] = (struct ftio_record){.t_start = 1000 + i, .t_end = 2000 + i, .offset = (int64_t)i,
                                          .bytes = 4096, .file_id = 1, .op = FTIO_OP_WRITE};
        struct ftio_batch_header h = {.job = "bench", .host = "h", .pid = 1, .rank = -1,
                                      .clock_mono = 1, .clock_real = 1};
        struct ftio_wbuf w = {0};
        ftio_wire_encode(&w, &h, rec, n);
        size_t flen = 0;
        for (int i = 0; i < rounds; i++) {
            int64_t t0 = ftio_mono_ns();
            flen = ftio_auth_frame(&s, w.data, w.len, frame, sizeof frame);
            t[i] = (double)(ftio_mono_ns() - t0) * 1e-3;
        }
        double sign = median(t, rounds);
        /* A fresh session: the first check decodes its credential. */
        struct ftio_auth_sender s2;
        if (ftio_auth_sender_init(&s2, sock, (uid_t)-1, err, sizeof err) != 0)
            return 1;
        size_t flen2 = ftio_auth_frame(&s2, w.data, w.len, frame, sizeof frame);
        int64_t uid;
        const char *why;
        int64_t t0 = ftio_mono_ns();
        if (ftiod_auth_batch(a, w.data, w.len, frame, flen2, &uid, &why) != 0) {
            fprintf(stderr, "auth-cost: %s\n", why);
            return 1;
        }
        double first = (double)(ftio_mono_ns() - t0) * 1e-3;
        for (int i = 0; i < rounds; i++) {
            t0 = ftio_mono_ns();
            if (ftiod_auth_batch(a, w.data, w.len, frame, flen2, &uid, &why) != 0)
                return 1;
            t[i] = (double)(ftio_mono_ns() - t0) * 1e-3;
        }
        printf("%10zu %10zu %14.2f %14.2f %16.1f %14.2f\n", n, w.len, sign, sign * 1e3 / (double)n,
               first, median(t, rounds));
        (void)flen;
        ftio_auth_sender_free(&s2);
        ftio_wbuf_free(&w);
        free(rec);
    }
    ftiod_auth_free(a);
    ftio_auth_sender_free(&s);
    free(t);
    return 0;
}
