/* SPDX-License-Identifier: BSD-3-Clause */
/* shim_envrace.c -- tests/shim/env_race.sh: an application whose main
 * thread changes its environment in a tight loop (as MPI_Init's setenv and
 * putenv do) while the shim's flusher switches from ZMTP to ZeroMQ
 * (zmq_ctx_new, libpgm's getenv: issue 29).
 *
 *   shim-envrace FILE
 *
 * writes a line to FILE (each fputs: one line, one stdio write record), then, until
 * ZeroMQ's I/O thread exists (the switch is over; 10 s at most), rounds of:
 * set 1500 names never used before (glibc's setenv reallocates `environ`,
 * moving it now and then), each move followed by an allocation of the
 * freed array's size filled with 0xA5 (what a getenv still walking the old
 * array then reads is no pointer: it faults at once instead of reading
 * stale names), putenv one more, then unset them all.  Then writes a
 * second line.  Prints pid=PID and the rounds and moves.  Exit status 3 when
 * ZeroMQ never came. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ZeroMQ's background threads ("ZMQbg/...") exist in this process? */
static int zmq_started(void)
{
    DIR *d = opendir("/proc/self/task");
    int found = 0;
    struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f) {
            found = fgets(comm, sizeof comm, f) && !strncmp(comm, "ZMQbg", 5);
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: shim-envrace FILE\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "a");
    if (!out)
        return 2;
    printf("pid=%ld\n", (long)getpid());
    fflush(stdout);
    fputs("start\n", out);
    fflush(out);
    static char putname[64];          /* putenv keeps the string itself */
    long rounds = 0, moves = 0;
    time_t end = time(NULL) + 10;
    for (int seen = 0; !seen && time(NULL) < end; rounds++) {
        char name[64];
        for (int i = 0; i < 1500; i++) {
            char **before = environ;
            size_t n = 0;
            while (before[n])
                n++;
            snprintf(name, sizeof name, "ENVRACE_%ld_%d", rounds, i);
            if (setenv(name, "x", 1) != 0)
                return 4;
            if (environ != before) {
                moves++;
                void *p = malloc((n + 1) * sizeof(char *));
                if (p)
                    memset(p, 0xA5, (n + 1) * sizeof(char *));
                free(p);
            }
        }
        snprintf(putname, sizeof putname, "ENVRACE_PUT_%ld=y", rounds);
        if (putenv(putname) != 0)
            return 4;
        for (int i = 0; i < 1500; i++) {
            snprintf(name, sizeof name, "ENVRACE_%ld_%d", rounds, i);
            unsetenv(name);
        }
        *strchr(putname, '=') = '\0';
        unsetenv(putname);
        seen = zmq_started();
    }
    printf("rounds=%ld moves=%ld\n", rounds, moves);
    if (!zmq_started()) {
        fprintf(stderr, "shim-envrace: ZeroMQ never started\n");
        return 3;
    }
    fputs("done\n", out);
    return fclose(out) == 0 ? 0 : 2;
}
