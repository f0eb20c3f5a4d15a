# SPDX-License-Identifier: BSD-3-Clause
"""phase_truth.py -- the truth of the live end-to-end tests (tests/daemon/e2e_*.sh,
checkpoint_job in tests/lib.sh): the checkpoint mini-app's own phase start
times, and the period they make inside the window a prediction was computed
from.

Why per window: on a loaded machine the I/O of a phase takes longer in one
part of the run than in another, so the interval between phases drifts; an
early window then holds other intervals than the whole run, and a right
answer for that window would be judged against the wrong truth.  Every
message is therefore judged against the phases that overlap its own window
(`window.start` .. `window.end`, epoch s): their mean interval, the
span from the first to the last start over the intervals between them (the
period of the phases the window holds; on an idle machine every interval is
that one, and a few slow phases under load move a median off the rate the
phases came at, which is what a spectrum measures).

The times come from the program itself (examples/checkpoint.c, run with
--verbose --phases), never from ftio and never from wall time or iterations:
  "iteration I: ... read back D s, checkpoint at M, read at R"   rank 0's
      CLOCK_MONOTONIC start of the checkpoint and of the read back, and the
      read's duration (--verbose)
  "phase checkpoint I 0 S E BYTES"                rank 0's CLOCK_REALTIME
      [start, end] of the checkpoint (--phases)
The app reads both clocks back to back at a checkpoint's start, so S - M is
the epoch of that iteration's monotonic times; a read is [R, R + D] plus it.

examples/posix_periodic.c (the Slurm tests) says, each rank a line per phase:
  "iteration I: wrote B bytes to PATH from S to E"   CLOCK_REALTIME [start, end]
periodic_phases(out) gives its phases, the ranks' lines of one iteration
as one phase (the first start, the last end).

As a module: phases(out, kind), periodic_phases(out), local_period(phases, start, end),
off(period, phases, start, end) (how far an answer is from the truth), and
messages(log, job, mode), what ftiod published of the job.
As a command: phase_truth.py OUT KIND prints the phases, "start end" (epoch s)
one a line.
"""
import json
import re
import sys


def phases(out, kind):
    """The app's phases of KIND (checkpoint, read): (start, end), epoch s."""
    text = open(out).read()
    mono = {int(i): (float(c), float(r), float(rt)) for i, rt, c, r in
            re.findall(r"^iteration (\d+):.* read back ([0-9.]+) s, checkpoint at ([0-9.]+), read at ([0-9.na]+)$",
                       text, re.M)}
    wall = {int(i): (float(s), float(e)) for i, s, e in
            re.findall(r"^phase checkpoint (\d+) 0 ([0-9.]+) ([0-9.]+) \d+$", text, re.M)}
    if not mono or set(mono) != set(wall):
        sys.exit("phase_truth: %s: %d iterations with monotonic times, %d with epoch times "
                 "(run the app with --verbose --phases)" % (out, len(mono), len(wall)))
    p = []
    for i in sorted(mono):
        c, r, rt = mono[i]
        s, e = wall[i]
        p.append((s, e) if kind == "checkpoint" else (r + (s - c), r + (s - c) + rt))
    if len(p) < 3:
        sys.exit("phase_truth: %d %s phases in %s" % (len(p), kind, out))
    return p


def periodic_phases(out):
    """posix_periodic's phases in OUT (every rank's lines): (start, end),
    epoch s, one per iteration, from its first rank's start to its last
    rank's end."""
    it = {}
    for i, s, e in re.findall(r"^iteration (\d+): wrote \d+ bytes to \S+ from ([0-9.]+) to ([0-9.]+)$",
                              open(out).read(), re.M):
        s0, e0 = it.get(int(i), (float(s), float(e)))
        it[int(i)] = (min(s0, float(s)), max(e0, float(e)))
    if len(it) < 3:
        sys.exit("phase_truth: %d posix_periodic phases in %s" % (len(it), out))
    return [it[i] for i in sorted(it)]


def local_intervals(p, start, end):
    """The intervals between the starts of the phases of P that overlap
    [start, end] (a phase that began before the window may have its data in
    it: a collective open waits for the last rank)."""
    inside = [s for s, e in p if e >= start and s <= end]
    return [b - a for a, b in zip(inside, inside[1:])]


def local_period(p, start, end):
    """The mean interval of local_intervals(); None when fewer than two
    phases overlap the window."""
    d = local_intervals(p, start, end)
    return sum(d) / len(d) if d else None


def off(period, p, start, end):
    """How far PERIOD is, relative, from the window's truth.  With every
    interval alike the truth is that interval.  When they differ (slow first
    phases while the ranks start, a loaded machine) two answers are right: the
    rate the phases came at (the mean interval, what a spectrum of the whole
    window measures) and the usual interval (the median, what a detector that
    sets slow phases aside measures; on an idle machine's run of intervals
    4.74 4.02 3.38 3.25 3.31 3.38 3.41 s the mean is 3.64 and the program's
    steady period 3.38).  So the truth is the range between the two: 0 inside
    it, else the relative distance to its nearer end; None without a truth."""
    d = sorted(local_intervals(p, start, end))
    if not d or period is None:
        return None
    n = len(d)
    median = d[n // 2] if n % 2 else (d[n // 2 - 1] + d[n // 2]) / 2
    lo, hi = sorted((median, sum(d) / n))
    if lo <= period <= hi:
        return 0.0
    return min(abs(period - lo) / lo, abs(period - hi) / hi)


def messages(log, job, mode):
    """ftiod's live messages of JOB's MODE in its --log LOG, and the `.end`
    summary of that mode (None without an `.end`)."""
    msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(log))]
    ends = [m for k, m in msgs if k == "ftio.%s.end" % job]
    return [m for k, m in msgs if k == "ftio.%s.%s" % (job, mode)], ends[-1]["summary"][mode] if ends else None


if __name__ == "__main__":
    for s, e in phases(sys.argv[1], sys.argv[2]):
        print("%.6f %.6f" % (s, e))
