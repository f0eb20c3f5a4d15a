/* SPDX-License-Identifier: BSD-3-Clause */
/* lazy.c -- loads ZeroMQ, MUNGE and libsodium on first use (lazy.h says
 * why): dlopen() by their sonames (found at build time, libtrace/libtrace.mk),
 * RTLD_LOCAL so that they never interpose on the application's symbols, and
 * RTLD_LAZY (libzmq's thousands of C++ relocations bound when used: a
 * quarter of the load time), then dlsym() of every function the shim calls.  Runs in the flusher thread
 * (with ftio_busy set: the libraries' own I/O while loading is not traced).
 */
#define FTIO_LAZY_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "lazy.h"

#ifndef FTIO_ZMQ_SO
#define FTIO_ZMQ_SO "libzmq.so.5"
#endif
#ifndef FTIO_MUNGE_SO
#define FTIO_MUNGE_SO "libmunge.so.2"
#endif
#ifndef FTIO_SODIUM_SO
#define FTIO_SODIUM_SO "libsodium.so.23"
#endif

struct ftio_lazy ftio_lz;

int ftio_lazy_load(char *err, size_t errlen)
{
    static int state;            /* 0 not tried, 1 loaded, -1 failed (the flusher only) */
    static char why[256];
    if (state == 0) {
        void *zmq = dlopen(FTIO_ZMQ_SO, RTLD_LAZY | RTLD_LOCAL);
        void *munge = dlopen(FTIO_MUNGE_SO, RTLD_LAZY | RTLD_LOCAL);
        void *sodium = dlopen(FTIO_SODIUM_SO, RTLD_LAZY | RTLD_LOCAL);
        state = 1;
        if (!zmq || !munge || !sodium) {
            snprintf(why, sizeof why, "cannot load %s", !zmq ? FTIO_ZMQ_SO : !munge ? FTIO_MUNGE_SO
                                                                            : FTIO_SODIUM_SO);
            state = -1;
        }
#define FTIO_LAZY_SYM(lib, name)                                                   \
        if (state == 1 && !(*(void **)&ftio_lz.name = dlsym(lib, #name))) {        \
            snprintf(why, sizeof why, "%s has no %s", #lib, #name);                \
            state = -1;                                                            \
        }
        FTIO_LAZY_FUNCS(FTIO_LAZY_SYM)
#undef FTIO_LAZY_SYM
    }
    if (state < 0)
        snprintf(err, errlen, "%s", why);
    return state > 0 ? 0 : -1;
}
