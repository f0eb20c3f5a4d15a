# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_accuracy.mk -- the accuracy benchmark (included from bench/bench.mk).
#   $(B)/bench/accuracy-gen   the semi-synthetic traces of docs/ACCURACY.md
# bench/accuracy.sh generates them and scores ftio and ftiod (bench/accuracy_eval.py);
# tests/analysis/accuracy.sh runs a small subset in `make check`, so the
# generator is built by default.
$(B)/bench/accuracy-gen: $(B)/bench/accuracy_gen.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(B)/lib/libftiocommon.a $(MSGPACK_LIBS) -lm

ALL_TARGETS   += $(B)/bench/accuracy-gen
BENCH_TARGETS += $(B)/bench/accuracy-gen
