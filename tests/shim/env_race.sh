#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# env_race.sh -- the application changes its environment in a tight loop
# (setenv, putenv, unsetenv: `environ` reallocated and moved, as MPI_Init
# does) while the shim's flusher switches from ZMTP to ZeroMQ, whose
# zmq_ctx_new() reads the environment (libpgm's pgm_init: getenv).  A LAMMPS
# rank died of it (issue 29: SIGSEGV in getenv on the flusher).  The shim
# now serialises the two (libtrace/envlock.c).  The window, a few
# microseconds in a real process, is widened by an LD_AUDIT module
# (slow_load.so: libpgm's getenv walks the environment 3000 times) and the
# program poisons each array setenv frees, so that without the lock a
# getenv on the old array faults; six processes at once.  Each must end with
# status 0 after its switch (no fault), and every record of every process
# reach the receiver with its final batch, no gap, nothing lost.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/tests/shim-envrace" "$B/tests/slow_load.so"
N=6
export FTIO_SPOOL=daemon SLOW_GETENV_FROM=libpgm SLOW_GETENV_REPEAT=3000 SLOW_GETENV_MARK="$T/slow-getenv"
start_recv "$T/got" -n "$N" -i 10 -t 60
i=0; pids=
while [ "$i" -lt "$N" ]; do
  i=$((i + 1))
  LD_AUDIT="$B/tests/slow_load.so" traced "$B/tests/shim-envrace" "$T/f.$i" >"$T/out.$i" 2>"$T/err.$i" &
  pids="$pids $!"
done
i=0
for p in $pids; do
  i=$((i + 1))
  wait "$p"; rc=$?
  [ "$rc" = 0 ] && ok "process $i: exit status 0 after its switch ($(grep rounds= "$T/out.$i"))" ||
    bad "process $i: exit status $rc (139: SIGSEGV), not 0: $(tail -3 "$T/err.$i")"
done
wait_recv
[ -f "$T/slow-getenv" ] && ok "libpgm's getenv ran slowed (the window was open)" ||
  bad "libpgm's getenv was never slowed: the test proved nothing"
lines=$(cat "$T"/f.* | wc -l)
expect_eq "$T/got" finals "$N" "final batches of the $N processes"
expect_eq "$T/got" count.stdio.write "$lines" "stdio write records (the files' lines)"
expect_eq "$T/got" lost 0 "lost"
expect_eq "$T/got" seq_gaps 0 "sequence gaps"
finish
