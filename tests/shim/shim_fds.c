/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_fds.c -- descriptors the shim's open wrappers never saw, for
 * tests/shim/every_byte.sh: every byte moved through them must be recorded.
 *
 *   shim-fds DIR [untraceable]
 *
 * Descriptor 3 must be open for writing on DIR/inherited.dat (the shell's
 * `3>`).  The program writes and reads through a descriptor that fopen()
 * opened inside libc (write/writev on fileno), the inherited one and its
 * dup/F_DUPFD copies, one opened by a raw openat2/openat syscall
 * (pwritev2/preadv2 at the position, copy_file_range and sendfile between
 * raw descriptors), and a tmpfile() stream; then prints what the POSIX and
 * stdio layers must have recorded:
 *   expect.posix.write= expect.posix.read= expect.stdio.write=
 * It also makes glibc read on its behalf, which the cross-check must tell
 * from what no wrapper saw: setlocale() of a locale not in the archive
 * (glibc reads locale.alias), the time zone's file (localtime_r), the CPU
 * lists and ngroups_max (sysconf, get_nprocs), the semaphore sem_open()
 * writes into its file, the messages perror() and vwarnx() write to stderr,
 * objects loaded after start (one dlclose()d, one left
 * loaded), /proc files read a line at a time through stdio and getmntent
 * (the rest of stdio's block never consumed: closed, sought back, left
 * open).
 * With `untraceable` it also writes 8 MiB through raw syscall(SYS_write)
 * and reads them back with syscall(SYS_read), which no LD_PRELOAD tool
 * sees: the kernel cross-check must report them.
 */
#include <dlfcn.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <mntent.h>
#include <semaphore.h>
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[1 << 20];
static long pw, pr, sw;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* A message through vwarnx (the shim watches the v forms only). */
static void message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarnx(fmt, ap);
    va_end(ap);
}

/* Open without any wrapper seeing it. */
static int raw_open(const char *dir, const char *name, int flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
#ifdef SYS_openat2
    struct { unsigned long long flags, mode, resolve; } how = { (unsigned)flags, 0644, 0 };
    long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0)
        return (int)fd;
#endif
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0644);
}

static void wr(int fd, size_t n)
{
    if (write(fd, buf, n) != (ssize_t)n)
        die("write");
    pw += (long)n;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *dir = argv[1];
    memset(buf, 'x', sizeof buf);
    char path[4096];

    /* 1. fopen's descriptor: write and writev on fileno(). */
    snprintf(path, sizeof path, "%s/fopen.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("fopen");
    wr(fileno(f), 1000);
    struct iovec iov[2] = { { buf, 500 }, { buf, 500 } };
    if (writev(fileno(f), iov, 2) != 1000)
        die("writev");
    pw += 1000;
    fclose(f);

    /* 2. The inherited descriptor 3, its dup and F_DUPFD copies. */
    wr(3, 2000);
    int d = dup(3);
    wr(d, 100);
    int e = fcntl(3, F_DUPFD, 10);
    wr(e, 100);
    close(d);
    close(e);

    /* 3. openat2 (raw): write, pwritev2/preadv2 at the position and at 0. */
    int r = raw_open(dir, "raw.dat", O_RDWR | O_CREAT | O_TRUNC);
    if (r < 0)
        die("openat2");
    wr(r, 300);
    struct iovec v2[2] = { { buf, 300 }, { buf, 300 } };
    if (pwritev2(r, v2, 2, -1, 0) != 600)
        die("pwritev2");
    pw += 600;
    if (preadv2(r, v2, 2, 0, 0) != 600)
        die("preadv2");
    pr += 600;
    close(r);

    /* 4. In-kernel copies between raw descriptors. */
    int src = raw_open(dir, "fopen.dat", O_RDONLY);
    int dst = raw_open(dir, "copy.dat", O_WRONLY | O_CREAT | O_TRUNC);
    if (src < 0 || dst < 0 || copy_file_range(src, NULL, dst, NULL, 2000, 0) != 2000)
        die("copy_file_range");
    pr += 2000;
    pw += 2000;
    int snd = raw_open(dir, "send.dat", O_WRONLY | O_CREAT | O_TRUNC);
    off_t off = 0;
    if (snd < 0 || sendfile(snd, src, &off, 1000) != 1000)
        die("sendfile");
    pr += 1000;
    pw += 1000;
    close(src);
    close(dst);
    close(snd);

    /* 5. read(fileno(fopen())) of what went through descriptor 3. */
    snprintf(path, sizeof path, "%s/inherited.dat", dir);
    f = fopen(path, "r");
    ssize_t got = f ? read(fileno(f), buf, sizeof buf) : -1;
    if (got != 2200)
        die("read inherited.dat");
    pr += got;
    fclose(f);

    /* 6. A tmpfile() stream. */
    f = tmpfile();
    if (!f || fwrite(buf, 1, 400, f) != 400)
        die("tmpfile");
    sw += 400;
    fclose(f);

    /* 7. What glibc reads on the program's behalf. */
    setlocale(LC_ALL, "xx_XX.ftio-test");           /* not in the archive: an alias? */
    locale_t loc = newlocale(LC_ALL_MASK, "yy_YY.ftio-test", (locale_t)0);
    if (loc)
        freelocale(loc);
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm) || sysconf(_SC_NPROCESSORS_CONF) < 1)
        die("localtime_r/sysconf");
    /* (hwloc, under every Open MPI rank: the online CPUs) */
    if (sysconf(_SC_NPROCESSORS_ONLN) < 1 || get_nprocs() < 1 || sysconf(_SC_NGROUPS_MAX) < 1)
        die("sysconf/get_nprocs");
    /* (Open MPI's shared file pointer, under parallel HDF5: glibc writes
     * the new semaphore into its file in /dev/shm) */
    char sem[64];
    snprintf(sem, sizeof sem, "/ftio-test-%ld", (long)getpid());
    sem_t *s = sem_open(sem, O_CREAT | O_EXCL, 0600, 0);
    if (s == SEM_FAILED)
        die("sem_open");
    sem_close(s);
    sem_unlink(sem);
    /* (messages glibc writes to stderr through its own stdio) */
    errno = ENOENT;
    perror("shim-fds: a message through perror, not an error");
    message("a message through vwarnx, not an error");
    FILE *mt = setmntent("/proc/self/mounts", "r");
    if (!mt || !getmntent(mt))
        die("getmntent");
    endmntent(mt);
    void *z = dlopen("libz.so.1", RTLD_NOW);
    void *bz = dlopen("libbz2.so.1.0", RTLD_NOW);
    if (!z || !bz)
        die("dlopen libz/libbz2");
    dlclose(z);                                     /* bz stays loaded to the end */
    char line[256];
    FILE *st = fopen("/proc/self/status", "r");
    if (!st || !fgets(line, sizeof line, st))
        die("/proc/self/status");
    fclose(st);
    FILE *mi = fopen("/proc/meminfo", "r");
    if (!mi || !fgets(line, sizeof line, mi) || fseek(mi, 0, SEEK_SET) != 0 ||
        !fgets(line, sizeof line, mi) || !fgets(line, sizeof line, mi))
        die("/proc/meminfo");                       /* left open */
    unsigned long long pages;
    FILE *sm = fopen("/proc/self/statm", "r");
    if (!sm || fscanf(sm, "%llu", &pages) != 1)
        die("/proc/self/statm");
    rewind(sm);
    if (fscanf(sm, "%llu", &pages) != 1)
        die("/proc/self/statm");
    fflush(sm);
    fclose(sm);

    /* 8. What no wrapper can see. */
    if (argc > 2 && strcmp(argv[2], "untraceable") == 0) {
        int u = raw_open(dir, "untraceable.dat", O_RDWR | O_CREAT | O_TRUNC);
        for (int i = 0; i < 8; i++)
            if (syscall(SYS_write, u, buf, sizeof buf) != (long)sizeof buf)
                die("syscall(SYS_write)");
        if (syscall(SYS_lseek, u, 0, SEEK_SET) != 0)
            die("lseek");
        for (int i = 0; i < 8; i++)
            if (syscall(SYS_read, u, buf, sizeof buf) != (long)sizeof buf)
                die("syscall(SYS_read)");
        syscall(SYS_close, u);
    }
    printf("expect.posix.write=%ld\nexpect.posix.read=%ld\nexpect.stdio.write=%ld\n", pw, pr, sw);
    return 0;
}
