#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# store_trouble.sh -- a damaged, missing or locked memory of runs never stops
# ftiod (docs/ALGORITHM.md §11), which predicts without priors and says so
# once:
#   1. --history a file that is not a database: ftiod starts, warns once
#      (not once per job), its jobs are predicted from their own data
#      (source observed), --status says history.trouble;
#   2. --history in a directory that does not exist: the same;
#   3. a store another process holds locked (an exclusive SQLite transaction)
#      while jobs end: their runs cannot be written (each waits 1 s on the
#      store's own thread), a warning says so once, and meanwhile a live job
#      paced in real time keeps its predictions coming every second (the
#      ingest and the analysis never wait for the store); once the lock is
#      gone the next run is written and ftiod says the store works again.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
no_leak_checks

msgs() { jsonl "$T/$1.log" "len([m for t, m in msgs if t == 'ftio.$2.write'])"; }
ended() { wait_topic "$T/$1.log" "ftio.$2.end" 20; }

# ---- 1. not a database ---------------------------------------------------------------------
head -c 16384 /dev/urandom >"$T/bad.sqlite"
start_daemon d1 --history "$T/bad.sqlite" --settle-end 0.5
for j in a b; do
  "$WIRE" periodic --endpoint "ipc://$T/d1.in" --job "$j" --ranks 2 --period 2 --phases 5 --app /opt/app:1111111111111111 || fail "job $j"
  ended d1 "$j"
done
[ "$(grep -c 'memory of runs .*bad.sqlite.*no prior' "$T/d1.err")" = 1 ] \
  || fail "a damaged store: expected one warning, got: $(grep 'memory of runs' "$T/d1.err")"
grep 'memory of runs' "$T/d1.err"
[ "$(jsonl "$T/d1.log" "all(m.get('source') == 'observed' for t, m in msgs if t.endswith(('.write', '.read')))")" = True ] \
  && [ "$(msgs d1 b)" -ge 1 ] || fail "jobs beside a damaged store"
status_is d1 's["history"]["trouble"]' || fail "--status does not say the store is in trouble"
ok "a damaged store: ftiod runs, predicts, says so once"

# ---- 2. nowhere to be ----------------------------------------------------------------------------
start_daemon d2 --history "$T/no/such/dir/h.sqlite"
"$WIRE" periodic --endpoint "ipc://$T/d2.in" --job c --ranks 1 --period 1 --phases 4 --app /opt/app:1111111111111111 || fail "job c"
ended d2 c
grep -q 'memory of runs .*no/such/dir.*no prior' "$T/d2.err" || fail "a store that cannot be made: $(cat "$T/d2.err")"
ok "a store that cannot be created: ftiod runs, says so"

# ---- 3. locked --------------------------------------------------------------------------------------
start_daemon d3 --history "$T/h.sqlite" --settle-end 0.5
wait_grep "$T/d3.err" "memory of runs: $T/h.sqlite" 10 || fail "ftiod did not open its memory"
# another process takes the write lock for 8 s
"$PY" - "$T/h.sqlite" "$T/locked" <<'PYEOF' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(8)
c.execute("ROLLBACK")
PYEOF
LOCKER=$!
PIDS="$PIDS $LOCKER"
wait_file "$T/locked" || fail "the locker did not start"
# a live job paced in real time (one phase a second, 7 s) while runs end
"$WIRE" periodic --endpoint "ipc://$T/d3.in" --job live --ranks 1 --period 1 --phases 7 --speed 1 --app /opt/live:1111111111111111 &
LIVE=$!
for j in x y z; do
  "$WIRE" periodic --endpoint "ipc://$T/d3.in" --job "$j" --ranks 2 --period 1 --phases 4 --app "/opt/app$j:1111111111111111" || fail "job $j"
  ended d3 "$j"
done
wait "$LIVE" || fail "the live job's sender"
ended d3 live
"$PY" - "$T/d3.log" <<'PYEOF' || fail "the live job waited for the locked store (above)"
import json, sys
t = [d["message"]["published"] for d in map(json.loads, open(sys.argv[1])) if d["topic"] == "ftio.live.write"]
gaps = [b - a for a, b in zip(t, t[1:])]
print("live job: %d messages, largest gap %.2f s" % (len(t), max(gaps) if gaps else -1))
sys.exit(0 if len(t) >= 4 and max(gaps) < 2.5 else 1)
PYEOF
grep -c 'memory of runs .*locked' "$T/d3.err" | grep -qx 1 || fail "the lock: expected one warning: $(grep 'memory of runs' "$T/d3.err")"
wait_gone "$LOCKER" 15 || fail "the locker did not finish"
"$WIRE" periodic --endpoint "ipc://$T/d3.in" --job after --ranks 2 --period 1 --phases 4 --app /opt/after:1111111111111111 || fail "job after"
ended d3 after
wait_grep "$T/d3.err" "memory of runs $T/h.sqlite works again" 10 || fail "no 'works again': $(grep 'memory of runs' "$T/d3.err")"
status_is d3 's["history"]["record_failures"] >= 1 and s["history"]["recorded"] >= 1 and not s["history"]["trouble"]' \
  || fail "--status after the lock: $(cat "$T/d3.status.json")"
ok "a locked store: runs not written while it lasts, said once, the live job unaffected; written again after"
finish
