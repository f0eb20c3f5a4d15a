# SPDX-License-Identifier: BSD-3-Clause
# libtrace: build fragment (see top-level Makefile).
# libftio.so = the shim core + POSIX/stdio layers (this file) + the MPI-IO
# layer ($(MPIIO_OBJS), libtrace/libtrace_mpi.mk) + the wire codec (libftiocommon.a,
# linked in privately: --exclude-libs keeps its symbols out of the dynamic
# table).  Core objects are built with -fvisibility=hidden: only the wrapped
# symbols and the ftio.h API (FTIO_EXPORT) are exported.
# ZeroMQ, MUNGE and libsodium are not linked: the flusher loads them when a
# process has something to send (libtrace/lazy.h); the shim's own builds of
# common/auth.c and common/transport.c call them through lazy.h's pointers.
include libtrace/libtrace_mpi.mk

SHIM_SRCS := libtrace/core.c libtrace/config.c libtrace/fdtable.c libtrace/files.c \
             libtrace/ring.c libtrace/flusher.c libtrace/fdprivate.c libtrace/handoff.c libtrace/sink.c libtrace/spool.c libtrace/posix.c \
             libtrace/stdio.c libtrace/aio.c libtrace/lifecycle.c libtrace/api.c libtrace/lazy.c libtrace/zmtp.c libtrace/link_zmtp.c libtrace/link_zmq.c \
             libtrace/unseen.c libtrace/libc_reads.c libtrace/mounts.c libtrace/clock.c libtrace/identity.c libtrace/envlock.c
SHIM_OBJS := $(patsubst %.c,$(B)/%.o,$(SHIM_SRCS)) $(B)/libtrace/lazy_auth.o $(B)/libtrace/lazy_transport.o

# common/auth.c and common/transport.c with their library calls through lazy.h.
$(B)/libtrace/lazy_%.o: common/%.c libtrace/lazy.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -include libtrace/lazy.h -MMD -MP -c $< -o $@
# The sonames lazy.c opens: those the libraries have on the build host.
# (common/lib_sonames.h has the fallbacks; predictor/cli.mk uses these too.)
lazy_soname = $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) 2>/dev/null | awk '/SONAME/ { print $$2 }')
lazy_soname_flags = $(foreach l,$(1),$(if $(call lazy_soname,$(l)),\
  -DFTIO_$(shell echo $(l) | tr a-z A-Z)_SO='"$(call lazy_soname,$(l))"'))
$(B)/libtrace/lazy.o: CFLAGS += $(call lazy_soname_flags,zmq munge sodium)
# libftio.so is versioned like any shared library: the file
# libftio.so.$(VERSION), its soname link libftio.so.$(SOVERSION) (what a
# program or LD_PRELOAD names at run time) and the libftio.so link.  The
# links are relative, so the build tree and an installed tree alike can be
# preloaded through any of the three names.
SHIM_REAL   := $(B)/lib/libftio.so.$(VERSION)
SHIM_SONAME := libftio.so.$(SOVERSION)
SHIM_LIB    := $(B)/lib/libftio.so

$(SHIM_OBJS): CFLAGS += -fvisibility=hidden
# Each function in a section of its own, so that the link can place those a
# short traced process runs together (libtrace/short_path.ld, written by
# bench/short_path.sh): each 64-KB window of code a process first touches is
# a page fault.  (The codec's objects too: the shim links them.)  -fini names
# no symbol, so the library has no DT_FINI: the C runtime's empty _fini, at
# the far end of the code, was a page fault of its own at every exit (our
# destructors run from .fini_array, core.c ftio_fini).
$(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_OBJS): CFLAGS += -ffunction-sections

SHIM_LINK = $(CC) -shared -o $@ $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB) -Wl,--exclude-libs,ALL \
	  -Wl,-soname,$(SHIM_SONAME) $(LDFLAGS) $(MPIIO_LIBS) -ldl -pthread

$(SHIM_REAL): $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB) libtrace/short_path.ld
	@mkdir -p $(dir $@)
	$(SHIM_LINK) -Wl,-T,libtrace/short_path.ld -Wl,-fini=ftio_no_dt_fini
	@# Nothing of the lazily loaded libraries may be left to the dynamic linker.
	@! nm -D --undefined-only $@ | grep -E ' (zmq|munge|sodium|crypto|randombytes)_' || \
	  { echo "$@: calls the lazily loaded libraries directly (libtrace/lazy.h)"; rm -f $@; exit 1; }

# The same objects in the linker's own order: what bench/short_path.sh
# profiles (valgrind 3.19 names no function outside the .text section).
$(B)/lib/unordered/libftio.so: $(SHIM_OBJS) $(MPIIO_OBJS) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(SHIM_LINK)

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
