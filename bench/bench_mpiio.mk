# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_mpiio.mk -- MPI-IO overhead benchmark (bench/overhead-mpiio.sh runs it).
$(B)/bench/mpi_overhead: bench/mpi_overhead.c bench/paired.h $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

BENCH_TARGETS += $(B)/bench/mpi_overhead $(B)/bin/checkpoint
