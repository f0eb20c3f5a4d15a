#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# compare.sh -- conformance of our native Darshan reader with Darshan's own
# tools: for each LOG.darshan given (or every one under the directories
# given), the counters we decode (bytes read/written and first/last read and
# write timestamps of POSIX, MPI-IO and STDIO records), every HEATMAP bin and
# every DXT segment (rank, op, offset, length, start, end) must equal what
# `darshan-parser --show-incomplete` (LOG.darshan.parser.txt.gz) and
# `darshan-dxt-parser --show-incomplete` (LOG.darshan.dxt.txt.gz) printed.
# Prints one line per log (MATCH / DIFF / ERROR) and "N match, N differ";
# exits 1 when any log differs.
#   usage: compare.sh [-v] DIR|LOG.darshan...
. "$(dirname "$0")/../lib.sh"
DUMP=$B/tests/darshan_dump
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
ok=0; bad=0
logs() { for a in "$@"; do if [ -d "$a" ]; then find "$a" -name '*.darshan' | sort; else echo "$a"; fi; done; }
for log in $(logs "$@"); do
  if ! "$DUMP" "$log" >"$T/ours" 2>"$T/err"; then
    echo "ERROR $log: $(cat "$T/err")"; bad=$((bad + 1)); continue
  fi
  # our counters and bins, in the parser's first five columns
  grep -v '^#' "$T/ours" | grep -v '^X_' | sort >"$T/ours.c"
  # the same values from the parser: a fixed list, so that a module we
  # skipped shows as a difference instead of vanishing from both sides
  gzip -dc "$log.parser.txt.gz" | grep -v '^#' | awk -F'\t' '
    NF >= 5 && ($4 ~ /^(POSIX|MPIIO|STDIO)_(BYTES_READ|BYTES_WRITTEN|F_(READ|WRITE)_(START|END)_TIMESTAMP)$/ ||
                $4 ~ /^HEATMAP_/) { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' |
    sort >"$T/theirs.c"
  grep '^X_' "$T/ours" | sort >"$T/ours.d"
  gzip -dc "$log.dxt.txt.gz" | awk '$1 ~ /^X_(POSIX|MPIIO)$/ {
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $5, $6, $7, $8 }' | sort >"$T/theirs.d"
  nc=$(wc -l <"$T/ours.c"); nd=$(wc -l <"$T/ours.d")
  if cmp -s "$T/ours.c" "$T/theirs.c" && cmp -s "$T/ours.d" "$T/theirs.d"; then
    echo "MATCH $log ($nc counter/bin values, $nd DXT segments)"; ok=$((ok + 1))
  else
    echo "DIFF  $log: counters/bins $(diff "$T/ours.c" "$T/theirs.c" | grep -c '^[<>]') lines differ, DXT $(diff "$T/ours.d" "$T/theirs.d" | grep -c '^[<>]') lines differ"
    [ $verbose = 1 ] && { diff "$T/ours.c" "$T/theirs.c" | head -8; diff "$T/ours.d" "$T/theirs.d" | head -8; }
    bad=$((bad + 1))
  fi
done
echo "$ok match, $bad differ"
[ $bad = 0 ]
