#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# replay_window.sh -- `ftio replay` of a long spool file to a daemon that
# stalls: every batch merged is acknowledged, exit status 0.
# ftiod acknowledges with ZMQ_DONTWAIT (it never waits for a peer that does
# not read), so when 20,000 batches are queued towards a daemon stopped for a
# while, the acknowledgements it sends at once when it resumes overflow the
# ~1000-message pipes back to a replay still blocked in its send: before,
# `ftio replay` said "1000 unacknowledged" and exited 1 although ftiod had
# merged every batch.  Now it keeps at most 500 batches in flight.
# The truth: the spool file's own record count (ftio-wire wrote it) and
# ftiod's status.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
N=20000 R=4
wire gen $N --records $R --job window-$$ >"$T/ftio-window-$$-host-1.msgpack" || fail "ftio-wire gen"
start_daemon d
kill -STOP $DPID
"$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T/ftio-window-$$-host-1.msgpack" \
  >"$T/replay.out" 2>"$T/replay.err" &
RP=$!
# A daemon hung for a while (the replay queues what the pipes hold, then
# blocks in its send), then back.
sleep 2
kill -CONT $DPID
wait $RP; rc=$?
cat "$T/replay.err"
[ "$rc" = 0 ] && ok "replay exit status 0" || bad "replay exit status $rc: $(cat "$T/replay.err")"
grep -q "sent $N batches .* $N acknowledged, 0 refused, 0 unacknowledged" "$T/replay.err" \
  && ok "all $N batches acknowledged" || bad "not every batch acknowledged"
wait_for 10 status_is d "s['totals']['batches'] == $N and s['totals']['records'] == $N * $R" \
  && ok "ftiod merged the file's $N batches, $((N * R)) records" \
  || bad "ftiod's totals: $(cat "$T/d.status.json")"
finish
