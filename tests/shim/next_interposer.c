/* SPDX-License-Identifier: BSD-3-Clause */
/* next_interposer.c -- a second interposer beside libftio.so in LD_PRELOAD
 * (tests/shim/interposers.sh): its read and write pass each call on to their
 * own next definitions (dlsym RTLD_NEXT) and count the bytes moved on
 * regular files; at exit it writes "read=N" and "write=M" lines to
 * $NEXT_TALLY.  Placed after libftio.so, it is what libftio.so's next
 * definitions must be; placed before, its next definitions are libftio.so's
 * wrappers.  Raw system calls only (fstat, the tally), so that nothing of it
 * is traced. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic long long moved[2];

static int regular(int fd)
{
    struct stat st;
    return syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode);
}

ssize_t read(int fd, void *buf, size_t n)
{
    static ssize_t (*next)(int, void *, size_t);
    if (!next)
        next = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    ssize_t r = next(fd, buf, n);
    if (r > 0 && regular(fd))
        atomic_fetch_add(&moved[0], r);
    return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*next)(int, const void *, size_t);
    if (!next)
        next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    ssize_t r = next(fd, buf, n);
    if (r > 0 && regular(fd))
        atomic_fetch_add(&moved[1], r);
    return r;
}

__attribute__((destructor)) static void tally(void)
{
    const char *path = getenv("NEXT_TALLY");
    if (!path)
        return;
    char line[64];
    int len = snprintf(line, sizeof line, "read=%lld\nwrite=%lld\n", atomic_load(&moved[0]),
                       atomic_load(&moved[1]));
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        syscall(SYS_write, (int)fd, line, (size_t)len);
        syscall(SYS_close, (int)fd);
    }
}
