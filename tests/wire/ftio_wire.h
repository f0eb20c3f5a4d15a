/* SPDX-License-Identifier: BSD-3-Clause */
/* ftio_wire.h -- the subcommands of ftio-wire, the one test tool for the wire
 * format (PROTOCOL.md §1, §3), and the few helpers they share.
 *
 * Each subcommand is a main-like function (argv[0] is the subcommand's
 * name) implemented in its own file; tests/wire/ftio_wire.c dispatches.
 *   dump      wire_dump.c     spool files / batch streams as text
 *   gen       wire_dump.c     a small synthetic spool file on stdout
 *   records   wire_records.c  records as numeric columns (MPI-IO checker)
 *   recv      wire_recv.c     a ROUTER receiver with acknowledgements, totals
 *   periodic, tmio, fuzz, fleet
 *             wire_forge.c    batches for ftiod: a paced or past job, a
 *                             TMIO trace as spool files, hostile messages,
 *                             a site's worth of live jobs
 *   phases    wire_phases.c   jobs whose every phase is known (ranks, skew,
 *                             files, opens, syncs, file system), and the truth
 *   trace     bench/analysis_gen.c  a large periodic trace (spool, JSONL, CSV)
 */
#ifndef FTIO_TEST_WIRE_H
#define FTIO_TEST_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include "wire.h"

/* A subcommand: argv[0] is its name; returns the exit status. */
typedef int wire_command(int argc, char **argv);

wire_command wire_cmd_dump, wire_cmd_gen, wire_cmd_records, wire_cmd_recv, wire_cmd_periodic,
    wire_cmd_tmio, wire_cmd_fuzz, wire_cmd_fleet, wire_cmd_trace, wire_cmd_phases;

/* Where forged batches go (wire_forge.c): a DEALER connected to endpoint
 * (signed when FTIO_AUTH=munge), or spool files in dir. */
struct wire_out {
    void *ctx, *sock;       /* live */
    const char *dir;        /* spool */
    struct ftio_auth_sender *auth;   /* FTIO_AUTH=munge: signed batches */
};
int  wire_out_open(struct wire_out *o, const char *endpoint, const char *dir);
int  wire_out_batch(struct wire_out *o, const struct ftio_batch_header *h,
                    const struct ftio_record *rec, size_t n);
void wire_out_close(struct wire_out *o);
/* "--name VALUE" of a subcommand's arguments (def when absent), a flag,
 * and a sleep of s seconds. */
const char *wire_arg_str(int argc, char **argv, const char *name, const char *def);
double wire_arg_num(int argc, char **argv, const char *name, double def);
bool   wire_arg_flag(int argc, char **argv, const char *name);
void   wire_sleep(double s);

/* Reads a whole file ("-": stdin) into memory.  Returns the buffer (free()
 * it) with *len set, or NULL after printing "ftio-wire CMD: PATH: reason". */
char *wire_slurp(const char *cmd, const char *path, size_t *len);

#endif
