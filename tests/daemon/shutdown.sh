#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# shutdown.sh -- SIGTERM stops ftiod within 2 s whatever is queued (issue
# 18).  The backlog: two replayed jobs of 5,000 phases each, still sending
# (no `final`), under --catch-up every (3,600 boundaries each inside the
# horizon, tens of seconds of analyses).  Without --state-dir each job gets
# its end summary or the log says it did not; with --state-dir the next
# ftiod continues the jobs: it knows them, and `ftio end` to it gives a
# summary of all their data.  The old daemon ran every queued boundary
# first.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

backlog() {   # NAME: two jobs whose analyses are queued
  for j in b1 b2; do
    wire periodic --endpoint "ipc://$T/$1.in" --job "$j" --ranks 2 --period 1 --duration 0.2 \
      --phases 5000 --no-final || fail "$1: generator $j"
  done
  wait_topic "$T/$1.log" ftio.b2.write 30
}
stop_within() {   # NAME SECONDS
  t0=$(date +%s.%N)
  kill -TERM "$DPID"
  wait_for "$2" _gone "$DPID" || fail "$1: ftiod still running $2 s after SIGTERM"
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# Without --state-dir: out within 2 s; each job has its end or the log says
# how many did not.
start_daemon plain --catch-up every
backlog plain
stop_within plain 2
ends=$(jsonl "$T/plain.log" "len([1 for t, m in msgs if t.endswith('.end')])")
if [ "$ends" != 2 ]; then
  grep -q "stopped before $((2 - ends)) of 2 jobs got their end summary" "$T/plain.err" ||
    fail "plain: $ends end messages and no word of the others in the log"
fi
ok "without --state-dir: gone $took s after SIGTERM, $ends of 2 jobs ended"

# With --state-dir: out within 2 s, and the next ftiod continues.
start_daemon kept --catch-up every --state-dir "$T/state"
backlog kept
stop_within kept 2
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
