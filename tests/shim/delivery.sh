#!/bin/sh
# delivery.sh -- where the batches go: no daemon (all spooled, decodable,
# same totals), FTIO_SPOOL=always, a receiver appearing mid-run (the shim
# keeps the early batches and sends them then: every record once, gap-free), FTIO_DISABLE=1 (nothing
# sent or spooled), a tiny ring (every record delivered or counted lost),
# flush points from the ftio.h API (examples/flush_points), a peer that
# stops reading (the last batches are spooled too at exit, stall_peer.py)
# and the posix_periodic example.
. "$(dirname "$0")/lib.sh"
export FTIO_EXCLUDE="+$T/ctl"
L="$B/tests/shim_life"
mkdir -p "$T/d"

# No daemon at all: everything lands in the spool file.
traced "$B/tests/shim_calls" "$T/d" >"$T/expect" || fail "shim_calls without daemon"
set -- "$T"/spool/ftio-*.msgpack
[ -f "$1" ] && ok "spool file $(basename "$1")" || fail "no spool file"
case "$(basename "$1")" in ftio-*-*-[0-9]*.msgpack) ok "spool file name ftio-<job>-<host>-<pid>" ;;
  *) fail "spool name $(basename "$1")" ;; esac
"$RECV" "$T"/spool/*.msgpack >"$T/got"
compare_counts "$T/expect" "$T/got" "no daemon (spool)"
expect_eq "$T/got" finals 1 "spool: final batch"
expect_eq "$T/got" seq_gaps 0 "spool: seq gaps"
expect_eq "$T/got" bad 0 "spool: decodes cleanly"
rm -f "$T"/spool/*

# FTIO_SPOOL=always: spooled even with a receiver listening.
start_recv "$T/alw" -i 2
FTIO_SPOOL=always traced "$L" "$T" loop 1000 || fail "loop run"
wait_recv
expect_eq "$T/alw" batches 0 "FTIO_SPOOL=always: nothing sent"
"$RECV" "$T"/spool/*.msgpack >"$T/alw.spool"
expect_eq "$T/alw.spool" count.posix.write 1000 "FTIO_SPOOL=always: spooled"
rm -f "$T"/spool/*

# Receiver appearing mid-run: the batches of phase 1 wait in the shim
# (unsent copies, sink_zmq.c) and go to the receiver once it is there, with
# phase 2: nothing spooled, every record once, gap-free.
rm -f "$T/ctl/phase1" "$T/ctl/go"
FTIO_FLUSH_MS=100 env LD_PRELOAD="$PRELOAD" "$L" "$T" phases 500 & pp=$!; PIDS="$PIDS $pp"
i=0; while [ ! -f "$T/ctl/phase1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.5   # > FTIO_FLUSH_MS: phase 1 was flushed while nobody listened
start_recv "$T/mid" -i 5 -n 1 -w "$T/raw.msgpack"
touch "$T/ctl/go"
wait $pp || fail "phases run"
wait_recv
got_sock=$(val "$T/mid" records)
[ "${got_sock:-0}" -gt 0 ] && ok "mid-run: receiver got $got_sock records" || fail "mid-run: receiver got nothing"
[ -z "$(ls "$T/spool")" ] && ok "mid-run: nothing spooled (kept until the receiver came)" \
  || fail "mid-run: spooled $(ls "$T/spool")"
"$RECV" "$T/raw.msgpack" >"$T/mid.all"
expect_eq "$T/mid.all" count.posix.write 1000 "mid-run: writes received"
expect_eq "$T/mid.all" seq_gaps 0 "mid-run: seq gaps"
expect_eq "$T/mid.all" seq_dups 0 "mid-run: seq duplicates"
expect_eq "$T/mid.all" finals 1 "mid-run: final batch"
rm -f "$T"/spool/*

# FTIO_DISABLE=1: pure pass-through.
start_recv "$T/dis" -i 2
FTIO_DISABLE=1 traced "$B/tests/shim_calls" "$T/d" >/dev/null || fail "disabled run"
wait_recv
expect_eq "$T/dis" batches 0 "FTIO_DISABLE: nothing sent"
[ -z "$(ls "$T/spool")" ] && ok "FTIO_DISABLE: nothing spooled" || fail "FTIO_DISABLE: spooled"

# A 1 MiB ring (16384 records) and 200000 fast 1-byte writes: every record
# is delivered or counted in "lost" -- never silently dropped.
FTIO_BUFFER_MB=1 FTIO_SPOOL=always traced "$L" "$T" loop 200000 || fail "loop 200000"
"$RECV" "$T"/spool/*.msgpack >"$T/ring"
recs=$(val "$T/ring" records); lost=$(val "$T/ring" lost)
[ $((recs + lost)) = 200002 ] && ok "small ring: $recs delivered + $lost lost = 200002" \
  || fail "small ring: $recs + $lost != 200002"
rm -f "$T"/spool/*

# Flush points (ftio.h): marks arrive, and the example runs without the shim.
FP="$B/bin/flush_points"
start_recv "$T/fp" -i 10 -n 1
traced "$FP" "$T/d" 3 >"$T/fp.out" || fail "flush_points run"
wait_recv
n=$(grep -c '^mark=checkpoint-' "$T/fp")
[ "$n" = 3 ] && ok "flush_points: 3 marks" || fail "flush_points: $n marks"
expect_eq "$T/fp" count.stdio.write 48 "flush_points: fwrites"
grep -q '^libftio.so loaded' "$T/fp.out" && ok "ftio_loaded() with the shim" || fail "ftio_loaded() false under the shim"
"$FP" "$T/d" 1 >"$T/fp.out" && grep -q 'no shim' "$T/fp.out" && ok "flush_points runs without the shim" \
  || fail "flush_points without the shim"

# A peer that takes batches but never acknowledges them (a hung daemon):
# at exit, what is unacknowledged after FTIO_EXIT_WAIT_MS is spooled (with
# the one-line notice), the final batch included, each once.
PY=""
for p in /usr/bin/python3 python3; do "$p" -c 'import zmq' 2>/dev/null && { PY=$p; break; }; done
if [ -z "$PY" ]; then
  fail "stalled peer: no python3 with the zmq module (make check installs python3-zmq)"
else
  rm -f "$T"/spool/* "$T/ctl/stall-ready"
  timeout 60 "$PY" "$(dirname "$0")/stall_peer.py" "$FTIO_ENDPOINT" "$T/ctl/stall-ready" 50 & sp=$!
  PIDS="$PIDS $sp"
  i=0; while [ ! -f "$T/ctl/stall-ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  FTIO_EXIT_WAIT_MS=500 FTIO_BUFFER_MB=16 FTIO_FLUSH_MS=100000 timeout 60 \
    env LD_PRELOAD="$PRELOAD" "$L" "$T" loop 200000 2>"$T/stall.err" || fail "stalled peer: run"
  kill $sp 2>/dev/null
  grep -q 'did not take all of job' "$T/stall.err" && ok "stalled peer: warning" \
    || fail "stalled peer: no warning ($(cat "$T/stall.err"))"
  "$RECV" "$T"/spool/*.msgpack >"$T/stall" 2>/dev/null
  expect_eq "$T/stall" finals 1 "stalled peer: final batch spooled"
  expect_eq "$T/stall" seq_dups 0 "stalled peer: each batch spooled once"
  expect_eq "$T/stall" bad 0 "stalled peer: spool decodes"
  n=$(val "$T/stall" count.posix.write)
  [ "${n:-0}" -gt 0 ] && ok "stalled peer: $n writes spooled" || fail "stalled peer: no writes spooled"
fi

# posix_periodic example: 3 checkpoints of 1 MiB in 64 KiB writes + fsync.
start_recv "$T/pp" -i 10 -n 1
traced "$B/bin/posix_periodic" -d "$T/d" -n 3 -p 0.05 -b 1M -k 64K >/dev/null || fail "posix_periodic"
wait_recv
expect_eq "$T/pp" count.posix.write 48 "posix_periodic: writes"
expect_eq "$T/pp" bytes.posix.write 3145728 "posix_periodic: bytes"
expect_eq "$T/pp" count.posix.sync 3 "posix_periodic: fsyncs"
"$B/bin/posix_periodic" -n x 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "posix_periodic: bad option -> one line, exit 2" \
  || fail "posix_periodic bad option: rc=$rc"

finish
