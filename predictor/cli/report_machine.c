/* SPDX-License-Identifier: BSD-3-Clause */
/* report_machine.c -- `ftio report --machine LOG [--at T] [-o FILE.html]`:
 * the picture of the machine forecast (plot/plot_machine.c) from a file of
 * machine messages: ftiod's --log (its `ftio.machine` lines, one every
 * --machine-log s) or what `ftio sub --machine --json` printed (one summed
 * message per line).  The message drawn is the last one, or the one
 * published nearest Unix time T.  Lines that are neither are skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "commands.h"
#include "plot/plot.h"

static const char usage[] =
    "usage: ftio report --machine LOG.jsonl [--at UNIX_TIME] [-o FILE.html]\n";
static const char help[] =
    "Draw the machine forecast (topic ftio.machine) of ftiod's --log or of the\n"
    "lines of `ftio sub --machine --json`: per file system and mode the observed\n"
    "and the predicted aggregate bandwidth, each job a band, the collisions.\n"
    "\n"
    "  --at T              the message published nearest Unix time T (default: the last)\n"
    "  -o, --output FILE   the page (default: ftio-machine.html here)\n"
    "  -h, --help          this help\n";

/* A machine message of a line: {"topic":"ftio.machine","message":{...}}
 * or a bare one (it has "fs" and "published"). */
static json_t *machine_of(json_t *line)
{
    const char *topic = json_string_value(json_object_get(line, "topic"));
    if (topic)
        return strcmp(topic, "ftio.machine") == 0 ? json_object_get(line, "message") : NULL;
    return json_is_array(json_object_get(line, "fs")) && json_object_get(line, "published")
               ? line : NULL;
}

int ftio_report_machine(int argc, char **argv)
{
    const char *log = NULL, *out = "ftio-machine.html";
    double want = NAN;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--machine"))
            continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            fputs(help, stdout);
            return 0;
        }
        if ((!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--at")) && i + 1 < argc) {
            if (!strcmp(a, "--at")) {
                char *end;
                want = strtod(argv[++i], &end);
                if (*end || !isfinite(want)) {
                    fprintf(stderr, "ftio report: --at: a Unix time in seconds, not '%s'\n%s",
                            argv[i], usage);
                    return 2;
                }
            } else {
                out = argv[++i];
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ftio report: unknown option or missing value: %s\n%s", a, usage);
            return 2;
        } else if (log) {
            fprintf(stderr, "ftio report: one log at a time (%s and %s)\n%s", log, a, usage);
            return 2;
        } else {
            log = a;
        }
    }
    if (!log) {
        fprintf(stderr, "ftio report: no log given\n%s", usage);
        return 2;
    }
    FILE *f = fopen(log, "r");
    if (!f) {
        perror(log);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0, n = 0, bad = 0;
    json_t *best = NULL;
    double best_d = INFINITY;
    while (getline(&line, &cap, f) > 0) {
        json_t *l = json_loads(line, 0, NULL);
        json_t *m = l ? machine_of(l) : NULL;
        if (!m) {
            bad += !l;
            json_decref(l);
            continue;
        }
        n++;
        double t = json_number_value(json_object_get(m, "published"));
        double d = isnan(want) ? 0 : fabs(t - want);
        if (d <= best_d) {
            json_decref(best);
            best = json_incref(m);
            best_d = d;
        }
        json_decref(l);
    }
    free(line);
    fclose(f);
    if (bad)
        fprintf(stderr, "ftio report: %s: %zu lines that are not JSON skipped\n", log, bad);
    if (!best) {
        fprintf(stderr, "ftio report: %s holds no machine message (ftiod --machine-log, or "
                        "ftio sub --machine --json)\n", log);
        return 1;
    }
    char err[512], from[600];
    snprintf(from, sizeof from, "from %s", log);
    int rc = ftio_plot_machine_page(out, best, from, err, sizeof err);
    json_decref(best);
    if (rc != 0) {
        fprintf(stderr, "ftio report: %s\n", err);
        return 1;
    }
    printf("wrote %s (the machine message of %zu in %s%s)\n", out, n, log,
           isnan(want) ? ", the last" : ", the nearest to --at");
    return 0;
}
