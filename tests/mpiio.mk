# tests/mpiio.mk -- tests of the MPI layer of libftio.so (libtrace/mpiio*.c).
#
#   $(B)/tests/libftio-mpifake.so  the MPI objects + tests/mpiio/fakecore.c
#                                  (a text-file stand-in for the core), to
#                                  test the MPI layer alone
#   $(B)/tests/mpiio_calls          every MPI-IO call family, with the
#                                  records each must give (expect.<rank>)
# Shell tests run under mpirun; see each script's header.
MPIIO_TEST_BINS := $(B)/tests/libftio-mpifake.so $(B)/tests/mpiio_calls

$(B)/tests/mpiio/fakecore.o: CFLAGS += $(MPI_CFLAGS)

$(B)/tests/libftio-mpifake.so: $(MPIIO_OBJS) $(B)/tests/mpiio/fakecore.o
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ -ldl $(LDFLAGS)

$(B)/tests/mpiio_calls: tests/mpiio/mpiio_calls.c common/record.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< $(LDFLAGS)

ALL_TARGETS += $(MPIIO_TEST_BINS)
SHELL_TESTS += tests/mpiio/calls_fake.sh

# Spool decoder for the tests against the real libftio.so.
$(B)/tests/mpiio-spool2txt: $(B)/tests/mpiio/spool2txt.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(MSGPACK_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/mpiio-spool2txt
SHELL_TESTS += tests/mpiio/traced.sh
