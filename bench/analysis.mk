# bench/analysis.mk -- the offline analysis benchmark (included from
# bench/build.mk).
#   $(B)/bin/ftio-bench-gen        synthetic periodic trace -> spool (+ TMIO JSONL)
#   $(B)/bench/analysis_bench      times parse/signal/sampling/spectrum, peak RSS
# bench/analysis.sh generates 10^6 and 10^7 request traces and runs it.
$(B)/bin/ftio-bench-gen: $(B)/bench/analysis_gen.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(B)/lib/libftiocommon.a $(MSGPACK_LIBS)

$(B)/bench/analysis_bench: $(B)/bench/analysis_bench.o $(READERS_LIB) \
                           $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(FTIO_READERS_LINK)

# The generator is also used by tests/cli/spool.sh, so it is built by default.
ALL_TARGETS   += $(B)/bin/ftio-bench-gen
BENCH_TARGETS += $(B)/bin/ftio-bench-gen $(B)/bench/analysis_bench
