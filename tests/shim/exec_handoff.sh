#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# exec_handoff.sh -- a shell that execs its last command loses nothing
# (issue 21 item 7).  `sh -c 'cat x > y; exec cat y > z'` traced, 12 times,
# each its own job, to ftiod: the shell's batch from before the exec (the
# open of z) is not acknowledged yet when the exec comes; the shim hands it
# to the exec'd cat (FTIO_HANDOFF, through the spool file), which sends it
# first.  Every job's last `.end` is complete (2 processes, each with its
# final, no missing batch) and no spool file is left.  On the previous code
# the pre-exec batch was spooled: a spool file per run, and some jobs
# incomplete.  (With the default FTIO_EXIT_WAIT_MS, not the 3 s tests/run.sh
# sets for the other tests.)  Then the same with no daemon: the hand-off ends in the spool
# file, which `ftio-wire recv` reads gap-free with both finals.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$SHIM" "$WIRE"
no_leak_checks
# The defaults users get (tests/run.sh sets a 3 s exit wait for the other tests).
unset FTIO_EXIT_WAIT_MS
head -c 4096 /dev/urandom >"$T/x"
start_daemon d
export FTIO_ENDPOINT="ipc://$T/d.in"
run() { # JOB
  FTIO_JOB=$1 traced sh -c 'cat "$1" > "$2"; exec cat "$2" > "$3"' sh "$T/x" "$T/y" "$T/z" \
    2>>"$T/runs.err" || bad "$1: the shell failed"
  cmp -s "$T/x" "$T/z" || bad "$1: the copy differs"
}
# The node's first traced process cannot know that ftiod is up: with a 3 ms
# exit wait on a loaded machine it may spool.  One that was answered tells
# the later ones (a marker in the spool directory): they then wait up to
# 300 ms for a slow daemon instead of spooling.
FTIO_EXIT_WAIT_MS=3000 FTIO_JOB=warmup traced cat "$T/x" >/dev/null 2>"$T/warmup.err" ||
  bad "warm-up run"
wait_for 10 log_is "$T/d.log" "last('ftio.warmup.end')" || bad "the warm-up job did not end"
i=1
while [ $i -le 12 ]; do run "exec$i"; i=$((i + 1)); done
# A job ends once every process it knows sent its final batch; a batch that
# comes later reopens it and a corrected .end follows: wait for the .end of
# both processes, then judge the latest one.
all_ends() {
  log_is "$T/d.log" "all((last('ftio.exec%d.end' % i) or {}).get('processes') == 2 for i in range(1, 13))"
}
wait_for 30 all_ends || bad "not every job has an end with both processes"
jsonl "$T/d.log" "[(i, last('ftio.exec%d.end' % i) or {}) for i in range(1, 13)]" >"$T/ends.json"
"$PY" - "$T/ends.json" <<'PYEOF' || bad "incomplete jobs (above)"
import json, sys
bad = 0
for i, e in json.load(open(sys.argv[1])):
    keys = ("complete", "missing_batches", "processes", "processes_without_final")
    got = {k: e.get(k) for k in keys}
    if got != {"complete": True, "missing_batches": 0, "processes": 2, "processes_without_final": 0}:
        print("exec%d: %s" % (i, got))
        bad += 1
sys.exit(1 if bad else 0)
PYEOF
[ "$(grep -c . "$T/ends.json")" -ge 1 ] && ok "12 runs: every job complete (both processes, no missing batch)"
set -- "$T"/spool/ftio-*.msgpack
[ -e "$1" ] && bad "spool files left: $(ls "$T/spool")" || ok "no spool file"
grep -q 'did not take all' "$T/runs.err" && bad "a spool notice: $(cat "$T/runs.err")" || ok "no spool notice"

# No daemon: the exec'd image takes the hand-off back and spools it at its
# end with its own batches: one file, gap-free, both finals, one notice.
FTIO_ENDPOINT="ipc://$T/nobody" FTIO_JOB=down traced sh -c \
  'cat "$1" > "$2"; exec cat "$2" > "$3"' sh "$T/x" "$T/y" "$T/z" 2>"$T/down.err" ||
  bad "no daemon: the shell failed"
wire recv "$T"/spool/ftio-down-*.msgpack >"$T/down"
expect_eq "$T/down" pids 2 "no daemon: processes in the spool"
expect_eq "$T/down" finals 2 "no daemon: finals"
expect_eq "$T/down" seq_gaps 0 "no daemon: seq gaps"
expect_eq "$T/down" seq_dups 0 "no daemon: seq duplicates"
expect_eq "$T/down" count.posix.open 4 "no daemon: opens (y and z by the shells, x and y by the cats)"
[ "$(grep -c 'did not take all' "$T/down.err")" = 1 ] && ok "no daemon: one notice" ||
  bad "no daemon: notices: $(cat "$T/down.err")"
finish
