#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The daemon restarts in the middle of a job, without --state-dir.  Daemon A
# takes the first batches and, stopped by SIGTERM, publishes its summary;
# while no daemon listens the shim keeps its batches; daemon B then gets them
# and the rest live.  Nothing is lost or
# counted twice: A's records + B's records = every write of the program, and
# B (which saw the gap fill) finds the period.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bin/posix_periodic" "$B/lib/libftio.so"
JOB=restart-$$
# A period of 1.05 s, not 1 s: with exactly 10 samples per period, B's summary
# (laid on its earliest record, as offline) is an exact comb -- a pulse every
# 10th sample, all harmonics equally strong -- which FTIO rightly reports as
# no period (3 or more candidates, ALGORITHM.md §3).
mkdir -p "$T/out" "$T/spool"
start_daemon a
A=$DPID
FTIO_ENDPOINT="ipc://$T/a.in" FTIO_JOB=$JOB FTIO_SPOOL_DIR="$T/spool" FTIO_FLUSH_MS=100 \
  LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
  timeout 60 "$B/bin/posix_periodic" -d "$T/out" -n 14 -p 1.05 -b 2M -k 256K >"$T/app.out" 2>"$T/app.err" &
APP=$!; PIDS="$PIDS $APP"
# A stops once it has merged 2 of the 14 checkpoints (8 writes each).
wait_for 20 status_is a "[j for j in s['jobs'] if j['job'] == '$JOB' and j['records'] >= 16]" ||
  fail "daemon A got no 2 checkpoints: $(cat "$T/a.status.json")"
kill -TERM $A; wait $A
wait_topic "$T/a.log" "ftio.$JOB.end" 5
sleep 3            # no daemon for 3 s (what is tested); the shim keeps its batches (PROTOCOL.md §1.4)
# B on the same endpoint (a new socket file: ipc path of a).
rm -f "$T/a.in"
"$B/bin/ftiod" --auth none --listen "ipc://$T/a.in" --pub "ipc://$T/b.pub" --status-endpoint "ipc://$T/b.st" \
  --log "$T/b.log" -v 2>>"$T/b.err" &
BP=$!; PIDS="$PIDS $BP"
# The shim reconnects: B merges its kept batches and the live ones.
wait_grep "$T/b.err" "$FTIOD_READY" || fail "daemon B did not start"
wait_for 10 status_is b "[j for j in s['jobs'] if j['job'] == '$JOB' and j['records'] > 0]" ||
  fail "the shim did not reconnect to daemon B"
wait $APP || fail "posix_periodic failed: $(cat "$T/app.err")"
# What a shim could not deliver (none, unless it ran out of FTIO_ACK_MAX_MB or
# a batch went unanswered through its exit) is in its spool file, written at
# its exit: replayed once the program is gone (looked at earlier, a batch
# spooled at the exit was never replayed: 104 of 112 under load).  B ends the
# job when it has been idle (it never saw its start), after this.
if ls "$T/spool" | grep -q msgpack; then
  timeout 30 "$B/bin/ftio" replay --endpoint "ipc://$T/a.in" "$T"/spool/*.msgpack 2>"$T/replay.err" \
    || fail "replay: $(cat "$T/replay.err")"
  cat "$T/replay.err"
fi
wait_topic "$T/b.log" "ftio.$JOB.end" 20
ra=$(jsonl "$T/a.log" "last('ftio.$JOB.end')['summary']['write']['records']")
rb=$(jsonl "$T/b.log" "last('ftio.$JOB.end')['summary']['write']['records']")
ba=$(jsonl "$T/a.log" "int(last('ftio.$JOB.end')['summary']['write']['bytes'])")
bb=$(jsonl "$T/b.log" "int(last('ftio.$JOB.end')['summary']['write']['bytes'])")
echo "daemon A: $ra records, daemon B: $rb records (expected together 14 x 8 = 112)"
[ $((ra + rb)) = 112 ] || fail "records A $ra + B $rb != 112"
[ $((ba + bb)) = $((14 * 2097152)) ] || fail "bytes A $ba + B $bb != $((14 * 2097152))"
[ "$rb" -gt 0 ] && [ "$ra" -gt 0 ] || fail "both daemons should have had data"
per=$(jsonl "$T/b.log" "last('ftio.$JOB.end')['summary']['write']['period']")
echo "daemon B period: $per"
"$PY" -c "import sys; p=float(sys.argv[1]); sys.exit(0 if 0.9 < p < 1.3 else 1)" "$per" \
  || fail "period $per, expected about 1 s"
echo ok
