#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# score.sh -- bench/realapps/score.py on a run whose answers are known (no
# program, no ftio): two activities (a.K.dat every 2 s, 100 B; b.K.dat every
# 6 s, 1000 B: the heaviest; c.K.dat, 100 B, right after each b),
# job-level messages and the per-activity
# `activities` array of issue 17 (one entry by `pattern`, one by `files`).
# The scores must be the ones worked out by hand: the job answer judged
# against b, the per-activity answers matched by file name, settling, the
# count of periodic messages > 10 % off, next.start and bytes errors; and
# without the array, no per-activity scores.  Also the table.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/run"
"$PY" - "$T/run" <<'PYEOF'
import json, os, sys
run = sys.argv[1]
t0 = 1000.0
a = [[t0 + 2 * k, t0 + 2 * k + 0.1, 100] for k in range(12)]          # 0..22 s
b = [[t0 + 6 * k + 0.5, t0 + 6 * k + 0.7, 1000] for k in range(4)]    # 0.5..18.5 s
c = [[t0 + 6 * k + 0.7, t0 + 6 * k + 0.8, 100] for k in range(4)]      # right after b
json.dump({"app": "fake", "activities": [
    {"name": "a", "glob": "a.*.dat", "drift": False, "phases": a, "check_period": 2.0, "check_source": "x"},
    {"name": "b", "glob": "b.*.dat", "drift": False, "phases": b, "check_period": 6.0, "check_source": "x"},
    {"name": "c", "glob": "c.*.dat", "drift": False, "phases": c, "check_period": 6.0, "check_source": "x"}]},
    open(os.path.join(run, "truth.json"), "w"))
open(os.path.join(run, "job"), "w").write("J\n")
def msg(end, p_job, p_b, cls_b):
    # next.start: the first b output after the window's end, 0.3 s late
    nb = min(s for s, _, _ in b + [[t0 + 24.5, 0, 0]] if s > end)
    na = min(s for s, _, _ in a + [[t0 + 24, 0, 0]] if s > end)
    return {"window": {"start": t0, "end": end}, "published": end, "period": p_job, "confidence": 0.9,
            "class": "periodic", "phase": {"bytes": 1100}, "next": {"start": nb + 0.3, "bytes": 1100},
            "activities": [
                {"pattern": "a.*.dat", "period": 2.0, "confidence": 0.99, "class": "periodic",
                 "phase": {"bytes": 100}, "next": {"start": na, "bytes": 100}},
                {"files": ["/scratch/b.3.dat"], "period": p_b, "confidence": 0.9, "class": cls_b,
                 "phase": {"bytes": 1000}, "next": {"start": nb, "bytes": 1000}}]}
# job: 3 s (wrong: a harmonic of b) until 10 s, then 6 s; b's entry 6.9 s
# (15 % off, periodic) twice at 7 and 8 s, else 6 s
msgs = [msg(t0 + t, 3.0 if t < 10 else 6.0, 6.9 if t in (7, 8) else 6.0, "periodic") for t in range(3, 21)]
with open(os.path.join(run, "d.log"), "w") as f:
    for m in msgs:
        f.write(json.dumps({"topic": "ftio.J.write", "message": m}) + "\n")
    f.write(json.dumps({"topic": "ftio.J.end", "message": {"summary": {"write": msgs[-1]}, "ended_by": "final"}}) + "\n")
json.dump(msgs[-1], open(os.path.join(run, "offline.json"), "w"))
with open(os.path.join(run, "window.jsonl"), "w") as f:
    for m in msgs:
        f.write(json.dumps(m) + "\n")
PYEOF
"$PY" "$ROOT/bench/realapps/score.py" "$T/run" >"$T/result.json" 2>"$T/score.err" || fail "score.py failed"
R="$T/result.json"
check() {
  _got=$("$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); print($1)" "$R")
  [ "$_got" = "$2" ] && ok "$3: $_got" || bad "$3: expected $2, got $_got"
}
check "r['heaviest']" b "heaviest activity (bytes)"
check "(r['job_answer']['live']['final']['err'], r['job_answer']['live']['final']['closest'])" "(0.0, 'b')" "job final vs b"
check "r['job_answer']['live']['final']['bytes_err']" 0.0 "job bytes/phase error (1100: b's 1000 and c's 100 written with it)"
check "r['job_answer']['live']['messages']['next_bytes_err']" 0.0 "job next.bytes error"
# job messages: wrong (3 s) while b has begun outputs 1, 2 (ends 3..9 s), right from
# 10 s (b's 2nd output began at 6.5 s: output index 2)
check "r['job_answer']['live']['messages']['settle']" 2 "job settles at b's output 2"
check "r['job_answer']['live']['messages']['periodic_off10']" 7 "job periodic messages > 10 % off (3..9 s)"
check "r['job_answer']['live']['messages']['next_err']" 5.0 "job next.start error (0.3 s of 6 s)"
check "len(r['per_activity'])" 3 "per-activity answers present (c: none in the messages)"
check "r['per_activity'][2]['live']['final']" None "c has no answer"
check "[(p['activity'], p['live']['final']['err'], p['live']['final']['bytes_err']) for p in r['per_activity'][:2]]" "[('a', 0.0, 0.0), ('b', 0.0, 0.0)]" "per-activity finals"
check "[p['live']['messages']['periodic_off10'] for p in r['per_activity']]" "[0, 2, 0]" "per-activity periodic > 10 % off"
check "[p['live']['messages']['settle'] for p in r['per_activity']]" "[2, 2, None]" "per-activity settle"
check "[p['live']['messages']['next_err'] for p in r['per_activity']]" "[0.0, 0.0, None]" "per-activity next.start error"
check "r['targets']" "{'period_within_5': True, 'bytes_within_10': True, 'no_periodic_off10': False, 'settled_by_4': True}" "targets"
cp "$R" "$T/with-activities.json"
# without the array: the job answer only
"$PY" - "$T/run" <<'PYEOF'
import json, os, sys
p = os.path.join(sys.argv[1], "d.log")
lines = [json.loads(l) for l in open(p)]
for d in lines:
    d["message"].pop("activities", None)
    if "summary" in d["message"]:
        d["message"]["summary"]["write"].pop("activities", None)
open(p, "w").write("".join(json.dumps(d) + "\n" for d in lines))
for n in ("offline.json",):
    m = json.load(open(os.path.join(sys.argv[1], n))); m.pop("activities", None)
    json.dump(m, open(os.path.join(sys.argv[1], n), "w"))
w = [json.loads(l) for l in open(os.path.join(sys.argv[1], "window.jsonl"))]
for m in w:
    m.pop("activities", None)
open(os.path.join(sys.argv[1], "window.jsonl"), "w").write("".join(json.dumps(m) + "\n" for m in w))
PYEOF
"$PY" "$ROOT/bench/realapps/score.py" "$T/run" >"$R" 2>"$T/score.err" || fail "score.py failed without activities"
check "r['per_activity']" "[]" "no per-activity answers without the array"
check "r['job_answer']['live']['messages']['settle']" 2 "job settle unchanged"
# the table from two runs of the same program
cat "$R" "$R" >"$T/results.jsonl"
sed 's/"app": "fake"/"app": "fake17"/' "$T/with-activities.json" >>"$T/results.jsonl"
echo '{"app": "broken", "run": "broken-1", "error": "broken: the program failed"}' >>"$T/results.jsonl"
"$PY" "$ROOT/bench/realapps/score.py" --table "$T/results.jsonl" >"$T/table.md" || fail "score.py --table failed"
cat "$T/table.md"
grep -q '^| fake (2 runs) | b: 6.00 s (4, cv 0.00) | a 2.00 s; c 6.00 s | 0.0 %, periodic ×2, 0.90 | b (0.0 %) |' "$T/table.md" &&
  ok "table row" || bad "table row"
grep -q '^| ↳ b (per activity) | | | 0.0 %, periodic, 0.90 | | 0.0 % | 0.0 % | 0.0 % | 0.0 | 2 | 2 of 18 |' "$T/table.md" &&
  ok "per-activity table row" || bad "per-activity table row"
grep -q '^| broken | failed: broken: the program failed' "$T/table.md" && ok "failed run in the table" || bad "failed run"
"$PY" "$ROOT/bench/realapps/score.py" --compare "$T/results.jsonl" "$T/results.jsonl" >"$T/compare.md" ||
  fail "score.py --compare failed"
grep -q '^| fake | 0.0 → 0.0 | 0.0 → 0.0 | 5.0 → 5.0 | 2 → 2 | 0 → 0 | 7 → 7 | 0/2 → 0/2 |' "$T/compare.md" &&
  ok "compare row" || { cat "$T/compare.md"; bad "compare row"; }
# bad input: one line, exit 1
"$PY" "$ROOT/bench/realapps/score.py" "$T/nothing" >/dev/null 2>"$T/bad.err" && bad "score.py on nothing: exit 0"
[ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q '^score.py: FileNotFoundError' "$T/bad.err" && ok "score.py on nothing: $(cat "$T/bad.err")" ||
  bad "score.py on nothing: $(cat "$T/bad.err")"
finish
