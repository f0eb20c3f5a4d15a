# ftio top-level build.
#
# Each component owns a fragment (<dir>/build.mk) that appends to the lists below;
# this file only wires them together.  Everything is built out of tree in $(B).
#
#   make            build everything (libftio.so, ftio, ftiod, examples, tests, benches)
#   make check      install missing Debian packages, build, run every test
#   make asan       the same tests under AddressSanitizer + UBSan (tree in build-asan/)
#   make demo       install, build, run the live end-to-end demo
#   make bench      run the benchmarks (figures go to bench/README.md by hand)
#   make install PREFIX=/usr/local

B        ?= build
PREFIX   ?= /usr/local
VERSION  := 0.1.0

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
INSTALL_BIN  :=
INSTALL_LIB  :=
INSTALL_INC  :=
INSTALL_MAN  :=

all: build-all

include common/build.mk
include predictor/build.mk
include libtrace/build.mk
include examples/build.mk
include slurm/build.mk
include tools/build.mk
include tests/build.mk
include bench/build.mk

build-all: $(ALL_TARGETS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Installs whatever Debian packages are missing (needs root on a fresh machine).
deps:
	@sh mk/deps.sh

check: deps
	@$(MAKE) --no-print-directory build-all
	@B=$(B) sh tests/run.sh $(CHECK_PROGS) $(SHELL_TESTS)

asan: deps
	@$(MAKE) --no-print-directory B=build-asan OPT="-O1 -g" \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" check

demo: deps
	@$(MAKE) --no-print-directory build-all
	@B=$(B) sh examples/demo.sh

bench: deps
	@$(MAKE) --no-print-directory build-all $(BENCH_TARGETS)
	@B=$(B) sh bench/run.sh

install: build-all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1
	$(if $(INSTALL_BIN),install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin)
	$(if $(INSTALL_LIB),install -m 755 $(INSTALL_LIB) $(DESTDIR)$(PREFIX)/lib)
	$(if $(INSTALL_INC),install -m 644 $(INSTALL_INC) $(DESTDIR)$(PREFIX)/include)
	$(if $(INSTALL_MAN),install -m 644 $(INSTALL_MAN) $(DESTDIR)$(PREFIX)/share/man/man1)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' mk/ftio.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ftio.pc

clean:
	rm -rf build build-asan

.PHONY: all build-all deps check asan demo bench install clean
