#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# analysis.sh -- offline analysis benchmark: generates periodic traces of 10^6
# and 10^7 requests (1024 ranks, 1 h, a burst every 60 s) as spool files (and
# as TMIO JSONL and CSV with the same requests: readers/tmio_json.c and
# readers/csv.c side by side with the spool path), then times parse / signal /
# sampling / spectrum (median of 5 runs) and peak RSS with $B/bench/analysis_bench.
# Reader targets: JSONL and CSV >= 5 M requests/s, <= 80 B per request.
# Targets (whole analysis at fs = 10 Hz): 10^6 < 0.25 s and <= 100 MB,
# 10^7 < 2.5 s and <= 800 MB.  Figures go to bench/README.md by hand.
B=${B:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-bench-analysis.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
BENCH=$B/bench/analysis_bench
for n in 1000000 10000000; do
  extra="--jsonl $T/$n.jsonl --csv $T/$n.csv"
  # shellcheck disable=SC2086
  "$B/bin/ftio-wire" trace -n $n -r 1024 -d 3600 -p 60 -b 10 -o "$T/$n.msgpack" $extra || exit 1
  echo "== $n requests, spool msgpack ($(du -m "$T/$n.msgpack" | cut -f1) MB)"
  "$BENCH" -r 5 "$T/$n.msgpack" || exit 1
  # Each size in its own process: peak RSS must not carry over.
  rm -f "$T/$n.msgpack"
  echo "== $n requests, TMIO JSONL ($(du -m "$T/$n.jsonl" | cut -f1) MB)"
  "$BENCH" -r 5 "$T/$n.jsonl" || exit 1
  rm -f "$T/$n.jsonl"
  echo "== $n requests, CSV ($(du -m "$T/$n.csv" | cut -f1) MB)"
  "$BENCH" -r 5 "$T/$n.csv" || exit 1
  rm -f "$T/$n.csv"
done
