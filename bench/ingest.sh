#!/bin/sh
# bench/ingest.sh -- run the ftiod ingest benchmark (bench/ingest.c) over ipc
# and TCP loopback.  INGEST_DURATION (s, default 20) sets the throughput/RSS
# run; the spec run is INGEST_DURATION=600.
B=${B:-build}
D=${INGEST_DURATION:-20}
"$B/bench/ingest" --duration "$D" || exit 1
"$B/bench/ingest" --tcp --duration "$D" --latency-samples 5 || exit 1
