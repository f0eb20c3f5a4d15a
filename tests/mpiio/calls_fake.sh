#!/bin/sh
# calls_fake.sh -- the MPI layer alone: every MPI-IO call family on 2 ranks,
# preloading libftio-mpifake.so (MPI objects + a text-file fake core), and
# checks that each call gave exactly the record it must (op, flags, bytes,
# offset, async duration), that non-I/O requests and PMPI calls gave nothing
# extra, and that a rank which skips MPI_Finalize still reports (the exit path).
set -eu
B=${FTIO_TEST_BUILD:-build}
HERE=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0

run() {   # run NP DIR [args]: NP ranks of mpiio_calls under the fake core
    np=$1 dir=$2; shift 2
    mkdir -p "$dir"
    rc=0
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" \
        -x LD_PRELOAD="$B/tests/libftio-mpifake.so" -x FTIO_FAKE_OUT="$dir/rec" -x ASAN_OPTIONS \
        "$B/tests/mpiio_calls" "$dir" "$@" || rc=$?
    # mpirun fails a job whose rank skipped MPI_Finalize: expected there
    [ "$rc" = 0 ] || [ "${1:-}" = --no-finalize ] || { echo "FAIL: mpirun rc=$rc"; exit 1; }
    cat "$dir"/rec.* > "$dir/records"
    # the fake core's file id: FNV-1a of the path as given
    python3 - "$dir" > "$dir/files" <<'PY'
import sys
for name in ("calls.dat", "deleted.dat"):
    p = sys.argv[1] + "/" + name
    h = 2166136261
    for c in p.encode():
        h = ((h ^ c) * 16777619) & 0xffffffff
    print(h or 1, p)
PY
    python3 "$HERE/check_records.py" --dir "$dir" --records "$dir/records" --files "$dir/files" --ranks "$np"
}

run 2 "$T/finalize"
# A lone rank that exits without MPI_Finalize (with more ranks, mpirun kills
# the others as soon as one exits that way, which would make this racy).
run 1 "$T/nofinalize" --no-finalize
# rank numbers came from MPI_Init
for r in 0 1; do
    grep -q "^$r 2 " "$T/finalize/records" || { echo "FAIL: no record of rank $r"; exit 1; }
done
echo "calls_fake: ok"
