#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bad_peer.sh -- a bad peer or a bad environment never makes the application
# wait or lose its trace (issue 29 item 4):
#   - a peer at the endpoint that greets (ZeroMQ's handshake) and never
#     acknowledges (anyone may bind a tcp:// endpoint while ftiod is down):
#     20 short traced processes (cat) take about as long as with nobody at
#     the endpoint (they used to wait 300 ms each), and spool everything;
#   - FTIO_HANDOFF with lengths that overflow when summed is refused before
#     any arithmetic (under make asan: no over-read);
#   - an exec into another FTIO_JOB ends the first job's stream (its final
#     batch) and starts the second's: both jobs end complete, no batch missing;
#   - a daemon that answered one of the user's processes a minute ago and is
#     stopped now costs the next process the longer exit wait (300 ms: up,
#     only slow), and only that one: the marker of an answer is removed when
#     the wait runs out unanswered (with a marker of 5 s, a user's first
#     short process after a pause on a loaded node spooled what ftiod merged
#     a moment later: bench/exit_latency.sh's "1 run in 60").
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/bin/ftiod"
head -c 4096 /dev/zero >"$T/f"

# A greeting but silent peer.
"$PY" -c 'import zmq' 2>/dev/null || fail "no python3 with the zmq module (make check installs python3-zmq)"
timeout 120 "$PY" "$(dirname "$0")/stall_peer.py" "$FTIO_ENDPOINT" "$T/ctl/stall-ready" 100 & sp=$!
PIDS="$PIDS $sp"
wait_file "$T/ctl/stall-ready" || fail "silent peer did not start"
# 20 traced cats (FTIO_DEBUG on) against the silent peer, each paired with
# the same cat with nobody at the endpoint (it spools at once), run in turn
# so that a loaded machine slows both alike: the silent peer may not add a
# wait of its own (it used to add 300 ms each).  Prints the median of the
# pairs' differences and both sums, in s.
rm -f "$T"/spool/*
mkdir -p "$T/spool-absent"
"$PY" - "$FTIO_ENDPOINT" "ipc://$T/nobody.sock" "$PRELOAD" "$T/f" "$T/silent.dbg" \
  "$T/spool-absent" >"$T/pairs" <<'PYEOF' || fail "the traced cats did not run"
import os, statistics, subprocess, sys, time
def cat(endpoint, dbg, spool=os.environ["FTIO_SPOOL_DIR"]):
    env = dict(os.environ, FTIO_EXIT_WAIT_MS="3", FTIO_ENDPOINT=endpoint, LD_PRELOAD=sys.argv[3],
               FTIO_DEBUG="1", FTIO_SPOOL_DIR=spool)
    t = time.monotonic()
    subprocess.run(["cat", sys.argv[4]], env=env, stdout=subprocess.DEVNULL, stderr=dbg, check=True)
    return time.monotonic() - t
diffs, silent, absent = [], 0.0, 0.0
with open(sys.argv[5], "a") as dbg, open(os.devnull, "w") as null:
    for _ in range(20):
        a = cat(sys.argv[2], null, sys.argv[6])    # its spool files apart
        s = cat(sys.argv[1], dbg)
        diffs.append(s - a); silent += s; absent += a
print("%.4f %.3f %.3f" % (statistics.median(diffs), silent, absent))
PYEOF
read -r added silent absent <"$T/pairs"
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.1 else 1)" "$added" \
  && ok "silent peer: a cat took $added s more than with nobody there, median of 20 pairs (sums $silent vs $absent s)" \
  || bad "silent peer: a cat took $added s more than with nobody there, median of 20 pairs (sums $silent vs $absent s)"
grep -q "waiting up to" "$T/silent.dbg" && bad "silent peer: a process waited longer: $(grep -m1 'waiting up to' "$T/silent.dbg")" \
  || ok "silent peer: no process waited past FTIO_EXIT_WAIT_MS"
wire recv "$T"/spool/*.msgpack >"$T/silent" 2>/dev/null
expect_eq "$T/silent" finals 20 "silent peer: every process's final batch spooled"
expect_eq "$T/silent" count.posix.read 40 "silent peer: every read spooled (2 per cat)"
kill "$sp" 2>/dev/null
rm -f "$T"/spool/*

# FTIO_HANDOFF lengths past 2^64 in sum, and one past any hand-off.
for v in '0:1/18446744073709551615,2/2' '0:1/9223372036854775808,2/9223372036854775808' '0:1/0' \
         '99999999999999999999999:1/10'; do
  FTIO_SPOOL=always FTIO_DEBUG=1 traced sh -c "exec env FTIO_HANDOFF=\$\$:$v\;$T/nope cat $T/f" \
    >/dev/null 2>"$T/ho.err" && ok "FTIO_HANDOFF=<pid>:$v: no crash" || bad "FTIO_HANDOFF=$v: $(tail -3 "$T/ho.err")"
  grep -q "hand-off" "$T/ho.err" && bad "FTIO_HANDOFF=$v taken: $(grep hand-off "$T/ho.err")"
done
wire recv "$T"/spool/*.msgpack >"$T/ho"
expect_eq "$T/ho" count.posix.read 8 "FTIO_HANDOFF refused: the cats' own records spooled"
rm -f "$T"/spool/*

# An exec into another job.
start_daemon d --settle-end 1
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=first traced sh -c \
  "echo one >$T/one; FTIO_JOB=second; export FTIO_JOB; exec cat $T/one" >"$T/two" 2>"$T/jobs.err" \
  || bad "sh -c ... exec failed: $(cat "$T/jobs.err")"
wait_topic "$T/d.log" ftio.first.end 20
wait_topic "$T/d.log" ftio.second.end 20
for j in first second; do
  e="last('ftio.$j.end')"
  [ "$(jsonl "$T/d.log" "$e['complete'] and $e['missing_batches'] == 0 and $e['ended_by'] != 'timeout'")" = True ] \
    && ok "exec into another job: job $j complete, nothing missing" || bad "job $j: $(jsonl "$T/d.log" "$e")"
done
[ "$(jsonl "$T/d.log" "int(last('ftio.second.end')['summary']['read']['bytes'])")" = 4 ] \
  && ok "job second: cat's 4 bytes read" || bad "job second: $(jsonl "$T/d.log" "last('ftio.second.end')")"

# ftiod answered a minute ago (the marker, aged), then stopped: one longer wait
# (with the default FTIO_EXIT_WAIT_MS: the suite's 3000 ms outlast it).
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=known traced cat "$T/f" >/dev/null 2>"$T/known.err"
set -- "$T"/spool/.ftio-up-*
[ -e "$1" ] || fail "no marker of ftiod's answer in $T/spool"
touch -d "@$(($(date +%s) - 60))" "$1"
kill -STOP $DPID
for i in 1 2 3 4; do
  FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=known$i FTIO_DEBUG=1 FTIO_EXIT_WAIT_MS=3 traced cat "$T/f" \
    >/dev/null 2>>"$T/stopped.dbg"
done
kill -CONT $DPID
n=$(grep -c "waiting up to" "$T/stopped.dbg")
[ "$n" = 1 ] && ok "stopped daemon answered a minute ago: the first process waited longer, the next 3 did not" ||
  bad "stopped daemon answered a minute ago: $n of 4 processes waited longer (want 1)"
[ -e "$1" ] && bad "the marker outlived an unanswered wait: $(ls -l "$1")" || ok "the marker was removed"
finish
