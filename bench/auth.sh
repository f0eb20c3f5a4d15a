#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/auth.sh -- the cost of authenticated ingest (issue 8): per-batch costs
# (bench/auth_cost.c) and the ingest rate with and without --auth munge, side
# by side in one run (bench/ingest_bench.c).  Starts a private munged.
B=${B:-build}
D=${INGEST_DURATION:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-auth-bench.XXXXXX")
trap 'kill $MPID 2>/dev/null; rm -rf "$T"' EXIT
mungekey -c -k "$T/munge.key" -b 1024 >/dev/null 2>&1 || { echo "mungekey failed"; exit 1; }
munged -F -f --socket="$T/munge.sock" --key-file="$T/munge.key" --log-file="$T/munged.log" \
  --pid-file="$T/munged.pid" --seed-file="$T/munged.seed" >"$T/munged.err" 2>&1 &
MPID=$!
i=0
until munge -S "$T/munge.sock" -n >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -gt 50 ] && { echo "munged did not start"; exit 1; }
  sleep 0.1
done
"$B/bench/auth-cost" --munge "$T/munge.sock" --rounds 200 || exit 1
echo "== ingest, --auth none"
"$B/bench/ingest" --duration "$D" --latency-samples 0 || exit 1
echo "== ingest, --auth munge (every batch signed and checked)"
"$B/bench/ingest" --duration "$D" --latency-samples 0 --munge "$T/munge.sock" || exit 1
