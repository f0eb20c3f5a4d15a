# SPDX-License-Identifier: BSD-3-Clause
# mk/flags.mk -- objects are rebuilt when the compiler or its flags change
# (`make OPT=-O0`, `SAN=...`, `CC=clang` into the same $(B)), not only when a
# source or header does.  $(FLAGS_STAMP) holds the flags and is rewritten only
# when they differ, so its time is that of the last change; the object rules
# (Makefile, libtrace/libtrace.mk, slurm/slurm.mk, predictor/scan.mk) depend on
# it.  Included by the Makefile before the fragments.
# What $(MPICC) builds depends on $(MPI_FLAGS_STAMP) instead, which holds the
# MPI compiler too: another MPICC (`make install MPICC=...`, tests/install.sh
# builds without one and then with one) rebuilds the MPI programs only.
FLAGS_STAMP := $(B)/.flags
MPI_FLAGS_STAMP := $(B)/.flags-mpi
# Recursive: expanded in the recipe, after every fragment added to CFLAGS.
FLAGS_NOW = $(CC) | $(CFLAGS) | $(LDFLAGS) | $(SPANK_CFLAGS)
FLAGS_QUOTED = '$(subst ','\'',$(FLAGS_NOW))'
MPI_FLAGS_QUOTED = '$(subst ','\'',$(MPICC) | $(FLAGS_NOW))'

$(FLAGS_STAMP): FORCE_FLAGS
	@mkdir -p $(dir $@)
	@printf '%s\n' $(FLAGS_QUOTED) | cmp -s - $@ || printf '%s\n' $(FLAGS_QUOTED) >$@

$(MPI_FLAGS_STAMP): FORCE_FLAGS
	@mkdir -p $(dir $@)
	@printf '%s\n' $(MPI_FLAGS_QUOTED) | cmp -s - $@ || printf '%s\n' $(MPI_FLAGS_QUOTED) >$@

.PHONY: FORCE_FLAGS
FORCE_FLAGS:
