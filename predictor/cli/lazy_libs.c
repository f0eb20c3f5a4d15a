/* SPDX-License-Identifier: BSD-3-Clause */
/* lazy_libs.c -- loads the libraries of ftio's networked and history
 * commands on their first call (lazy_libs.h says why): dlopen() by the
 * soname the build host's library has (predictor/cli.mk), RTLD_LOCAL so they
 * interpose on nothing, RTLD_LAZY (libzmq's C++ relocations bound when
 * used), then dlsym() of the function asked for.  Called from any thread
 * (ftio relay has several): one mutex around the loading; a resolved
 * address is published with a release store and read without the lock.
 */
#define FTIO_LAZY_LIBS_IMPL
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "lazy_libs.h"
#include "lib_sonames.h"

void *ftio_lazy_func[FTIO_LAZY_COUNT];

static const char *const lib_soname[FTIO_LIB_COUNT] = {
    [FTIO_LIB_ZMQ] = FTIO_ZMQ_SO, [FTIO_LIB_MUNGE] = FTIO_MUNGE_SO,
    [FTIO_LIB_SODIUM] = FTIO_SODIUM_SO, [FTIO_LIB_SQLITE] = FTIO_SQLITE3_SO,
    [FTIO_LIB_PQ] = FTIO_PQ_SO,
};
/* What a missing library means to the user. */
static const char *const lib_use[FTIO_LIB_COUNT] = {
    [FTIO_LIB_ZMQ] = "ZeroMQ, to talk to ftiod", [FTIO_LIB_MUNGE] = "MUNGE, to authenticate",
    [FTIO_LIB_SODIUM] = "libsodium, to authenticate", [FTIO_LIB_SQLITE] = "SQLite, for the history store",
    [FTIO_LIB_PQ] = "PostgreSQL's libpq, for the history store",
};

#define FTIO_LAZY_ENTRY(lib, name) { FTIO_LIB_##lib, #name },
static const struct {
    enum ftio_lazy_lib lib;
    const char *name;
} funcs[FTIO_LAZY_COUNT] = { FTIO_LAZY_LIB_FUNCS(FTIO_LAZY_ENTRY) };
#undef FTIO_LAZY_ENTRY

static void *lib_handle[FTIO_LIB_COUNT];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

void *ftio_lazy_resolve(enum ftio_lazy_func i)
{
    enum ftio_lazy_lib lib = funcs[i].lib;
    pthread_mutex_lock(&load_lock);
    if (!lib_handle[lib] && !(lib_handle[lib] = dlopen(lib_soname[lib], RTLD_LAZY | RTLD_LOCAL))) {
        const char *why = dlerror();
        fprintf(stderr, "ftio: cannot load %s (%s): %s\n", lib_soname[lib], lib_use[lib],
                why ? why : "not found");
        exit(1);
    }
    void *p = dlsym(lib_handle[lib], funcs[i].name);
    if (!p) {
        fprintf(stderr, "ftio: %s has no %s (a different version than ftio was built with?)\n",
                lib_soname[lib], funcs[i].name);
        exit(1);
    }
    __atomic_store_n(&ftio_lazy_func[i], p, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&load_lock);
    return p;
}
