/* SPDX-License-Identifier: BSD-3-Clause */
/* envlock.c -- the application's changes of its environment never overlap
 * the flusher's reads of it (issue 29).
 *
 * glibc's getenv() takes no lock: a setenv/putenv/unsetenv/clearenv in
 * another thread may realloc (move, free) the `environ` array, or shift its
 * entries, under a getenv that is walking it.  The application owns its
 * environment and reads it in its own threads as it pleases; the shim's
 * flusher must not read it behind the application's back.  It does once:
 * zmq_ctx_new() runs libpgm's pgm_init(), whose getenv()s (PGM_LOG_MASK,
 * PGM_MIN_LOG_LEVEL, PGM_DEBUG, PGM_TIMER) faulted in a LAMMPS rank whose
 * main thread was in MPI_Init (Open MPI's setenv/putenv) when the flusher
 * switched to ZeroMQ, a second after start.
 *
 * So these four calls take ftio_env_mu around the real call, and the
 * flusher takes it around its calls into libraries that read the
 * environment (ftio_env_lock/unlock: zmq_ctx_new in link_zmq.c; nothing
 * else on its way reads it: dlopen() of libzmq, MUNGE and libsodium,
 * munge_encode, sodium_init and libzmq's sockets over a numeric address do
 * not; README "Known limits" has the one read outside the flusher).  A lock
 * held for tens of microseconds (never around a dlopen or I/O), on calls
 * that are not the application's data path; nothing else takes it.  Why
 * not create the context where no race is possible (at init, single-
 * threaded)?  That would load libzmq, its libstdc++ and Kerberos into every
 * preloaded process, which lazy.h exists to avoid.
 *
 * fork: a thread of the parent may hold the lock at the fork; the child
 * (one thread) re-initialises it (ftio_env_after_fork_child, lifecycle.c).
 * Assigning `environ` directly bypasses these wrappers (as it bypasses
 * glibc's own lock): not covered.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"

static pthread_mutex_t ftio_env_mu = PTHREAD_MUTEX_INITIALIZER;

void ftio_env_lock(void)
{
    pthread_mutex_lock(&ftio_env_mu);
}

void ftio_env_unlock(void)
{
    pthread_mutex_unlock(&ftio_env_mu);
}

void ftio_env_after_fork_child(void)
{
    pthread_mutex_init(&ftio_env_mu, NULL);
}

/* The real call under the lock (pthread_mutex_unlock leaves errno alone). */
#define ENV_CHANGE(ret, call)                                                 \
    pthread_mutex_lock(&ftio_env_mu);                                         \
    ret r_ = (call);                                                          \
    pthread_mutex_unlock(&ftio_env_mu);                                       \
    return r_
#define ENV(name, params, args) FTIO_FORWARD(int, name, params, args, -1, ENV_CHANGE, int)

ENV(setenv, (const char *name, const char *value, int overwrite), (name, value, overwrite))
ENV(unsetenv, (const char *name), (name))
ENV(putenv, (char *string), (string))
ENV(clearenv, (void), ())
