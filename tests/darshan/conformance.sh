#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# conformance.sh -- our native Darshan reader against Darshan's own tools on
# the real logs of tests/data/darshan (every log format 3.00-3.41, x86_64 and
# big-endian ppc64, DXT POSIX/MPI-IO, HEATMAP, STDIO-only, empty, partial):
# decoded counters, heatmap bins and DXT segments equal the saved
# darshan-parser / darshan-dxt-parser output (tests/darshan/compare.sh).
# Then the same logs rewritten with bzip2 and with uncompressed regions
# (tests/darshan/recompress.py) decode to exactly the same values.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
D=tests/data/darshan
out=$(sh tests/darshan/compare.sh -v $D) || { echo "$out"; bad "conformance"; }
echo "$out" | tail -1
n=$(echo "$out" | grep -c '^MATCH')
[ "$n" -ge 30 ] || { bad "only $n logs compared"; }

for log in $D/release_logs/mpi-io-test-ppc64-3.1.3.darshan $D/release_logs/mpi-io-test-x86_64-3.0.0.darshan \
           $D/release_logs/mpi-io-test-x86_64-3.5.0.darshan \
           $D/runtime_and_dxt_heatmaps_diagonal_write_only/runtime_and_dxt_heatmaps_diagonal_write_only.darshan; do
  "$B/tests/darshan_dump" "$log" >"$T/zlib" || { bad "dump $log"; continue; }
  for m in bzip2 none; do
    python3 tests/darshan/recompress.py $m "$log" "$T/re.darshan" || { bad "recompress $m $log"; continue; }
    "$B/tests/darshan_dump" "$T/re.darshan" >"$T/$m" || { bad "dump $m $log"; continue; }
    cmp -s "$T/zlib" "$T/$m" || { bad "$m copy of $log decodes differently"; diff "$T/zlib" "$T/$m" | head -5; }
  done
done
finish
