/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_calls.c -- exercises every POSIX and stdio call family libftio.so
 * wraps, in a directory given on the command line, and prints what the shim
 * should have recorded, tallied independently from the calls' own return
 * values, in `ftio-wire recv`'s key=value format (count.<layer>.<op>, bytes.*).
 * tests/shim/calls.sh runs it under LD_PRELOAD and compares with what the
 * receiver decoded.  Built three ways (plain, -D_FORTIFY_SOURCE=2 -O2,
 * -D_FILE_OFFSET_BITS=64) so that the same source binds to open/__open_2/
 * open64, read/__read_chk, fprintf/__fprintf_chk, stat/stat64 ...; the glibc
 * alias names are also called explicitly so every build covers them.
 *
 * It also checks errno preservation (a failing traced call keeps its errno,
 * a successful one leaves a preset errno alone) and that pipes, sockets and
 * excluded paths are not recorded (they are simply not tallied).
 * Exit status 0, or 1 with a message when a call or an errno check fails.
 */
#include <aio.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* glibc names a program may bind to but headers don't always declare. */
extern int __open_2(const char *, int);
extern int __open64_2(const char *, int);
extern int __openat_2(int, const char *, int);
extern ssize_t __read_chk(int, void *, size_t, size_t);
extern ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
extern ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
extern size_t __fread_chk(void *, size_t, size_t, size_t, FILE *);
extern char *__fgets_chk(char *, size_t, int, FILE *);
extern int __fprintf_chk(FILE *, int, const char *, ...);
extern int __xstat(int, const char *, struct stat *);
extern int __lxstat(int, const char *, struct stat *);
extern int __fxstat(int, int, struct stat *);
extern int __fxstatat(int, int, const char *, struct stat *, int);

enum { POSIX, STDIO, NLAYER };
enum { RD, WR, OPEN, CLOSE, SYNC, SEEK, STAT, META, NOP };
static const char *const lname[NLAYER] = { "posix", "stdio" };
static const char *const oname[NOP] = { "read", "write", "open", "close", "sync", "seek", "stat", "meta" };
static long long cnt[NLAYER][NOP], bytes[NLAYER][NOP];
static const char *dir;

static void expect(int layer, int op, long long b)
{
    cnt[layer][op]++;
    bytes[layer][op] += b;
}

static void die(const char *what)
{
    fprintf(stderr, "shim_calls: %s: %s\n", what, strerror(errno));
    exit(1);
}

#define CHECK(cond, what) do { if (!(cond)) die(what); } while (0)

static char *path(const char *name)
{
    static char buf[8][4096];
    static int i;
    i = (i + 1) % 8;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

/* A data call: expect a record with the bytes it returned. */
static ssize_t data(int layer, int op, ssize_t r, const char *what)
{
    CHECK(r >= 0, what);
    expect(layer, op, r);
    return r;
}

static void meta(int layer, int op, int r, const char *what)
{
    CHECK(r == 0, what);
    expect(layer, op, 0);
}

static int opened(int fd, const char *what)
{
    CHECK(fd >= 0, what);
    expect(POSIX, OPEN, 0);
    return fd;
}

static void closed(int fd)
{
    CHECK(close(fd) == 0, "close");
    expect(POSIX, CLOSE, 0);
}

/* A stream opened / closed through the traced stdio calls. */
static FILE *sopened(FILE *f, const char *what)
{
    CHECK(f, what);
    expect(STDIO, OPEN, 0);
    return f;
}

static void sclosed(FILE *f, const char *what)
{
    CHECK(fclose(f) == 0, what);
    expect(STDIO, CLOSE, 0);
}

static void posix_calls(void)
{
    char buf[8192];
    memset(buf, 'p', sizeof buf);
    struct iovec iov[2] = { { buf, 10 }, { buf + 10, 20 } };
    struct stat st;

    int fd = opened(open(path("p.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), "open");
    for (int i = 0; i < 4; i++)
        data(POSIX, WR, write(fd, buf, 100), "write");
    data(POSIX, WR, pwrite(fd, buf, 50, 1000), "pwrite");
    data(POSIX, WR, pwrite64(fd, buf, 50, 1050), "pwrite64");
    data(POSIX, WR, writev(fd, iov, 2), "writev");
    data(POSIX, WR, pwritev(fd, iov, 2, 2000), "pwritev");
    data(POSIX, WR, pwritev2(fd, iov, 2, -1, 0), "pwritev2");
    CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
    expect(POSIX, SEEK, 0);
    CHECK(lseek64(fd, 0, SEEK_SET) == 0, "lseek64");
    expect(POSIX, SEEK, 0);
    volatile size_t n64 = 64;   /* not a constant: fortify picks __read_chk */
    data(POSIX, RD, read(fd, buf, n64), "read");
    data(POSIX, RD, read(fd, buf, 64), "read");
    data(POSIX, RD, __read_chk(fd, buf, 16, sizeof buf), "__read_chk");
    data(POSIX, RD, pread(fd, buf, 10, 0), "pread");
    data(POSIX, RD, pread64(fd, buf, 11, 0), "pread64");
    data(POSIX, RD, __pread_chk(fd, buf, 12, 0, sizeof buf), "__pread_chk");
    data(POSIX, RD, __pread64_chk(fd, buf, 13, 0, sizeof buf), "__pread64_chk");
    data(POSIX, RD, readv(fd, iov, 2), "readv");
    data(POSIX, RD, preadv(fd, iov, 2, 0), "preadv");
    data(POSIX, RD, preadv2(fd, iov, 2, 5, 0), "preadv2");
    meta(POSIX, SYNC, fsync(fd), "fsync");
    meta(POSIX, SYNC, fdatasync(fd), "fdatasync");
    meta(POSIX, SYNC, sync_file_range(fd, 0, 0, 0), "sync_file_range");
    meta(POSIX, META, ftruncate(fd, 4096), "ftruncate");
    errno = posix_fallocate(fd, 0, 8192);
    meta(POSIX, META, errno, "posix_fallocate");
    meta(POSIX, STAT, fstat(fd, &st), "fstat");
    meta(POSIX, STAT, stat(path("p.dat"), &st), "stat");
    meta(POSIX, STAT, lstat(path("p.dat"), &st), "lstat");
    meta(POSIX, STAT, fstatat(AT_FDCWD, path("p.dat"), &st, 0), "fstatat");
    struct statx stx;
    meta(POSIX, STAT, statx(AT_FDCWD, path("p.dat"), 0, STATX_SIZE, &stx), "statx");
    meta(POSIX, STAT, __xstat(1, path("p.dat"), &st), "__xstat");
    meta(POSIX, STAT, __lxstat(1, path("p.dat"), &st), "__lxstat");
    meta(POSIX, STAT, __fxstat(1, fd, &st), "__fxstat");
    meta(POSIX, STAT, __fxstatat(1, AT_FDCWD, path("p.dat"), &st, 0), "__fxstatat");

    /* Duplicates are traced like the original (no record for dup itself). */
    int d = dup(fd);
    CHECK(d >= 0, "dup");
    data(POSIX, WR, write(d, buf, 5), "write dup");
    closed(d);
    CHECK(dup2(fd, 100) == 100, "dup2");
    data(POSIX, WR, write(100, buf, 6), "write dup2");
    closed(100);
    int e = fcntl(fd, F_DUPFD, 200);
    CHECK(e >= 200, "fcntl F_DUPFD");
    data(POSIX, WR, write(e, buf, 7), "write F_DUPFD");
    closed(e);

    /* mmap: counts and lengths only. */
    void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED, "mmap");
    expect(POSIX, META, 4096);
    CHECK(msync(m, 4096, MS_SYNC) == 0, "msync");
    expect(POSIX, SYNC, 4096);
    CHECK(munmap(m, 4096) == 0, "munmap");
    expect(POSIX, META, 4096);
    void *anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(anon != MAP_FAILED && munmap(anon, 4096) == 0, "anonymous mmap");
    closed(fd);

    /* In-kernel copies: a read on the source, a write on the destination. */
    int in = opened(open(path("p.dat"), O_RDONLY), "open in");
    int out = opened(open64(path("q.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644), "open64 out");
    ssize_t c = copy_file_range(in, NULL, out, NULL, 100, 0);
    data(POSIX, RD, c, "copy_file_range");
    expect(POSIX, WR, c);
    c = sendfile(out, in, NULL, 50);
    data(POSIX, RD, c, "sendfile");
    expect(POSIX, WR, c);
    closed(in);
    closed(out);
    meta(POSIX, META, rename(path("q.dat"), path("r.dat")), "rename");
    meta(POSIX, META, truncate(path("r.dat"), 10), "truncate");
    meta(POSIX, META, unlink(path("r.dat")), "unlink");

    /* The rest of the open family. */
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX", dir);
    fd = opened(mkstemp(tmpl), "mkstemp");
    data(POSIX, WR, write(fd, buf, 3), "write mkstemp");
    closed(fd);
    meta(POSIX, META, unlink(tmpl), "unlink mkstemp");
    snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX.s", dir);
    fd = opened(mkostemps(tmpl, 2, O_CLOEXEC), "mkostemps");
    closed(fd);
    meta(POSIX, META, unlink(tmpl), "unlink mkostemps");
    int dfd = opened(open(dir, O_RDONLY | O_DIRECTORY), "open dir");
    fd = opened(openat(dfd, "a.dat", O_CREAT | O_WRONLY, 0644), "openat");
    data(POSIX, WR, write(fd, buf, 1), "write openat");
    closed(fd);
    fd = opened(__openat_2(dfd, "a.dat", O_RDONLY), "__openat_2");
    closed(fd);
    closed(dfd);
    fd = opened(creat(path("c.dat"), 0644), "creat");
    closed(fd);
    volatile int rdonly = O_RDONLY;   /* fortify: non-constant flags -> __open_2 */
    fd = opened(open(path("c.dat"), rdonly), "open (non-constant flags)");
    closed(fd);
    fd = opened(__open_2(path("c.dat"), O_RDONLY), "__open_2");
    closed(fd);
    fd = opened(__open64_2(path("c.dat"), O_RDONLY), "__open64_2");
    closed(fd);
    /* O_APPEND: recorded at offset -1 (checked by calls.sh with -r). */
    fd = opened(open(path("append.dat"), O_CREAT | O_WRONLY | O_APPEND, 0644), "open append");
    data(POSIX, WR, write(fd, buf, 9), "write append");
    closed(fd);
    /* close_range closes (and records) every traced descriptor in it. */
    int r1 = opened(open(path("c.dat"), O_RDONLY), "open r1");
    CHECK(dup2(r1, 300) == 300 && close(r1) == 0, "dup2 300");
    expect(POSIX, CLOSE, 0);
    CHECK(close_range(300, 300, 0) == 0, "close_range");
    expect(POSIX, CLOSE, 0);

    /* POSIX aio: one record per request, at aio_return, flagged async. */
    fd = opened(open(path("aio.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), "open aio");
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = buf;
    cb.aio_nbytes = 100;
    cb.aio_offset = 0;
    CHECK(aio_write(&cb) == 0, "aio_write");
    const struct aiocb *list[1] = { &cb };
    while (aio_error(&cb) == EINPROGRESS)
        aio_suspend(list, 1, NULL);
    data(POSIX, WR, aio_return(&cb), "aio_return write");
    cb.aio_nbytes = 40;
    CHECK(aio_read(&cb) == 0, "aio_read");
    while (aio_error(&cb) == EINPROGRESS)
        aio_suspend(list, 1, NULL);
    data(POSIX, RD, aio_return(&cb), "aio_return read");
    closed(fd);

    /* Relative paths: absolute against the cwd cache that chdir updates,
     * normalised lexically ("x/../rel.dat" is "<dir>/rel.dat"). */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK((mkdir(path("x"), 0755) == 0 || errno == EEXIST) && chdir(dir) == 0, "mkdir/chdir");
    fd = opened(open("./x/../rel.dat", O_CREAT | O_WRONLY, 0644), "open relative");
    closed(fd);
    CHECK(chdir(cwd) == 0, "chdir back");

    /* Not traced: excluded paths, pipes, sockets. */
    fd = open("/etc/hostname", O_RDONLY);
    if (fd >= 0) {
        CHECK(read(fd, buf, 10) >= 0, "read /etc");
        close(fd);
    }
    fd = open("/dev/null", O_WRONLY);
    CHECK(fd >= 0 && write(fd, buf, 10) == 10 && close(fd) == 0, "/dev/null");
    int p[2];
    CHECK(pipe(p) == 0 && write(p[1], buf, 10) == 10 && read(p[0], buf, 10) == 10, "pipe");
    close(p[0]);
    close(p[1]);
    /* A descriptor closed inside libc (closedir of fdopendir) and reused
     * by a pipe: the pipe must not be traced as the directory. */
    int dd = opened(open(dir, O_RDONLY | O_DIRECTORY), "open dir for fdopendir");
    DIR *dp = fdopendir(dd);
    CHECK(dp && closedir(dp) == 0, "fdopendir/closedir");
    CHECK(pipe(p) == 0, "pipe after closedir");
    CHECK(write(p[1], buf, 10) == 10 && read(p[0], buf, 10) == 10, "pipe io after closedir");
    close(p[0]);
    close(p[1]);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    CHECK(write(sv[0], buf, 10) == 10 && read(sv[1], buf, 10) == 10, "socket io");
    close(sv[0]);
    close(sv[1]);
}

static void stdio_calls(void)
{
    char buf[256], line[256];
    FILE *f = sopened(fopen(path("s.txt"), "w+"), "fopen");
    CHECK(fwrite("0123456789012345678901234567890", 10, 3, f) == 3, "fwrite");
    expect(STDIO, WR, 30);
    CHECK(fputs("hello\n", f) >= 0, "fputs");
    expect(STDIO, WR, 6);
    CHECK(fputc('x', f) == 'x' && putc('y', f) == 'y', "fputc/putc");
    expect(STDIO, WR, 1);
    expect(STDIO, WR, 1);
    data(STDIO, WR, fprintf(f, "%d\n", 12345), "fprintf");
    meta(STDIO, SYNC, fflush(f), "fflush");
    meta(STDIO, SEEK, fseek(f, 0, SEEK_SET), "fseek");
    CHECK(ftell(f) == 0, "ftell");
    expect(STDIO, SEEK, 0);
    rewind(f);
    expect(STDIO, SEEK, 0);
    CHECK(fread(buf, 1, 10, f) == 10, "fread");
    expect(STDIO, RD, 10);
    CHECK(fgets(line, sizeof line, f), "fgets");
    expect(STDIO, RD, (long long)strlen(line));
    CHECK(fgetc(f) == 'x' && getc(f) == 'y', "fgetc/getc");
    expect(STDIO, RD, 1);
    expect(STDIO, RD, 1);
    char *l = NULL;
    size_t cap = 0;
    data(STDIO, RD, getline(&l, &cap, f), "getline");
    free(l);
    CHECK(fgetc(f) == EOF, "fgetc at EOF");     /* EOF: not a record */
    sclosed(f, "fclose");

    f = sopened(fopen(path("s.txt"), "r"), "fopen r");
    char word[16];
    CHECK(fscanf(f, "%9s", word) == 1, "fscanf");
    expect(STDIO, RD, (long long)strlen(word));
    sclosed(f, "fclose r");

    /* fdopen on a traced descriptor: the stream is traced, and fclose
     * closes the descriptor inside libc (no POSIX close record). */
    int fd = opened(open(path("s2.txt"), O_CREAT | O_RDWR | O_TRUNC, 0644), "open s2");
    f = sopened(fdopen(fd, "w"), "fdopen");
    CHECK(fwrite("abcde", 1, 5, f) == 5, "fwrite fdopen");
    expect(STDIO, WR, 5);
    sclosed(f, "fclose fdopen");

    f = sopened(fopen64(path("s3.txt"), "w"), "fopen64");
    f = freopen(path("s4.txt"), "w", f);
    CHECK(f, "freopen");
    expect(STDIO, CLOSE, 0);
    expect(STDIO, OPEN, 0);
    CHECK(fputs("abc", f) >= 0, "fputs freopen");
    expect(STDIO, WR, 3);
    sclosed(f, "fclose freopen");

    /* The fortify entry points, called by name. */
    f = sopened(fopen(path("s5.txt"), "w+"), "fopen s5");
    data(STDIO, WR, __fprintf_chk(f, 1, "%s\n", "abcdef"), "__fprintf_chk");
    rewind(f);
    expect(STDIO, SEEK, 0);
    CHECK(__fread_chk(buf, sizeof buf, 1, 3, f) == 3, "__fread_chk");
    expect(STDIO, RD, 3);
    CHECK(__fgets_chk(line, sizeof line, sizeof line, f), "__fgets_chk");
    expect(STDIO, RD, (long long)strlen(line));
    sclosed(f, "fclose s5");

    /* Not traced: excluded paths and the standard streams. */
    f = fopen("/etc/hostname", "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    fflush(stdout);
}

/* errno: failing traced calls keep theirs, successful ones keep a preset. */
static void errno_checks(void)
{
    int fd = open(path("e.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0, "open e.dat");
    expect(POSIX, OPEN, 0);
    errno = 0;
    CHECK(pread(fd, "x", 1, -1) == -1 && errno == EINVAL, "pread(-1) must fail with EINVAL");
    errno = 0;
    CHECK(open(path("missing/none"), O_RDONLY) == -1 && errno == ENOENT, "open missing: ENOENT");
    errno = 12345;
    CHECK(write(fd, "abc", 3) == 3, "write e.dat");
    expect(POSIX, WR, 3);
    if (errno != 12345) {
        fprintf(stderr, "shim_calls: successful write changed errno to %d\n", errno);
        exit(1);
    }
    errno = 54321;
    struct stat st;
    CHECK(fstat(fd, &st) == 0, "fstat e.dat");
    expect(POSIX, STAT, 0);
    CHECK(close(fd) == 0, "close e.dat");
    expect(POSIX, CLOSE, 0);
    if (errno != 54321) {
        fprintf(stderr, "shim_calls: successful fstat/close changed errno to %d\n", errno);
        exit(1);
    }
    errno = 0;
    CHECK(close(fd) == -1 && errno == EBADF, "double close: EBADF");
    FILE *f = fopen(path("missing/none"), "r");
    CHECK(!f && errno == ENOENT, "fopen missing: ENOENT");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: shim_calls DIR\n");
        return 2;
    }
    dir = argv[1];
    /* The very first record starts the flusher thread: errno must survive. */
    errno = 777;
    int fd = open(path("first.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0, "open first");
    expect(POSIX, OPEN, 0);
    if (errno != 777) {
        fprintf(stderr, "shim_calls: first traced open changed errno to %d\n", errno);
        return 1;
    }
    closed(fd);
    posix_calls();
    stdio_calls();
    errno_checks();
    printf("async.posix.write=1\nasync.posix.read=1\n");   /* the two aio requests */
    for (int l = 0; l < NLAYER; l++)
        for (int o = 0; o < NOP; o++)
            if (cnt[l][o])
                printf("count.%s.%s=%lld\nbytes.%s.%s=%lld\n", lname[l], oname[o], cnt[l][o],
                       lname[l], oname[o], bytes[l][o]);
    return 0;
}
