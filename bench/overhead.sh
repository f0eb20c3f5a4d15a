#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# overhead.sh -- ns that libftio.so adds per intercepted call.
#
#   B=build sh bench/overhead.sh            (after `make bench`)
#   CALLS=1000000 RUNS=5 MODES="pwrite read fwrite untraced" B=build sh bench/overhead.sh
#
# For each mode of bench/overhead.c: $RUNS runs of $CALLS 1-byte calls, plain
# and preloaded alternately (same binary, same machine state), and the
# median of each; "added" = median(preloaded) - median(plain).  Preloaded
# runs spool to a temporary directory (FTIO_SPOOL=always): the flusher's
# encoding and writing competes for the same 2 cores, as in real use.
# The second table repeats it with an idle thread in the program (see
# bench/overhead.c: the kernel's single-threaded fast paths for syscalls are
# lost once a second thread shares the descriptor table; the shim's flusher
# has its own table for that reason).  "untraced" is a read() the shim does
# not trace: it should add ~0.
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
ns() { v=$(sed -n 's/^ns_per_call=//p'); [ -n "$v" ] || { echo "overhead: a run failed" >&2; exit 1; }; echo "$v"; }

# table TITLE [mt]: one table, plain vs preloaded, for every mode.
table() {
  echo "$1"
  printf '%-8s %10s %10s %10s\n' call plain preloaded added
  for m in $MODES; do
    : >"$T/plain"; : >"$T/pre"
    for i in $(seq "$RUNS"); do
      "$BIN" "$m" "$CALLS" "$T" ${2:-} | ns >>"$T/plain"
      env LD_PRELOAD="$LIB" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T" "$BIN" "$m" "$CALLS" "$T" ${2:-} \
        | ns >>"$T/pre"
      rm -f "$T"/*.msgpack
    done
    p=$(median <"$T/plain"); q=$(median <"$T/pre")
    printf '%-8s %10s %10s %10s\n' "$m" "$p" "$q" "$(echo "$q $p" | awk '{ printf "%.1f", $1 - $2 }')"
  done
}

table "libftio.so overhead, single-threaded program: $CALLS calls per run, median of $RUNS runs (ns per call)"
table "libftio.so overhead, program with an idle thread (mt): $CALLS calls per run, median of $RUNS runs" mt

for ext in "$(dirname "$0")"/overhead-*.sh; do
  [ -f "$ext" ] && B="$B" CALLS="$CALLS" RUNS="$RUNS" sh "$ext"
done
exit 0
