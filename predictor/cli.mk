# SPDX-License-Identifier: BSD-3-Clause
# predictor/cli.mk -- the `ftio` command (predictor/cli/) with its subcommands
# `sub`, `replay`, `end`, `claim`, `keygen`, `relay`, `report`, `history` and `scan`: the
# offline pipeline readers -> analysis -> publish (+ plot), and the clients.
FTIO_CLI_SRCS := predictor/cli/ftio_main.c predictor/cli/offline.c predictor/cli/sub.c \
                 predictor/cli/replay.c predictor/cli/end.c predictor/cli/claim.c \
                 predictor/cli/keygen.c \
                 predictor/cli/relay.c \
                 predictor/cli/report_cmd.c predictor/cli/history.c \
                 predictor/cli/phases.c \
                 predictor/cli/sub_machine.c \
                 predictor/cli/report_machine.c \
                 predictor/cli/endpoints.c \
                 predictor/cli/lazy_libs.c
FTIO_CLI_OBJS := $(FTIO_CLI_SRCS:%.c=$(B)/%.o)
FTIO_BIN      := $(B)/bin/ftio
# The libraries `ftio` links, in link order.
FTIO_LIBS     := $(SCAN_LIB) $(PLOT_LIB) $(PUBLISH_LIB) $(OPTIONS_LIB) $(READERS_LIB) $(HISTORY_LIB) \
                 $(FORECAST_LIB) $(ANALYSIS_LIB) $(COMMON_LIB)

# ZeroMQ, MUNGE, libsodium, SQLite and libpq are not linked: the code that
# calls them is compiled with -include lazy_libs.h (ftio's own builds of the
# common/ and history/ files that do, beside the archives' copies, which the
# linker then never takes), and lazy_libs.c loads them on a command's first
# call, so `ftio FILE` starts without them (lazy_libs.h).
FTIO_LAZY_H    := predictor/cli/lazy_libs.h
FTIO_LAZY_OBJS := $(patsubst %.c,$(B)/predictor/cli/lazy/%.o,common/auth.c common/control.c \
                  common/curve.c common/transport.c predictor/history/db_pg.c \
                  predictor/history/db_sqlite.c)
FTIO_LAZY_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql) \
                    -include $(FTIO_LAZY_H)
$(filter-out %/lazy_libs.o,$(FTIO_CLI_OBJS)): CFLAGS += $(FTIO_LAZY_CFLAGS)
$(B)/predictor/cli/lazy/%.o: %.c $(FTIO_LAZY_H) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FTIO_LAZY_CFLAGS) -MMD -MP -c $< -o $@
# The sonames lazy_libs.c opens: the build host's (lazy_soname_flags: libtrace.mk).
$(B)/predictor/cli/lazy_libs.o: predictor/cli/lazy_libs.c $(FTIO_LAZY_H) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql) \
	  $(call lazy_soname_flags,zmq munge sodium sqlite3 pq) -MMD -MP -c $< -o $@

$(FTIO_BIN): $(FTIO_CLI_OBJS) $(FTIO_LAZY_OBJS) $(FTIO_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(FTIO_CLI_OBJS) $(FTIO_LAZY_OBJS) $(FTIO_LIBS) \
	  $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS) -ldl -lm

# the objects with compiled-in paths (mk/paths.mk)
$(B)/predictor/cli/endpoints.o $(B)/predictor/cli/sub.o: $(FTIO_PATHS_H)

ALL_TARGETS += $(FTIO_BIN)
INSTALL_BIN += $(FTIO_BIN)
INSTALL_MAN += man/ftio.1
