/* SPDX-License-Identifier: BSD-3-Clause */
/* realapp.h -- what the realapps examples (shapes.c, h5out.c) share besides
 * their truth (phaselog.h): MPI's start, and the options every one takes,
 *     -n PHASES (15)   -c COMPUTE_S (3)   -o DIR (".")
 * parsed one way, with one way to refuse a bad one: a line
 *     NAME: WHY 'ARG' (usage: USAGE)
 * on stderr and exit status 2. */
#ifndef REALAPPS_REALAPP_H
#define REALAPPS_REALAPP_H

struct realapp {
    int rank, size;              /* in MPI_COMM_WORLD */
    int phases;
    double compute;              /* seconds per phase */
    const char *dir;
};

/* MPI_Init, this rank and the size, the defaults; name and usage are what
 * realapp_usage prints. */
void realapp_init(struct realapp *a, int *argc, char ***argv, const char *name, const char *usage);

/* getopt over argv from argv[first]: -n, -c, -o into a; each option of
 * `more` (getopt letters, all with an argument) goes to take(ctx, letter,
 * optarg); anything else is refused. */
void realapp_options(struct realapp *a, int argc, char **argv, int first, const char *more,
                     void (*take)(void *ctx, int letter, const char *arg), void *ctx);

/* The program's one-line refusal; never returns. */
void realapp_usage(const char *why, const char *arg) __attribute__((noreturn));

/* A whole number in [lo, hi] (else realapp_usage(why, s)). */
long realapp_int(const char *s, long lo, long hi, const char *why);

/* A positive byte count with an optional K, M or G (binary) suffix. */
long long realapp_size(const char *s);

#endif
