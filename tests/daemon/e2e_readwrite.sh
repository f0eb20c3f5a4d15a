#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live, under mpirun: a write phase and a read phase in every iteration (4
# ranks checkpoint 8 MiB each collectively, compute 1 s, read it back,
# compute 2 s): ftiod publishes both modes; from the 4th phase on, and in the
# final summary, each mode's period is within 5 % of the iterations' length.
# The truth of a message is the mean interval between the app's own start
# times of the mode's phases inside that message's window
# (tests/daemon/phase_truth.py: on a loaded machine an early window sees
# other intervals than the whole run's).
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-rw -n 8 -c 2 -r 1 -b 8M
for mode in write read; do
  "$PY" - "$T/d.log" "$JOB" "$mode" "$T/app.out" "$HERE" <<'PYEOF' || fail "$mode: live predictions"
import sys
log, job, mode, out, here = sys.argv[1:6]
sys.path.insert(0, here)
from phase_truth import phases, local_period, off, messages
t = phases(out, "checkpoint" if mode == "write" else "read")
w, end = messages(log, job, mode)
assert w, "no %s message" % mode
t0 = w[0]["window"]["start"]
late, bad = 0, []
for m in w:
    P = local_period(t, m["window"]["start"], m["window"]["end"])
    if P is None or m["window"]["end"] - t0 <= 3.2 * P:      # from the 4th phase on
        continue
    late += 1
    if m["period"] is None or off(m["period"], t, m["window"]["start"], m["window"]["end"]) > 0.05:
        bad.append((round(m["window"]["end"] - t0, 2), m["period"], round(P, 3)))
assert late, "no message after the 4th phase"
assert not bad, "%s: periods off by more than 5 %% (window end, period, true): %s" % (mode, bad)
print("%s: %d messages, all %d from the 4th phase within 5 %%" % (mode, len(w), late))
assert end, "no .end"
P = local_period(t, end["window"]["start"], end["window"]["end"])
print("%s final: period %s, true %s" % (mode, end["period"], P))
assert P and end["period"] and off(end["period"], t, end["window"]["start"], end["window"]["end"]) <= 0.05, "%s final period %s vs %s" % (mode, end["period"], P)
PYEOF
done
echo ok
