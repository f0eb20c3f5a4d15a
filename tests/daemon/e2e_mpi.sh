#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# End to end under mpirun: 4 ranks of the checkpoint mini-app (compute 3 s +
# a collective MPI-IO checkpoint, 8 times) under libftio.so stream to ftiod.
# After at most 6 phases a published period is within 5 % of the true one
# with class periodic or uncertain; the final summary is too; the job has 4
# ranks and every write record once (nested POSIX records under MPI-IO are
# not counted twice: bytes = 8 x 4 x 32 MiB).  The true period of a message
# comes from the intervals between the checkpoints' own start times (the app
# prints them) inside that message's window: anything from their median to
# their mean (tests/daemon/phase_truth.py `off`: on a loaded machine an early
# window sees other intervals than the run's, and the first phases are slow).
# Bursts are 32 MiB per rank so that they last a few samples: a burst much
# shorter than 1/fs makes a spike train, whose harmonics all have the same
# power, and the z-score test of ALGORITHM.md §3 then needs ~9 periods.
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-mpi -n 8 -c 3 -b 32M
"$PY" - "$T/d.log" "$JOB" "$T/app.out" "$HERE" <<'PYEOF' || fail "live predictions (above)"
import sys
log, job, out, here = sys.argv[1:5]
sys.path.insert(0, here)
from phase_truth import phases, local_period, off, messages
t = phases(out, "checkpoint")
w, end = messages(log, job, "write")
assert w, "no write message"
t0 = min(m["window"]["start"] for m in w)
good = []
for m in w:
    P = local_period(t, m["window"]["start"], m["window"]["end"])
    print("%5.1f s  period %-8s %-9s records %d  true %s"
          % (m["window"]["end"] - t0, m["period"] and round(m["period"], 3), m["class"], m["records"],
             P and round(P, 3)))
    # published with data of at most 6 phases (window end < 5.5 periods after the start)
    # (a message without a period is not a correct one: off() says None)
    if P and m["period"] is not None and off(m["period"], t, m["window"]["start"], m["window"]["end"]) <= 0.05 \
            and m["class"] in ("periodic", "uncertain") \
            and m["window"]["end"] - t0 < 5.5 * P:
        good.append(m)
assert good, "no correct period within the first 6 phases"
assert end, "no .end"
P = local_period(t, end["window"]["start"], end["window"]["end"])
print("final: period %s (%s), true %s" % (end["period"], end["class"], P))
assert P and end["period"] and off(end["period"], t, end["window"]["start"], end["window"]["end"]) <= 0.05, "final period %s vs %s" % (end["period"], P)
assert end["class"] in ("periodic", "uncertain"), "final class %s" % end["class"]
assert end["ranks"] == 4, "ranks %s" % end["ranks"]
assert int(end["bytes"]) == 8 * 4 * 33554432, "bytes %s, expected %d" % (end["bytes"], 8 * 4 * 33554432)
PYEOF
echo ok
