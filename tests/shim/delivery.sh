#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# delivery.sh -- where the batches go: no daemon (all spooled, decodable,
# same totals), FTIO_SPOOL=always, a receiver appearing mid-run (the shim
# keeps the early batches and sends them then: every record once, gap-free), FTIO_DISABLE=1 (nothing
# sent or spooled), a tiny ring (every record delivered or counted lost),
# the test receiver's acknowledgements (none with -N: all spooled at exit),
# flush points from the ftio.h API (examples/flush_points), a peer that
# stops reading (the last batches are spooled too at exit, stall_peer.py)
# and the posix_periodic example.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"
export FTIO_EXCLUDE="+$T/ctl"
L="$B/tests/shim_life"
mkdir -p "$T/d"

# No daemon at all: everything lands in the spool file.
traced "$B/tests/shim_calls" "$T/d" >"$T/expect" || bad "shim_calls without daemon"
set -- "$T"/spool/ftio-*.msgpack
[ -f "$1" ] && ok "spool file $(basename "$1")" || bad "no spool file"
case "$(basename "$1")" in ftio-*-*-[0-9]*.msgpack) ok "spool file name ftio-<job>-<host>-<pid>" ;;
  *) bad "spool name $(basename "$1")" ;; esac
wire recv "$T"/spool/*.msgpack >"$T/got"
compare_counts "$T/expect" "$T/got" "no daemon (spool)"
expect_eq "$T/got" finals 1 "spool: final batch"
expect_eq "$T/got" seq_gaps 0 "spool: seq gaps"
expect_eq "$T/got" bad 0 "spool: decodes cleanly"
rm -f "$T"/spool/*

# FTIO_SPOOL=always: spooled even with a receiver listening.
start_recv "$T/alw" -i 2
FTIO_SPOOL=always traced "$L" "$T" loop 1000 || bad "loop run"
wait_recv
expect_eq "$T/alw" batches 0 "FTIO_SPOOL=always: nothing sent"
wire recv "$T"/spool/*.msgpack >"$T/alw.spool"
expect_eq "$T/alw.spool" count.posix.write 1000 "FTIO_SPOOL=always: spooled"
rm -f "$T"/spool/*

# FTIO_SPOOL=tee: streamed and kept, each batch once in each; no notice (the
# daemon took everything).
start_recv "$T/tee" -i 2 -n 1
FTIO_SPOOL=tee traced "$L" "$T" loop 1000 2>"$T/tee.err" || bad "tee run"
wait_recv
expect_eq "$T/tee" count.posix.write 1000 "FTIO_SPOOL=tee: sent"
wire recv "$T"/spool/*.msgpack >"$T/tee.spool"
expect_eq "$T/tee.spool" count.posix.write 1000 "FTIO_SPOOL=tee: spooled"
expect_eq "$T/tee.spool" seq_dups 0 "FTIO_SPOOL=tee: each batch spooled once"
grep -q 'did not take all' "$T/tee.err" && bad "FTIO_SPOOL=tee: a notice although the daemon took it all" \
  || ok "FTIO_SPOOL=tee: no notice"
rm -f "$T"/spool/* "$T"/spool/.ftio-notice-*

# An endpoint ZeroMQ refuses: everything is spooled, with the one-line notice.
FTIO_ENDPOINT="bogus://x" traced "$L" "$T" loop 100 2>"$T/bogus.err" || bad "bogus endpoint run"
wire recv "$T"/spool/*.msgpack >"$T/bogus.spool"
expect_eq "$T/bogus.spool" count.posix.write 100 "bad endpoint: spooled"
grep -q 'did not take all of job' "$T/bogus.err" && ok "bad endpoint: notice of the spool" \
  || bad "bad endpoint: no notice ($(cat "$T/bogus.err"))"
rm -f "$T"/spool/* "$T"/spool/.ftio-notice-*

# Receiver appearing mid-run: the batches of phase 1 wait in the shim
# (unsent copies, sink_zmq.c) and go to the receiver once it is there, with
# phase 2: nothing spooled, every record once, gap-free.
rm -f "$T/ctl/phase1" "$T/ctl/go"
FTIO_FLUSH_MS=100 FTIO_DEBUG=1 env LD_PRELOAD="$PRELOAD" "$L" "$T" phases 500 2>"$T/phases.err" & pp=$!
PIDS="$PIDS $pp"
wait_file "$T/ctl/phase1" || bad "mid-run: phase 1 never ended"
# Phase 1 (1 open + 500 writes) is flushed while nobody listens: FTIO_DEBUG
# reports each batch the flusher made.
offered() {
  [ "$(sed -n 's/.*batch seq [0-9]*: \([0-9]*\) records.*/\1/p' "$T/phases.err" |
       awk '{ s += $1 } END { print s + 0 }')" -ge 501 ]
}
wait_for 10 offered || bad "mid-run: phase 1 was not flushed within 10 s"
start_recv "$T/mid" -i 5 -n 1 -w "$T/raw.msgpack"
touch "$T/ctl/go"
wait $pp || bad "phases run"
wait_recv
got_sock=$(val "$T/mid" records)
[ "${got_sock:-0}" -gt 0 ] && ok "mid-run: receiver got $got_sock records" || bad "mid-run: receiver got nothing"
[ -z "$(ls "$T/spool")" ] && ok "mid-run: nothing spooled (kept until the receiver came)" \
  || bad "mid-run: spooled $(ls "$T/spool")"
wire recv "$T/raw.msgpack" >"$T/mid.all"
expect_eq "$T/mid.all" count.posix.write 1000 "mid-run: writes received"
expect_eq "$T/mid.all" seq_gaps 0 "mid-run: seq gaps"
expect_eq "$T/mid.all" seq_dups 0 "mid-run: seq duplicates"
expect_eq "$T/mid.all" finals 1 "mid-run: final batch"
rm -f "$T"/spool/*

# FTIO_DISABLE=1: pure pass-through.
start_recv "$T/dis" -i 2
FTIO_DISABLE=1 traced "$B/tests/shim_calls" "$T/d" >/dev/null || bad "disabled run"
wait_recv
expect_eq "$T/dis" batches 0 "FTIO_DISABLE: nothing sent"
[ -z "$(ls "$T/spool")" ] && ok "FTIO_DISABLE: nothing spooled" || bad "FTIO_DISABLE: spooled"

# A 1 MiB ring (16384 records) and 200000 fast 1-byte writes: every record
# is delivered or counted in "lost" -- never silently dropped.
FTIO_BUFFER_MB=1 FTIO_SPOOL=always traced "$L" "$T" loop 200000 || bad "loop 200000"
wire recv "$T"/spool/*.msgpack >"$T/ring"
recs=$(val "$T/ring" records); lost=$(val "$T/ring" lost)
[ $((recs + lost)) = 200002 ] && ok "small ring: $recs delivered + $lost lost = 200002" \
  || bad "small ring: $recs + $lost != 200002"
rm -f "$T"/spool/*

# Flush points (ftio.h): marks arrive, and the example runs without the shim.
FP="$B/bin/flush_points"
start_recv "$T/fp" -i 10 -n 1
traced "$FP" "$T/d" 3 >"$T/fp.out" || bad "flush_points run"
wait_recv
n=$(grep -c '^mark=checkpoint-' "$T/fp")
[ "$n" = 3 ] && ok "flush_points: 3 marks" || bad "flush_points: $n marks"
expect_eq "$T/fp" count.stdio.write 48 "flush_points: fwrites"
grep -q '^libftio.so loaded' "$T/fp.out" && ok "ftio_loaded() with the shim" || bad "ftio_loaded() false under the shim"
"$FP" "$T/d" 1 >"$T/fp.out" && grep -q 'no shim' "$T/fp.out" && ok "flush_points runs without the shim" \
  || bad "flush_points without the shim"

# A peer that takes batches but never acknowledges them (a hung daemon):
# at exit, what is unacknowledged after FTIO_EXIT_WAIT_MS is spooled (with
# the one-line notice), the final batch included, each once.
PY=""
for p in /usr/bin/python3 python3; do "$p" -c 'import zmq' 2>/dev/null && { PY=$p; break; }; done
if [ -z "$PY" ]; then
  bad "stalled peer: no python3 with the zmq module (make check installs python3-zmq)"
else
  rm -f "$T"/spool/* "$T/ctl/stall-ready"
  timeout 60 "$PY" "$(dirname "$0")/stall_peer.py" "$FTIO_ENDPOINT" "$T/ctl/stall-ready" 50 & sp=$!
  PIDS="$PIDS $sp"
  wait_file "$T/ctl/stall-ready" || bad "stalled peer did not start"
  FTIO_EXIT_WAIT_MS=500 FTIO_BUFFER_MB=16 FTIO_FLUSH_MS=100000 timeout 60 \
    env LD_PRELOAD="$PRELOAD" "$L" "$T" loop 200000 2>"$T/stall.err" || bad "stalled peer: run"
  kill $sp 2>/dev/null
  grep -q 'did not take all of job' "$T/stall.err" && ok "stalled peer: warning" \
    || bad "stalled peer: no warning ($(cat "$T/stall.err"))"
  wire recv "$T"/spool/*.msgpack >"$T/stall" 2>/dev/null
  expect_eq "$T/stall" finals 1 "stalled peer: final batch spooled"
  expect_eq "$T/stall" seq_dups 0 "stalled peer: each batch spooled once"
  expect_eq "$T/stall" bad 0 "stalled peer: spool decodes"
  n=$(val "$T/stall" count.posix.write)
  [ "${n:-0}" -gt 0 ] && ok "stalled peer: $n writes spooled" || bad "stalled peer: no writes spooled"
fi

# The test receiver acknowledges every batch it decodes, and with -N none
# (a daemon that takes batches and hangs): then the program spools them all
# at exit (FTIO_EXIT_WAIT_MS later), the final one included; otherwise
# nothing is spooled.
for mode in N ack; do
  rm -f "$T"/spool/*
  opt=""; [ $mode = N ] && opt=-N
  start_recv "$T/recv-$mode" -i 10 -n 1 $opt
  FTIO_EXIT_WAIT_MS=300 traced "$B/bin/posix_periodic" -d "$T/d" -n 2 -p 0.05 -b 64K -k 64K \
    >/dev/null 2>"$T/recv-$mode.log" || bad "recv $mode: program failed"
  wait_recv
  expect_eq "$T/recv-$mode" count.posix.write 2 "recv $mode: writes received"
  if [ $mode = N ]; then
    set -- "$T"/spool/*.msgpack
    [ -f "$1" ] && wire recv "$@" >"$T/recv-N.spool" || : >"$T/recv-N.spool"
    expect_eq "$T/recv-N.spool" count.posix.write 2 "recv -N: unacknowledged writes spooled"
    expect_eq "$T/recv-N.spool" finals 1 "recv -N: final batch spooled"
  else
    [ -z "$(ls "$T/spool")" ] && ok "recv: acknowledged, nothing spooled" || bad "recv: spooled $(ls "$T/spool")"
  fi
done
rm -f "$T"/spool/*

# posix_periodic example: 3 checkpoints of 1 MiB in 64 KiB writes + fsync.
start_recv "$T/pp" -i 10 -n 1
traced "$B/bin/posix_periodic" -d "$T/d" -n 3 -p 0.05 -b 1M -k 64K >/dev/null || bad "posix_periodic"
wait_recv
expect_eq "$T/pp" count.posix.write 48 "posix_periodic: writes"
expect_eq "$T/pp" bytes.posix.write 3145728 "posix_periodic: bytes"
expect_eq "$T/pp" count.posix.sync 3 "posix_periodic: fsyncs"
"$B/bin/posix_periodic" -n x 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "posix_periodic: bad option -> one line, exit 2" \
  || bad "posix_periodic bad option: rc=$rc"

finish
