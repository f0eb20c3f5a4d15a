#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# log_full.sh -- a --log on a full file system (/dev/full): ftiod keeps
# running and publishing, says so once on stderr (not once per line), counts
# the lines it could not write (--status: log_lines_lost), and never leaves
# half a line.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
[ -w /dev/full ] || fail "/dev/full is not available"
"$B/bin/ftiod" --auth none --listen "ipc://$T/d.in" --pub "ipc://$T/d.pub" --status-endpoint "ipc://$T/d.st" \
  --log /dev/full --job-timeout 1 2>"$T/d.err" &
DPID=$!; PIDS="$PIDS $DPID"
wait_for 10 status_is d True || fail "ftiod did not start"
timeout 20 "$B/bin/ftio" sub --endpoint "ipc://$T/d.pub" --job full --json --timeout 15 >"$T/sub.out" &
SUBPID=$!
wait_connected "$T/d.pub" || fail "ftio sub did not connect"
wire periodic --endpoint "ipc://$T/d.in" --job full --ranks 2 --period 1 --duration 0.1 \
  --phases 6 || fail "generator"
wait $SUBPID
kill -0 $DPID 2>/dev/null || fail "ftiod died"
grep -q '"summary"' "$T/sub.out" || fail "no end message published"
n=$(grep -c "cannot write" "$T/d.err")
[ "$n" = 1 ] || fail "$n 'cannot write' lines on stderr, expected 1: $(cat "$T/d.err")"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/st.json" || fail "status"
lost=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['log_lines_lost'])" "$T/st.json")
[ "$lost" -gt 0 ] || fail "log_lines_lost $lost"
echo "ok: $lost log lines lost and counted, reported once"
