#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# relay_ack_linger.sh -- `ftio relay` stopped by SIGTERM still delivers the
# acknowledgements ftiod made for the batches it forwarded: those waiting in
# the relay's front ROUTER (a sender that reads a little late) leave within a
# short, bounded linger instead of being dropped at close, as ftiod's own do
# (ack_linger.sh).  A sender whose answer is lost sends the batch again to
# the next daemon, which without --state-dir counts it twice.  ack_peer.py
# sends through the relay without reading until a few hundred answers wait
# there, stops the relay and reads 0.1 s after its "stopped": the old relay,
# whose front closed with linger 0, dropped all of them.  The relay stops
# within its bound, ftiod goes on.
. "$(dirname "$0")/../lib.sh"
. "$HERE/ack_check.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
wire gen 12000 --records 1 --job relaylinger >"$T/b.spool" || fail "ftio-wire gen"
start_daemon d
"$B/bin/ftio" relay --listen "ipc://$T/relay.sock" --upstream "ipc://$T/d.in" -v 2>"$T/relay.err" &
RP=$!; PIDS="$PIDS $RP"
wait_file "$T/relay.sock" || fail "the relay did not bind: $(cat "$T/relay.err")"
acks_all_back "$T/relay.sock" "$RP" "$T/relay.err" "the relay" " through the relay"
kill -0 "$DPID" 2>/dev/null && ok "ftiod still running" || bad "ftiod stopped with the relay"
finish
