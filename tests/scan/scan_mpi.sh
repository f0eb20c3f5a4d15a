#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scan_mpi.sh -- `mpirun -np 2 ftio scan` (ftio hands over to ftio-scan-mpi):
# the ranks split the real logs of tests/data/darshan plus a broken file, and
# rank 0 writes exactly the rows (CSV and JSON Lines, same order) and the
# summary of the threaded scan; `ftio` itself does not link libmpi; with
# FTIO_SCAN_NO_MPI=1 no handover happens.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data/darshan
# Open MPI's own allocations are never freed: no leak checks for the ranks
# under ASan (the threaded scans above and below keep theirs)
MPIRUN="$MPIRUN -x ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

head -c 1500 $D/release_logs/mpi-io-test-x86_64-3.4.0.darshan >"$T/broken.darshan"
"$FTIO" scan --quiet --threads 2 --csv "$T/t.csv" --jsonl "$T/t.jsonl" $D "$T/broken.darshan" >"$T/t.sum" 2>&1 ||
  bad "threaded scan: exit $?"
timeout 120 $MPIRUN -np 2 "$FTIO" scan --quiet --csv "$T/m.csv" --jsonl "$T/m.jsonl" \
  $D "$T/broken.darshan" >"$T/m.sum" 2>"$T/m.err" || bad "mpirun scan: exit $?: $(cat "$T/m.err")"
cmp -s "$T/t.csv" "$T/m.csv" || bad "CSV rows differ: $(diff "$T/t.csv" "$T/m.csv" | head -5)"
cmp -s "$T/t.jsonl" "$T/m.jsonl" || bad "JSONL rows differ: $(diff "$T/t.jsonl" "$T/m.jsonl" | head -5)"
n=$(($(find $D -name '*.darshan' | wc -l) + 1))
[ "$(($(wc -l <"$T/m.csv") - 1))" = $n ] || bad "mpirun: $(wc -l <"$T/m.csv") CSV lines for $n logs"
grep -q "broken.darshan: offset" "$T/m.csv" || bad "mpirun: no error row for the broken log"
# the summary: the same but for the timing line, which says 2 ranks
sed 2d "$T/t.sum" >"$T/t.s"; sed 2d "$T/m.sum" >"$T/m.s"
cmp -s "$T/t.s" "$T/m.s" || bad "summaries differ: $(diff "$T/t.s" "$T/m.s")"
sed -n 2p "$T/m.sum" | grep -q 'in 2 MPI ranks' || bad "summary does not say 2 ranks: $(sed -n 2p "$T/m.sum")"
# only rank 0 prints: one summary
[ "$(grep -c '^ftio scan: ' "$T/m.sum")" = 1 ] || bad "more than one summary: $(cat "$T/m.sum")"

# -np 3 on fewer files than... still the same rows (ranks with 1 file or none)
timeout 120 $MPIRUN -np 3 "$FTIO" scan --quiet --csv "$T/m3.csv" $D/stdio_no_posix $D/empty_log >/dev/null 2>&1 ||
  bad "-np 3: exit $?"
"$FTIO" scan --quiet --csv "$T/t3.csv" $D/stdio_no_posix $D/empty_log >/dev/null 2>&1
cmp -s "$T/t3.csv" "$T/m3.csv" || bad "-np 3 on 2 files: rows differ"

# nothing readable under MPI: exit 1 from every rank; usage: exit 2
timeout 120 $MPIRUN -np 2 "$FTIO" scan --quiet "$T/broken.darshan" >/dev/null 2>&1; rc=$?
[ $rc = 1 ] || bad "mpirun, only a broken log: exit $rc, want 1"
timeout 120 $MPIRUN -np 2 "$FTIO" scan --bogus $D >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] || bad "mpirun, bad option: exit $rc, want 2"

# the plain binary never links MPI; FTIO_SCAN_NO_MPI keeps each rank to itself
ldd "$FTIO" | grep -qi 'libmpi' && bad "ftio links libmpi"
OMPI_COMM_WORLD_SIZE=2 FTIO_SCAN_NO_MPI=1 "$FTIO" scan --quiet --csv "$T/n.csv" $D/stdio_no_posix >/dev/null 2>&1 ||
  bad "FTIO_SCAN_NO_MPI: exit $?"
[ -s "$T/n.csv" ] || bad "FTIO_SCAN_NO_MPI: no rows"

finish
