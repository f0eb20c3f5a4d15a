/* SPDX-License-Identifier: BSD-3-Clause */
/* app_key.h -- what names "the same application" in ftiod's memory of runs
 * (docs/ALGORITHM.md §11, PROTOCOL.md §1 `app`), computed the same way on
 * both sides that feed it: the shim (libtrace/identity.c, from the process's
 * own argv) and `ftio scan --history` (predictor/scan/, from the command line
 * a Darshan log holds as one space-joined string).  Hence it lives here.
 *
 * The arguments are never kept or sent, only their hash: they can hold
 * secrets (a password, a token).  The hash is over argv[1..] joined by single
 * spaces (a NUL counts as a space, so /proc/self/cmdline can be fed as it
 * is), trailing spaces dropped (Darshan ends its string with one), with a
 * second variant in which every run of ASCII digits is one '#' (dates, seeds,
 * step counts, output directories numbered per run).  FNV-1a 64 behind a
 * domain prefix, 16 lowercase hex digits: not a secret, but the arguments
 * cannot be read back from it; a low-entropy secret could still be guessed by
 * trying candidates, as with any unkeyed hash (docs/SECURITY.md).
 */
#ifndef FTIO_APP_KEY_H
#define FTIO_APP_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTIO_ARGS_HASH_HEX 17      /* 16 hex digits and the NUL */

/* Incremental: the shim reads /proc/self/cmdline in pieces. */
struct ftio_args_hash {
    uint64_t exact, norm;
    size_t   spaces;               /* separators held back until a non-space comes */
    bool     in_digits;            /* norm: inside a run of digits */
};
void ftio_args_hash_init(struct ftio_args_hash *h);
/* Add bytes of the joined arguments ('\0' and ' ' are separators). */
void ftio_args_hash_add(struct ftio_args_hash *h, const char *p, size_t n);
/* The two hashes as 16 hex digits each (exact, digits normalised). */
void ftio_args_hash_hex(const struct ftio_args_hash *h, char exact[FTIO_ARGS_HASH_HEX],
                        char norm[FTIO_ARGS_HASH_HEX]);

/* The program of an executable path or argv[0]: its last path component
 * ("/usr/bin/lmp" -> "lmp", "./a.out" -> "a.out"); the key the store matches
 * executables by, since a Darshan log has argv[0] as it was typed. */
const char *ftio_app_prog(const char *exe);

/* A command line "EXE ARG ARG ..." (Darshan's exe field): EXE into exe (cut
 * to cap - 1, with every "//" as "/"), the hashes of the rest. */
void ftio_app_split_cmdline(const char *cmdline, char *exe, size_t cap,
                            char args[FTIO_ARGS_HASH_HEX], char args_norm[FTIO_ARGS_HASH_HEX]);

#endif
