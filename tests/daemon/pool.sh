#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pool.sh -- the analysis threads (--threads, issue 18): two replayed jobs
# with thousands of boundaries each (--catch-up every) and a live one,
# analysed by two threads at once (ftiod --status: parallel_turns_max, the
# most jobs in an analysis turn at the same time, counted under the lock).
# One thread per job at a time keeps each (job, mode)'s messages in order:
# seq strictly increasing from 1, window.end strictly increasing; the two
# backlogs take turns (each publishes before the other is done); every job
# gets its end.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
start_daemon d --threads 2 --catch-up every
# The two backlogs are sent at the same time: sent one after the other, the
# first could be analysed before the second arrives (a fast turn), and the
# two threads would never have two jobs to take at once.
# (Their pids in PIDS until they are waited for: a failure stops the other.)
for j in r1 r2; do
  wire periodic --endpoint "ipc://$T/d.in" --job "$j" --ranks 2 --period 1 --duration 0.2 \
    --phases 400 --read > "$T/gen.$j.out" 2>&1 &
  echo $! > "$T/gen.$j.pid"
  PIDS="$PIDS $!"
done
for j in r1 r2; do
  gen=$(cat "$T/gen.$j.pid")
  wait "$gen" || fail "generator $j: $(cat "$T/gen.$j.out")"
  PIDS=$(echo " $PIDS " | sed "s/ $gen / /")   # gone: its pid may be another's soon
done
wire periodic --endpoint "ipc://$T/d.in" --job live --ranks 2 --period 2 --duration 0.3 \
  --phases 6 --speed 1 --read || fail "live generator"
for j in r1 r2 live; do wait_topic "$T/d.log" "ftio.$j.end" 120; done
wait_for 10 status_is d "s['totals']['analysis_threads'] == 2" || fail "not 2 analysis threads"
wait_for 10 status_is d "s['totals']['parallel_turns_max'] >= 2" ||
  fail "the two threads never analysed at the same time: $(cat "$T/d.status.json")"
"$PY" - "$T/d.log" <<'PYEOF' || fail "messages out of order"
import json, sys
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
for job in ("r1", "r2", "live"):
    for mode in ("write", "read"):
        m = [x for t, x in msgs if t == "ftio.%s.%s" % (job, mode)]
        assert len(m) >= 3, "%s %s: %d messages" % (job, mode, len(m))
        seq = [x["seq"] for x in m]
        end = [x["window"]["end"] for x in m]
        assert seq == list(range(1, len(m) + 1)), "%s %s: seq %s" % (job, mode, seq[:20])
        assert all(a < b for a, b in zip(end, end[1:])), "%s %s: window.end not increasing" % (job, mode)
        print("%s %s: %d messages in order" % (job, mode, len(m)))
pub = {j: [x["published"] for t, x in msgs if t.startswith("ftio.%s." % j) and not t.endswith(".end")]
       for j in ("r1", "r2")}
assert pub["r1"][0] < pub["r2"][-1] and pub["r2"][0] < pub["r1"][-1], "one backlog waited for the other"
PYEOF
ok "two threads, messages of each (job, mode) in order, backlogs taking turns"
finish
