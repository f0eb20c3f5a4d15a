#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clock_first.sh -- a rank whose node clock is behind and whose batches come
# first never places the job in the past (issue 28 item 4).  Four forged
# ranks of a live 1-s job (`ftio-wire periodic --speed 1`), rank 0's clock
# 120 s, then 3000 s, behind: rank 0's first batch reaches ftiod first.
# The `.end` summary says 1 s, with every byte, the clock corrected and
# nothing dropped.  Before: the job's time 0 was laid where rank 0's clock
# said, and the summary answered 121 s (or 3001 s) for a 1-s job.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
start_daemon d
MB=1048576
export FTIO_AUTH=none
W=""
for behind in 120 3000; do
  wire periodic --endpoint "ipc://$T/d.in" --job first$behind-$$ --ranks 4 --period 1 \
    --phases 8 --speed 1 --mpi --clock 0:-$behind >"$T/w$behind.out" 2>"$T/w$behind.err" &
  W="$W $!"
done
for w in $W; do wait "$w" || fail "ftio-wire"; done
for behind in 120 3000; do
  job=first$behind-$$
  wait_topic "$T/d.log" "ftio.$job.end" 20
  e="last('ftio.$job.end')"
  p=$(jsonl "$T/d.log" "$e['summary']['write']['period']")
  b=$(jsonl "$T/d.log" "$e['bytes']")
  fixed=$(jsonl "$T/d.log" "$e['clocks_corrected']")
  dropped=$(jsonl "$T/d.log" "sum($e['dropped_records'].values())")
  complete=$(jsonl "$T/d.log" "$e['complete']")
  echo "rank 0 $behind s behind: period $p s, bytes $b, clocks corrected $fixed, dropped $dropped, complete $complete"
  close 0.05 "$p" 1 || bad "$behind s behind: summary period $p s for a 1-s job"
  [ "$b" = "$((4 * 8 * MB)).0" ] || [ "$b" = "$((4 * 8 * MB))" ] || bad "$behind s behind: $b bytes, expected $((4 * 8 * MB))"
  [ "$fixed" = 1 ] || bad "$behind s behind: $fixed clocks corrected, expected 1"
  [ "$dropped" = 0 ] || bad "$behind s behind: $dropped records dropped"
  [ "$complete" = True ] || bad "$behind s behind: not complete"
done
ok "a rank 120 s or 3000 s behind that sends first: the job's period and bytes"
finish
