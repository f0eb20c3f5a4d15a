#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# replay_online.sh -- one online loop: spool files replayed into ftiod give,
# message by message, the predictions `ftio --window` prints for the same
# files (ftio_online_step on the same data-time boundaries), for the robust
# default and for --compat, writes and reads: the same windows, periods,
# confidences, classes, stale flags and next phases.  The spool files are the
# TMIO reference trace as 8 simulated processes (ftio-wire tmio); the replay
# is old data, so both sides predict after the window's end.  Times compare
# to 1e-6 s (epoch seconds carry ~2e-7 s of rounding), values to 1e-9.
# The daemon runs with --catch-up every: a replay arrives all at once, and
# by default a job far behind skips to its newest boundary.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
mkdir -p "$T/spool"
wire tmio "$HERE/../data/tmio-8ranks.jsonl" --spool "$T/spool" --job tm \
  || fail "ftio-wire tmio"
SPOOL=$(ls "$T"/spool/*.msgpack)

# compare NAME MODE OPTS: daemon NAME's messages of MODE against ftio --window.
compare() {
  name=$1; mode=$2; shift 2
  # shellcheck disable=SC2086
  timeout 60 "$B/bin/ftio" --json --window adaptive --step 1 -m $mode "$@" $SPOOL \
    >"$T/off.$name.$mode.jsonl" || fail "ftio --window -m $mode $*"
  "$PY" - "$T/$name.log" "$mode" "$T/off.$name.$mode.jsonl" <<'PYEOF' || fail "$name $mode: ftiod and ftio --window differ"
import json, sys
log, mode, off = sys.argv[1:4]
on = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.tm." + mode]
offl = [json.loads(l) for l in open(off)]
# ftiod speaks epoch seconds, ftio times relative to the job's earliest
# record: the first window starts at that record on both sides.
shift = on[0]["window"]["start"] - offl[0]["window"]["start"] if on and offl else 0
for m in on:
    m["window"]["start"] -= shift
    m["window"]["end"] -= shift
    if m["next"]["start"] is not None:
        m["next"]["start"] -= shift
def close(a, b, tol):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
assert len(on) == len(offl), "ftiod published %d %s messages, ftio --window printed %d" % (len(on), mode, len(offl))
assert len(on) >= 10, len(on)
for i, (a, b) in enumerate(zip(on, offl)):
    checks = [
        ("window.end", close(a["window"]["end"], b["window"]["end"], 1e-6)),
        ("window.start", close(a["window"]["start"], b["window"]["start"], 1e-6)),
        ("samples", a["window"]["samples"] == b["window"]["samples"]),
        ("period", close(a["period"], b["period"], 1e-9)),
        ("confidence", close(a["confidence"], b["confidence"], 1e-9)),
        ("class", a["class"] == b["class"]),
        ("stale", a["stale"] == b["stale"]),
        ("next.start", close(a["next"]["start"], b["next"]["start"], 1e-6)),
        ("phase.bytes", close(a["phase"]["bytes"], b["phase"]["bytes"], 1e-9)),
        ("detector", a["detector"] == b["detector"]),
    ]
    bad = [n for n, ok in checks if not ok]
    assert not bad, "message %d differs in %s:\n ftiod %s\n ftio  %s" % (i, bad, json.dumps(a), json.dumps(b))
print("%s: %d messages equal" % (mode, len(on)))
PYEOF
}

run() {   # run NAME OPTIONS...: a daemon fed the whole spool, until the job ends
  name=$1; shift
  start_daemon "$name" "$@"
  timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/$name.in" $SPOOL 2>"$T/replay.err" \
    || fail "replay: $(cat "$T/replay.err")"
  wait_topic "$T/$name.log" ftio.tm.end 30
}

run robust --catch-up every
compare robust write
compare robust read
run compat --compat --catch-up every
compare compat write --compat --sampling average
compare compat read --compat --sampling average
echo "ok"
