#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# traced.sh -- the MPI layer inside the real libftio.so, end to end: records
# go over ZeroMQ to the test receiver `ftio-wire recv` (or to spool files),
# are decoded with `ftio-wire records` and checked.
#
#  1. mpiio_calls on 4 ranks, over ZeroMQ: every MPI-IO call family gives
#     exactly its record per rank (op, flags, bytes, offset, async duration;
#     PMPI calls and non-I/O requests add nothing), and with FTIO_NESTED=1
#     every POSIX record OMPIO made on the test files is flagged nested.  The receiver got a
#     final batch from each rank, no loss, no sequence gap, and the ranks
#     0..3 of 4 in the headers.
#  2. checkpoint, MPI-IO collective, 2 ranks x 3 x 256 KiB, spooled: per rank
#     3 collective writes of 256 KiB at offset rank*256 KiB; by default no
#     POSIX data record of OMPIO's writes on the file (counted once, at
#     MPI-IO), with FTIO_NESTED=1 the nested POSIX writes add up to the same
#     total.
#  3. checkpoint --posix, spooled: plain (not nested) POSIX writes,
#     3 x 256 KiB per rank.
#  4. A rank that exits without MPI_Finalize still delivers all its records.
#  5. mpiio_threads: 4 threads per rank (MPI_THREAD_MULTIPLE) writing at once
#     (blocking and nonblocking), spooled: exact records per rank again.
#  6. A rank ending in MPI_Abort delivers all its records and a final batch.
#  0. (first) libftio.so does not depend on libmpi: no undefined MPI or Open
#     MPI symbol, and a non-MPI program loads it with LD_BIND_NOW=1.
set -eu
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C
no_leak_checks
need "$SHIM" "$WIRE" "$B/tests/mpiio_calls" "$B/tests/mpiio_threads" "$B/bin/checkpoint"

# 0. no link-time dependency on MPI
undef=$(nm -D --undefined-only "$B/lib/libftio.so" | grep -E ' (P?MPI_|ompi_|opal_|mpi_)' || true)
[ -z "$undef" ] || fail "libftio.so needs MPI symbols: $undef"
! ldd "$B/lib/libftio.so" | grep -q libmpi || fail "libftio.so links libmpi"
env LD_BIND_NOW=1 LD_PRELOAD="$PRELOAD" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T" /bin/true \
    || fail "a non-MPI program does not run with the shim"

# run_traced MODE NP DIR PROGRAM ARGS...: run under the shim (MODE zmq: to a
# receiver on an ipc socket; spool: FTIO_SPOOL=always), then decode what
# arrived into DIR/records and DIR/files and the receiver's totals into
# DIR/summary.  mpirun's status is left in $rc.
run_traced() {
    mode=$1 np=$2 dir=$3; shift 3
    mkdir -p "$dir/spool"
    ep="ipc://$dir/recv.sock"
    if [ "$mode" = zmq ]; then
        wire recv -e "$ep" -n "$np" -i 30 -t 110 -w "$dir/raw" -R "$dir/ready" > "$dir/live" 2>&1 &
        recv_pid=$!
        PIDS="$PIDS $recv_pid"
        wait_file "$dir/ready" 5 || fail "receiver did not start: $(cat "$dir/live")"
        set -- -x FTIO_ENDPOINT="$ep" "$@"
    else
        set -- -x FTIO_SPOOL=always -x FTIO_ENDPOINT="$ep" "$@"
    fi
    run_mpi "$np" -x LD_PRELOAD="$PRELOAD" -x FTIO_SPOOL_DIR="$dir/spool" -x FTIO_JOB=mpiio-test "$@"
    [ "$mode" = zmq ] && wait "$recv_pid"
    set -- "$dir"/spool/*.msgpack
    [ -e "$1" ] || set --
    [ "$mode" = zmq ] && set -- "$dir/raw" "$@"
    [ $# -gt 0 ] || fail "nothing received or spooled"
    : > "$dir/records"; : > "$dir/files"
    wire records "$dir/records" "$dir/files" "$@"
    wire recv "$@" > "$dir/summary"
    v() { sed -n "s/^$1=//p" "$dir/summary" | head -1; }
    [ "$(v finals)" = "$np" ] || fail "$(v finals) final batches for $np ranks"
    for k in lost seq_gaps seq_dups bad; do
        [ "$(v $k)" = 0 ] || [ -z "$(v $k)" ] || fail "$k=$(v $k)"
    done
    for r in $(seq 0 $((np - 1))); do
        grep -q "^pid=.* rank=$r nranks=$np " "$dir/summary" || fail "no process reported rank $r of $np"
    done
}

# 1. every call family, 4 ranks, over ZeroMQ
run_traced zmq 4 "$T/calls" -x FTIO_NESTED=1 "$B/tests/mpiio_calls" "$T/calls"
[ "$rc" = 0 ] || fail "mpiio_calls rc=$rc"
python3 "$HERE/check_records.py" --dir "$T/calls" --records "$T/calls/records" \
    --files "$T/calls/files" --ranks 4 --nested
[ -z "$(ls "$T/calls/spool")" ] || echo "note: some batches were spooled, not sent"

# 2. checkpoint, collective MPI-IO
BLK=262144
run_traced spool 2 "$T/ck" "$B/bin/checkpoint" -n 3 -c 0 -b $BLK -o "$T/ck"
[ "$rc" = 0 ] || fail "checkpoint rc=$rc"
fid=$(awk -v p="$T/ck/checkpoint.mpiio" '$2 == p { print $1; exit }' "$T/ck/files")
[ -n "$fid" ] || fail "checkpoint.mpiio never registered"
for r in 0 1; do
    got=$(awk -v r=$r -v f="$fid" '$1 == r && $2 == 2 && $3 == 1 && $7 == f { print $4, $5, $6 }' \
          "$T/ck/records" | sort | uniq -c | tr -s ' ')
    want=" 3 2 $BLK $((r * BLK))"
    [ "$got" = "$want" ] || fail "rank $r checkpoint MPI-IO writes: '$got', want '$want' (count flags bytes offset)"
done
n=$(awk -v f="$fid" '$2 != 2 && ($3 == 0 || $3 == 1) && $7 == f' "$T/ck/records" | wc -l)
[ "$n" = 0 ] || fail "$n POSIX/stdio data records of OMPIO's I/O on the file (FTIO_NESTED=0: the MPI-IO records alone)"
run_traced spool 2 "$T/ckn" -x FTIO_NESTED=1 "$B/bin/checkpoint" -n 3 -c 0 -b $BLK -o "$T/ckn"
[ "$rc" = 0 ] || fail "checkpoint (FTIO_NESTED=1) rc=$rc"
fid=$(awk -v p="$T/ckn/checkpoint.mpiio" '$2 == p { print $1; exit }' "$T/ckn/files")
[ -n "$fid" ] || fail "checkpoint.mpiio never registered (FTIO_NESTED=1)"
awk -v f="$fid" -v want=$((2 * 3 * BLK)) '
    $2 == 0 && $3 == 1 && $7 == f { if (int($4 / 4) % 2 == 0) bad++; sum += $5 }
    END { if (bad || sum != want) { printf "FAIL: nested POSIX writes: %d unflagged, %d bytes, want %d\n", bad, sum, want; exit 1 } }
' "$T/ckn/records"

# 3. checkpoint --posix: file per process, not nested
run_traced spool 2 "$T/px" "$B/bin/checkpoint" -n 3 -c 0 -b $BLK --posix -o "$T/px"
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
run_traced zmq 1 "$T/nofin" "$B/tests/mpiio_calls" "$T/nofin" --no-finalize
python3 "$HERE/check_records.py" --dir "$T/nofin" --records "$T/nofin/records" \
    --files "$T/nofin/files" --ranks 1 --nested
# 5. several threads per rank
run_traced spool 2 "$T/thr" "$B/tests/mpiio_threads" "$T/thr" 4 100
[ "$rc" = 0 ] || fail "mpiio_threads rc=$rc"
python3 "$HERE/check_records.py" --dir "$T/thr" --records "$T/thr/records" \
    --files "$T/thr/files" --ranks 2 --nested
# 6. MPI_Abort hands the stream off durably (final batch, every record) even
#    though the process ends without MPI_Finalize; FTIO_SIGNALS=0 so no
#    fatal-signal flush stands in for it.
run_traced zmq 1 "$T/abort" -x FTIO_SIGNALS=0 "$B/tests/mpiio_calls" "$T/abort" --abort
[ "$rc" != 0 ] || fail "MPI_Abort: mpirun rc=0"
python3 "$HERE/check_records.py" --dir "$T/abort" --records "$T/abort/records" \
    --files "$T/abort/files" --ranks 1 --nested
echo "traced: ok"
