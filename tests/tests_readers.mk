# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_readers.mk -- tests of the trace readers, the report and `ftio`.
#   $(B)/tests/test_readers   Check suite: every format, valid/malformed/truncated,
#                             detection, spool files made with the wire encoder
#   tests/cli/*.sh            `ftio` end to end: ALGORITHM.md §8 reference table,
#                             formats, errors and usage
$(B)/tests/test_readers: $(B)/tests/readers/test_readers.o $(CHECK_MAIN) $(PUBLISH_LIB) \
                         $(FTIO_READERS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(PUBLISH_LIB) $(FTIO_READERS_LINK) $(CHECK_LIBS)

CHECK_PROGS += $(B)/tests/test_readers
ALL_TARGETS += $(B)/tests/test_readers
SHELL_TESTS += $(wildcard tests/cli/*.sh)
