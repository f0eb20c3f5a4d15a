# SPDX-License-Identifier: BSD-3-Clause
# predictor/readers.mk -- libftioreaders.a: the trace readers (predictor/trace.h,
# predictor/readers/), the first stage of the offline pipeline: trace files ->
# requests per job (sniff.c tells the format).  Linked by `ftio`, `ftio scan`,
# ftio-scan-mpi and the tools built on the readers; not by ftiod, which gets
# its requests off the wire.
READERS_SRCS := $(wildcard predictor/readers/*.c)
READERS_OBJS := $(READERS_SRCS:%.c=$(B)/%.o)
READERS_LIB  := $(B)/lib/libftioreaders.a
# What a program built on the readers depends on (a prerequisite of its rule:
# without it a parallel build may link while an archive is being rewritten),
# and what it links, in order.
FTIO_READERS_DEPS := $(READERS_LIB) $(ANALYSIS_LIB) $(COMMON_LIB)
FTIO_READERS_LINK := $(FTIO_READERS_DEPS) \
                     $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS)

$(READERS_LIB): $(READERS_OBJS)

ALL_TARGETS += $(READERS_LIB)
