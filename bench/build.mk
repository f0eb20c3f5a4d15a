# SPDX-License-Identifier: BSD-3-Clause
# bench: build fragment (see top-level Makefile).  One include per benchmark
# owner; each appends to BENCH_TARGETS.
include bench/analysis.mk
include bench/mpiio.mk
include bench/ingest.mk
include bench/overhead.mk
include bench/accuracy.mk
include bench/scan.mk
include bench/realapps.mk
