/* SPDX-License-Identifier: BSD-3-Clause */
/* realapp.c -- the start and the options of the realapps examples
 * (realapp.h). */
#include "realapp.h"

#include <ctype.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog, *usage_line;

void realapp_usage(const char *why, const char *arg)
{
    fprintf(stderr, "%s: %s '%s' (usage: %s)\n", prog, why, arg, usage_line);
    exit(2);
}

void realapp_init(struct realapp *a, int *argc, char ***argv, const char *name, const char *usage)
{
    prog = name;
    usage_line = usage;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &a->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &a->size);
    a->phases = 15;
    a->compute = 3.0;
    a->dir = ".";
}

long realapp_int(const char *s, long lo, long hi, const char *why)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < lo || v > hi)
        realapp_usage(why, s);
    return v;
}

long long realapp_size(const char *s)
{
    static const char units[] = "kmg";          /* 2^10, 2^20, 2^30 */
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    const char *u = *end ? strchr(units, tolower((unsigned char)*end)) : NULL;
    if (u) {
        v <<= 10 * (u - units + 1);
        end++;
    }
    if (errno || end == s || v <= 0 || *end)
        realapp_usage("bad size", s);
    return v;
}

void realapp_options(struct realapp *a, int argc, char **argv, int first, const char *more,
                     void (*take)(void *ctx, int letter, const char *arg), void *ctx)
{
    char opts[32];
    snprintf(opts, sizeof opts, "n:c:o:%s", more);
    optind = first;
    int c;
    while ((c = getopt(argc, argv, opts)) != -1) {
        char *end;
        switch (c) {
        case 'n':
            a->phases = (int)realapp_int(optarg, 1, 100000, "bad phase count");
            break;
        case 'c':
            a->compute = strtod(optarg, &end);
            if (*end || !(a->compute >= 0 && a->compute <= 3600))
                realapp_usage("bad compute time", optarg);
            break;
        case 'o': a->dir = optarg; break;
        case '?': realapp_usage("bad option", argv[optind - 1]);
        default: take(ctx, c, optarg);
        }
    }
}
