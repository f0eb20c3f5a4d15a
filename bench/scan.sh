#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scan.sh -- fleet-scan throughput of `ftio scan` (bench/README.md, "Fleet
# scan"): a synthetic archive of binary Darshan logs (darshan-archive-gen:
# COUNTERS counters-only, HEATMAP heatmap and DXT dxt logs, >= 10,000 in all,
# in a temporary directory), then
#   - logs/s per core for each kind (one analysis thread),
#   - the whole archive with one thread, with all cores (threads), and with
#     `mpirun -np 2` (one thread per rank): the multi-process speed-up.
# The anchor: the temporal-I/O study's parallel FTIO extension, 16,474
# traces in 120.96 s with 30 processes = 4.5 traces/s per process.
B=${B:-build}
FTIO=$B/bin/ftio
GEN=$B/bin/darshan-archive-gen
COUNTERS=${COUNTERS:-4000}
HEATMAP=${HEATMAP:-4000}
DXT=${DXT:-2500}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
for k in counters heatmap dxt; do mkdir -p "$T/archive/$k"; done
$GEN "$T/archive/counters" counters "$COUNTERS" 1 && $GEN "$T/archive/heatmap" heatmap "$HEATMAP" 2 &&
  $GEN "$T/archive/dxt" dxt "$DXT" 3 || exit 1
total=$((COUNTERS + HEATMAP + DXT))
echo "archive: $total logs ($COUNTERS counters, $HEATMAP heatmap, $DXT dxt), $(du -sh "$T/archive" | cut -f1)"
cat "$T/archive"/*/* >/dev/null   # page cache warm: measure the analysis, not the disk

# wall time of a command, s
wall() { s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
rate() { echo "scale=1; $1 / $2" | bc -l; }

printf '%-10s %8s %10s %14s %12s\n' kind logs "time (s)" "logs/s/core" "x anchor"
for k in counters heatmap dxt; do
  n=$(ls "$T/archive/$k" | wc -l)
  t=$(wall "$FTIO" scan --quiet --threads 1 "$T/archive/$k")
  r=$(rate "$n" "$t")
  printf '%-10s %8d %10.2f %14s %12s\n' "$k" "$n" "$t" "$r" "$(echo "scale=0; $r / 4.5" | bc -l)"
done
cores=$(nproc)
t1=$(wall "$FTIO" scan --quiet --threads 1 --csv "$T/one.csv" "$T/archive")
tc=$(wall "$FTIO" scan --quiet --csv "$T/threads.csv" "$T/archive")
tm=$(wall mpirun -np 2 "$FTIO" scan --quiet --threads 1 --csv "$T/mpi.csv" "$T/archive")
cmp -s "$T/one.csv" "$T/threads.csv" && cmp -s "$T/one.csv" "$T/mpi.csv" || echo "WARNING: the rows differ between runs"
echo "whole archive ($total logs):"
printf '  1 thread            %7.2f s  %8s logs/s\n' "$t1" "$(rate $total "$t1")"
printf '  %d threads           %7.2f s  %8s logs/s  speed-up %s\n' "$cores" "$tc" "$(rate $total "$tc")" "$(echo "scale=2; $t1 / $tc" | bc -l)"
printf '  mpirun -np 2 (x1)   %7.2f s  %8s logs/s  speed-up %s\n' "$tm" "$(rate $total "$tm")" "$(echo "scale=2; $t1 / $tm" | bc -l)"
