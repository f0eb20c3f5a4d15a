#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live, under mpirun: short I/O phases every 5 s, like IOR -d 5 (4 ranks write
# 1 MiB each, collectively: a few milliseconds of I/O every 5 s, duty < 1 %),
# under libftio.so streaming to ftiod.  FTIO's DFT sees a flat comb here
# (the published implementation answers "none"); the phases give the period.
# Every published period from the 4th phase on and the final summary are
# within 2 % of the true one (the mean interval between the checkpoints' own
# start times inside the message's window, tests/daemon/phase_truth.py), no
# message after the first right one is wrong or without a period, and
# next.start is never before the message's window end.
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-pulses -n 8 -c 5 -b 1M
"$PY" - "$T/d.log" "$JOB" "$T/app.out" "$HERE" <<'PYEOF' || fail "live predictions"
import sys
log, job, out, here = sys.argv[1:5]
sys.path.insert(0, here)
from phase_truth import phases, local_period, off, messages
t = phases(out, "checkpoint")
w, end = messages(log, job, "write")
assert w, "no message"
t0 = w[0]["window"]["start"]
late, bad = 0, []
for m in w:
    P = local_period(t, m["window"]["start"], m["window"]["end"])
    print("%7.2f s  period %-8s %-9s conf %s stale %s  true %s"
          % (m["window"]["end"] - t0, m["period"] and round(m["period"], 3), m["class"], m["confidence"],
             m["stale"], P and round(P, 3)))
    if P is None or m["window"]["end"] - t0 <= 3.2 * P:      # from the 4th phase on
        continue
    late += 1
    if m["period"] is None or off(m["period"], t, m["window"]["start"], m["window"]["end"]) > 0.02:
        bad.append((round(m["window"]["end"] - t0, 2), m["period"], round(P, 3)))
assert late, "no message after the 4th phase"
assert not bad, "periods off by more than 2 %% from the 4th phase on (window end, period, true): %s" % bad
past = [m for m in w if m["next"]["start"] is not None and m["next"]["start"] < m["window"]["end"]]
assert not past, "next.start in the past: %d" % len(past)
print("live: %d messages, all %d from the 4th phase within 2 %%" % (len(w), late))
assert end, "no .end"
P = local_period(t, end["window"]["start"], end["window"]["end"])
print("final: period %s, true %s" % (end["period"], P))
assert P and end["period"] and off(end["period"], t, end["window"]["start"], end["window"]["end"]) <= 0.02, "final period %s vs %s" % (end["period"], P)
PYEOF
echo ok
