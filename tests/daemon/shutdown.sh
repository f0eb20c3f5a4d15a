#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# shutdown.sh -- SIGTERM stops ftiod within 2 s whatever is queued (issue
# 18), and no job is left without its end message (issue 27).  The backlog:
# two replayed jobs of 5,000 phases each, still sending (no `final`), under
# --catch-up every (3,600 boundaries each inside the horizon, tens of
# seconds of analyses), 600 more open jobs with an hour of history each, and
# 200 jobs with 12 minutes of history whose processes all sent `final`: their
# ends are queued (--settle-end 600).  Without --state-dir every job gets
# its `.end` (the latest answers, ended_by shutdown; a queued end has its
# summary: before, the analyses of whole jobs ran out of time and the log
# said how many got none); with --state-dir the next ftiod continues the
# jobs: it knows them, and `ftio end` to it gives a summary of all their
# data.  The old daemon ran every queued boundary first.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

backlog() {   # NAME: two jobs whose analyses are queued
  for j in b1 b2; do
    wire periodic --endpoint "ipc://$T/$1.in" --job "$j" --ranks 2 --period 1 --duration 0.2 \
      --phases 5000 --no-final || fail "$1: generator $j"
  done
  wait_topic "$T/$1.log" ftio.b2.write 30
}
# The 2 s are the normal build's; an ASan build is slower throughout and
# scans its whole heap for leaks at exit (once 1.06 s after the signal with
# the sockets closed, the scan still running at 2 s, the suite at load 10).
STOP_BUDGET=2
[ -n "$(ftio_asan_prefix "$B/bin/ftiod")" ] && STOP_BUDGET=6
stop_within() {   # NAME SECONDS
  t0=$(date +%s.%N)
  kill -TERM "$DPID"
  wait_for "$2" _gone "$DPID" || fail "$1: ftiod still running $2 s after SIGTERM"
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# Without --state-dir: out within 2 s, every job with its end.
start_daemon plain --catch-up every --settle-end 600
backlog plain
N=600     # an hour of history each (a summary of 36,000 samples), then live
"$WIRE" fleet --endpoint "ipc://$T/plain.in" --jobs $N --history 1 --seconds 60 --prefix open \
  --info "$T/fleet.json" >/dev/null 2>"$T/fleet.err" &
FLEET=$!; PIDS="$PIDS $FLEET"
wait_file "$T/fleet.json" 60 || fail "plain: the fleet's history was not sent"
Q=200     # 12 minutes of history each, then `final`: ends queued for --settle-end
"$WIRE" fleet --endpoint "ipc://$T/plain.in" --jobs $Q --history 0.2 --seconds 1 --prefix queued \
  >/dev/null 2>"$T/queued.err" || fail "plain: the queued jobs' sender failed"
all=$((N + Q + 2))
wait_for 60 status_is plain "len(s['jobs']) == $all and all(j.get('write', {}).get('analyses', 0) > 0 for j in s['jobs']) and sum(j['final'] == j['processes'] for j in s['jobs']) >= $Q" ||
  fail "plain: not $all open jobs analysed, $Q of them final"
stop_within plain $STOP_BUDGET
kill $FLEET 2>/dev/null
ends=$(jsonl "$T/plain.log" "len(set(m['job'] for t, m in msgs if t.endswith('.end')))")
grep -q "stopped before" "$T/plain.err" && bad "plain: $(grep 'stopped before' "$T/plain.err")"
[ "$ends" = $all ] || fail "plain: $ends of $all jobs got their end message"
why=$(jsonl "$T/plain.log" "sorted(set(m['ended_by'] for t, m in msgs if t.endswith('.end')))")
[ "$why" = '["shutdown"]' ] || bad "plain: ended_by $why"
queued=$(jsonl "$T/plain.log" "sum(1 for t, m in msgs if t.startswith('ftio.queued') and t.endswith('.end') and m['processes_without_final'] == 0 and 'write' in m['summary'])")
[ "$queued" = $Q ] || fail "plain: $queued of the $Q queued ends have their summary"
grep -q "stopping: $all end messages" "$T/plain.err" || bad "plain: the log does not count the $all ends: $(grep 'stopping:' "$T/plain.err")"
ok "without --state-dir: gone $took s after SIGTERM, all $all jobs ended ($Q queued ends with their summary)"

# With --state-dir: out within 2 s, and the next ftiod continues.
start_daemon kept --catch-up every --state-dir "$T/state"
backlog kept
stop_within kept $STOP_BUDGET
grep -q '"topic":"ftio.b1.end"' "$T/kept.log" && fail "kept: b1 ended although the next ftiod is to continue it"
ok "with --state-dir: gone $took s after SIGTERM"
start_daemon next --state-dir "$T/state"
wait_for 10 status_is next "len(s['jobs']) == 2" || fail "next: does not know the two jobs"
"$B/bin/ftio" end --endpoint "ipc://$T/next.st" b1 >/dev/null || fail "next: ftio end b1"
wait_topic "$T/next.log" ftio.b1.end 30
r=$(jsonl "$T/next.log" "last('ftio.b1.end')['summary']['write']['records']")
[ "$r" -ge 10000 ] || fail "next: b1's summary counts $r records, not the first daemon's too"
ok "the next ftiod continued b1: its end summary counts $r records"
stop_within next 2
finish
