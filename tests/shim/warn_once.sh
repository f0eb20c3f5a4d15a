#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# warn_once.sh -- a warning every process of a job would give is said once
# per job and node (issue 19 item 9).  mpirun -np 4 of a traced program
# with MUNGE asked for and no munged: one "cannot authenticate to ftiod"
# line (not one per rank), one spool notice, and every rank's trace in the
# spool.  A second job says it again (once).  On the previous code: 4 lines.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/bin/posix_periodic" "$B/bin/ftiod"
no_leak_checks
start_daemon d          # there is a daemon: the shims try to authenticate
mkdir -p "$T/data"
job() { # NAME
  run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_AUTH=munge -x FTIO_MUNGE_SOCKET="$T/no-munge.sock" \
    -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_SPOOL_DIR="$T/spool" -x FTIO_JOB="$1" \
    "$B/bin/posix_periodic" -n 2 -p 0.05 -d "$T/data" >/dev/null 2>"$T/$1.err"
  [ "$rc" = 0 ] || fail "$1: mpirun failed: $(cat "$T/$1.err")"
}
job w1
n=$(grep -c "cannot authenticate to ftiod" "$T/w1.err")
[ "$n" = 1 ] && ok "4 ranks: one 'cannot authenticate' line" || bad "4 ranks: $n 'cannot authenticate' lines"
n=$(grep -c "did not take all of job w1" "$T/w1.err")
[ "$n" = 1 ] && ok "4 ranks: one spool notice" || bad "4 ranks: $n spool notices"
[ "$(ls "$T"/spool/ftio-w1-*.msgpack | wc -l)" = 4 ] && ok "every rank spooled" ||
  bad "spool files: $(ls "$T/spool")"
wire recv "$T"/spool/ftio-w1-*.msgpack >"$T/w1"
expect_eq "$T/w1" finals 4 "every rank's final batch"
job w2
n=$(grep -c "cannot authenticate to ftiod" "$T/w2.err")
[ "$n" = 1 ] && ok "the next job says it again, once" || bad "the next job: $n lines"
finish
