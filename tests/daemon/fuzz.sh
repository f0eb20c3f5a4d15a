#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Thousands of random, truncated, bit-flipped, multi-frame, wrong-version and
# hostile messages: ftiod counts and drops them, keeps running, answers
# --status, and still predicts a good job correctly afterwards.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
start_daemon d --min-interval 0.2 --max-msg 65536 --max-jobs 64 --job-timeout 3
timeout 120 "$WIRE" fuzz --endpoint "ipc://$T/d.in" --count 6000 --seed 7 \
  || fail "fuzzer"
# An oversized message (over --max-msg): libzmq drops it and the connection.
head -c 200000 /dev/urandom >"$T/big"
"$PY" - "ipc://$T/d.in" "$T/big" <<'PYEOF' 2>/dev/null || true
import sys
try:
    import zmq
except ImportError:
    sys.exit(0)
s = zmq.Context().socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 2000); s.connect(sys.argv[1])
s.send_multipart([b"", open(sys.argv[2], 'rb').read()]); s.close()
PYEOF
# until the fuzz messages are counted (the check below says what is wrong if never)
wait_for 10 status_is d "s['dropped']['malformed'] > 1000 and s['dropped']['truncated'] > 100 and s['dropped']['multipart'] > 100"
kill -0 $DPID || fail "ftiod died under fuzzing"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/status.json" || fail "no status"
"$PY" - "$T/status.json" <<'PYEOF' || fail "drop counters"
import json, sys
s = json.load(open(sys.argv[1]))
d = s["dropped"]
print("dropped:", d, "messages:", s["totals"]["messages"])
assert d["malformed"] > 1000 and d["truncated"] > 100 and d["multipart"] > 100, d
PYEOF
wire periodic --endpoint "ipc://$T/d.in" --job good --ranks 4 --period 3 \
  --phases 8 --mark || fail "good job"
wait_topic "$T/d.log" ftio.good.end 30
got=$(jsonl "$T/d.log" "last('ftio.good.end')['summary']['write']['period']")
echo "good job after fuzzing: period $got (true 3)"
close 0.05 "$got" 3 || fail "period $got"
grep -q "dropped message" "$T/d.err" || fail "no log line about dropped messages"
lines=$(grep -c "dropped message" "$T/d.err")
[ "$lines" -lt 100 ] || fail "log not rate-limited: $lines lines"
kill -TERM $DPID; wait $DPID; rc=$?
[ $rc = 0 ] || fail "ftiod exit status $rc after SIGTERM"
echo ok
