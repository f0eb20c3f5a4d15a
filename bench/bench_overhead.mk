# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_overhead.mk -- per-call overhead of libftio.so (bench/overhead.sh runs it).
$(B)/bench/overhead: $(B)/bench/overhead.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

BENCH_TARGETS += $(B)/bench/overhead $(SHIM_LIB)
