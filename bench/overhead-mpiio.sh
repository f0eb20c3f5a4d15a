#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# overhead-mpiio.sh -- overhead of libftio.so on MPI-IO (run by bench/overhead.sh, or
# alone: B=build sh bench/overhead-mpiio.sh).
#
#  1. MPI_File_write_at, 1 byte, $CALLS calls (default 10^6) in one rank:
#     ns per call plain vs preloaded, median of $RUNS runs (default 5), as
#     wall time, fastest tenth of the loop, and CPU time of the calling
#     thread (the least disturbed by other load on a shared machine).  The
#     nested pwrite() OMPIO makes passes through the shim unrecorded (its
#     bytes are the MPI-IO record's; FTIO_NESTED=1 records it too).
#     Then the same paired inside one process (mpi_overhead -p), which a
#     loaded machine disturbs far less.
#  2. The checkpoint example (2 ranks, 10 iterations, 0.2 s compute, 4 MiB
#     blocks): its own wall time, plain vs preloaded, median of $RUNS.
# The preloaded runs spool to a temporary directory (FTIO_SPOOL=always), so
# the flusher's encoding and writing is part of the measured cost.
set -eu
B=${B:-build}
CALLS=${CALLS:-1000000}
RUNS=${RUNS:-5}
LIB=$(cd "$B/lib" && pwd)/libftio.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MPIRUN="timeout 600 mpirun --allow-run-as-root --oversubscribe"
for f in "$LIB" "$B/bench/mpi_overhead" "$B/bin/checkpoint"; do
    [ -f "$f" ] || { echo "overhead-mpiio: build $f first (make bench)" >&2; exit 1; }
done

median() { tr ' ' '\n' | sort -n | awk 'NF { v[++n] = $1 } END { print v[int((n + 1) / 2)] }'; }

# pair NP PROGRAM ARGS...: $RUNS runs plain and preloaded, alternating;
# their outputs go to $T/plain.out and $T/pre.out.
# pair NP PROGRAM ARGS...: RUNS runs plain and preloaded, alternating (and,
# with BASE_LIB=<an older libftio.so>, its runs in between: before/after in
# one session).
pair() {
    np=$1; shift
    : > "$T/plain.out"; : > "$T/pre.out"; : > "$T/base.out"
    for i in $(seq "$RUNS"); do
        $MPIRUN -np "$np" "$@" >> "$T/plain.out"
        if [ -n "${BASE_LIB:-}" ]; then
            $MPIRUN -np "$np" -x LD_PRELOAD="$BASE_LIB" -x FTIO_SPOOL=always -x FTIO_SPOOL_DIR="$T" \
                "$@" >> "$T/base.out"
            rm -f "$T"/*.msgpack
        fi
        $MPIRUN -np "$np" -x LD_PRELOAD="$LIB" -x FTIO_SPOOL=always -x FTIO_SPOOL_DIR="$T" \
            "$@" >> "$T/pre.out"
        rm -f "$T"/*.msgpack
    done
}

# report LABEL SED_EXPR UNIT: medians of one figure, plain vs preloaded.
report() {
    plain=$(sed -n "$2" "$T/plain.out" | tr '\n' ' ')
    pre=$(sed -n "$2" "$T/pre.out" | tr '\n' ' ')
    p=$(echo $plain | median)
    q=$(echo $pre | median)
    echo "$1: plain $p $3, preloaded $q $3, added $(echo "$q $p" | awk '{printf "%.1f (%.2f %%)", $1 - $2, ($1 - $2) / $2 * 100}') $3 (median of $RUNS)"
    if [ -s "$T/base.out" ]; then
        base=$(sed -n "$2" "$T/base.out" | tr '\n' ' ')
        echo "    BASE_LIB: preloaded $(echo $base | median) $3, added $(echo "$(echo $base | median) $p" | awk '{printf "%.1f", $1 - $2}') $3; runs: $base"
    fi
    echo "    plain runs: $plain"
    echo "    preloaded runs: $pre"
}

pair 1 "$B/bench/mpi_overhead" -n "$CALLS" -o "$T"
echo "MPI_File_write_at, 1 byte, $CALLS calls, 1 rank:"
report "  wall time per call" 's/^write_at_ns_per_call //p' ns
report "  fastest tenth of the loop" 's/^write_at_best_block_ns //p' ns
report "  CPU time of the calling thread per call" 's/^write_at_thread_cpu_ns //p' ns

# Paired in one process (mpi_overhead -p): the MPI library's own call with
# the shim paused, the traced call and two clock_gettime() in alternating
# blocks; medians over RUNS runs.
echo "MPI_File_write_at, paired in one process (median of $RUNS runs of $CALLS calls), thread CPU ns per call:"
for which in ${BASE_LIB:+base} new; do
    [ "$which" = base ] && l=$BASE_LIB || l=$LIB
    : > "$T/paired.out"
    for i in $(seq "$RUNS"); do
        $MPIRUN -np 1 -x LD_PRELOAD="$l" -x FTIO_SPOOL=always -x FTIO_SPOOL_DIR="$T" \
            "$B/bench/mpi_overhead" -p -n "$CALLS" -o "$T" >> "$T/paired.out"
        rm -f "$T"/*.msgpack
    done
    for k in write_at_plain_ns floor_ns write_at_added_ns flusher_ns; do
        eval "$k=\$(sed -n 's/^$k //p' \"\$T/paired.out\" | median)"
    done
    echo "$which $write_at_plain_ns $floor_ns $write_at_added_ns $flusher_ns" | awk '{
        printf "  %-4s plain %.1f, floor %.1f, added %+.1f (%.2fx the floor), with the flusher %+.1f\n",
            $1, $2, $3, $4, $4 / $3, $4 + $5 }'
done

pair 2 "$B/bin/checkpoint" -n 10 -c 0.2 -b 4M -o "$T"
echo "checkpoint example, 2 ranks, 10 x 4 MiB per rank, 0.2 s compute:"
report "  wall time" 's/.*total \([0-9.]*\) s.*/\1/p' s
