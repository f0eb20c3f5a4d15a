#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Job accounting and job ends:
#  - `ftiod --status` lists a job with its processes, records, sequence gaps
#    (batch 3 of each of 2 processes never sent) and nested POSIX records
#    (not counted: bytes = MPI-IO bytes only);
#  - a prediction has exactly the keys of PROTOCOL.md §2 (ftio sub --json);
#  - a job without `final` ends after --job-timeout with ftio.<job>.end, and
#    --status lists it among the ended jobs with that message as published;
#  - SIGTERM publishes the summary of a job still running, exit status 0.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
start_daemon d --job-timeout 2 --min-interval 0.1
timeout 20 "$B/bin/ftio" sub --endpoint "ipc://$T/d.pub" --json --count 1 --timeout 15 >"$T/sub.out" &
SUB=$!; PIDS="$PIDS $SUB"
wait_connected "$T/d.pub" || fail "ftio sub did not connect"
wire periodic --endpoint "ipc://$T/d.in" --job t1 --ranks 2 --period 2 \
  --phases 6 --bytes 1048576 --no-final --skip 3 --nested --mark || fail "generator"
# Until every batch sent is merged (the checks below say what is wrong if
# never).  The status checked is the one that showed it: asked again, it came
# after t1's --job-timeout on a loaded machine (t1 ended, no longer listed).
wait_for 10 status_is d "[j for j in s['jobs'] if j['job'] == 't1' and j['records'] >= 40]"
"$B/bin/ftiod" --status --status-endpoint "ipc://$T/d.st" || fail "status table"
"$PY" - "$T/d.status.json" <<'PYEOF' || fail "status content: $(cat "$T/d.status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
j = [x for x in s["jobs"] if x["job"] == "t1"][0]
print({k: j[k] for k in ("processes", "records", "bytes", "lost_batches", "nested_records")})
assert j["processes"] == 2, j
assert j["lost_batches"] == 2, j                 # seq 3 of both processes
assert j["records"] == 2 * 5 * 4, j              # 5 phases delivered, 4 writes each
assert j["nested_records"] == 2 * 5 * 4, j       # their POSIX copies: not counted
assert j["bytes"] == 2 * 5 * 1048576, j          # each byte once
assert j["write"]["records"] == 40
PYEOF
wait $SUB || fail "ftio sub --count 1 got nothing"
"$PY" - "$T/sub.out" <<'PYEOF' || fail "prediction keys differ from PROTOCOL.md"
import json, sys
m = json.loads(open(sys.argv[1]).readline())
want = {"v", "job", "jobid", "step", "mode", "seq", "published", "window", "period", "frequency", "confidence",
        "class", "candidates", "metrics", "phase", "next", "last_error", "p_periodic", "ranks",
        "bytes", "records", "lost", "detector", "reason", "stale", "since", "activities", "activity", "evidence",
        "source", "history"}   # v4: the answer's source, the memory of runs (null: none)
assert set(m) == want, (set(m) ^ want)
akeys = {"pattern", "example", "rule", "shape", "files", "bytes", "share", "requests", "period", "frequency",
         "confidence", "class", "phase", "next", "matches_job", "stale", "since", "source"}
assert isinstance(m["activities"], list) and all(set(a) == akeys for a in m["activities"]), m["activities"]
assert set(m["window"]) == {"start", "end", "fs", "samples"}
assert set(m["metrics"]) == {"r_io", "b_io", "sigma_vol", "sigma_time", "periodicity", "abstraction_error"}
# v4 (PROTOCOL.md §2 "Version 4"): each phase described, the next one's duration
assert set(m["next"]) == {"start", "end", "bytes", "ranks", "skew_bytes", "files", "fs", "load",
                          "duration"}, set(m["next"])
assert set(m["phase"]) == {"bytes", "duration", "elapsed", "bandwidth", "ranks", "skew_bytes", "files",
                           "opens", "metadata", "syncs", "fs", "last"}, set(m["phase"])
assert m["jobid"] == "t1" and m["step"] is None     # not a step-qualified id
assert m["v"] == 4 and m["job"] == "t1" and m["mode"] == "write" and m["class"] in ("periodic", "uncertain", "none")
assert m["window"]["start"] > 1e9      # epoch seconds
print("keys ok")
PYEOF
wait_topic "$T/d.log" ftio.t1.end 10
echo "t1 ended after --job-timeout"
"$PY" - "$T/d.log" <<'PYEOF' || fail "t1 end message"
import json, sys
m = [d["message"] for d in map(json.loads, open(sys.argv[1])) if d["topic"] == "ftio.t1.end"][-1]
assert m["ended_by"] in ("final", "timeout") and isinstance(m["complete"], bool), m
assert {"missing_batches", "lost_records", "processes", "processes_without_final"} <= set(m), m
assert m["job"] == m["jobid"] == "t1" and m["step"] is None, m
PYEOF
# --status lists it among the ended jobs: the end message as published, with
# when it ended and its owner (the ring keeps its text, parsed when asked).
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/ended.json" || fail "status --json"
"$PY" - "$T/d.log" "$T/ended.json" <<'PYEOF' || fail "t1 in the status's ended jobs"
import json, sys
m = [d["message"] for d in map(json.loads, open(sys.argv[1])) if d["topic"] == "ftio.t1.end"][-1]
e = [x for x in json.load(open(sys.argv[2]))["ended"] if x["job"] == "t1"]
assert len(e) == 1, e
e = e[0]
assert {k: e[k] for k in m} == m, (m, e)
assert set(e) - set(m) == {"ended_at", "uid"} and e["ended_at"] >= m["time"] - 1, e
PYEOF
wire periodic --endpoint "ipc://$T/d.in" --job t2 --ranks 1 --period 1 --duration 0.2 \
  --phases 8 --no-final || fail "generator t2"
sleep 0.5    # what is tested: no end within 0.5 s of the last batch (--job-timeout 2)
grep -q '"topic":"ftio.t2.end"' "$T/d.log" && fail "t2 ended too early"
# The rest on a second daemon whose jobs do not time out while the test
# talks to it (a loaded machine took more than d's 2 s between two steps).
D=$DPID
start_daemon e --job-timeout 300 --min-interval 0.1
E=$DPID
DPID=$D
# A job whose process never sent its final batch (killed): `ftio end` ends it
# at once, and the end message says it is incomplete and why it ended.
wire periodic --endpoint "ipc://$T/e.in" --job t3 --ranks 2 --period 1 --duration 0.2 \
  --phases 4 --no-final || fail "generator t3"
wait_for 10 status_is e "[j for j in s['jobs'] if j['job'] == 't3' and j['records'] == 32]" ||
  fail "t3 not merged: $(cat "$T/e.status.json")"
"$B/bin/ftio" end --endpoint "ipc://$T/e.st" t3 || fail "ftio end t3"
wait_topic "$T/e.log" ftio.t3.end 5
"$PY" - "$T/e.log" <<'PYEOF' || fail "t3 end message"
import json, sys
m = [d["message"] for d in map(json.loads, open(sys.argv[1])) if d["topic"] == "ftio.t3.end"][-1]
assert m["complete"] is False and m["ended_by"] == "told", m
assert m["processes"] == 2 and m["processes_without_final"] == 2, m
assert m["missing_batches"] == 0 and m["lost_records"] == 0, m
print("t3 ended by ftio end: complete false, 2 processes without final")
PYEOF
"$B/bin/ftio" end --endpoint "ipc://$T/e.st" no-such-job 2>"$T/end.err" && fail "ftio end of an unknown job succeeded"
grep -q "no such job" "$T/end.err" || fail "ftio end unknown job: $(cat "$T/end.err")"
# Slurm steps are jobs "<job>.<step>": `ftio sub --last --job <job>` gives the
# latest predictions of every step, `ftio end <job>` (an epilog's
# $SLURM_JOB_ID) ends every step of it, and neither touches another job (770.0).
for j in 77.0 77.batch 770.0; do
  "$WIRE" periodic --endpoint "ipc://$T/e.in" --job $j --ranks 1 --period 1 --duration 0.2 \
    --phases 3 --no-final || fail "generator $j"
done
wait_topic "$T/e.log" ftio.77.0.write 10
wait_topic "$T/e.log" ftio.77.batch.write 10
wait_topic "$T/e.log" ftio.770.0.write 10
# `ftio sub --last --job 77`: the latest predictions of both steps, not of 770.0.
"$B/bin/ftio" sub --last --job 77 --json --status-endpoint "ipc://$T/e.st" >"$T/last77.json" ||
  fail "ftio sub --last --job 77"
"$PY" - "$T/last77.json" <<'PYEOF' || fail "ftio sub --last --job 77: $(cat "$T/last77.json")"
import json, sys
jobs = sorted({json.loads(l)["job"] for l in open(sys.argv[1]) if l.strip()})
assert jobs == ["77.0", "77.batch"], jobs
print("ftio sub --last --job 77: predictions of", jobs)
PYEOF
"$B/bin/ftio" end --endpoint "ipc://$T/e.st" 7 2>"$T/end.err" && fail "ftio end 7 ended something"
"$B/bin/ftio" end --endpoint "ipc://$T/e.st" 77 || fail "ftio end 77 (two steps)"
wait_topic "$T/e.log" ftio.77.0.end 5
wait_topic "$T/e.log" ftio.77.batch.end 5
[ "$(jsonl "$T/e.log" "last('ftio.77.0.end')['ended_by']")" = told ] || fail "77.0 not ended by ftio end 77"
sleep 0.5
grep -q '"topic":"ftio.770.0.end"' "$T/e.log" && fail "ftio end 77 ended job 770.0"
echo "ftio end 77 ended steps 77.0 and 77.batch, not 770.0"
kill -TERM $E; wait $E
kill -TERM $DPID; wait $DPID; rc=$?
[ $rc = 0 ] || fail "exit status $rc after SIGTERM"
grep -q '"topic":"ftio.t2.end"' "$T/d.log" || fail "no summary for t2 at shutdown"
p=$(jsonl "$T/d.log" "last('ftio.t2.end')['summary']['write']['period']")
echo "t2 summary at shutdown: period $p"
close 0.05 "$p" 1 || fail "t2 period $p"
echo ok
