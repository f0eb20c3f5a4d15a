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
                 predictor/cli/endpoints.c
FTIO_CLI_OBJS := $(FTIO_CLI_SRCS:%.c=$(B)/%.o)
FTIO_BIN      := $(B)/bin/ftio
# The libraries `ftio` links, in link order.
FTIO_LIBS     := $(SCAN_LIB) $(PLOT_LIB) $(PUBLISH_LIB) $(OPTIONS_LIB) $(READERS_LIB) $(HISTORY_LIB) \
                 $(FORECAST_LIB) $(ANALYSIS_LIB) $(COMMON_LIB)

$(FTIO_BIN): $(FTIO_CLI_OBJS) $(FTIO_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(FTIO_CLI_OBJS) $(FTIO_LIBS) \
	  $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS) $(ZMQ_LIBS) $(HISTORY_LIBS) -lm

# the objects with compiled-in paths (mk/paths.mk)
$(B)/predictor/cli/endpoints.o $(B)/predictor/cli/sub.o: $(FTIO_PATHS_H)

ALL_TARGETS += $(FTIO_BIN)
INSTALL_BIN += $(FTIO_BIN)
INSTALL_MAN += man/ftio.1
