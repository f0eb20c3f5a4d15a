# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_mpiio.mk -- tests of the MPI layer of libftio.so (libtrace/mpiio*.c).
#
#   $(B)/tests/libftio-mpifake.so   the MPI objects + tests/mpiio/fakecore.c
#                                   (a text-file stand-in for the core), to
#                                   test the MPI layer alone
#   $(B)/tests/mpiio_calls          every MPI-IO call family, with the
#                                   records each must give (expect.<rank>)
#   $(B)/tests/mpiio_threads        MPI-IO from several threads at once
#   $(B)/tests/mpiio_fortran        MPI-IO through the mpi_f08 bindings
#   $(B)/tests/libmpi-othertool.so  a classic PMPI tool (MPI_X -> PMPI_X) to
#                                   preload next to the shim
# Shell tests (run under mpirun; see each script's header):
#   tests/mpiio/calls_fake.sh  the MPI layer alone (fake core)
#   tests/mpiio/traced.sh      inside the real libftio.so, via `ftio-wire recv`
#                              and spool files, decoded by `ftio-wire records`
MPIIO_TEST_BINS := $(B)/tests/libftio-mpifake.so $(B)/tests/mpiio_calls \
                   $(B)/tests/mpiio_threads $(B)/tests/libmpi-othertool.so

# Fortran only when the compiler is there; calls_fake.sh then skips it.
MPIFORT ?= mpifort
ifneq ($(shell $(MPIFORT) --version >/dev/null 2>&1 && echo yes),)
MPIIO_TEST_BINS += $(B)/tests/mpiio_fortran
endif

$(B)/tests/mpiio/fakecore.o: CFLAGS += $(MPI_CFLAGS)

$(B)/tests/libftio-mpifake.so: $(MPIIO_OBJS) $(B)/tests/mpiio/fakecore.o
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ -ldl $(LDFLAGS)

$(B)/tests/libmpi-othertool.so: tests/mpiio/othertool.c $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS)

$(B)/tests/mpiio_calls: tests/mpiio/mpiio_calls.c common/record.h $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(B)/tests/mpiio_threads: tests/mpiio/mpiio_threads.c common/record.h $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(B)/tests/mpiio_fortran: tests/mpiio/fortran.f90
	@mkdir -p $(dir $@)
	$(MPIFORT) $(OPT) $(SAN) -J $(dir $@) -o $@ $< $(LDFLAGS)

ALL_TARGETS += $(MPIIO_TEST_BINS)
SHELL_TESTS += tests/mpiio/calls_fake.sh tests/mpiio/traced.sh
