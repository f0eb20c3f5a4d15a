#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lifecycle.sh -- threads, fork, exec, fatal signals, _exit: every record of
# every process arrives, with exact totals, one stream (pid) per process,
# gap-free sequence numbers and a final batch.  Programs: shim_life.c.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"
export FTIO_EXCLUDE="+$T/ctl"
L="$B/tests/shim_life"

# 8 threads writing at once: 8 x 2000 pwrites of 10 bytes, no loss.
start_recv "$T/thr" -i 10 -n 1
traced "$L" "$T" threads 2000 || bad "threads run"
wait_recv
expect_eq "$T/thr" count.posix.write 16000 "8 threads: writes"
expect_eq "$T/thr" bytes.posix.write 160000 "8 threads: bytes"
expect_eq "$T/thr" count.posix.open 8 "8 threads: opens"
expect_eq "$T/thr" count.posix.close 8 "8 threads: closes"
expect_eq "$T/thr" lost 0 "8 threads: lost"
expect_eq "$T/thr" seq_gaps 0 "8 threads: seq gaps"

# 300 short-lived threads one after another: rings are recycled, nothing lost.
start_recv "$T/churn" -i 10 -n 1
traced "$L" "$T" churn 300 || bad "churn run"
wait_recv
expect_eq "$T/churn" count.posix.write 3000 "thread churn: writes"
expect_eq "$T/churn" count.posix.close 300 "thread churn: closes"
expect_eq "$T/churn" lost 0 "thread churn: lost"

# fork: parent and child each get their own stream (pid), both traced.
start_recv "$T/fork" -i 10 -n 2
FTIO_FLUSH_MS=100000 traced "$L" "$T" fork 100 || bad "fork run"
wait_recv
expect_eq "$T/fork" pids 2 "fork: two processes"
expect_eq "$T/fork" finals 2 "fork: two final batches"
expect_eq "$T/fork" count.posix.write 400 "fork: parent 200 + child 200 writes"
expect_eq "$T/fork" count.posix.close 2 "fork: both closed"
expect_eq "$T/fork" seq_gaps 0 "fork: seq gaps"
expect_eq "$T/fork" seq_dups 0 "fork: seq duplicates"
# The child's stream has exactly its 200 writes + its close (the parent's
# buffered records are not duplicated into it).
n_child=$(grep '^pid=' "$T/fork" | sed -n 's/.* records=\([0-9]*\) .*/\1/p' | sort -n | head -1)
[ "$n_child" = 201 ] && ok "fork: child stream has its own 201 records" || bad "fork: child records $n_child != 201"

# exec: the new image continues the same pid's sequence (no restart at 0).
start_recv "$T/exec" -i 10 -n 1
FTIO_FLUSH_MS=100000 traced "$L" "$T" exec 50 || bad "exec run"
wait_recv
expect_eq "$T/exec" pids 1 "exec: one process"
expect_eq "$T/exec" count.posix.write 100 "exec: writes of both images"
expect_eq "$T/exec" count.posix.open 2 "exec: opens of both images"
expect_eq "$T/exec" seq_gaps 0 "exec: seq gaps"
expect_eq "$T/exec" seq_dups 0 "exec: no sequence restart"
[ -z "$(ls "$T/spool")" ] && ok "exec: nothing spooled" || bad "exec: spooled $(ls "$T/spool")"

# The pre-exec hand-off must not depend on timing (ZeroMQ's I/O thread dies
# with the image): repeat it, each time with everything arriving.
rep=1
while [ $rep -le 5 ]; do
  start_recv "$T/exec$rep" -i 10 -n 1
  FTIO_FLUSH_MS=100000 traced "$L" "$T" exec 50 || bad "exec run $rep"
  wait_recv
  got="$(val "$T/exec$rep" count.posix.write)/$(val "$T/exec$rep" seq_gaps)/$(val "$T/exec$rep" finals)"
  [ "$got" = "100/0/1" ] && ok "exec repeat $rep: 100 writes, no gap, one final" \
                         || bad "exec repeat $rep: writes/gaps/finals = $got, expected 100/0/1"
  rep=$((rep + 1))
done

# A failed exec: the stream goes on in the same image, gap-free.
start_recv "$T/execfail" -i 10 -n 1
FTIO_FLUSH_MS=100000 traced "$L" "$T" execfail 50 || bad "execfail run"
wait_recv
expect_eq "$T/execfail" count.posix.write 100 "failed exec: writes before and after"
expect_eq "$T/execfail" count.posix.open 2 "failed exec: opens"
expect_eq "$T/execfail" finals 1 "failed exec: one final batch"
expect_eq "$T/execfail" seq_gaps 0 "failed exec: seq gaps"
expect_eq "$T/execfail" seq_dups 0 "failed exec: seq duplicates"

# SIGTERM with the default action: flushed before dying, killed by TERM.
start_recv "$T/term" -i 10 -n 1
env LD_PRELOAD="$PRELOAD" "$L" "$T" sigterm 300 & tp=$!; PIDS="$PIDS $tp"
wait_file "$T/ctl/ready" || bad "SIGTERM: the program never got ready"
kill -TERM $tp; wait $tp; rc=$?
wait_recv
[ "$rc" = 143 ] && ok "SIGTERM: died by the signal" || bad "SIGTERM: exit status $rc, expected 143"
expect_eq "$T/term" count.posix.write 300 "SIGTERM: records flushed"
expect_eq "$T/term" finals 1 "SIGTERM: final batch"

# The application's own SIGINT handler is chained and reported as installed;
# SIG_IGN set by the application is real (the exec'd sh checks SigIgn).
start_recv "$T/int" -i 10 -n 1
out=$(traced "$L" "$T" sigint 100) || bad "sigint run"
wait_recv
[ "$out" = "handled=1" ] && ok "SIGINT: application handler ran" || bad "SIGINT handler: '$out'"
expect_eq "$T/int" count.posix.write 200 "SIGINT: process continued"
expect_eq "$T/int" finals 1 "SIGINT + exec of sh: the continued stream ends with a final batch"

# The flusher runs in a private descriptor table (FTIO_PRIVATE_FDS, on by
# default): an application's closefrom(3) no longer closes ZeroMQ's
# descriptors, and every record, before and after, arrives over the socket.
start_recv "$T/closefrom" -i 10 -n 1
FTIO_DEBUG=1 traced "$L" "$T" closefrom 100 2>"$T/closefrom.log" || bad "closefrom run"
wait_recv
grep -q "private descriptor table" "$T/closefrom.log" && ok "closefrom: flusher in a private table"   || bad "closefrom: no private descriptor table: $(grep -i 'unshare\|kcmp' "$T/closefrom.log")"
expect_eq "$T/closefrom" count.posix.write 200 "closefrom: writes before and after"
expect_eq "$T/closefrom" count.posix.open 2 "closefrom: opens"
expect_eq "$T/closefrom" count.posix.close 2 "closefrom: closes (one by closefrom)"
expect_eq "$T/closefrom" lost 0 "closefrom: lost"
expect_eq "$T/closefrom" finals 1 "closefrom: final batch"
[ -z "$(ls "$T/spool")" ] && ok "closefrom: nothing spooled" || bad "closefrom: spooled $(ls "$T/spool")"

# The private table holds none of the application's descriptors: a pipe's
# reader sees EOF once the application closes the write end.  Also with the
# table shared (FTIO_PRIVATE_FDS=0), which must still deliver everything.
for pf in 1 0; do
  start_recv "$T/pipe$pf" -i 10 -n 1
  out=$(FTIO_DEBUG=1 FTIO_PRIVATE_FDS=$pf traced "$L" "$T" pipeeof 100 2>"$T/pipe$pf.log") || bad "pipeeof run"
  wait_recv
  [ "$out" = "eof=1" ] && ok "FTIO_PRIVATE_FDS=$pf: pipe reader sees EOF" || bad "FTIO_PRIVATE_FDS=$pf: pipe EOF: '$out'"
  expect_eq "$T/pipe$pf" count.posix.write 100 "FTIO_PRIVATE_FDS=$pf: writes"
  expect_eq "$T/pipe$pf" finals 1 "FTIO_PRIVATE_FDS=$pf: final batch"
done
grep -q "private descriptor table" "$T/pipe0.log" && bad "FTIO_PRIVATE_FDS=0 still unshares"   || ok "FTIO_PRIVATE_FDS=0: table shared"

# _exit skips atexit/destructors: the wrapper flushes.
start_recv "$T/exit" -i 10 -n 1
traced "$L" "$T" _exit 100; rc=$?
wait_recv
[ "$rc" = 3 ] && ok "_exit status kept" || bad "_exit status $rc"
expect_eq "$T/exit" count.posix.write 100 "_exit: records flushed"
expect_eq "$T/exit" finals 1 "_exit: final batch"

finish
