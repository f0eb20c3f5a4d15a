# SPDX-License-Identifier: BSD-3-Clause
# libtrace/libtrace_mpi.mk -- the MPI layer of libftio.so (MPI-IO + MPI lifecycle).
#
# MPIIO_OBJS is linked into $(B)/lib/libftio.so by libtrace/libtrace.mk.  These
# objects need mpi.h only: they never link libmpi (every MPI function is
# resolved at run time, see libtrace/mpiio.h), so non-MPI programs still load
# the shim.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile 2>/dev/null)

MPIIO_OBJS := $(B)/libtrace/mpiio.o $(B)/libtrace/mpiio_async.o \
              $(B)/libtrace/mpiio_meta.o $(B)/libtrace/mpiio_files.o \
              $(B)/libtrace/mpi_life.o

$(MPIIO_OBJS): CFLAGS += $(MPI_CFLAGS)

# Deliberately empty: libftio.so must not depend on libmpi.
MPIIO_LIBS :=
