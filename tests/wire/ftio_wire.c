/* SPDX-License-Identifier: BSD-3-Clause */
/* ftio_wire.c -- ftio-wire, the test and benchmark tool for the wire format:
 * dispatches to the subcommands of ftio_wire.h, prints the overview with
 * --help, and holds the helpers they share.  Built as $(B)/bin/ftio-wire
 * (tests/tests_wire.mk); not installed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftio_wire.h"
#include "grow.h"

static const struct {
    const char *name;
    wire_command *run;
    const char *args, *what;
} commands[] = {
    { "dump", wire_cmd_dump, "[-s] FILE...", "spool files / batch streams as text" },
    { "gen", wire_cmd_gen, "BATCHES [options] > F", "a small synthetic spool file" },
    { "records", wire_cmd_records, "RECORDS FILES SPOOL...", "records as numeric columns" },
    { "recv", wire_cmd_recv, "[-e ENDPOINT] [FILE...]", "receive (ROUTER, acknowledges) and count" },
    { "periodic", wire_cmd_periodic, "[options]", "a periodic job to ftiod or to spool files" },
    { "fleet", wire_cmd_fleet, "--endpoint E --jobs N [options]",
      "many live jobs from one process (bench/sitescale)" },
    { "phases", wire_cmd_phases, "(--endpoint E | --spool DIR) [options]",
      "a job whose every phase is known, and its truth" },
    { "tmio", wire_cmd_tmio, "FILE.jsonl --spool DIR", "a TMIO trace as spool files" },
    { "fuzz", wire_cmd_fuzz, "--endpoint E [options]", "hostile messages to ftiod" },
    { "trace", wire_cmd_trace, "-o OUT.msgpack [options]", "a large periodic trace (benchmarks)" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fputs("usage: ftio-wire COMMAND [ARGS...]   (ftio-wire COMMAND --help: its options)\n", f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %-25s %s\n", commands[i].name, commands[i].args, commands[i].what);
}

char *wire_slurp(const char *cmd, const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "ftio-wire %s: %s: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (FTIO_GROW(buf, cap, cap + 1) < 0) {
            free(buf);
            buf = NULL;
            break;
        }
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || err) {
        fprintf(stderr, "ftio-wire %s: %s: %s\n", cmd, path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ftio-wire: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
