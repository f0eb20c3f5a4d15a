/* SPDX-License-Identifier: BSD-3-Clause */
/* fakecore.c -- a stand-in for the recording core of libftio.so, to test the
 * MPI layer (libtrace/mpiio*.c, mpi_life.c) in isolation.
 *
 * It implements libtrace/shim.h with no rings, no flusher and no POSIX
 * wrappers: records are kept in memory and written as text lines
 *     rank layer op flags bytes offset fid t_start t_end nested_depth
 * to $FTIO_FAKE_OUT.<pid> at ftio_flush_now(), and at exit (so a process that
 * never calls MPI_Finalize still reports) unless FTIO_FAKE_NO_EXIT_FLUSH is
 * set (to see what MPI_Abort flushed by itself).  Linked with the MPI objects into
 * $(B)/tests/libftio-mpifake.so, which tests preload instead of libftio.so.
 * ftio_file_register() hashes the path as given (FNV-1a), excluding "/proc".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shim.h"

__thread int ftio_busy __attribute__((tls_model("initial-exec")));
__thread int ftio_mpiio_depth __attribute__((tls_model("initial-exec")));
int ftio_active;              /* 1 once the offsets below are set (fake_init) */
int ftio_stamp_tsc;           /* 0: the stamps are CLOCK_MONOTONIC ns (libtrace/clock.c) */
unsigned ftio_layer_mask = 1u << FTIO_LAYER_MPIIO;
/* No ring: the producer's limit stays 0, so shim.h's ftio_emit() hands
 * every record to ftio_emit_slow() below. */
__thread struct ftio_producer ftio_prod __attribute__((tls_model("initial-exec")));
atomic_int ftio_flusher_started;
/* The offsets of shim.h's FTIO_FAST, as core.c sets them. */
FTIO_FAST_DEF(ftio_busy);
FTIO_FAST_DEF(ftio_mpiio_depth);
FTIO_FAST_DEF(ftio_prod);

__attribute__((constructor)) static void fake_init(void)
{
    FTIO_FAST_SET(ftio_busy);
    FTIO_FAST_SET(ftio_mpiio_depth);
    FTIO_FAST_SET(ftio_prod);
    ftio_mpi_tls_fast_init();
    __atomic_store_n(&ftio_active, 1, __ATOMIC_RELEASE);
}

#define MAX_RECORDS 100000
static struct ftio_record recs[MAX_RECORDS];
static size_t nrecs, nwritten;
static int my_rank = -1, my_size = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *ftio_resolve(const char *name) { return dlsym(RTLD_NEXT, name); }

void ftio_emit_slow(const struct ftio_record *r)
{
    pthread_mutex_lock(&lock);
    if (nrecs < MAX_RECORDS) {
        recs[nrecs] = *r;
        recs[nrecs].reserved = (uint32_t)ftio_mpiio_depth;  /* for the test */
        nrecs++;
    }
    pthread_mutex_unlock(&lock);
}

uint32_t ftio_file_register(const char *path)
{
    if (strncmp(path, "/proc", 5) == 0)
        return 0;
    uint32_t h = 2166136261u;
    for (const char *p = path; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h ? h : 1;
}

void ftio_set_rank(int rank, int nranks) { my_rank = rank; my_size = nranks; }

void ftio_flush_now(const char *mark, int wait)
{
    (void)mark; (void)wait;
    const char *out = getenv("FTIO_FAKE_OUT");
    if (!out)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%ld", out, (long)getpid());
    pthread_mutex_lock(&lock);
    FILE *f = fopen(path, "a");
    if (f) {
        for (; nwritten < nrecs; nwritten++) {
            const struct ftio_record *r = &recs[nwritten];
            fprintf(f, "%d %u %u %u %lld %lld %u %llu %llu %u\n", my_rank, r->layer, r->op,
                    r->flags, (long long)r->bytes, (long long)r->offset, r->file_id,
                    (unsigned long long)r->t_start, (unsigned long long)r->t_end, r->reserved);
        }
        fclose(f);
    }
    pthread_mutex_unlock(&lock);
}

void ftio_shutdown(void) { ftio_flush_now(NULL, 1); }
void ftio_flusher_mpi_state(int state) { (void)state; }   /* nothing to tell: no daemon */

__attribute__((destructor)) static void at_exit_flush(void)
{
    if (!getenv("FTIO_FAKE_NO_EXIT_FLUSH"))
        ftio_shutdown();
}
