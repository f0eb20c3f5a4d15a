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
 *   trace     bench/analysis_gen.c  a large periodic trace (spool, JSONL, CSV)
 */
#ifndef FTIO_TEST_WIRE_H
#define FTIO_TEST_WIRE_H

#include <stddef.h>

/* A subcommand: argv[0] is its name; returns the exit status. */
typedef int wire_command(int argc, char **argv);

wire_command wire_cmd_dump, wire_cmd_gen, wire_cmd_records, wire_cmd_recv, wire_cmd_periodic,
    wire_cmd_tmio, wire_cmd_fuzz, wire_cmd_fleet, wire_cmd_trace;

/* Reads a whole file ("-": stdin) into memory.  Returns the buffer (free()
 * it) with *len set, or NULL after printing "ftio-wire CMD: PATH: reason". */
char *wire_slurp(const char *cmd, const char *path, size_t *len);

#endif
