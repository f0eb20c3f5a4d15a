#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/contention/run.sh [SECONDS] -- the contention benchmark of issue 26
# (bench/README.md "contention"): CONTENTION_JOBS (4..8, default 6)
# concurrent MPI jobs with different periods -- examples/checkpoint (POSIX
# and collective MPI-IO) and bench/realapps' shapes (uneven, rank0,
# heights, stagger, drift) -- writing with fsync to the same disk, so that
# their phases collide and slow each other down, live under one ftiod
# (LD_PRELOAD=libftio.so, every machine message kept: --machine-log 1) for
# about SECONDS (default 300).  The truth comes from the programs
# themselves: each prints its ranks' own phase times (CLOCK_REALTIME, open
# to close, fsync included: checkpoint --phases, shapes' phaselog), and the
# disk's own counters (/sys/dev/block/MAJ:MIN/stat, sampled every 0.25 s)
# give the bytes that reached it.  bench/contention/score.py scores
# ftiod's messages against that truth (score.json, table.md in the run's
# directory, CONTENTION_OUT, default $B/contention).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=$(cd "${B:-build}" 2>/dev/null && pwd) || { echo "contention: no build directory (make)" >&2; exit 1; }
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
SECONDS_WANTED=${1:-${CONTENTION_SECONDS:-300}}
NJOBS=${CONTENTION_JOBS:-6}
OUT=${CONTENTION_OUT:-$B/contention}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for f in "$B/bin/ftiod" "$B/bin/checkpoint" "$B/bench/realapps/shapes" "$B/lib/libftio.so"; do
  [ -x "$f" ] || [ -f "$f" ] || { echo "contention: $f is missing (make)" >&2; exit 1; }
done
[ "$NJOBS" -ge 4 ] && [ "$NJOBS" -le 8 ] || { echo "contention: CONTENTION_JOBS must be 4..8" >&2; exit 2; }

RUN="$OUT/run-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$RUN/data" || exit 1
ln -sfn "$RUN" "$OUT/last"
echo "contention: $NJOBS jobs for ~$SECONDS_WANTED s in $RUN"

PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$RUN/data"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- ftiod, keeping every machine message --------------------------------------
"$B/bin/ftiod" --config none --auth none --listen "ipc://$RUN/d.in" --pub "ipc://$RUN/d.pub" \
  --status-endpoint "ipc://$RUN/d.st" --log "$RUN/d.log" --machine-log 1 \
  --machine-horizon 120 --machine-history 60 2>"$RUN/d.err" &
DPID=$!
PIDS="$PIDS $DPID"
i=0
until grep -q 'listening on' "$RUN/d.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 200 ] && { echo "contention: ftiod did not start" >&2; exit 1; }
  sleep 0.05
done

# ---- the disk's own counters ------------------------------------------------------
"$PY" - "$RUN/data" "$RUN/disk.tsv" <<'PYEOF' &
import os, sys, time
st = os.stat(sys.argv[1])
path = "/sys/dev/block/%d:%d/stat" % (os.major(st.st_dev), os.minor(st.st_dev))
out = open(sys.argv[2], "w")
out.write("# %s: Unix time, sectors written (512 B)\n" % path)
while True:
    with open(path) as f:
        w = f.read().split()
    out.write("%.3f\t%s\n" % (time.time(), w[6]))
    out.flush()
    time.sleep(0.25)
PYEOF
PIDS="$PIDS $!"

# ---- the jobs ----------------------------------------------------------------------
SHIM="$B/lib/libftio.so"
export FTIO_ENDPOINT="ipc://$RUN/d.in" FTIO_AUTH=none FTIO_DAEMON_CONFIG=none
# name ranks compute_s program args... (the number of phases fits SECONDS)
JOBS="c6 4 6.0 ckpt --posix -b 48M
u9 2 9.0 shapes uneven -b 96M
r7 2 7.5 shapes rank0 -b 96M
m11 2 11.0 ckpt -b 128M
h5 2 5.0 shapes heights -b 64M
s13 3 13.0 shapes stagger -b 48M
d8 2 8.0 shapes drift -b 64M
p15 2 15.0 ckpt --posix -b 128M"
n=0
echo "$JOBS" | head -n "$NJOBS" >"$RUN/jobs.txt"
while read -r name np c prog args; do
  n=$((n + 1))
  phases=$(awk "BEGIN { print int($SECONDS_WANTED / ($c + 1)) }")
  mkdir -p "$RUN/data/$name"
  case $prog in
    ckpt) cmd="$B/bin/checkpoint -n $phases -c $c --fsync --phases -o $RUN/data/$name $args" ;;
    shapes) cmd="$B/bench/realapps/shapes $args -n $phases -c $c -s 1 -o $RUN/data/$name" ;;
  esac
  # shellcheck disable=SC2086
  FTIO_JOB=$name mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$SHIM" \
    -x FTIO_ENDPOINT -x FTIO_JOB -x FTIO_AUTH -x FTIO_DAEMON_CONFIG $cmd \
    >"$RUN/$name.out" 2>"$RUN/$name.err" &
  echo "$!" >"$RUN/$name.pid"
  PIDS="$PIDS $!"
  sleep 1.3                     # staggered starts: the phases drift against each other
done <"$RUN/jobs.txt"
failed=0
while read -r name rest; do
  wait "$(cat "$RUN/$name.pid")" || { echo "contention: job $name failed: $(tail -2 "$RUN/$name.err")" >&2; failed=1; }
done <"$RUN/jobs.txt"
# the jobs whose ranks do not all write end by `ftio end`, as an epilog would
sleep 5
while read -r name rest; do
  grep -q "\"topic\":\"ftio.$name.end\"" "$RUN/d.log" ||
    "$B/bin/ftio" end --endpoint "ipc://$RUN/d.st" "$name" >/dev/null 2>&1
done <"$RUN/jobs.txt"
sleep 3
[ $failed = 0 ] || exit 1
"$PY" "$HERE/score.py" "$RUN" || exit 1
