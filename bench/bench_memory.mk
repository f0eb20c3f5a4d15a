# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_memory.mk -- the memory of runs benchmark (bench/memory/run.sh,
# bench/README.md "memory"):
#   $(B)/bench/memory-store-bench   the store at 10^5 applications: size on
#                                   disk, open time, lookup latency
$(B)/bench/memory-store-bench: $(B)/bench/memory/store_bench.o $(HISTORY_LIB) $(ANALYSIS_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(HISTORY_LIB) $(ANALYSIS_LIB) $(COMMON_LIB) $(HISTORY_LIBS) $(FFTW_LIBS) \
	  $(JANSSON_LIBS) -lm
$(B)/bench/memory/store_bench.o: CFLAGS += -Itests

BENCH_TARGETS += $(B)/bench/memory-store-bench $(B)/bench/realapps/h5out
