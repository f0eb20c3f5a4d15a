# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_realapps.mk -- the realapps benchmark's own MPI examples (included from
# bench/bench.mk; bench/realapps/run.sh runs the benchmark):
#   $(B)/bench/realapps/shapes   output shapes of real codes (rank0, uneven,
#                                heights, stagger, drift); tests/realapps uses
#                                it, so it is built by default
#   $(B)/bench/realapps/h5out    periodic output through parallel HDF5
#                                (libhdf5-openmpi-dev, mk/deps.sh); `make bench`
# What both share: the truth (phaselog), the start and the options (realapp);
# phaselog grows its notes with common/grow.c.
REALAPPS_SHARED := bench/realapps/phaselog.c bench/realapps/phaselog.h bench/realapps/realapp.c \
                     bench/realapps/realapp.h
HDF5_MPI_CFLAGS = $(shell pkg-config --cflags hdf5-openmpi 2>/dev/null)
HDF5_MPI_LIBS = $(shell pkg-config --libs hdf5-openmpi 2>/dev/null || echo -lhdf5)

$(B)/bench/realapps/shapes: bench/realapps/shapes.c $(REALAPPS_SHARED) $(COMMON_LIB) $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ bench/realapps/shapes.c $(filter %.c,$(REALAPPS_SHARED)) $(COMMON_LIB) \
	  $(LDFLAGS) -lm

$(B)/bench/realapps/h5out: bench/realapps/h5out.c $(REALAPPS_SHARED) $(COMMON_LIB) $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(HDF5_MPI_CFLAGS) -o $@ bench/realapps/h5out.c $(filter %.c,$(REALAPPS_SHARED)) \
	  $(COMMON_LIB) $(LDFLAGS) $(HDF5_MPI_LIBS)

ALL_TARGETS   += $(B)/bench/realapps/shapes
BENCH_TARGETS += $(B)/bench/realapps/shapes $(B)/bench/realapps/h5out
