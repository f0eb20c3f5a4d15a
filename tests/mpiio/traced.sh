#!/bin/sh
# traced.sh -- the MPI layer inside the real libftio.so, end to end through
# the shim's spool files (FTIO_SPOOL=always), decoded with mpiio-spool2txt.
#
#  1. mpiio_calls on 4 ranks: every MPI-IO call family gives exactly its
#     record per rank (op, flags, bytes, offset, async duration; nothing from
#     PMPI calls or non-I/O requests counted twice), and every POSIX record
#     OMPIO made on the test files is flagged nested.  Each rank's spool is
#     complete (final batch, nothing lost) and carries its MPI rank.
#  2. checkpoint, MPI-IO collective, 2 ranks x 3 x 256 KiB: per rank 3
#     collective writes of 256 KiB at offset rank*256 KiB; the nested POSIX
#     writes on the file add up to the same total (counted once at MPI-IO).
#  3. checkpoint --posix: plain (not nested) POSIX writes, 3 x 256 KiB per rank.
#  4. A rank that exits without MPI_Finalize still delivers all its records.
set -eu
B=${FTIO_TEST_BUILD:-build}
HERE=$(dirname "$0")
LIB=$(cd "$B/lib" && pwd)/libftio.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0
fail() { echo "FAIL: $*"; exit 1; }

# traced NP DIR PROGRAM ARGS...: run under the shim, decode the spools into
# DIR/records and DIR/files; mpirun's status is left in $rc.
traced() {
    np=$1 dir=$2; shift 2
    mkdir -p "$dir/spool"
    rc=0
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" \
        -x LD_PRELOAD="$LIB" -x FTIO_SPOOL=always -x FTIO_SPOOL_DIR="$dir/spool" \
        -x FTIO_JOB=mpiio-test -x FTIO_ENDPOINT="ipc://$dir/none.sock" -x ASAN_OPTIONS \
        "$@" || rc=$?
    : > "$dir/records"; : > "$dir/files"
    "$B/tests/mpiio-spool2txt" "$dir/records" "$dir/files" "$dir"/spool/*.msgpack > "$dir/spools"
    cat "$dir/spools"
    n=$(wc -l < "$dir/spools")
    [ "$n" -ge "$np" ] || fail "$n spool files for $np ranks"
    ! grep -v "final=1, lost=0" "$dir/spools" || fail "a spool without final batch or with losses"
}

# 1. every call family, 4 ranks
traced 4 "$T/calls" "$B/tests/mpiio_calls" "$T/calls"
[ "$rc" = 0 ] || fail "mpiio_calls rc=$rc"
python3 "$HERE/check_records.py" --dir "$T/calls" --records "$T/calls/records" \
    --files "$T/calls/files" --ranks 4 --nested

# 2. checkpoint, collective MPI-IO
BLK=262144
traced 2 "$T/ck" "$B/bin/checkpoint" -n 3 -c 0 -b $BLK -o "$T/ck"
[ "$rc" = 0 ] || fail "checkpoint rc=$rc"
fid=$(awk -v p="$T/ck/checkpoint.mpiio" '$2 == p { print $1; exit }' "$T/ck/files")
[ -n "$fid" ] || fail "checkpoint.mpiio never registered"
for r in 0 1; do
    got=$(awk -v r=$r -v f="$fid" '$1 == r && $2 == 2 && $3 == 1 && $7 == f { print $4, $5, $6 }' "$T/ck/records" | sort | uniq -c | tr -s ' ')
    want=" 3 2 $BLK $((r * BLK))"
    [ "$got" = "$want" ] || fail "rank $r checkpoint MPI-IO writes: '$got', want '$want' (count flags bytes offset)"
done
awk -v f="$fid" -v want=$((2 * 3 * BLK)) '
    $2 == 0 && $3 == 1 && $7 == f { if (int($4 / 4) % 2 == 0) bad++; sum += $5 }
    END { if (bad || sum != want) { printf "FAIL: nested POSIX writes: %d unflagged, %d bytes, want %d\n", bad, sum, want; exit 1 } }
' "$T/ck/records"

# 3. checkpoint --posix: file per process, not nested
traced 2 "$T/px" "$B/bin/checkpoint" -n 3 -c 0 -b $BLK --posix -o "$T/px"
[ "$rc" = 0 ] || fail "checkpoint --posix rc=$rc"
for r in 0 1; do
    fid=$(awk -v p="$T/px/checkpoint.$r.posix" '$2 == p { print $1; exit }' "$T/px/files")
    [ -n "$fid" ] || fail "checkpoint.$r.posix never registered"
    awk -v f="$fid" -v r=$r -v want=$((3 * BLK)) '
        $7 == f && $3 == 1 { if ($1 != r || $2 != 0 || int($4 / 4) % 2 == 1) bad++; sum += $5 }
        END { if (bad || sum != want) { printf "FAIL: rank %d posix writes: %d wrong, %d bytes, want %d\n", r, bad, sum, want; exit 1 } }
    ' "$T/px/records"
done

# 4. no MPI_Finalize (one rank: with more, mpirun kills the others at once)
traced 1 "$T/nofin" "$B/tests/mpiio_calls" "$T/nofin" --no-finalize
python3 "$HERE/check_records.py" --dir "$T/nofin" --records "$T/nofin/records" \
    --files "$T/nofin/files" --ranks 1 --nested
echo "traced: ok"
