# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_analysis.mk -- the offline analysis benchmark (included from
# bench/bench.mk).
#   $(B)/bin/ftio-wire trace       synthetic periodic trace -> spool (+ TMIO JSONL,
#                                  CSV); analysis_gen.c, linked into ftio-wire
#                                  (tests/tests_wire.mk)
#   $(B)/bench/analysis_bench      times parse/signal/sampling/spectrum, peak RSS
# bench/analysis.sh generates 10^6 and 10^7 request traces and runs it.
$(B)/bench/analysis_bench: $(B)/bench/analysis_bench.o $(FTIO_READERS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(FTIO_READERS_LINK)

BENCH_TARGETS += $(FTIO_WIRE) $(B)/bench/analysis_bench
