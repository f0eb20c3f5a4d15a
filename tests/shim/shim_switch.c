/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_switch.c -- tests/shim/switch_races.sh: an application that ends its
 * image, forks or ends a thread while the shim's flusher is inside its
 * switch from ZMTP to ZeroMQ (loading libzmq, made slow by slow_load.c).
 *
 *   shim-switch MODE FILE MARK
 *
 * writes FILE, waits (10 s at most) until MARK exists (the load began),
 * writes again, then MODE: exit (return from main: destructors), quick
 * (quick_exit), _exit, term (SIGTERM, default action), thread (a thread
 * writes and ends, then exit), fork (the child writes, lives past its own
 * switch, writes and exits; the parent waits for it), stay (sleeps 5 s: the
 * test looks at the flusher meanwhile).  Each write is one fputs, one line
 * of FILE and one stdio write record.  Prints pid=PID for each process.
 * Exit status 3 when MARK never came. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *file;

/* fopen, fputs, fclose: three stdio records. */
static void append(const char *what)
{
    FILE *f = fopen(file, "a");
    if (!f)
        exit(2);
    fputs(what, f);
    fclose(f);
}

static void *thread_main(void *arg)
{
    (void)arg;
    append("thread\n");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: shim-switch exit|quick|_exit|term|thread|fork FILE MARK\n");
        return 2;
    }
    const char *mode = argv[1], *mark = argv[3];
    file = argv[2];
    append("start\n");
    struct stat st;
    for (int i = 0; i < 10000 && stat(mark, &st) != 0; i++)
        usleep(1000);
    if (stat(mark, &st) != 0) {
        fprintf(stderr, "shim-switch: the flusher never loaded libzmq\n");
        return 3;
    }
    append("switching\n");
    printf("pid=%ld\n", (long)getpid());
    fflush(stdout);
    if (!strcmp(mode, "fork")) {
        pid_t p = fork();
        if (p == 0) {
            printf("pid=%ld\n", (long)getpid());
            fflush(stdout);
            append("child\n");
            usleep(1500000);          /* past the child's own switch */
            append("child again\n");
            exit(0);
        }
        int status = 0;
        if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "shim-switch: the child ended with status %#x\n", status);
            return 4;
        }
    } else if (!strcmp(mode, "term")) {
        raise(SIGTERM);
    } else if (!strcmp(mode, "thread")) {
        pthread_t t;
        if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 5;
    } else if (!strcmp(mode, "stay")) {
        sleep(5);
    } else if (!strcmp(mode, "quick")) {
        quick_exit(0);
    } else if (!strcmp(mode, "_exit")) {
        _exit(0);
    } else if (strcmp(mode, "exit") != 0) {
        fprintf(stderr, "shim-switch: unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
