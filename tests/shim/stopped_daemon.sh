#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# stopped_daemon.sh -- the end-of-job notice tells the truth (issue 21 item
# 10).  ftiod is stopped (SIGSTOP) while a traced program runs: the shim's
# batches go unacknowledged past FTIO_ACK_TIMEOUT_MS (and two resends), so
# it spools them and says so; then the daemon resumes (SIGCONT), merges the
# copies it had queued and acknowledges them.  Every batch was acknowledged
# in the end: no "did not take all" notice at exit, the spool file (only
# duplicates) is removed, and the daemon's end of the job is complete.  On
# the previous code the notice came anyway.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$SHIM" "$B/bin/posix_periodic"
mkdir -p "$T/data"
start_daemon d
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=stopped FTIO_FLUSH_MS=100 FTIO_ACK_TIMEOUT_MS=200 \
  traced "$B/bin/posix_periodic" -n 16 -p 0.5 -d "$T/data" >/dev/null 2>"$T/prog.err" &
PP=$!
PIDS="$PIDS $PP"
# The daemon's own log line, not a --status round trip: at load 13 that took
# longer than the program's 8 s, which then ended before the stop.
wait_grep "$T/d.err" "job stopped: first batch" 10 ||
  fail "the program's first batch did not arrive"
kill -STOP $DPID
wait_grep "$T/prog.err" "has not acknowledged" 10 || { kill -CONT $DPID; fail "the shim never spooled"; }
kill -0 $PP 2>/dev/null || { kill -CONT $DPID; fail "the program ended while the daemon was stopped"; }
kill -CONT $DPID
ok "the shim spooled while the daemon was stopped: $(grep -o 'has not acknowledged [0-9]* batches' "$T/prog.err")"
wait $PP || bad "the program failed"
grep -q "did not take all" "$T/prog.err" && bad "a false notice: $(cat "$T/prog.err")" ||
  ok "no 'did not take all' notice"
set -- "$T"/spool/ftio-stopped-*.msgpack
[ -e "$1" ] && bad "spool file left: $(ls -l "$T/spool")" || ok "the spool file of duplicates was removed"
wait_topic "$T/d.log" ftio.stopped.end 30
e=$(jsonl "$T/d.log" "[last('ftio.stopped.end')[k] for k in ('complete', 'missing_batches', 'processes_without_final')]")
[ "$e" = "[true, 0, 0]" ] && ok "the daemon has the whole job (complete, no missing batch)" ||
  bad "the daemon's end: complete, missing, without final = $e"
finish
