# tests/wire.mk: tests and helpers of the wire codec (common/).
#   $(B)/tests/test_wire     Check suite (round trips, rejection, fuzz, hash)
#   $(B)/tests/bench_wire    decode/encode throughput (prints records/s)
#   $(B)/bin/ftio-wire-dump  prints spool files / batch streams as text
WIRE_TEST_LIBS := $(B)/lib/libftiocommon.a $(MSGPACK_LIBS)

$(B)/tests/test_wire: $(B)/tests/wire/test_wire.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(WIRE_TEST_LIBS) $(CHECK_LIBS)

$(B)/tests/bench_wire: $(B)/tests/wire/bench_wire.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(WIRE_TEST_LIBS)

$(B)/bin/ftio-wire-dump: $(B)/tests/wire/wire_dump.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(WIRE_TEST_LIBS)

CHECK_PROGS   += $(B)/tests/test_wire
SHELL_TESTS   += tests/wire/dump.sh
BENCH_TARGETS += $(B)/tests/bench_wire
ALL_TARGETS   += $(B)/tests/test_wire $(B)/tests/bench_wire $(B)/bin/ftio-wire-dump
