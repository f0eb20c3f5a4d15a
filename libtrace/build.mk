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
# libftio.so is versioned like any shared library: the file
# libftio.so.$(VERSION), its soname link libftio.so.$(SOVERSION) (what a
# program or LD_PRELOAD names at run time) and the libftio.so link.  The
# links are relative, so the build tree and an installed tree alike can be
# preloaded through any of the three names.
SHIM_REAL   := $(B)/lib/libftio.so.$(VERSION)
SHIM_SONAME := libftio.so.$(SOVERSION)
SHIM_LIB    := $(B)/lib/libftio.so

$(SHIM_OBJS): CFLAGS += -fvisibility=hidden

$(SHIM_REAL): $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB) -Wl,--exclude-libs,ALL \
	  -Wl,-soname,$(SHIM_SONAME) $(LDFLAGS) $(MPIIO_LIBS) $(ZMQ_LIBS) $(MSGPACK_LIBS) -ldl -pthread

$(B)/lib/$(SHIM_SONAME): $(SHIM_REAL)
	ln -sf $(notdir $<) $@

$(SHIM_LIB): $(B)/lib/$(SHIM_SONAME)
	ln -sf $(notdir $<) $@

shim: $(SHIM_LIB)

ALL_TARGETS += $(SHIM_LIB)
INSTALL_LIB += $(SHIM_REAL)
INSTALL_INC += include/ftio.h
INSTALL_MAN += man/libftio.7
INSTALL_DOC += libtrace/README.md

.PHONY: shim
