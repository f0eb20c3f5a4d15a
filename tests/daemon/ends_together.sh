#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ends_together.sh -- many jobs that end together all get their `.end`, and
# their summaries are right (issue 27).  400 jobs (`ftio-wire fleet`: periods
# 10-600 s, half of them also reading) with 40 minutes of history each, a few
# seconds live, then every process sends `final` at once: each job ends
# (ended_by idle, --settle-end after its final batch) with a summary of each
# mode.  A job that long keeps only its window (the bins forget, job.h
# JOB_KEEP_BYTES), and its summary is the analysis of its last window, made
# already when it holds all the data (analysis/stream.c summary_reuses): the
# summary says the period the sender used (its own word, info.json), for
# every job whose window holds at least 8 of its periods.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

export FTIO_AUTH=none   # the sender: ftiod runs with --auth none
N=400
start_daemon e
"$WIRE" fleet --endpoint "ipc://$T/e.in" --jobs $N --history 0.67 --seconds 4 \
  --info "$T/fleet.json" >/dev/null 2>"$T/fleet.err" || fail "the fleet's sender failed"
wait_for 120 log_is "$T/e.log" "len(set(m['job'] for t, m in msgs if t.endswith('.end'))) >= $N" ||
  fail "$(jsonl "$T/e.log" "len(set(m['job'] for t, m in msgs if t.endswith('.end')))") of $N jobs got their .end in 120 s"
why=$(jsonl "$T/e.log" "sorted(set(m['ended_by'] for t, m in msgs if t.endswith('.end')))")
[ "$why" = '["idle"]' ] || bad "ended_by $why, not idle"
"$PY" - "$T/e.log" "$T/fleet.json" <<'PY' || bad "summaries off the senders' periods (above)"
import json, sys
truth = {j["job"]: j for j in json.load(open(sys.argv[2]))["jobs"]}
ends = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["topic"].endswith(".end"):
        ends[d["message"]["job"]] = d["message"]
judged, wrong, modes = 0, [], 0
for job, m in ends.items():
    t = truth[job]
    for mode in (["write", "read"] if t["reads"] else ["write"]):
        s = m["summary"].get(mode)
        if not s:
            wrong.append("%s %s: no summary" % (job, mode))
            continue
        modes += 1
        # 8 periods at least in the window (40 min, or 10 periods once found)
        if t["period"] * 8 > 2400:
            continue
        judged += 1
        p = s.get("period")
        if not p or abs(p - t["period"]) > 0.1 * t["period"]:
            wrong.append("%s %s: period %s, the sender's %g" % (job, mode, p, t["period"]))
print("%d summaries, %d judged against the sender's period, %d wrong" % (modes, judged, len(wrong)))
for w in wrong[:10]:
    print("  " + w)
sys.exit(1 if wrong or judged < 100 else 0)
PY
ok "all $N jobs ended together got their .end, their summaries the senders' periods"
finish
