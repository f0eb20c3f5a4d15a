#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live, under mpirun: short I/O phases every 5 s, like IOR -d 5 (4 ranks write
# 1 MiB each, collectively: a few milliseconds of I/O every 5 s, duty < 1 %),
# under libftio.so streaming to ftiod.  FTIO's DFT sees a flat comb here
# (the published implementation answers "none"); the phases give the period.
# Every published period from the 4th phase on and the final summary are
# within 2 % of the true one (the median interval between the
# checkpoints' own start times), no message after
# the first right one is wrong or without a period, and next.start is never
# before the message's window end.
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-pulses -n 8 -c 5 -b 1M
# The true period: the median interval between the checkpoints' own start
# times, as the app printed them.
P=$(phase_period "$T/app.out" checkpoint) || fail "no phase times in the app's output"
echo "true period $P s"
jsonl "$T/d.log" "'\n'.join('%7.2f s  period %-8s %-9s conf %s stale %s' % (m['window']['end'] - all_of('ftio.$JOB.write')[0]['window']['start'], m['period'] and round(m['period'], 3), m['class'], m['confidence'], m['stale']) for m in all_of('ftio.$JOB.write'))"
"$PY" - "$T/d.log" "ftio.$JOB.write" "$P" <<'PYEOF' || fail "live predictions"
import json, sys
log, topic, P = sys.argv[1], sys.argv[2], float(sys.argv[3])
msgs = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == topic]
assert msgs, "no message"
t0 = msgs[0]["window"]["start"]
late = [m for m in msgs if m["window"]["end"] - t0 > 3.2 * P]      # from the 4th phase on
assert late, "no message after the 4th phase"
bad = [(round(m["window"]["end"] - t0, 2), m["period"]) for m in late
       if m["period"] is None or abs(m["period"] - P) > 0.02 * P]
assert not bad, "periods off by more than 2 %% from the 4th phase on: %s" % bad
past = [m for m in msgs if m["next"]["start"] is not None and m["next"]["start"] < m["window"]["end"]]
assert not past, "next.start in the past: %d" % len(past)
print("live: %d messages, all from the 4th phase within 2 %%" % len(msgs))
PYEOF
final=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['period']")
echo "final: period $final"
close 0.02 "$final" "$P" || fail "final period $final vs $P"
echo ok
