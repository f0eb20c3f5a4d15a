#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# prior_live.sh -- the memory of runs live (docs/ALGORITHM.md §11): ftiod
# --history and the checkpoint example under mpirun (4 ranks, the shim), the
# truth from the program's own phase times (--verbose).
#   1. the first run: its application is unknown, every message is
#      `source: observed` with `history: null` (a job as before);
#   2. the same command again: its first message comes from the memory
#      (`source: history`, 1 run, level args) within 1 s of its first batch
#      (ftiod's log says when that came) and before its first checkpoint,
#      with the period within 5 % of the true one (plus how far the program's
#      own period moved from the learned run's), and a message of the prior
#      before the first checkpoint has its start within 10 % of the period
#      (the first, or the one once every rank is up); its phases agree
#      (state confirmed or still leading, never handed over);
#   3. the compute time changed (-c 6 -> 9), run beside the second: found
#      by the arguments with their numbers normalised (1 run), the prior
#      hands over to the observed analysis (reason given), and no `periodic`
#      message published after the second checkpoint (and the daemon's
#      settle) is more than 10 % off;
#   4. `ftio history list/show` through ftiod's status socket show the
#      application and its runs; the log said which level matched.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/checkpoint" "$SHIM" "$B/bin/ftio"
no_leak_checks
start_daemon d --history "$T/h.sqlite"
wait_grep "$T/d.err" "memory of runs: $T/h.sqlite" 10 || fail "ftiod did not open its memory of runs"

# run NAME ITERATIONS COMPUTE: the checkpoint example (4 ranks, the shim) as
# job NAME, its files in $T/NAME, its output in $T/NAME.out, the monotonic ->
# epoch offset of this host in $T/NAME.clock (a 6 s period: on a loaded
# machine the start of a job's outputs after its first batch varies by a few
# tenths of a second from run to run, and a tenth of the period is the next
# start's budget)
run() {
  mkdir -p "$T/$1"
  "$PY" -c 'import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))' >"$T/$1.clock"
  # (in its own directory, -o .: the same command line every time)
  ( cd "$T/$1" && run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB="$1" \
      -x FTIO_SPOOL_DIR="$T/$1" "$B/bin/checkpoint" -n "$2" -c "$3" -b 1M -v -o . && exit "$rc" ) \
    >"$T/$1.out" 2>"$T/$1.err" || { echo "FAIL: checkpoint $1: $(tail -3 "$T/$1.err")"; return 1; }
  wait_topic "$T/d.log" "ftio.$1.end" 30
}
run learn 3 6 || fail "the first run"
# the same command again and a changed one at once: both know the first run
# (and an MPI job under `make asan` takes a minute and a half to exit)
run again 3 6 &
AGAIN=$!
run changed 4 9 || fail "the changed run"
wait $AGAIN || fail "the second run"

"$PY" - "$T" <<'PYEOF' || fail "the memory of runs (above)"
import datetime, json, re, statistics, sys
T = sys.argv[1]
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(T + "/d.log"))]
err = open(T + "/d.err").read()
bad = 0
def fail(m):
    global bad
    print("FAIL:", m); bad += 1
def ok(m):
    print("ok:", m)
def writes(job):
    return [m for t, m in msgs if t == "ftio.%s.write" % job]
def truth(job):
    """the checkpoints' start times (epoch) and their period, from the program"""
    off = float(open("%s/%s.clock" % (T, job)).read())
    t = [float(v) + off for v in re.findall(r"checkpoint at ([0-9.]+)", open("%s/%s.out" % (T, job)).read())]
    return t, statistics.median(b - a for a, b in zip(t, t[1:]))
def first_batch(job):
    m = re.search(r"^(\S+)Z ftiod\[\d+\] \w+: job %s: first batch" % re.escape(job), err, re.M)
    return datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp() if m else None

# 1. unknown: as before
w = writes("learn")
if w and all(m.get("source") == "observed" and m.get("history") is None for m in w):
    ok("first run: %d messages, all observed, history null" % len(w))
else:
    fail("first run: %s" % [(m.get("source"), m.get("history")) for m in w])
# 2. known: the prior first, in time, right
w = writes("again")
t, period = truth("again")
learned = truth("learn")[1]
fb = first_batch("again")
m0 = w[0] if w else {}
h = m0.get("history") or {}
print("again: true period %.3f s, first checkpoint at %.3f; first batch %.3f, first message %.3f (%s, %s)"
      % (period, t[0], fb or 0, m0.get("published", 0), m0.get("source"), h))
# the first message right at the first batch; the next start is judged on the
# first message once every rank is up (an MPI job's outputs follow its last
# rank's MPI_Init: ftiod publishes the prior again then), before the output
good = [m for m in w if m.get("source") == "history" and m["published"] < t[0]
        and abs(m["next"]["start"] - t[0]) <= 0.10 * period]
if m0.get("source") != "history" or h.get("runs") != 1 or h.get("level") != "args":
    fail("the first message of the known run is not the memory's (1 run, args)")
elif fb is None or not (m0["published"] - fb <= 1.0):
    fail("the prior came %.3f s after the first batch (> 1 s)" % (m0["published"] - (fb or 0)))
elif not m0["published"] < t[0]:
    fail("the prior came after the first checkpoint")
elif abs(m0["period"] - period) > 0.05 * period + abs(learned - period):
    # (the memory can know only the run it learned from: on a loaded machine
    # the program's own period moves from run to run, by its own log)
    fail("prior period %.3f vs true %.3f (the learned run's %.3f): more than 5 %% off"
         % (m0["period"], period, learned))
elif not good:
    fail("no prior message before the first checkpoint with its start within 10 %% of the period: "
         "%s vs %.3f" % ([round(m["next"]["start"], 3) for m in w if m.get("source") == "history"], t[0]))
else:
    ok("the prior: %.3f s after the first batch, %.3f s before the first checkpoint, period %.3f "
       "(true %.3f); its next start off by %.3f s (%.3f s after the first batch: %s)"
       % (m0["published"] - fb, t[0] - m0["published"], m0["period"], period,
          good[0]["next"]["start"] - t[0], good[0]["published"] - fb,
          "the first message" if good[0] is m0 else "all ranks up"))
states = {(m.get("history") or {}).get("state") for m in w}
if "handed_over" in states:
    fail("the unchanged run handed over: %s" % [(m.get("history") or {}).get("reason") for m in w])
else:
    ok("unchanged run: states %s" % sorted(s for s in states if s))
# 3. changed: hands over, nothing periodic and wrong after the second checkpoint
w = writes("changed")
t, period = truth("changed")
h = [(m.get("history") or {}) for m in w]
if not w or w[0].get("source") != "history" or h[0].get("level") != "args_norm" or h[0].get("runs") != 1:
    fail("changed run: its first message is not the memory's by args_norm: %s" % (h[:1],))
if not any(x.get("state") == "handed_over" for x in h):
    fail("changed run: the prior never handed over: %s" % [x.get("state") for x in h])
else:
    ok("changed run: handed over (%s)" % next(x["reason"] for x in h if x.get("state") == "handed_over"))
late = [m for m in w if m["published"] > t[1] + 3.0 and m.get("class") == "periodic"
        and abs(m["period"] - period) > 0.10 * period]
if late:
    fail("changed run: periodic messages more than 10 %% off after the second checkpoint: %s"
         % [(m["published"] - t[1], m["period"], m["source"]) for m in late])
else:
    ok("changed run: no periodic message more than 10 %% off after the second checkpoint (true period %.3f)" % period)
if not re.search(r"job again: memory of runs: checkpoint of uid \d+ known by args \(1 run\)", err):
    fail("ftiod's log does not say which level matched")
sys.exit(1 if bad else 0)
PYEOF
ok "prior from the first batch; the changed run hands over"

# ---- 4. ftio history through ftiod -----------------------------------------------------------
"$B/bin/ftio" history list --endpoint "ipc://$T/d.st" >"$T/list" 2>"$T/list.err" || fail "ftio history list: $(cat "$T/list.err")"
cat "$T/list"
id=$(awk '$6 == "checkpoint" && $3 == 2 { print $1 }' "$T/list" | head -1)
[ -n "$id" ] || fail "ftio history list: no application checkpoint with 2 runs"
"$B/bin/ftio" history show "$id" --endpoint "ipc://$T/d.st" >"$T/show" 2>&1 || fail "ftio history show $id: $(cat "$T/show")"
cat "$T/show"
grep -q "job learn" "$T/show" && grep -q "job again" "$T/show" && grep -q "write: period" "$T/show" \
  || fail "ftio history show: runs or prior missing"
"$B/bin/ftio" history show 99999 --endpoint "ipc://$T/d.st" >/dev/null 2>"$T/none.err" && fail "show of no application succeeded"
grep -q "no such application" "$T/none.err" || fail "show 99999: $(cat "$T/none.err")"
status_is d 's["history"]["recorded"] == 3 and s["history"]["known"] == 2 and not s["history"]["trouble"]' \
  || fail "ftiod --status history: $(cat "$T/d.status.json")"
ok "ftio history list/show through ftiod; --status counts 3 recorded, 2 known"
finish
