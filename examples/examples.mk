# SPDX-License-Identifier: BSD-3-Clause
# examples: build fragment (see top-level Makefile)
#   $(B)/bin/posix_periodic   plain POSIX program with periodic checkpoints
#   $(B)/bin/flush_points     explicit flush points through <ftio.h>
include examples/examples_daemon.mk
include examples/examples_mpi.mk

$(B)/bin/posix_periodic: $(B)/examples/posix_periodic.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

$(B)/bin/flush_points: $(B)/examples/flush_points.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

ALL_TARGETS += $(B)/bin/posix_periodic $(B)/bin/flush_points
