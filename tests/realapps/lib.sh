# SPDX-License-Identifier: BSD-3-Clause
# tests/realapps/lib.sh -- what the tests of bench/realapps share (sourced
# after tests/lib.sh): one run of a program through bench/realapps/run_one.sh
# at the test size, and the checks of the measurement machinery.
export REALAPPS_SIZE=test B

# realapps_run PROGRAM: run_one.sh into $T/run (fails the test when a step
# fails: the program, ftiod, the truth or the scoring); prints the scores.
realapps_run() {
  RUN="$T/run"
  sh "$ROOT/bench/realapps/run_one.sh" "$1" "$RUN" >"$T/run_one.out" 2>"$T/run_one.err" ||
    fail "run_one.sh $1: $(cat "$RUN/error" 2>/dev/null || tail -3 "$T/run_one.err")"
  [ -s "$RUN/result.json" ] || fail "no result.json"
  ok "$1 ran live and offline; truth and scores produced"
  "$PY" - "$RUN/result.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
for a in r["activities"]:
    print("truth: %-9s %2d outputs, period %.3f s (intervals cv %.3f), second reading %s, %d B/output" % (
        a["name"], a["outputs"], a["period"], a["interval_cv"],
        "%.3f s" % a["check_period"] if a["check_period"] else "-", a["bytes_per_output"]))
for k in ("live", "offline", "window"):
    f = r["job_answer"][k]["final"] or {}
    m = r["job_answer"][k].get("messages")
    print("%-7s final period %s: error %s %% vs %s (closest %s), %s conf %s, bytes/phase error %s %%" % (
        k, f.get("period"), f.get("err"), r["heaviest"], f.get("closest"), f.get("class"),
        f.get("confidence"), f.get("bytes_err")))
    if m:
        print("        %d messages, settled at output %s, next.start error %s %% T, periodic > 10 %% off: %d of %d" % (
            m["messages"], m["settle"], m["next_err"], m["periodic_off10"], m["periodic"]))
print("targets (not asserted):", r["targets"])
PYEOF
}

# res PYEXPR: evaluate over result.json (`r`) and truth.json (`t`).
res() {
  "$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2])); print($1)" \
    "$RUN/result.json" "$RUN/truth.json"
}

# truth_matches_own_log ACTIVITY MIN_OUTPUTS: the activity has at least
# MIN_OUTPUTS outputs and its period (truth.json) agrees with the second,
# independent reading truth.py made (check_period: LAMMPS' own timer in
# log.lammps against the files' times; our examples' output files against
# their phase log) within the run's jitter (3 x the intervals' coefficient of
# variation / sqrt(outputs), at least 2 %).
truth_matches_own_log() {
  _v=$(res "[(a['outputs'], a['period'], a['check_period'], a['interval_cv']) for a in r['activities'] if a['name'] == '$1']")
  [ "$_v" != "[]" ] || { bad "no activity $1 in the truth"; return; }
  if res "(lambda n, p, o, cv: n >= $2 and o is not None and abs(p - o) <= max(0.02, 3 * cv / n ** 0.5) * o)(*[(a['outputs'], a['period'], a['check_period'], a['interval_cv']) for a in r['activities'] if a['name'] == '$1'][0])" | grep -q True; then
    ok "$1: (outputs, truth period, second reading, intervals cv) $_v"
  else
    bad "$1: (outputs, truth period, second reading, intervals cv) $_v: too few outputs or the two disagree"
  fi
}

# messages_and_end MIN: ftiod published at least MIN write messages and the
# job's .end with a write summary; offline ftio gave an answer object.
messages_and_end() {
  _n=$(res "r['job_answer']['live']['messages']['messages']")
  [ "$_n" -ge "$1" ] && ok "$_n live messages" || bad "only $_n live messages (want >= $1)"
  [ "$(res "r['ended'] and r['job_answer']['live']['final'] is not None")" = True ] &&
    ok "an .end with a write summary (ended by $(res "r['ended_by']"))" || bad "no .end with a write summary"
  [ "$(res "r['job_answer']['offline']['final'] is not None and r['job_answer']['window']['messages']['messages'] > 0")" = True ] &&
    ok "offline answers (ftio --json, ftio --window adaptive)" || bad "no offline answers"
}
