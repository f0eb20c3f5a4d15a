# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_darshan.mk -- the native Darshan log reader (predictor/readers/darshan_*.c)
#   $(B)/tests/darshan_dump   our decode in darshan-parser's text form
#   tests/darshan/*.sh        conformance with Darshan's own tools on real logs,
#                             `ftio LOG.darshan` end to end
$(B)/tests/darshan_dump: $(B)/tests/darshan/darshan_dump.o $(FTIO_READERS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(FTIO_READERS_LINK)

ALL_TARGETS += $(B)/tests/darshan_dump
SHELL_TESTS += tests/darshan/conformance.sh tests/darshan/ftio_darshan.sh tests/darshan/dxt_text.sh
