#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# past_clock.sh -- no batch can stall ftiod (issue "trust holes" item 0).  A
# second uid (nobody, signed by a real munged) sends jobs whose first batch
# carries a clock that says 1970, one a year behind and one ten days behind,
# then the true clock and `final`; beside them a victim job streams live.
# The victim gets its predictions and its `.end` on time, the implausible
# records are counted as bad, and SIGTERM stops ftiod within 2 s.  On the
# code before the fix, ending the 1970 job stepped through every 1-s boundary
# since 1970 on the only analysis thread: the victim never ended.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
start_munged
export FTIO_AUTH=munge
start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 --min-interval 0.2

now=$(date +%s)
for spec in 1970:86400 year:$((now - 365 * 86400)) tendays:$((now - 10 * 86400)); do
  name=${spec%%:*}; clock=${spec#*:}
  as_user env FTIO_AUTH=munge "$WIRE" periodic --endpoint "ipc://$T/d.in" --job "hog$name" \
    --ranks 2 --period 1 --duration 0.2 --phases 30 --first-clock "$clock" ||
    fail "sending hog$name as nobody"
done
t0=$(date +%s.%N)
wire periodic --endpoint "ipc://$T/d.in" --job victim --ranks 2 --period 2 --duration 0.3 \
  --phases 6 --speed 1 || fail "victim generator"
wait_topic "$T/d.log" ftio.victim.end 30
t1=$(date +%s.%N)
echo "victim ended $(awk "BEGIN{print $t1 - $t0}") s after it started (12 s of phases)"
n=$(jsonl "$T/d.log" "len(all_of('ftio.victim.write'))")
[ "$n" -ge 3 ] || fail "victim: only $n predictions before its end"
p=$(jsonl "$T/d.log" "last('ftio.victim.end')['summary']['write']['period']")
close 0.05 "$p" 2 || fail "victim period $p, expected 2"
for name in 1970 year tendays; do   # nobody's ids, unclaimed: in its namespace
  wait_topic "$T/d.log" "ftio.u65534:hog$name.end" 30
done
# The records of the first batch of each hog's rank 0 lie before the bound
# (1970, a year) or ten days back (accepted; the horizon bounds the work).
wait_for 10 status_is d "True" || fail "status"
for name in 1970 year; do
  b=$(jsonl "$T/d.log" "last('ftio.u65534:hog$name.end')['bytes']")
  close 0.001 "$b" "$((59 * 1048576))" || fail "hog$name: $b bytes counted, expected 59 MiB (one batch refused)"
done
kill -TERM "$DPID"
wait_for 2 _gone "$DPID" || fail "ftiod still running 2 s after SIGTERM"
ok "victim on time beside clocks of 1970, a year and ten days behind; SIGTERM obeyed"
finish
