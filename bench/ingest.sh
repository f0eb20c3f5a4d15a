#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/ingest.sh -- run the ftiod ingest benchmark (bench/ingest_bench.c) over ipc
# and TCP loopback.  INGEST_DURATION (s, default 20) sets the throughput/RSS
# run; the spec run is INGEST_DURATION=600.
B=${B:-build}
D=${INGEST_DURATION:-20}
"$B/bench/ingest" --duration "$D" || exit 1
"$B/bench/ingest" --tcp --duration "$D" --latency-samples 5 || exit 1
# Through relays (PROTOCOL.md §1.5): 10,000 simulated processes on 16 sender
# connections to 8 `ftio relay` processes; ftiod sees 8 connections.
"$B/bench/ingest" --duration "$D" --relays 8 --ranks 10000 --senders 16 --batch 256 || exit 1
