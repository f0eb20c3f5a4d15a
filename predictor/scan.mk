# SPDX-License-Identifier: BSD-3-Clause
# predictor/scan.mk -- fleet analysis (predictor/scan/, see scan.h):
#   $(B)/lib/libftioscan.a   the scan engine, linked into `ftio` (ftio scan)
#   $(B)/bin/ftio-scan-mpi   the same engine over MPI ranks, built with mpicc;
#                            `ftio scan` execs it under an MPI launcher, so
#                            `ftio` itself never links libmpi
SCAN_SRCS := $(filter-out predictor/scan/scan_mpi.c,$(wildcard predictor/scan/*.c))
SCAN_OBJS := $(SCAN_SRCS:%.c=$(B)/%.o)
SCAN_LIB  := $(B)/lib/libftioscan.a
SCAN_MPI_BIN := $(B)/bin/ftio-scan-mpi

$(SCAN_LIB): $(SCAN_OBJS)

$(B)/predictor/scan/scan_mpi.o: predictor/scan/scan_mpi.c $(MPI_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -MMD -MP -c $< -o $@

$(SCAN_MPI_BIN): $(B)/predictor/scan/scan_mpi.o $(SCAN_LIB) $(OPTIONS_LIB) $(HISTORY_LIB) \
                 $(FTIO_READERS_DEPS)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $< $(SCAN_LIB) $(OPTIONS_LIB) $(HISTORY_LIB) $(FTIO_READERS_LINK) \
	  $(HISTORY_LIBS) -lm

ALL_TARGETS += $(SCAN_LIB) $(SCAN_MPI_BIN)
ifneq ($(HAVE_MPICC),)
INSTALL_BIN += $(SCAN_MPI_BIN)
endif
