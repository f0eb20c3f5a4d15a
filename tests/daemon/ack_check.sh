# SPDX-License-Identifier: BSD-3-Clause
# ack_check.sh -- sourced by ack_linger.sh and relay_ack_linger.sh (after
# tests/lib.sh): one run of ack_peer.py against a ROUTER that is stopped with
# answers still queued, and the two checks both tests make.
# acks_all_back ENDPOINT PID ERR NAME WHAT: ack_peer.py sends $T/b.spool to
# ENDPOINT without reading until answers wait there, SIGTERMs PID (whose
# stderr is ERR) and reads what is left; every batch must be acknowledged,
# and NAME (PID) must stop within 3 s.
acks_all_back() {
  "$PY" "$HERE/ack_peer.py" "$1" "ipc://$T/d.st" "$B/bin/ftiod" "$2" "$3" "$T/b.spool" \
    >"$T/peer.out" 2>"$T/peer.err" || fail "ack_peer.py: $(tail -3 "$T/peer.err")"
  _sent=$(val "$T/peer.out" sent)
  _got=$(val "$T/peer.out" acks)
  _what="$_sent batches$5, $(val "$T/peer.out" queued) answers queued at $4, SIGTERM"
  [ "$_got" = "$_sent" ] && ok "$_what: every batch acknowledged ($_got)" ||
    bad "$_what: $_got acknowledgements for $_sent batches ($((_sent - _got)) dropped at close)"
  wait_for 3 _gone "$2" && ok "$4 stopped within its bound" || bad "$4 still running 3 s after SIGTERM"
}
