# SPDX-License-Identifier: BSD-3-Clause
# ftio top-level build.
#
# Each component owns a fragment (<dir>/<dir>.mk, named after its folder so no two fragments share a name) that appends to the lists below;
# this file only wires them together.  Everything is built out of tree in $(B).
#
#   make            build everything (libftio.so, ftio, ftiod, examples, tests, benches)
#   make check      install missing Debian packages, build, run every test
#                   (TESTS="name ...": only those, e.g. TESTS="test_wire calls.sh")
#   make asan       the same tests under AddressSanitizer + UBSan (tree in build-asan/)
#   make demo       install what the demo needs, build it, run the live end-to-end demo
#   make bench      run the benchmarks (figures go to bench/README.md by hand)
#   make install    install what a site needs (builds only that; see mk/install.mk)
#   make uninstall  remove exactly what `make install` put there (same variables)

B        ?= build
# The version, in one place (VERSION): ftio/ftiod --version, ftio.pc, the
# module file and libftio.so.$(VERSION); tests/license.sh checks the man
# pages and CHANGELOG.md against it.
VERSION  := $(shell cat VERSION)
# libftio.so's soname: libftio.so.$(SOVERSION) -> libftio.so.$(VERSION)
SOVERSION := 0

CC       ?= cc
MPICC    ?= mpicc
OPT      ?= -O2 -g
SAN      ?=
CFLAGS   := $(OPT) $(SAN) -std=gnu11 -Wall -Wextra -Werror -fPIC -pthread \
            -D_GNU_SOURCE -DFTIO_VERSION=\"$(VERSION)\" \
            -Iinclude -Icommon -Ipredictor -Ilibtrace
LDFLAGS  := $(SAN) -pthread

PKGS      := fftw3 libzmq msgpack jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   += $(PKG_CFLAGS)
FFTW_LIBS    := -lfftw3 -lm
# The network: ZeroMQ, with MUNGE and libsodium for authentication (common/auth.c).
AUTH_LIBS    := -lmunge -lsodium
ZMQ_LIBS     := -lzmq $(AUTH_LIBS)
MSGPACK_LIBS := $(shell pkg-config --libs msgpack 2>/dev/null || echo -lmsgpackc)
JANSSON_LIBS := -ljansson
# zlib and bzip2: the compressed regions of binary Darshan logs (readers/darshan_log.c)
COMPRESS_LIBS := -lz -lbz2
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

# Filled by the fragments.
ALL_TARGETS  :=
CHECK_PROGS  :=     # Check unit-test binaries, run by tests/run.sh
SHELL_TESTS  :=     # shell tests (tests/*.sh), run by tests/run.sh
BENCH_TARGETS :=
# What `make install` installs (mk/install.mk says where each list goes).
INSTALL_BIN  :=     # programs -> $(BINDIR)
INSTALL_LIB  :=     # shared libraries with their soname links -> $(LIBDIR)
INSTALL_PLUGIN :=   # loadable modules (no soname, no links) -> $(LIBDIR)
INSTALL_INC  :=     # public headers -> $(INCLUDEDIR)
INSTALL_MAN  :=     # man pages, section from the suffix (x.1 -> man1) -> $(MANDIR)
INSTALL_DOC  :=     # documentation, path kept (docs/X.md -> $(DOCDIR)/docs/X.md)
# templates TEMPLATE:PATH with @VAR@ replaced; recursive (=) so that a fragment
# may name $(SYSCONFDIR) etc. before mk/install.mk sets them
INSTALL_SUBST =
# configuration files SOURCE:PATH, installed only where none is (recursive too)
INSTALL_CONF =

# Is there an MPI compiler?  Without one, `make install` leaves out the MPI
# programs (ftio-scan-mpi) and says so.
HAVE_MPICC := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo yes)

all: build-all

include mk/flags.mk
include mk/paths.mk
include common/common.mk
include predictor/predictor.mk
include libtrace/libtrace.mk
include examples/examples.mk
include slurm/slurm.mk
include tools/tools.mk
include tests/tests.mk
include bench/bench.mk
include mk/install.mk

build-all: $(ALL_TARGETS)

$(B)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Every static library: a fragment names its objects (`$(LIB): $(OBJS)`) and
# this one rule archives them, afresh so that an object taken out of the list
# leaves the archive too.
$(B)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Installs whatever Debian packages are missing (needs root on a fresh machine):
# deps for the tests, deps-demo for the demo only (mk/deps.sh).
deps:
	@sh mk/deps.sh check

deps-demo:
	@sh mk/deps.sh demo

# What the demo runs (examples/demo.sh): no tests, no Check.
DEMO_TARGETS := $(B)/bin/ftiod $(B)/bin/ftio $(B)/bin/checkpoint $(SHIM_LIB)

# TESTS="name ...": the tests of those names, given as file names with or
# without the extension, or as paths (test_wire, calls.sh, tests/shim/calls).
TESTS ?=
test_name = $(basename $(notdir $(1)))
ALL_TESTS := $(CHECK_PROGS) $(SHELL_TESTS)
SELECTED_TESTS = $(if $(strip $(TESTS)),$(foreach t,$(ALL_TESTS),$(if $(filter $(call test_name,$(t)),$(call test_name,$(TESTS))),$(t))),$(ALL_TESTS))
UNKNOWN_TESTS = $(filter-out $(foreach t,$(ALL_TESTS),$(call test_name,$(t))),$(call test_name,$(TESTS)))

# The build of `make check` runs two compilers at once unless make was given
# its own -j (CI runs a plain `make check`: half the build's time on 2 cores).
CHECK_BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j2)
check: check-names deps
	@$(MAKE) --no-print-directory $(CHECK_BUILD_JOBS) build-all
	@B=$(B) SUITE_BESIDE="$(CHECK_BESIDE)" sh tests/run.sh $(SELECTED_TESTS)

check-names:
	@$(if $(strip $(UNKNOWN_TESTS)),echo "make check: no test named $(UNKNOWN_TESTS) (make list-tests)" >&2; exit 2,:)

# The names TESTS= takes.
list-tests:
	@for t in $(foreach t,$(ALL_TESTS),$(call test_name,$(t))); do echo $$t; done

asan: deps
	@$(MAKE) --no-print-directory B=build-asan OPT="-O1 -g" \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" check

demo: deps-demo
	@$(MAKE) --no-print-directory $(DEMO_TARGETS)
	@B=$(B) sh examples/demo.sh

bench: deps
	@$(MAKE) --no-print-directory build-all $(BENCH_TARGETS)
	@B=$(B) sh bench/run.sh

clean:
	rm -rf build build-asan

.PHONY: all build-all deps deps-demo check check-names list-tests asan demo bench clean
