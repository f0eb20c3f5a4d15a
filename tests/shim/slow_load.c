/* SPDX-License-Identifier: BSD-3-Clause */
/* slow_load.c -- an LD_AUDIT module for tests/shim/switch_races.sh: the
 * loading of the object whose name contains $SLOW_LOAD_MATCH (libzmq, which
 * the shim's flusher dlopen()s when a process outlives its first second)
 * creates the file $SLOW_LOAD_MARK, then takes $SLOW_LOAD_MS more: a window
 * in which the test's program exits, forks, is signalled or ends a thread
 * while the flusher is inside the switch from ZMTP to ZeroMQ.  glibc calls
 * la_objopen() for each object it maps, in the thread that loads it.
 *
 * And a slow getenv (tests/shim/env_race.sh): the getenv() calls of the
 * object whose name contains $SLOW_GETENV_FROM (libpgm, whose pgm_init()
 * zmq_ctx_new() runs) walk the environment $SLOW_GETENV_REPEAT times
 * before they return, as a getenv preempted on a loaded machine would stay
 * inside `environ`: the window in which the application's setenv may move
 * the array under it, a few microseconds in a real process, becomes
 * milliseconds.  The answer is the real getenv's; the first such call
 * creates the file $SLOW_GETENV_MARK (the test knows the window was wide). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned la_version(unsigned version)
{
    (void)version;
    return LAV_CURRENT;
}

unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)lmid;
    (void)cookie;
    const char *match = getenv("SLOW_LOAD_MATCH"), *mark = getenv("SLOW_LOAD_MARK");
    const char *ms = getenv("SLOW_LOAD_MS"), *env_from = getenv("SLOW_GETENV_FROM");
    /* (a binding is reported when its object is BINDFROM and the one
     * defining the symbol BINDTO) */
    if (env_from && *env_from)
        return map->l_name && strstr(map->l_name, env_from) ? LA_FLG_BINDFROM : LA_FLG_BINDTO;
    if (!match || !*match || !map->l_name || !strstr(map->l_name, match))
        return 0;
    if (mark) {
        int fd = open(mark, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
    }
    long n = ms ? atol(ms) : 300;
    struct timespec ts = { n / 1000, (n % 1000) * 1000000 };
    nanosleep(&ts, NULL);
    return 0;
}

/* The real getenv (of the application's namespace, not this module's). */
static char *(*real_getenv)(const char *);
static long getenv_repeat;

static char *slow_getenv(const char *name)
{
    static int marked;
    const char *mark = getenv("SLOW_GETENV_MARK");
    if (!marked && mark && *mark) {
        int fd = open(mark, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
        marked = 1;
    }
    for (long i = 1; i < getenv_repeat; i++)
        (void)real_getenv(name);
    return real_getenv(name);
}

uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook,
                       unsigned int *flags, const char *symname)
{
    (void)ndx;
    (void)refcook;
    (void)defcook;
    (void)flags;
    if (strcmp(symname, "getenv") != 0)
        return sym->st_value;
    const char *n = getenv("SLOW_GETENV_REPEAT");
    getenv_repeat = n ? atol(n) : 1000;
    real_getenv = (char *(*)(const char *))sym->st_value;
    return (uintptr_t)slow_getenv;
}
