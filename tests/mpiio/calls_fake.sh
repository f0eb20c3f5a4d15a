#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# calls_fake.sh -- the MPI layer alone: every MPI-IO call family on 2 ranks,
# preloading libftio-mpifake.so (MPI objects + a text-file fake core), and
# checks that each call gave exactly the record it must (op, flags, bytes,
# offset, async duration), that non-I/O requests and PMPI calls gave nothing
# extra, that a rank which skips MPI_Finalize still reports (exit path), that
# MPI_Abort flushes first, and
# that with another PMPI tool preloaded before or after the shim every call
# is still recorded once.  Then the checkpoint example under ROMIO (which,
# unlike OMPIO, calls PMPI_* internally): still one record per write; and
# MPI-IO from Fortran (mpi_f08), which reaches C through PMPI_* only.
set -eu
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C
no_leak_checks
need "$B/tests/libftio-mpifake.so" "$B/tests/mpiio_calls" "$B/tests/libmpi-othertool.so"
FAKESO="$B/tests/libftio-mpifake.so"
ASAN=$(ftio_asan_prefix "$FAKESO")
FAKE="$ASAN$FAKESO"
OTHER="$B/tests/libmpi-othertool.so"

run() {   # run PRELOAD NP DIR [args]: NP ranks of mpiio_calls under the fake core
    pre=$1 np=$2 dir=$3; shift 3
    mkdir -p "$dir"
    run_mpi "$np" -x LD_PRELOAD="$pre" -x FTIO_FAKE_OUT="$dir/rec" "$B/tests/mpiio_calls" "$dir" "$@" \
        2> "$dir/stderr"
    cat "$dir/stderr" >&2
    # mpirun fails a job whose rank skipped MPI_Finalize or aborted: expected
    [ "$rc" = 0 ] || [ -n "${1:-}" ] || fail "mpirun rc=$rc"
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

run "$FAKE" 2 "$T/finalize"
# A lone rank that exits without MPI_Finalize (with more ranks, mpirun kills
# the others as soon as one exits that way, which would make this racy).
run "$FAKE" 1 "$T/nofinalize" --no-finalize
# MPI_Abort flushes before aborting (the fake core's exit-time flush is off,
# so whatever arrives was flushed by the MPI_Abort wrapper)
export FTIO_FAKE_NO_EXIT_FLUSH=1
run "$FAKE" 1 "$T/abort" --abort
unset FTIO_FAKE_NO_EXIT_FLUSH
# Another PMPI tool after the shim (the shim's MPI_X forwards to the tool's
# MPI_X, whose PMPI_X call comes back into the shim), and before it.
run "$ASAN$FAKESO $OTHER" 1 "$T/after"
run "$ASAN$OTHER $FAKESO" 1 "$T/before"
for d in after before; do
    grep -q "othertool: rank 0 saw [1-9][0-9]* calls" "$T/$d/stderr" || fail "the other tool was not in the call path ($d)"
done
# rank numbers came from MPI_Init
for r in 0 1; do
    grep -q "^$r 2 " "$T/finalize/records" || fail "no record of rank $r"
done
# ROMIO (mpiio_calls itself crashes inside this Open MPI's ROMIO 3.2.1, with
# or without the shim, so the checkpoint example stands in for it).
mkdir -p "$T/romio"
run_mpi 2 --mca io romio321 -x LD_PRELOAD="$FAKE" -x FTIO_FAKE_OUT="$T/romio/rec" \
    "$B/bin/checkpoint" -n 3 -c 0 -b 65536 -o "$T/romio"
[ "$rc" = 0 ] || fail "checkpoint under ROMIO rc=$rc"
for r in 0 1; do
    got=$(cat "$T/romio"/rec.* | awk -v r=$r '$1 == r && $3 == 1 { print $4, $5, $6 }' | sort | uniq -c | tr -s ' ')
    [ "$got" = " 3 2 65536 $((r * 65536))" ] || fail "ROMIO rank $r writes: '$got'"
done
# Fortran: the bindings call PMPI_* directly; same records as from C.
if [ -x "$B/tests/mpiio_fortran" ]; then
    mkdir -p "$T/fortran"
    run_mpi 2 -x LD_PRELOAD="$FAKE" -x FTIO_FAKE_OUT="$T/fortran/rec" "$B/tests/mpiio_fortran" "$T/fortran"
    [ "$rc" = 0 ] || fail "mpiio_fortran rc=$rc"
    got=$(cat "$T/fortran"/rec.* | awk '{ print $1, $2, $3, $4, $5, $6 }' | sort | tr '\n' ';')
    want=""
    for r in 0 1; do
        want="$want$r 2 1 0 16 $((r * 16));$r 2 1 1 16 $((64 + r * 16));$r 2 1 2 16 $((128 + r * 16));"
        want="$want$r 2 2 2 0 -1;$r 2 3 2 0 -1;"   # open, close: collective
    done
    [ "$got" = "$want" ] || fail "Fortran records: got '$got', want '$want'"
else
    echo "note: no Fortran compiler, Fortran bindings not tested"
fi
echo "calls_fake: ok"
