# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_shim.mk -- tests of libftio.so's core, POSIX and stdio layers.
# The call-family program in three builds (plain, _FORTIFY_SOURCE, LFS) and the
# lifecycle/threads program; the shell tests drive them under LD_PRELOAD and
# count what arrives with `ftio-wire recv` (tests/tests_wire.mk).
SHIM_TEST_DIR := $(B)/tests
# The call-family program, compiled three ways from one source.
$(SHIM_TEST_DIR)/shim_calls: tests/shim/shim_calls.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)
$(SHIM_TEST_DIR)/shim_calls_fortify: tests/shim/shim_calls.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -o $@ $< $(LDFLAGS)
$(SHIM_TEST_DIR)/shim_calls_lfs: tests/shim/shim_calls.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D_FILE_OFFSET_BITS=64 -o $@ $< $(LDFLAGS)

$(SHIM_TEST_DIR)/shim_life: $(B)/tests/shim/shim_life.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

# The burst program (tests/shim/burst.sh, bench/burst.sh).
$(SHIM_TEST_DIR)/shim-burst: $(B)/tests/shim/shim_burst.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

# The rings' laps, segment reuse and a fork (tests/shim/ring_laps.sh).
$(SHIM_TEST_DIR)/shim-laps: $(B)/tests/shim/shim_laps.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

# The end of an image, a fork or a thread's end during the flusher's switch
# to ZeroMQ, made slow by an LD_AUDIT module (tests/shim/switch_races.sh).
$(SHIM_TEST_DIR)/shim-switch: $(B)/tests/shim/shim_switch.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)
# The environment changed in a tight loop during the switch (tests/shim/env_race.sh).
$(SHIM_TEST_DIR)/shim-envrace: $(B)/tests/shim/shim_envrace.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)
# (never sanitized: glibc loads it in a namespace of its own, before libasan)
$(SHIM_TEST_DIR)/slow_load.so: tests/shim/slow_load.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

# A second interposer beside libftio.so (tests/shim/interposers.sh); never
# sanitized, like slow_load.so: a preloaded object of its own.
$(SHIM_TEST_DIR)/next_interposer.so: tests/shim/next_interposer.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

# Descriptors the open wrappers never saw, and C++ streams (tests/shim/every_byte.sh).
$(SHIM_TEST_DIR)/shim-fds: $(B)/tests/shim/shim_fds.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)
$(SHIM_TEST_DIR)/cxx-streams: tests/shim/cxx_streams.cpp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -Wall -Wextra -Werror -o $@ $< $(LDFLAGS)

# Under make asan only: ASan started before every other constructor
# (tests/shim/asan_first.c says why; tests/lib.sh preloads it).
ifneq ($(findstring address,$(SAN)),)
$(SHIM_TEST_DIR)/asan_first.so: tests/shim/asan_first.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -Wl,-z,initfirst -o $@ $< \
	  -Wl,--no-as-needed -lasan
ALL_TARGETS += $(SHIM_TEST_DIR)/asan_first.so
endif

SHIM_TEST_BINS := $(FTIO_WIRE) $(SHIM_TEST_DIR)/shim_calls $(SHIM_TEST_DIR)/shim_calls_fortify \
                  $(SHIM_TEST_DIR)/shim_calls_lfs $(SHIM_TEST_DIR)/shim_life $(SHIM_TEST_DIR)/shim-burst \
                  $(SHIM_TEST_DIR)/shim-fds $(SHIM_TEST_DIR)/cxx-streams $(SHIM_TEST_DIR)/shim-switch \
                  $(SHIM_TEST_DIR)/slow_load.so $(SHIM_TEST_DIR)/shim-envrace $(SHIM_TEST_DIR)/shim-laps \
                  $(SHIM_TEST_DIR)/next_interposer.so

ALL_TARGETS += $(SHIM_TEST_BINS)
SHELL_TESTS += tests/shim/calls.sh tests/shim/lifecycle.sh tests/shim/delivery.sh tests/shim/burst.sh \
               tests/shim/spool_safety.sh tests/shim/exec_handoff.sh tests/shim/spool_fallback.sh tests/shim/warn_once.sh tests/shim/stopped_daemon.sh tests/shim/zmtp.sh \
               tests/shim/env_doc.sh tests/shim/every_byte.sh tests/shim/torch_save.sh tests/shim/restart_munge.sh \
               tests/shim/bad_peer.sh tests/shim/lost_batch.sh tests/shim/mounts_reread.sh \
               tests/shim/stderr_kept.sh tests/shim/switch_races.sh \
               tests/shim/env_race.sh tests/shim/ring_laps.sh tests/shim/hot_page.sh tests/shim/interposers.sh \
               tests/shim/short_path.sh

shim-tests: $(SHIM_LIB) $(SHIM_TEST_BINS) $(B)/bin/flush_points $(B)/bin/posix_periodic
.PHONY: shim-tests
