#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ftio replay of spool files into ftiod gives the end summary the offline
# `ftio --json` gives on the same files, in both sampling modes: frequency,
# confidence and candidates.  The spool files are the TMIO reference trace
# tests/data/tmio-8ranks.jsonl turned into wire batches of 8 simulated
# processes (ftio-wire tmio).  ftiod runs with a long --min-interval so that
# its one live analysis does not matter: the summary is over the whole job.
#   hold:    `ftio --compat` and `ftiod --compat --sampling hold`; write must be the ALGORITHM.md §8
#            reference frequency 0.519031142 Hz.  Needs a grid with an edge on
#            each mode's earliest record: the replay's first read record is not
#            the earliest read, so the summary is re-laid from the record log.
#   average: the default detector, `ftio` and `ftiod` (average sampling).
#   out of order: rank 7's file first, so a later batch brings the earliest
#            write: still the offline result (the grid moves to it while
#            nothing was analysed, or the summary is re-laid); with
#            --summary-records 0 (no record log) the summary stays on the
#            live grid, which starts before t_0 (the documented limitation).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
rc=0; "$B/bin/ftiod" --config none --sampling holdd >/dev/null 2>"$T/bad.err" || rc=$?
[ $rc = 2 ] || fail "--sampling holdd: exit $rc, expected 2"
head -1 "$T/bad.err" | grep -q "^ftiod: --sampling: must be hold or average, not 'holdd'$" \
  || fail "--sampling holdd: $(head -1 "$T/bad.err")"
rm -f "$T/bad.err"
mkdir -p "$T/spool"
wire tmio "$HERE/../data/tmio-8ranks.jsonl" --spool "$T/spool" --job tm \
  || fail "ftio-wire tmio"
SPOOL=$(ls "$T"/spool/*.msgpack)
RANK7=$(ls "$T"/spool/*.msgpack | tail -1)
for m in write read; do
  timeout 60 "$B/bin/ftio" --compat --json -m $m $SPOOL >"$T/off.hold.$m.json" \
    || fail "offline ftio --compat -m $m"
  timeout 60 "$B/bin/ftio" --json -m $m $SPOOL >"$T/off.average.$m.json" \
    || fail "offline ftio -m $m"
done

offline() {   # offline SAMPLING MODE EXPR  (d = the JSON)
  "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($3)" "$T/off.$1.$2.json"
}

# compare NAME SAMPLING: the end summary of daemon NAME against offline.
compare() {
  for m in write read; do
    S="last('ftio.tm.end')['summary']['$m']"
    off=$(offline $2 $m "d['frequency']"); on=$(jsonl "$T/$1.log" "$S['frequency']")
    coff=$(offline $2 $m "d['confidence']"); con=$(jsonl "$T/$1.log" "$S['confidence']")
    noff=$(offline $2 $m "len(d['candidates'])"); non=$(jsonl "$T/$1.log" "len($S['candidates'])")
    Noff=$(offline $2 $m "d['window']['samples']"); Non=$(jsonl "$T/$1.log" "$S['window']['samples']")
    echo "$1 $2 $m: offline f=$off conf=$coff N=$Noff ($noff cand), ftiod f=$on conf=$con N=$Non ($non cand)"
    close 1e-9 "$on" "$off" || fail "$1 $m: ftiod f=$on != offline $off"
    close 1e-9 "$con" "$coff" || fail "$1 $m: ftiod confidence $con != offline $coff"
    [ "$non" = "$noff" ] || fail "$1 $m: candidates differ"
    [ "$Non" = "$Noff" ] || fail "$1 $m: samples differ"
  done
}

# run NAME FILES-FIRST OPTIONS...: a daemon, and in the background the replay
# of FILES-FIRST then all; ended NAME: its replay went through and the job
# ended.  The daemons are independent: their jobs are replayed and settle
# at the same time.
RUNS=""
run() {
  name=$1; first=$2; shift 2
  start_daemon $name --min-interval 1000 "$@"
  ( if [ -n "$first" ]; then
      timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/$name.in" $first || exit 1
    fi
    exec timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/$name.in" $SPOOL ) 2>"$T/$name.replay.err" &
  PIDS="$PIDS $!"; RUNS="$RUNS $name:$!"
}
ended() {
  for r in $RUNS; do
    [ "${r%%:*}" = "$1" ] || continue
    wait "${r#*:}" || fail "replay $1: $(cat "$T/$1.replay.err")"
    wait_topic "$T/$1.log" ftio.tm.end 30
  done
}

run avg "" --sampling average
run hold "" --compat --sampling hold
run ooo "$RANK7" --compat --sampling hold
run nolog "$RANK7" --sampling hold --summary-records 0
ended avg
compare avg average
ended hold
compare hold hold
f=$(offline hold write "d['frequency']")
close 1e-9 "$f" 0.519031142 || fail "offline hold write f=$f, not the §8 reference"
ended ooo
compare ooo hold
ended nolog
grep -q "re-laid" "$T/nolog.err" && fail "nolog: re-laid without a record log"
t0=$(jsonl "$T/ooo.log" "last('ftio.tm.end')['summary']['write']['window']['start']")
t0n=$(jsonl "$T/nolog.log" "last('ftio.tm.end')['summary']['write']['window']['start']")
"$PY" -c "import sys; sys.exit(0 if 0 < float(sys.argv[1]) - float(sys.argv[2]) < 0.1 + 1e-6 else 1)" \
  "$t0" "$t0n" || fail "nolog: window start $t0n not within one bin before t_0 $t0"

recs=$(jsonl "$T/hold.log" "last('ftio.tm.end')['summary']['write']['records'] + last('ftio.tm.end')['summary']['read']['records']")
[ "$recs" = 2190 ] || fail "records $recs, expected 2190"
# Replaying the same files again is recognised batch by batch: nothing counted twice.
start_daemon e --min-interval 1000 --job-timeout 2
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/e.in" "$T"/spool/ftio-tm-gen-2000.msgpack 2>/dev/null
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/e.in" $SPOOL 2>/dev/null
wait_topic "$T/e.log" ftio.tm.end 30
st=$(jsonl "$T/e.log" "last('ftio.tm.end')['summary']['write']['records'] + last('ftio.tm.end')['summary']['read']['records']")
[ "$st" = 2190 ] || fail "after a double replay: $st records, expected 2190"
echo "ok"
