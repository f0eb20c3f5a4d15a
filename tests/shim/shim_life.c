/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_life.c -- process-lifecycle scenarios for libftio.so, one per mode.
 * Driven by tests/shim/lifecycle.sh and delivery.sh under LD_PRELOAD; each
 * mode does a known amount of traced I/O in DIR (pwrite of 10 bytes unless
 * said otherwise) so the scripts can assert exact totals.
 *
 *   shim_life DIR threads N      8 threads, N pwrites each, own file each
 *   shim_life DIR fork N         parent N pwrites, 0.3 s pause, fork; child 2N;
 *                                parent N more
 *   shim_life DIR exec N         N pwrites, exec itself as "exec2 N": N more
 *   shim_life DIR exec2 N        (second image of "exec")
 *   shim_life DIR execfail N     N pwrites, an exec that fails (ENOENT), N more
 *                                in a second file: tracing must go on
 *   shim_life DIR sigterm N      N pwrites, create DIR/ctl/ready, sleep until killed
 *   shim_life DIR sigint N       own SIGINT handler; N pwrites, raise(SIGINT),
 *                                N more, prints "handled=1"; then ignores
 *                                SIGPIPE and execs sh, which exits 0 only if
 *                                SIGPIPE is really ignored (SigIgn)
 *   shim_life DIR _exit N        N pwrites then _exit(3)
 *   shim_life DIR phases N       N pwrites (the last 30 ms after the others), create
 *                                DIR/ctl/phase1, wait for DIR/ctl/go
 *                                (<= 20 s), sleep 0.5 s, N more, exit
 *   shim_life DIR loop N         N pwrites of 1 byte as fast as possible
 *   shim_life DIR churn N        N short-lived threads one after another, each
 *                                opening its file and doing 10 pwrites
 *   shim_life DIR closefrom N    N pwrites, 0.5 s pause (the shim's threads
 *                                are up and connected), closefrom(3) (also
 *                                closes the traced file), N more pwrites in a
 *                                second file: every record must still arrive
 *   shim_life DIR pipeeof N      a pipe created before the first record; N
 *                                pwrites (the shim's thread starts), 0.3 s
 *                                pause, close the write end: the read end must
 *                                see EOF within 3 s (prints "eof=1"), i.e. no
 *                                thread of the shim holds the write end
 * Every mode opens one file per writer (1 open + 1 close record each).
 * Control files (ready, phase1, go) live in DIR/ctl, which the scripts
 * exclude with FTIO_EXCLUDE so they add no records.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static long n;

static void die(const char *what)
{
    fprintf(stderr, "shim_life: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int open_file(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        die(p);
    return fd;
}

static void writes(int fd, long count, size_t size)
{
    static const char buf[16] = "0123456789abcdef";
    for (long i = 0; i < count; i++)
        if (pwrite(fd, buf, size, (off_t)(i * (long)size)) != (ssize_t)size)
            die("pwrite");
}

/* A file of count 10-byte records, opened, written and closed. */
static void write_file(const char *name, long count)
{
    int fd = open_file(name);
    writes(fd, count, 10);
    close(fd);
}

static void touch(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/ctl/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        die(p);
    fclose(f);
}

static int exists(const char *name)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/ctl/%s", dir, name);
    return stat(p, &st) == 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static long per_thread;

static void *writer(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "t%ld.dat", (long)(intptr_t)arg);
    write_file(name, per_thread);
    return NULL;
}

static volatile sig_atomic_t handled;
static void on_int(int sig)
{
    (void)sig;
    handled = 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: shim_life DIR MODE N\n");
        return 2;
    }
    dir = argv[1];
    const char *mode = argv[2];
    n = atol(argv[3]);
    if (strcmp(mode, "churn") == 0) {
        per_thread = 10;
        for (long i = 0; i < n; i++) {
            pthread_t th;
            if (pthread_create(&th, NULL, writer, (void *)(intptr_t)(i % 8)) != 0)
                die("pthread_create");
            pthread_join(th, NULL);
        }
    } else if (strcmp(mode, "threads") == 0) {
        per_thread = n;
        pthread_t th[8];
        for (long i = 0; i < 8; i++)
            if (pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i) != 0)
                die("pthread_create");
        for (int i = 0; i < 8; i++)
            pthread_join(th[i], NULL);
    } else if (strcmp(mode, "fork") == 0) {
        int fd = open_file("fork.dat");
        writes(fd, n, 10);
        /* Let the shim's threads (flusher, ZeroMQ) finish starting: the
         * allocator of GCC 12's ASan is not fork-safe, and a fork while
         * another thread holds one of its locks hangs the child forever.
         * The records stay buffered (the script sets a long flush period). */
        sleep_ms(300);
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {                 /* inherited descriptor, own stream */
            writes(fd, 2 * n, 10);
            close(fd);
            exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "shim_life: child failed\n");
            return 1;
        }
        writes(fd, n, 10);
        close(fd);
    } else if (strcmp(mode, "exec") == 0) {
        write_file("exec1.dat", n);
        execl(argv[0], argv[0], dir, "exec2", argv[3], (char *)NULL);
        die("execl");
    } else if (strcmp(mode, "execfail") == 0) {
        write_file("fail1.dat", n);
        char nowhere[4096];
        snprintf(nowhere, sizeof nowhere, "%s/no-such-program", dir);
        if (execl(nowhere, nowhere, (char *)NULL) != -1 || errno != ENOENT) {
            fprintf(stderr, "shim_life: exec of %s: expected ENOENT, got %s\n", nowhere, strerror(errno));
            return 1;
        }
        write_file("fail2.dat", n);
    } else if (strcmp(mode, "exec2") == 0) {
        write_file("exec2.dat", n);
    } else if (strcmp(mode, "sigterm") == 0) {
        int fd = open_file("term.dat");
        writes(fd, n, 10);
        touch("ready");
        for (;;)
            pause();
    } else if (strcmp(mode, "sigint") == 0) {
        signal(SIGINT, on_int);
        int fd = open_file("int.dat");
        writes(fd, n, 10);
        raise(SIGINT);
        writes(fd, n, 10);
        close(fd);
        struct sigaction cur;
        if (sigaction(SIGINT, NULL, &cur) != 0 || cur.sa_handler != on_int) {
            fprintf(stderr, "shim_life: sigaction does not report our handler\n");
            return 1;
        }
        printf("handled=%d\n", (int)handled);
        /* SIG_IGN must be the real disposition (it survives exec). */
        signal(SIGPIPE, SIG_IGN);
        struct sigaction real_pipe;
        if (sigaction(SIGPIPE, NULL, &real_pipe) != 0 || real_pipe.sa_handler != SIG_IGN) {
            fprintf(stderr, "shim_life: SIGPIPE not ignored\n");
            return 1;
        }
        fflush(stdout);
        execl("/bin/sh", "sh", "-c", "grep -q '^SigIgn:.*[13579bdf]...$' /proc/$$/status", (char *)NULL);
        die("execl sh");
    } else if (strcmp(mode, "_exit") == 0) {
        write_file("exit.dat", n);
        _exit(3);
    } else if (strcmp(mode, "phases") == 0) {
        int fd = open_file("phases.dat");
        /* The process lives on past the 20 ms its first records may wait
         * for its end (libtrace/README.md, "A short process's end"): its
         * flusher sends phase 1 while it waits for go. */
        writes(fd, n - 1, 10);
        sleep_ms(30);
        if (pwrite(fd, "0123456789", 10, (off_t)((n - 1) * 10)) != 10)
            die("pwrite");
        touch("phase1");
        for (int i = 0; i < 400 && !exists("go"); i++)
            sleep_ms(50);
        sleep_ms(500);
        writes(fd, n, 10);
        close(fd);
    } else if (strcmp(mode, "closefrom") == 0) {
        int fd = open_file("closefrom1.dat");
        writes(fd, n, 10);
        sleep_ms(500);
        closefrom(3);
        write_file("closefrom2.dat", n);
    } else if (strcmp(mode, "pipeeof") == 0) {
        int p[2];
        if (pipe(p) != 0)
            die("pipe");
        int fd = open_file("pipe.dat");
        writes(fd, n, 10);
        sleep_ms(300);
        close(p[1]);
        struct pollfd pf = { .fd = p[0], .events = POLLIN };
        char c;
        int eof = poll(&pf, 1, 3000) == 1 && read(p[0], &c, 1) == 0;
        printf("eof=%d\n", eof);
        close(fd);
    } else if (strcmp(mode, "loop") == 0) {
        int fd = open_file("loop.dat");
        writes(fd, n, 1);
        close(fd);
    } else {
        fprintf(stderr, "shim_life: unknown mode '%s'\n", mode);
        return 2;
    }
    return 0;
}
