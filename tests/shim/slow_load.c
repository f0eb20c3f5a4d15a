/* SPDX-License-Identifier: BSD-3-Clause */
/* slow_load.c -- an LD_AUDIT module for tests/shim/switch_races.sh: the
 * loading of the object whose name contains $SLOW_LOAD_MATCH (libzmq, which
 * the shim's flusher dlopen()s when a process outlives its first second)
 * creates the file $SLOW_LOAD_MARK, then takes $SLOW_LOAD_MS more: a window
 * in which the test's program exits, forks, is signalled or ends a thread
 * while the flusher is inside the switch from ZMTP to ZeroMQ.  glibc calls
 * la_objopen() for each object it maps, in the thread that loads it. */
#define _GNU_SOURCE
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
    const char *ms = getenv("SLOW_LOAD_MS");
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
