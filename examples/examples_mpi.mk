# SPDX-License-Identifier: BSD-3-Clause
# examples/examples_mpi.mk -- MPI examples, built with mpicc (included by examples/examples.mk).
#   $(B)/bin/checkpoint   periodic MPI-IO checkpointing mini-app (--help)
$(B)/bin/checkpoint: examples/checkpoint.c $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

ALL_TARGETS += $(B)/bin/checkpoint

#   $(B)/bin/activities   two periodic activities: frequent small dumps, rare large checkpoints
$(B)/bin/activities: examples/activities.c $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

ALL_TARGETS += $(B)/bin/activities
