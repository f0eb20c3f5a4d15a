# libtrace: build fragment (see top-level Makefile).
# libftio.so = the shim core + POSIX/stdio layers (this file) + the MPI-IO
# layer ($(MPIIO_OBJS), libtrace/mpiio.mk) + the wire codec (libftiocommon.a,
# linked in privately: --exclude-libs keeps its symbols out of the dynamic
# table).  Core objects are built with -fvisibility=hidden: only the wrapped
# symbols and the ftio.h API (FTIO_EXPORT) are exported.
include libtrace/mpiio.mk

SHIM_SRCS := libtrace/core.c libtrace/config.c libtrace/fdtable.c libtrace/files.c \
             libtrace/ring.c libtrace/flusher.c libtrace/sink_zmq.c libtrace/spool.c libtrace/posix.c \
             libtrace/stdio.c libtrace/aio.c libtrace/lifecycle.c libtrace/api.c
SHIM_OBJS := $(patsubst %.c,$(B)/%.o,$(SHIM_SRCS))
SHIM_LIB  := $(B)/lib/libftio.so

$(SHIM_OBJS): CFLAGS += -fvisibility=hidden

$(SHIM_LIB): $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB) -Wl,--exclude-libs,ALL \
	  -Wl,-soname,libftio.so $(LDFLAGS) $(MPIIO_LIBS) $(ZMQ_LIBS) $(MSGPACK_LIBS) -ldl -pthread

shim: $(SHIM_LIB)

ALL_TARGETS += $(SHIM_LIB)
INSTALL_LIB += $(SHIM_LIB)
INSTALL_INC += include/ftio.h

.PHONY: shim
