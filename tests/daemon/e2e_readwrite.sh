#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live, under mpirun: a write phase and a read phase in every iteration (4
# ranks checkpoint 8 MiB each collectively, compute 1 s, read it back,
# compute 2 s): ftiod publishes both modes; from the 4th phase on, and in the
# final summary, each mode's period is within 5 % of the iterations' length.
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-rw -n 8 -c 2 -r 1 -b 8M
for mode in write read; do
  # The truth: the median interval between the app's own start times of
  # the mode's phases.
  case $mode in write) P=$(phase_period "$T/app.out" checkpoint) ;; read) P=$(phase_period "$T/app.out" read) ;; esac \
    || fail "no phase times in the app's output"
  echo "$mode: true period $P s"
  "$PY" - "$T/d.log" "ftio.$JOB.$mode" "$P" <<'PYEOF' || fail "$mode: live predictions"
import json, sys
log, topic, P = sys.argv[1], sys.argv[2], float(sys.argv[3])
msgs = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == topic]
assert msgs, "no %s message" % topic
t0 = msgs[0]["window"]["start"]
late = [m for m in msgs if m["window"]["end"] - t0 > 3.2 * P]
assert late, "no message after the 4th phase"
bad = [(round(m["window"]["end"] - t0, 2), m["period"]) for m in late
       if m["period"] is None or abs(m["period"] - P) > 0.05 * P]
assert not bad, "%s: periods off by more than 5 %%: %s" % (topic, bad)
print("%s: %d messages, all from the 4th phase within 5 %%" % (topic, len(msgs)))
PYEOF
  final=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['$mode']['period']")
  echo "$mode final: period $final"
  close 0.05 "$final" "$P" || fail "$mode final period $final vs $P"
done
echo ok
