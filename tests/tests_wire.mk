# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_wire.mk: tests and helpers of the wire codec (common/).
#   $(B)/tests/test_wire     Check suite (round trips, rejection, fuzz, hash)
#   $(B)/tests/bench_wire    decode/encode throughput (prints records/s)
#   $(B)/tests/test_common   Check suite of common/grow.h and common/units.h
#   $(B)/bin/ftio-wire       the one test tool for the wire format: dump, gen,
#                            records, recv, periodic, phases, tmio, fuzz, trace
#                            (tests/wire/ftio_wire.h; `ftio-wire --help`)
WIRE_TEST_LIBS := $(B)/lib/libftiocommon.a $(MSGPACK_LIBS)

$(B)/tests/test_wire: $(B)/tests/wire/test_wire.o $(CHECK_MAIN) $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(WIRE_TEST_LIBS) $(CHECK_LIBS)

$(B)/tests/test_common: $(B)/tests/wire/test_common.o $(CHECK_MAIN) $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(B)/lib/libftiocommon.a $(CHECK_LIBS) -lm

$(B)/tests/bench_wire: $(B)/tests/wire/bench_wire.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(WIRE_TEST_LIBS)

# `ftio-wire trace` is the benchmarks' trace generator (bench/analysis_gen.c).
FTIO_WIRE := $(B)/bin/ftio-wire
FTIO_WIRE_OBJS := $(patsubst %.c,$(B)/%.o,tests/wire/ftio_wire.c tests/wire/wire_dump.c \
                    tests/wire/wire_records.c tests/wire/wire_recv.c tests/wire/wire_forge.c \
                    tests/wire/wire_phases.c \
                    bench/analysis_gen.c)
$(B)/bench/analysis_gen.o: CFLAGS += -Itests/wire

$(FTIO_WIRE): $(FTIO_WIRE_OBJS) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZMQ_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) -lm

CHECK_PROGS   += $(B)/tests/test_wire $(B)/tests/test_common
SHELL_TESTS   += tests/wire/dump.sh
BENCH_TARGETS += $(B)/tests/bench_wire
ALL_TARGETS   += $(B)/tests/test_wire $(B)/tests/test_common $(B)/tests/bench_wire $(FTIO_WIRE)
