/* SPDX-License-Identifier: BSD-3-Clause */
/* lazy.c -- loads ZeroMQ, MUNGE and libsodium on first use (lazy.h says
 * why): dlopen() by their sonames (found at build time, libtrace/libtrace.mk),
 * RTLD_LOCAL so that they never interpose on the application's symbols, and
 * RTLD_LAZY (libzmq's thousands of C++ relocations bound when used: a
 * quarter of the load time), then dlsym() of every function the shim calls.  MUNGE and
 * libsodium load alone when zmtp.c speaks to ftiod instead of ZeroMQ.  Runs in the flusher
 * thread (with ftio_busy set: the libraries' own I/O while loading is not traced).
 */
#define FTIO_LAZY_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "lazy.h"
#include "libc_reads.h"
#include "lib_sonames.h"

struct ftio_lazy ftio_lz;

/* dlopen() of the named libraries and dlsym() of their functions (a NULL
 * handle: a library not asked for this time).  1, or -1 with the reason. */
static int load(const char *zmq_so, const char *munge_so, const char *sodium_so, char *why, size_t n)
{
    ftio_libc_reads_shim_loads(0);   /* the loader's reads here are not the application's */
    void *zmq = zmq_so ? dlopen(zmq_so, RTLD_LAZY | RTLD_LOCAL) : NULL;
    void *munge = munge_so ? dlopen(munge_so, RTLD_LAZY | RTLD_LOCAL) : NULL;
    void *sodium = sodium_so ? dlopen(sodium_so, RTLD_LAZY | RTLD_LOCAL) : NULL;
    ftio_libc_reads_shim_loads(1);
    const char *missing = zmq_so && !zmq ? zmq_so : munge_so && !munge ? munge_so
                          : sodium_so && !sodium ? sodium_so : NULL;
    if (missing) {
        snprintf(why, n, "cannot load %s", missing);
        return -1;
    }
    int state = 1;
#define FTIO_LAZY_SYM(lib, name)                                                   \
    if (lib && state == 1 && !(*(void **)&ftio_lz.name = dlsym(lib, #name))) {     \
        snprintf(why, n, "%s has no %s", #lib, #name);                             \
        state = -1;                                                                \
    }
    FTIO_LAZY_FUNCS(FTIO_LAZY_SYM)
#undef FTIO_LAZY_SYM
    return state;
}

int ftio_lazy_load(int with_zmq, char *err, size_t errlen)
{
    /* 0 not tried, 1 loaded, -1 failed (the flusher only): MUNGE and
     * libsodium, then ZeroMQ (not needed by zmtp.c). */
    static int auth_state, zmq_state;
    static char why[256];
    if (auth_state == 0)
        auth_state = load(NULL, FTIO_MUNGE_SO, FTIO_SODIUM_SO, why, sizeof why);
    if (with_zmq && zmq_state == 0 && auth_state > 0)
        zmq_state = load(FTIO_ZMQ_SO, NULL, NULL, why, sizeof why);
    int state = with_zmq && auth_state > 0 ? zmq_state : auth_state;
    if (state < 0)
        snprintf(err, errlen, "%s", why);
    return state > 0 ? 0 : -1;
}
