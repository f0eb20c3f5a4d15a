#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rank0.sh -- the measurement machinery of bench/realapps on one of its own
# MPI examples: 4 ranks of `shapes rank0` (only rank 0 writes, 32 MiB every
# ~1.5 s, 10 times) live under mpirun + ftiod with libftio.so, then offline on
# its spool files (bench/realapps/run_one.sh).  Checks that the truth was
# extracted from the program's own phase log (CLOCK_REALTIME notes of every
# rank) and agrees with its output files' birth times, that the bytes per
# output are what the program was told to write, that ftiod published
# messages and an .end, and that the scores were produced; prints ftio's
# errors without judging them (bench/README.md "realapps").
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/lib/libftio.so" "$B/bench/realapps/shapes"
. "$HERE/lib.sh"
realapps_run rank0
truth_matches_own_log output 10
[ "$(res "[a['bytes_per_output'] for a in r['activities']]")" = "[$((4 * 8 * 1048576)).0]" ] &&
  ok "bytes per output: 4 ranks x 8 MiB, written by rank 0" || bad "bytes per output $(res "[a['bytes_per_output'] for a in r['activities']]")"
messages_and_end 5
finish
