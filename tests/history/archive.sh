#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# archive.sh -- the memory of runs from an archive (`ftio scan --history`,
# docs/ALGORITHM.md §11):
#   1. Darshan logs: each job is recorded under the log's uid, its program and
#      the hash of its arguments as the shim would compute them from the same
#      argv (`ftio history key -- mpi-io-test -i 4 -v` = the stored args);
#      a second scan of the same logs replaces the runs (one run per job);
#   2. spool files: the checkpoint example under mpirun with FTIO_SPOOL=file
#      (no daemon), its files scanned into a store; then ftiod starts on that
#      store and the same command, run live, gets its prior from the archive's
#      run (source history, 1 run, level args) before its first checkpoint,
#      with the period within 5 % of the true one; `ftio history show` lists
#      the run recorded by the scan.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftio" "$B/bin/ftiod" "$B/bin/checkpoint" "$SHIM"
no_leak_checks
D="$ROOT/tests/data/reallogs/mpi_io_test_with_dxt"
H="$B/bin/ftio history"

# ---- 1. Darshan --------------------------------------------------------------------------------
for i in 1 2; do
  "$B/bin/ftio" scan --quiet --history "$T/d.sqlite" "$D" >"$T/scan.out" 2>"$T/scan.err" \
    || fail "ftio scan --history: $(cat "$T/scan.err")"
done
grep -q "memory of runs $T/d.sqlite: 1 runs recorded" "$T/scan.err" || fail "the scan's report: $(cat "$T/scan.err")"
$H --history "$T/d.sqlite" list --json >"$T/d.json" || fail "list"
$H key -- mpi-io-test -i 4 -v >"$T/key" || fail "key"
args=$(sed -n 's/^args //p' "$T/key")
"$PY" - "$T/d.json" "$args" <<'PYEOF' || fail "the Darshan log's run (above)"
import json, sys
apps = json.load(open(sys.argv[1]))["apps"]
print(apps)
a = [x for x in apps if x["uid"] == 28751 and x["prog"] == "mpi-io-test"]
sys.exit(0 if len(apps) == 1 and a and a[0]["args"] == sys.argv[2] and a[0]["runs"] == 1 else 1)
PYEOF
ok "Darshan: uid 28751's mpi-io-test, args $args as the shim hashes them; scanned twice, one run"

# ---- 2. spool files, then ftiod -------------------------------------------------------------------------
mkdir -p "$T/arch"
"$PY" -c 'import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))' >"$T/clock"
run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_SPOOL=file -x FTIO_SPOOL_DIR="$T/arch" -x FTIO_JOB=old \
  "$B/bin/checkpoint" -n 3 -c 3 -b 1M -v -o "$T" >"$T/old.out" 2>"$T/old.err"
[ "$rc" = 0 ] || fail "the archived run failed: $(cat "$T/old.err")"
cat "$T"/arch/ftio-old-*.msgpack >"$T/old.msgpack"     # one job, one file
"$B/bin/ftio" scan --quiet --history "$T/s.sqlite" "$T/old.msgpack" >/dev/null 2>"$T/scan2.err" \
  || fail "ftio scan --history of the spool file: $(cat "$T/scan2.err")"
grep -q "1 runs recorded" "$T/scan2.err" || fail "the spool file's run: $(cat "$T/scan2.err")"
start_daemon d --history "$T/s.sqlite"
wait_grep "$T/d.err" "memory of runs: $T/s.sqlite" 10 || fail "ftiod did not open the archive's memory"
"$PY" -c 'import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))' >"$T/clock"
run_checkpoint new -n 3 -c 3 -b 1M -v >/dev/null
wait_topic "$T/d.log" "ftio.new.end" 30
"$PY" - "$T" <<'PYEOF' || fail "a run known only from the archive (above)"
import json, re, statistics, sys
T = sys.argv[1]
off = float(open(T + "/clock").read())
t = [float(v) + off for v in re.findall(r"checkpoint at ([0-9.]+)", open(T + "/app.out").read())]
# the prior is the archived run's period: its truth is that run's own log
# (a loaded machine paces the two runs differently)
o = [float(v) for v in re.findall(r"checkpoint at ([0-9.]+)", open(T + "/old.out").read())]
period = statistics.median(b - a for a, b in zip(o, o[1:]))
w = [d["message"] for d in map(json.loads, open(T + "/d.log")) if d["topic"] == "ftio.new.write"]
m = w[0] if w else {}
h = m.get("history") or {}
print("first message: %s %s, period %s (the archived run's %.3f), published %.3f s before the first checkpoint"
      % (m.get("source"), h, m.get("period"), period, t[0] - m.get("published", 0)))
ok = (m.get("source") == "history" and h.get("runs") == 1 and h.get("level") == "args"
      and m["published"] < t[0] and abs(m["period"] - period) <= 0.05 * period)
sys.exit(0 if ok else 1)
PYEOF
$H --endpoint "ipc://$T/d.st" list >"$T/list" || fail "list through ftiod"
id=$(awk '$6 == "checkpoint" { print $1 }' "$T/list" | head -1)
$H --endpoint "ipc://$T/d.st" show "$id" >"$T/show" || fail "show $id"
grep -q "job old (scan, 4 ranks)" "$T/show" && grep -q "job new (ftiod, 4 ranks)" "$T/show" \
  || fail "the archive's and the live run: $(cat "$T/show")"
ok "a run known only from the archive got its prior live; both runs in the memory"
finish
