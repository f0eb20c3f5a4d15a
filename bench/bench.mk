# SPDX-License-Identifier: BSD-3-Clause
# bench: build fragment (see top-level Makefile).  One include per benchmark
# owner; each appends to BENCH_TARGETS.
include bench/bench_analysis.mk
include bench/bench_mpiio.mk
include bench/bench_ingest.mk
include bench/bench_overhead.mk
include bench/bench_accuracy.mk
include bench/bench_scan.mk
include bench/bench_realapps.mk
include bench/bench_memory.mk
