# SPDX-License-Identifier: BSD-3-Clause
# tools/: build fragment (see top-level Makefile).
# ftio-run (tools/ftio-run, POSIX sh): preloads libftio.so into the ranks a
# launcher starts.  Copied to $(B)/bin so that it finds $(B)/lib/libftio.so
# the way an installed one finds $(PREFIX)/lib/libftio.so (../lib).
FTIO_RUN := $(B)/bin/ftio-run

$(FTIO_RUN): tools/ftio-run
	@mkdir -p $(dir $@)
	install -m 755 $< $@

ALL_TARGETS += $(FTIO_RUN)
INSTALL_BIN += $(FTIO_RUN)
INSTALL_MAN += man/ftio-run.1
