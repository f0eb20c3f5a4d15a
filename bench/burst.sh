#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/burst.sh -- the shim under a burst: tests/shim-burst makes 10^6
# one-byte write(2) + fwrite(3) calls as fast as it can from 1 and 8 threads,
# plain and under libftio.so (no daemon: everything spooled), 5 runs each,
# alternating; prints the median wall time per call, the overhead per call
# (traced - plain) and the call rate the shim absorbed with the records lost
# (0 unless FTIO_BUFFER_MAX_MB is reached).  Figures go to bench/README.md.
B=${B:-build}
case "$B" in /*) ;; *) B="$PWD/$B" ;; esac
BURST="$B/tests/shim-burst"
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-burst.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
N=${BURST_CALLS:-1000000}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '| threads | plain ns/call | traced ns/call | overhead ns/call | traced calls/s | records lost |\n|---:|---:|---:|---:|---:|---:|\n'
for threads in 1 8; do
  per=$((N / threads))
  : >"$T/plain"; : >"$T/traced"; lost=0
  for run in 1 2 3 4 5; do
    "$BURST" $threads $per "$T" | sed -n 's/^seconds=//p' >>"$T/plain"
    rm -rf "$T/spool"; mkdir -p "$T/spool"
    FTIO_SPOOL_DIR="$T/spool" LD_PRELOAD="$B/lib/libftio.so" "$BURST" $threads $per "$T" \
      | sed -n 's/^seconds=//p' >>"$T/traced"
    l=$("$B/bin/ftio-wire" recv "$T"/spool/*.msgpack | sed -n 's/^lost=//p')
    lost=$((lost + ${l:-0}))
  done
  p=$(median <"$T/plain"); t=$(median <"$T/traced")
  awk -v p="$p" -v t="$t" -v n="$N" -v th="$threads" -v lost="$lost" 'BEGIN {
    printf "| %d | %.0f | %.0f | %+.0f | %.2f M | %d |\n", th, p / n * 1e9, t / n * 1e9, (t - p) / n * 1e9, n / t / 1e6, lost }'
done
