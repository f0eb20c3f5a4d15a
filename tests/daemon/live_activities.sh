#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# live_activities.sh -- ftiod's per-activity streams and protocol v3
# (PROTOCOL.md §2 `activities`, ALGORITHM.md §10):
#  1. the activity families of bench/accuracy-gen (spool files with file
#     names) replayed into ftiod: every message is v3 with a sane
#     `activities` array (fields present, shares summing to 1, next phases
#     after their window), `.end` carries them, and each activity's last period
#     is within 10 % of the generator's truth and equal to what
#     `ftio --window` says of it (the same online loop); one shared file stays
#     one activity online (the shape split is offline only); the top-level
#     answer is the heaviest activity's, named in `activity` (issue 28);
#  2. live: 4 MPI ranks of examples/activities.c under libftio.so write a
#     small dump per step and a large checkpoint every 6 steps, streaming to
#     ftiod; both activities appear with their periods within 10 % of the
#     program's own phase start times; no job-level next phase is already
#     past when it is published.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bench/accuracy-gen" "$B/bin/activities" "$B/lib/libftio.so"

"$B/bench/accuracy-gen" "$T/gen" --families activities --subset >/dev/null || fail "accuracy-gen"
export FTIO_AUTH=none   # ftio replay and the shims: the daemon runs --auth none

# 2. (live) runs first, to its own ftiod, for about 20 s (its program
# sleeps between its outputs), while 1. is replayed and analysed: ftiod d
# and the offline `ftio --window` at nice 5, so that the live job, whose
# answers depend on time, keeps the CPU it needs; the replays' answers do
# not (--catch-up every: each boundary, whenever it is analysed).
mkdir -p "$T/out"
start_daemon live
start_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/live.in" -x FTIO_JOB=live -x FTIO_AUTH=none \
  -x FTIO_SPOOL_DIR="$T/spool" "$B/bin/activities" -n 36 -c 0.5 -k 6 -o "$T/out" >"$T/truth" 2>"$T/app.err"

# --settle-end 0.2: `ftio replay` sends the processes' batches merged in time
# order, so no batch follows their final ones (ftiod's 2 s would only wait).
start_daemon d --catch-up every --settle-end 0.2   # the replay's every boundary, as ftio --window
for task in /proc/$DPID/task/*; do renice -n 5 -p "${task##*/}" >/dev/null; done
n=0
while read -r tid fam nact; do
  # Its exit status is not the test: on a loaded machine a replay of more
  # than ~1000 batches (these traces have 1056) may miss acknowledgements
  # that ftiod sent (the data all arrived); the .end below says whether the
  # job is complete.
  timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T/gen/$tid.spool"/*.msgpack \
    >"$T/replay.out" 2>&1 || echo "note: replay $tid: $(cat "$T/replay.out")"
  timeout 60 nice -n 5 "$B/bin/ftio" --window adaptive --step 1 --json "$T/gen/$tid.spool"/*.msgpack \
    | tail -1 >"$T/$tid.window.json" || fail "ftio --window $tid"
  wait_topic "$T/d.log" "ftio.$tid.end" 60
  n=$((n + 1))
done <"$T/gen/activities.tsv"
[ "$n" -ge 8 ] || fail "only $n activity traces"

"$PY" - "$T/d.log" "$T/gen" "$T" <<'PY' || bad "replayed activity families (see above)"
import json, os, sys
log, gen, tmp = sys.argv[1:4]
msgs = [json.loads(l) for l in open(log)]
bad = 0
def check_acts(m, where):
    global bad
    acts = m.get("activities")
    if m.get("v") != 4 or not isinstance(acts, list) or not acts:
        print("%s: v %s, activities %r" % (where, m.get("v"), acts)); bad += 1; return
    keys = {"pattern", "example", "rule", "shape", "files", "bytes", "share", "requests", "period",
            "frequency", "confidence", "class", "phase", "next", "matches_job", "stale", "since"}
    # the job-level answer is its heaviest activity's (answer.h: those within
    # 10 % of the most bytes are as heavy, the first pattern of them)
    most = max(a["bytes"] for a in acts)
    heavy = min((a for a in acts if a["bytes"] >= 0.9 * most), key=lambda a: a["pattern"].encode())
    # (when the heaviest is not `periodic` yet, another activity's period may
    # answer, but never as `periodic`)
    if len(acts) > 1 and heavy["class"] == "periodic" and (m.get("activity") != heavy["pattern"]
                                                           or m.get("period") != heavy["period"]):
        print("%s: activity %r period %s, the heaviest %r says %s"
              % (where, m.get("activity"), m.get("period"), heavy["pattern"], heavy["period"])); bad += 1
    if len(acts) > 1 and m.get("activity") != heavy["pattern"] and m.get("class") == "periodic":
        print("%s: periodic answer of %r, not of the heaviest %r" % (where, m.get("activity"),
                                                                    heavy["pattern"])); bad += 1
    for a in acts:
        miss = keys - set(a)
        ok = not miss and a["class"] in ("periodic", "uncertain", "none") and 0 <= a["share"] <= 1 \
            and a["bytes"] > 0 and a["requests"] > 0 and (a["period"] is None or a["period"] > 0) \
            and (a["next"]["start"] is None or a["next"]["start"] >= m["window"]["end"] - 1e-6)
        if not ok:
            print("%s: bad activity %r (missing %s)" % (where, a, miss)); bad += 1
    if abs(sum(a["share"] for a in acts) - 1) > 1e-9:
        print("%s: shares sum to %g" % (where, sum(a["share"] for a in acts))); bad += 1
checked = 0
for line in open(os.path.join(gen, "activities.tsv")):
    tid, fam, nact = line.split()
    mine = [d["message"] for d in msgs if d["topic"] == "ftio.%s.write" % tid]
    end = [d["message"] for d in msgs if d["topic"] == "ftio.%s.end" % tid]
    if not mine or not end:
        print("%s: %d messages, %d ends" % (tid, len(mine), len(end))); bad += 1; continue
    for i, m in enumerate(mine):
        check_acts(m, "%s message %d" % (tid, i + 1))
    if not end[-1]["complete"] or end[-1]["missing_batches"]:
        print("%s: incomplete: %s" % (tid, {k: end[-1][k] for k in ("complete", "missing_batches")})); bad += 1
    fin = end[-1]["summary"]["write"]
    check_acts(fin, "%s .end" % tid)
    truth = {}
    for l in open(os.path.join(gen, tid + ".acts")):
        k, _, v = l.rstrip("\n").partition(" ")
        i, _, key = k.partition(".")
        truth.setdefault(int(i), {})[key] = v
    acts = {a["pattern"]: a for a in mine[-1]["activities"]}
    if fam == "act-shared":
        # one file: one activity online (rule 3 is offline only)
        if list(acts) != ["/scratch/gen/shared.dat"]:
            print("%s: online activities %s" % (tid, list(acts))); bad += 1
        continue
    if len(acts) != int(nact):
        print("%s: %d activities online, want %s" % (tid, len(acts), nact)); bad += 1
    win = {a["pattern"]: a for a in json.load(open(os.path.join(tmp, tid + ".window.json")))["activities"]}
    for t in truth.values():
        a, T = acts.get(t["pattern"]), float(t["period"])
        checked += 1
        if not a or a["period"] is None or abs(a["period"] - T) > 0.1 * T:
            print("%s: %s want %.3f s, ftiod says %s" % (tid, t["pattern"], T, a and a["period"])); bad += 1
        w = win.get(t["pattern"])
        if not w or a is None or w["period"] is None or abs(w["period"] - a["period"]) > 1e-6 * T:
            print("%s: %s ftiod %s, ftio --window %s" % (tid, t["pattern"], a and a["period"], w and w["period"])); bad += 1
print("replayed: %d activities checked against their truth, %d problems" % (checked, bad))
sys.exit(1 if bad or checked < 10 else 0)
PY

# Live: two activities of a real MPI program (started above).
wait_mpi
[ "$rc" = 0 ] || fail "activities example failed: $(cat "$T/app.err")"
wait_topic "$T/live.log" "ftio.live.end" 60
"$PY" - "$T/live.log" "$T/truth" "$T/out" <<'PY' || bad "live activities (see above)"
import json, re, sys
log, truth, out = sys.argv[1:4]
msgs = [json.loads(l) for l in open(log)]
t = {}
for l in open(truth):
    k, v = l.split()
    t.setdefault(k, []).append(float(v))
period = {k: (v[-1] - v[0]) / (len(v) - 1) for k, v in t.items()}
pat = {"dump": out + "/dump.#.#", "ckpt": out + "/ckpt_#.#.bin"}   # directories kept
live = [d["message"] for d in msgs if d["topic"] == "ftio.live.write"]
end = [d["message"] for d in msgs if d["topic"] == "ftio.live.end"][-1]["summary"]["write"]
bad = 0
if not any(m["v"] == 4 and len(m["activities"]) == 2 for m in live):
    print("no live message with two activities among %d" % len(live)); bad += 1
# The job-level next phase is never already past when published (it may be
# the heaviest activity's answer, as old as that activity's last data).
past = [m for m in live if m["next"]["start"] is not None and m["next"]["start"] < m["published"] - 0.5]
print("job-level next phases already past when published: %d of %d" % (len(past), len(live)))
if past:
    print("e.g. next.start %.3f, published %.3f (%s)" % (past[0]["next"]["start"], past[0]["published"],
                                                     past[0]["activity"]))
    bad += 1
acts = {a["pattern"]: a for a in end["activities"]}
for k in ("dump", "ckpt"):
    a = acts.get(pat[k])
    ok = a is not None and a["period"] is not None and abs(a["period"] - period[k]) <= 0.1 * period[k]
    print("%s: truth %.4f s (%d phases), ftiod %s" % (k, period[k], len(t[k]), a and a["period"]))
    bad += not ok
if bad:
    print("activities in .end: %s" % json.dumps(end["activities"])[:2000])
sys.exit(1 if bad else 0)
PY
ok "activities online"
finish
