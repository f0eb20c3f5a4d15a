#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# restart_munge.sh -- restarts of ftiod cost nothing under MUNGE (issue 29
# item 3): a 4-rank MPI checkpointing job authenticates every batch
# (FTIO_AUTH=munge, a private munged); ftiod (--auth munge --state-dir) is
# killed with SIGKILL three times during it and restarted on its state
# directory.  A restarted ftiod does not know the shims' sessions: it answers
# their batches "renew" (PROTOCOL.md §1.4), the shims make a new session at
# once and send again, so every byte arrives live: one `.end`, complete, the
# bytes the program wrote, nothing left in a spool file.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/checkpoint" "$SHIM"
start_munged
mkdir -p "$T/out" "$T/spool"
daemon() {   # daemon N: ftiod on the one state directory, its log and stderr N
  "$B/bin/ftiod" --listen "ipc://$T/d.in" --pub "ipc://$T/d$1.pub" --status-endpoint "ipc://$T/d$1.st" \
    --log "$T/d$1.log" -v --auth munge --munge-socket "$T/munge.sock" --state-dir "$T/state" \
    2>>"$T/d$1.err" &
  DPID=$!
  PIDS="$PIDS $DPID"
  wait_for 10 grep -qE "$FTIOD_READY" "$T/d$1.err" || fail "ftiod $1 did not start: $(cat "$T/d$1.err")"
}
daemon 0
N=10 BLOCK=1048576
command -v mpirun >/dev/null || fail "mpirun not found (Debian package openmpi-bin)"
# Only "renew" may bring the batches a killed daemon never answered: the
# shims' own resend after FTIO_ACK_TIMEOUT_MS is put past the job's end.  And
# the exit waits as long as a loaded machine needs for the last daemon's
# round trips through munged (the suite's 3 s were short once beside
# stress-ng and a build: every byte live, the ranks' last batches spooled
# as well); a shim that did not renew would wait it out and spool.
timeout 120 $MPIRUN -np 4 -x ASAN_OPTIONS="$APP_ASAN_OPTIONS" -x LD_PRELOAD="$PRELOAD" \
  -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB=mrestart -x FTIO_AUTH=munge \
  -x FTIO_MUNGE_SOCKET="$T/munge.sock" -x FTIO_SPOOL_DIR="$T/spool" \
  -x FTIO_ACK_TIMEOUT_MS=600000 -x FTIO_EXIT_WAIT_MS=20000 \
  stdbuf -oL "$B/bin/checkpoint" -n $N -b 1M -c 0.8 -v -o "$T/out" >"$T/app.out" 2>"$T/app.err" &
APP=$!
PIDS="$PIDS $APP"
# Three kills while the job writes: after its 2nd, 4th and 6th checkpoint
# (the program's own lines, line-buffered by stdbuf), each daemon restarted
# at once.
reached() { [ "$(grep -c '^iteration' "$T/app.out" 2>/dev/null)" -ge "$1" ]; }
for k in 1 2 3; do
  wait_for 60 reached $((2 * k)) \
    || fail "the job did not reach checkpoint $((2 * k)): $(cat "$T/app.err")"
  kill -KILL "$DPID"
  wait "$DPID" 2>/dev/null   # gone, its state directory's lock with it
  daemon $k
done
wait "$APP" || fail "checkpoint failed: $(cat "$T/app.err")"
wait_topic "$T/d3.log" ftio.mrestart.end 30
for k in 0 1 2; do
  grep -q '"topic":"ftio.mrestart.end"' "$T/d$k.log" && bad "daemon $k (killed) published an .end"
done
want=$((N * 4 * BLOCK))
e() { jsonl "$T/d3.log" "last('ftio.mrestart.end')$1"; }
[ "$(e "['bytes']" | cut -d. -f1)" = $want ] && ok "every byte live: $want" || bad ".end bytes $(e "['bytes']"), want $want"
[ "$(e "['complete']")" = True ] && ok ".end complete" || bad ".end: $(e '')"
[ "$(e "['missing_batches']")" = 0 ] && ok "no batch missing" || bad "missing batches: $(e "['missing_batches']")"
[ -z "$(ls "$T/spool")" ] && ok "nothing spooled" || bad "spooled: $(ls "$T/spool")"
[ "$(jsonl "$T/d3.log" "len(all_of('ftio.mrestart.end'))")" = 1 ] && ok "one .end" || bad "several .end"
grep -q "restored" "$T/d3.err" && ok "the last daemon restored the job" || bad "not restored: $(cat "$T/d3.err")"
finish
