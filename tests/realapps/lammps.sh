#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lammps.sh -- the measurement machinery of bench/realapps on a real program:
# LAMMPS (the LJ melt of bench/realapps/in.melt, short size: 1000 steps,
# dumps every 50, restarts every 200: enough boundaries for 5 messages even
# on an idle machine) live under mpirun + ftiod with libftio.so, then
# offline on its spool files (bench/realapps/run_one.sh).  Checks that the
# truth was extracted from LAMMPS' own files (one dump file per output, their
# birth/modification times) and agrees with LAMMPS' own timer in log.lammps
# within the run's jitter, that ftiod published messages and an .end, and
# that the scores were produced; prints ftio's errors without judging them
# (bench/README.md "realapps" has the targets and today's figures).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/lib/libftio.so"
command -v lmp >/dev/null || fail "lmp not found (Debian package lammps, mk/deps.sh)"
. "$HERE/lib.sh"
realapps_run lammps
truth_matches_own_log dumps 10
truth_matches_own_log restarts 3
messages_and_end 5
finish
