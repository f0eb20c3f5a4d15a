#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: its 10 s are ftio sub's own timer, a lower bound; no deadline)
# sub_wait.sh -- `ftio sub --job J` (and --all-jobs) waits until interrupted,
# as README says, when the job has not published yet: it is still running
# after 10 s (the old default --timeout) against a live but silent daemon,
# prints the job's messages once they come, and ends with the job; against
# an endpoint nobody serves it says so once on stderr and keeps waiting;
# SIGINT ends it with status 0.  --timeout S still gives up (exit 1).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftio" "$B/bin/ftiod" "$WIRE"
FTIO=$B/bin/ftio

start_daemon d --job-timeout 2
"$FTIO" sub --job 4711 --endpoint "ipc://$T/d.pub" --json >"$T/job.out" 2>"$T/job.err" &
JOB=$!; PIDS="$PIDS $JOB"
"$FTIO" sub --all-jobs --endpoint "ipc://$T/nobody.pub" >"$T/all.out" 2>"$T/all.err" &
ALL=$!; PIDS="$PIDS $ALL"
wait_connected "$T/d.pub" || fail "ftio sub --job did not connect"
# The unreachable one says so after 10 s: time is what is tested here.
wait_grep "$T/all.err" "cannot be reached" 30 || bad "--all-jobs on nobody: no word after 10 s: $(cat "$T/all.err")"
[ "$(grep -c . "$T/all.err")" = 1 ] || bad "--all-jobs: more than one line: $(cat "$T/all.err")"
kill -0 $JOB 2>/dev/null || bad "ftio sub --job 4711 gave up before its job published: $(cat "$T/job.err")"
kill -0 $ALL 2>/dev/null || bad "ftio sub --all-jobs gave up: $(cat "$T/all.err")"
[ -s "$T/job.err" ] && bad "ftio sub --job (connected, silent) printed: $(cat "$T/job.err")"
ok "after 10 s of silence both still wait"

# the job comes: its messages, then its end ends the command
wire periodic --endpoint "ipc://$T/d.in" --job 4711 --ranks 2 --period 1 --phases 6 >/dev/null 2>"$T/gen.err" ||
  fail "ftio-wire periodic: $(cat "$T/gen.err")"
wait_gone $JOB 30 || fail "ftio sub --job 4711 did not end with its job"
wait $JOB; rc=$?
[ $rc = 0 ] || bad "ftio sub --job 4711: exit $rc: $(cat "$T/job.err")"
grep -q '"job": *"4711"' "$T/job.out" || bad "no message of job 4711: $(head -c 300 "$T/job.out")"
ok "ftio sub --job 4711: printed the job's messages and ended with it"

kill -INT $ALL
wait_gone $ALL 10 || fail "SIGINT did not stop ftio sub --all-jobs"
wait $ALL; rc=$?
[ $rc = 0 ] || bad "ftio sub --all-jobs after SIGINT: exit $rc"

# --timeout given: gives up as before
rc=0; "$FTIO" sub --job 1 --endpoint "ipc://$T/d.pub" --timeout 0.5 >/dev/null 2>"$T/t.err" || rc=$?
[ $rc = 1 ] && grep -q "nothing was published" "$T/t.err" || bad "--timeout 0.5: exit $rc $(cat "$T/t.err")"
finish
