#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ack_linger.sh -- ftiod stopped by SIGTERM still delivers the acknowledgements
# it made: those waiting in its ROUTER's queue (a sender that reads them a
# little late: a loaded node, a slow flusher) leave within a short, bounded
# linger instead of being dropped at close.  A sender whose last answer is
# lost sends the batch again to the next ftiod, which without --state-dir
# counts it twice.  (ack_peer.py sends without reading until a few hundred
# answers wait in ftiod's queue, stops ftiod and reads 0.1 s after its
# "stopped": the old ROUTER, closed with linger 0, dropped all of them.)  ftiod stays within its 2-s stop bound.
. "$(dirname "$0")/../lib.sh"
. "$HERE/ack_check.sh"
need "$B/bin/ftiod" "$WIRE"
wire gen 12000 --records 1 --job linger >"$T/b.spool" || fail "ftio-wire gen"
start_daemon d
acks_all_back "$T/d.in" "$DPID" "$T/d.err" ftiod ""
finish
