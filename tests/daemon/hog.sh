#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hog.sh -- one job cannot starve the others (issue 18).  A replayed spool of
# 20,000 phases (80,000 batches that arrive in well under a second: 20,000
# boundaries, 3,600 of them inside the horizon) beside a live job of 8
# phases paced in real time (2 s period).  The live job must get its first
# prediction within 10 s of its start and its `.end` within 15 s of its last
# batch, with the default scheduling (the hog goes to its newest boundary)
# and with --catch-up every (the hog analyses every boundary: the live job
# is served first, round robin).  On the single analysis thread that took
# jobs in table order the live job got nothing for over 100 s.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

hog_beside_live() {   # NAME [ftiod options]
  name=$1; shift
  start_daemon "$name" "$@"
  wire periodic --endpoint "ipc://$T/$name.in" --job hog --ranks 4 --period 1 \
    --duration 0.2 --phases 20000 || fail "$name: hog generator"
  # The hog is in: its analyses have begun.
  wait_topic "$T/$name.log" ftio.hog.write 30
  t0=$(now)
  wire periodic --endpoint "ipc://$T/$name.in" --job live --ranks 2 --period 2 \
    --duration 0.3 --phases 8 --speed 1 &
  LIVE=$!; PIDS="$PIDS $LIVE"
  wait_topic "$T/$name.log" ftio.live.write 10
  first=$(since "$t0")
  wait $LIVE || fail "$name: live generator"
  t1=$(now)
  wait_topic "$T/$name.log" ftio.live.end 15
  end=$(since "$t1")
  # (one reading of the log: thousands of the hog's messages)
  read -r n hog p <<EOF
$(jsonl "$T/$name.log" "'%d %d %s' % (len(all_of('ftio.live.write')), len(all_of('ftio.hog.write')), last('ftio.live.end')['summary']['write']['period'])")
EOF
  [ "${n:-0}" -ge 3 ] || fail "$name: the live job got only $n predictions"
  close 0.05 "$p" 2 || fail "$name: live period $p, expected 2"
  ok "$name ($*): live job's first prediction after $first s, its .end $end s after its last" \
     "batch, $n predictions; $hog of the hog meanwhile"
  kill -TERM "$DPID"
  wait_for 5 _gone "$DPID" || fail "$name: ftiod still running 5 s after SIGTERM"
}

hog_beside_live newest
hog_beside_live every --catch-up every
finish
