#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# overhead.sh -- ns that libftio.so adds per intercepted call.
#
#   B=build sh bench/overhead.sh            (after `make bench`)
#   CALLS=1000000 RUNS=5 MODES="pwrite read fwrite untraced" B=build sh bench/overhead.sh
#   BASE_LIB=/path/to/old/libftio.so B=build sh bench/overhead.sh
#
# For each mode of bench/overhead.c: $RUNS runs of $CALLS 1-byte calls, plain
# and preloaded alternately (same binary, same machine state; BASE_LIB=<an
# older libftio.so> adds its runs in between, for a before/after in one
# session), and the median of each; "added" = median(preloaded) -
# median(plain), in CPU time of the calling thread (what the application
# pays), of the whole process (with the shim's flusher) and in wall time;
# "xfloor" = added / the cost of two clock_gettime() reads in the same run.  Preloaded
# runs spool to a temporary directory (FTIO_SPOOL=always): the flusher's
# encoding and writing competes for the same 2 cores, as in real use.
# The second table repeats it with an idle thread in the program (see
# bench/overhead.c: the kernel's single-threaded fast paths for syscalls are
# lost once a second thread shares the descriptor table; the shim's flusher
# has its own table for that reason).  "untraced" is a read() the shim does
# not trace: it should add ~0.  The third table measures the same calls
# paired inside one process (bench/overhead.c "paired"), which a loaded
# machine disturbs far less than the alternating processes above.
#
# Extending: every executable-or-not bench/overhead-*.sh next to this file is
# run afterwards with the same environment (B, CALLS, RUNS), so other layers
# add their loops without editing this script; each prints its own table.
set -eu
B=${B:-build}
CALLS=${CALLS:-1000000}
RUNS=${RUNS:-5}
MODES=${MODES:-pwrite read fwrite untraced}
LIB=$(cd "$B/lib" && pwd)/libftio.so
BIN="$B/bench/overhead"
[ -f "$LIB" ] && [ -x "$BIN" ] || { echo "overhead: build $LIB and $BIN first (make bench)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[++n] = $1 } END { print v[int((n + 1) / 2)] }'; }
# key=value of a run's output (ns_per_call, thread_ns_per_call, process_ns_per_call).
field() { sed -n "s/^$1=//p" "$2"; }

# run NAME LIB MODE [mt]: one run of MODE, plain (LIB "") or preloaded; its
# three figures appended to $T/NAME.{wall,thread,proc}.
run() {
  _n=$1 _lib=$2 _m=$3; shift 3
  if [ -z "$_lib" ]; then
    "$BIN" "$_m" "$CALLS" "$T" "$@" >"$T/out" || { echo "overhead: a run failed" >&2; exit 1; }
  else
    env LD_PRELOAD="$_lib" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T" "$BIN" "$_m" "$CALLS" "$T" "$@" >"$T/out" \
      || { echo "overhead: a run failed" >&2; exit 1; }
    rm -f "$T"/*.msgpack
  fi
  field ns_per_call "$T/out" >>"$T/$_n.wall"
  field thread_ns_per_call "$T/out" >>"$T/$_n.thread"
  field process_ns_per_call "$T/out" >>"$T/$_n.proc"
}

# table TITLE [mt]: for every mode, plain and preloaded (and BASE_LIB's, when
# given) alternating, RUNS each; medians; "added" = median(preloaded) -
# median(plain), per figure; "floor" = two clock_gettime() reads (the
# clockpair mode, CPU of the thread), measured in the same run.
table() {
  echo "$1"
  rm -f "$T"/*.wall "$T"/*.thread "$T"/*.proc
  for i in $(seq "$RUNS"); do
    run floor "" clockpair ${2:-}
  done
  floor=$(median <"$T/floor.thread")
  echo "floor (two clock_gettime, thread CPU): $floor ns"
  if [ -n "${BASE_LIB:-}" ]; then
    printf '%-9s %8s | %8s %8s %8s %6s | %8s %8s %6s | %8s %8s\n' call plain base new new-ad "xfloor" \
      base-prc new-prc "xfloor" base-wall new-wall
  else
    printf '%-9s %8s %8s %8s %6s | %8s %6s | %8s\n' call plain traced added "xfloor" "+process" "xfloor" "+wall"
  fi
  for m in $MODES; do
    rm -f "$T"/p.* "$T"/n.* "$T"/b.*
    for i in $(seq "$RUNS"); do
      run p "" "$m" ${2:-}
      [ -n "${BASE_LIB:-}" ] && run b "$BASE_LIB" "$m" ${2:-}
      run n "$LIB" "$m" ${2:-}
    done
    for k in wall thread proc; do
      eval "p_$k=\$(median <\"\$T/p.\$k\")"
      eval "n_$k=\$(median <\"\$T/n.\$k\")"
      [ -n "${BASE_LIB:-}" ] && eval "b_$k=\$(median <\"\$T/b.\$k\")"
    done
    if [ -n "${BASE_LIB:-}" ]; then
      echo "$m $p_thread $b_thread $n_thread $b_proc $n_proc $p_proc $b_wall $n_wall $p_wall $floor" | awk '{
        printf "%-9s %8.1f | %+8.1f %+8.1f %8.1f %6.2f | %+8.1f %+8.1f %6.2f | %+8.1f %+8.1f\n", $1, $2,
          $3 - $2, $4 - $2, $4, ($4 - $2) / $11, $5 - $7, $6 - $7, ($6 - $7) / $11, $8 - $10, $9 - $10 }'
    else
      echo "$m $p_thread $n_thread $p_proc $n_proc $p_wall $n_wall $floor" | awk '{
        printf "%-9s %8.1f %8.1f %+8.1f %6.2f | %+8.1f %6.2f | %+8.1f\n", $1, $2, $3, $3 - $2, ($3 - $2) / $8,
          $5 - $4, ($5 - $4) / $8, $7 - $6 }'
    fi
  done
}

table "libftio.so overhead, single-threaded program: $CALLS calls per run, median of $RUNS runs (ns per call)"
table "libftio.so overhead, program with an idle thread (mt): $CALLS calls per run, median of $RUNS runs" mt

# paired_run LIB MODE NAME: one run of `overhead paired MODE` under LIB; its
# medians appended to $T/NAME.{plain,added,floor,flusher}.
paired_run() {
  env LD_PRELOAD="$1" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T" "$BIN" paired "$2" "$CALLS" "$T" >"$T/out" \
    || { echo "overhead: a paired run failed" >&2; exit 1; }
  rm -f "$T"/*.msgpack
  for k in plain added floor flusher; do field ${k}_ns "$T/out" >>"$T/$3.$k"; done
}

# The same calls measured inside one process (bench/overhead.c "paired":
# libc's own function, the wrapper and two clock_gettime() in alternating
# blocks): the load of a shared machine falls on both sides alike.  "xfloor"
# = added / the clock pair of the same run; "+flusher" adds the CPU of the
# shim's other threads per call (the process's cost).
echo "libftio.so overhead, paired in one process: median of $RUNS runs (each the median of $CALLS calls in blocks of 1000), thread CPU ns per call"
printf '%-9s %-5s %8s %8s %8s %6s | %9s %6s\n' call lib plain floor added xfloor +flusher xfloor
for m in $MODES; do
  [ "$m" = untraced ] && continue
  rm -f "$T"/pb.* "$T"/pn.*
  for i in $(seq "$RUNS"); do
    [ -n "${BASE_LIB:-}" ] && paired_run "$BASE_LIB" "$m" pb
    paired_run "$LIB" "$m" pn
  done
  for w in ${BASE_LIB:+pb} pn; do
    [ "$w" = pb ] && name=base || name=new
    echo "$m $name $(median <"$T/$w.plain") $(median <"$T/$w.floor") $(median <"$T/$w.added") $(median <"$T/$w.flusher")" |
      awk '{ printf "%-9s %-5s %8.1f %8.1f %+8.1f %6.2f | %+9.1f %6.2f\n", $1, $2, $3, $4, $5, $5 / $4, $5 + $6, ($5 + $6) / $4 }'
  done
done

for ext in "$(dirname "$0")"/overhead-*.sh; do
  [ -f "$ext" ] && B="$B" CALLS="$CALLS" RUNS="$RUNS" sh "$ext"
done
exit 0
