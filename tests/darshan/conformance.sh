#!/bin/sh
# conformance.sh -- our native Darshan reader against Darshan's own tools on
# the real logs of tests/data/darshan (every log format 3.00-3.41, x86_64 and
# big-endian ppc64, DXT POSIX/MPI-IO, HEATMAP, STDIO-only, empty, partial):
# decoded counters, heatmap bins and DXT segments equal the saved
# darshan-parser / darshan-dxt-parser output (tests/darshan/compare.sh).
# Then the same logs rewritten with bzip2 and with uncompressed regions
# (tests/darshan/recompress.py) decode to exactly the same values.
cd "$(dirname "$0")/../.." || exit 1
B=${FTIO_TEST_BUILD:-build}
D=tests/data/darshan
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
out=$(sh tests/darshan/compare.sh -v $D) || { echo "$out"; echo "FAIL: conformance"; fail=1; }
echo "$out" | tail -1
n=$(echo "$out" | grep -c '^MATCH')
[ "$n" -ge 30 ] || { echo "FAIL: only $n logs compared"; fail=1; }

for log in $D/release_logs/mpi-io-test-ppc64-3.1.3.darshan $D/release_logs/mpi-io-test-x86_64-3.0.0.darshan \
           $D/release_logs/mpi-io-test-x86_64-3.5.0.darshan \
           $D/runtime_and_dxt_heatmaps_diagonal_write_only/runtime_and_dxt_heatmaps_diagonal_write_only.darshan; do
  "$B/tests/darshan_dump" "$log" >"$T/zlib" || { echo "FAIL: dump $log"; fail=1; continue; }
  for m in bzip2 none; do
    python3 tests/darshan/recompress.py $m "$log" "$T/re.darshan" || { echo "FAIL: recompress $m $log"; fail=1; continue; }
    "$B/tests/darshan_dump" "$T/re.darshan" >"$T/$m" || { echo "FAIL: dump $m $log"; fail=1; continue; }
    cmp -s "$T/zlib" "$T/$m" || { echo "FAIL: $m copy of $log decodes differently"; diff "$T/zlib" "$T/$m" | head -5; fail=1; }
  done
done
[ $fail = 0 ] && echo "conformance: ok"
exit $fail
