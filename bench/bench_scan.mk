# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_scan.mk -- the fleet-scan benchmark (included from bench/bench.mk).
#   $(B)/bin/darshan-archive-gen   synthetic binary Darshan logs (counters,
#                                  heatmap, dxt) for bench/scan.sh
$(B)/bin/darshan-archive-gen: $(B)/bench/darshan_archive_gen.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(COMMON_LIB) -lz -lm

ALL_TARGETS   += $(B)/bin/darshan-archive-gen
BENCH_TARGETS += $(B)/bin/darshan-archive-gen
