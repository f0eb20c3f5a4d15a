# SPDX-License-Identifier: BSD-3-Clause
# predictor/cli.mk -- libftioreaders.a (trace readers + report JSON/text) and
# the `ftio` command with its subcommands `sub`, `replay` and `end`.
READERS_SRCS := $(wildcard predictor/readers/*.c) predictor/report.c
READERS_OBJS := $(READERS_SRCS:%.c=$(B)/%.o)
READERS_LIB  := $(B)/lib/libftioreaders.a

FTIO_CLI_SRCS := predictor/cli/ftio_main.c predictor/cli/offline.c predictor/cli/sub.c \
                 predictor/cli/replay.c predictor/cli/end.c predictor/cli/claim.c \
                 predictor/cli/keygen.c \
                 predictor/cli/relay.c \
                 predictor/cli/report_cmd.c \
                 predictor/cli/endpoints.c
FTIO_CLI_OBJS := $(FTIO_CLI_SRCS:%.c=$(B)/%.o)
FTIO_BIN      := $(B)/bin/ftio
# Everything `ftio` and tools built on the readers link against, in order.
FTIO_READERS_LINK := $(READERS_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a \
                     $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS)

$(READERS_LIB): $(READERS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(FTIO_BIN): $(FTIO_CLI_OBJS) $(SCAN_LIB) $(PLOT_LIB) $(READERS_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(FTIO_CLI_OBJS) $(SCAN_LIB) $(PLOT_LIB) $(FTIO_READERS_LINK) $(ZMQ_LIBS) -lm

# the objects with compiled-in paths (mk/paths.mk)
$(B)/predictor/cli/endpoints.o $(B)/predictor/cli/sub.o: $(FTIO_PATHS_H)

ALL_TARGETS += $(READERS_LIB) $(FTIO_BIN)
INSTALL_BIN += $(FTIO_BIN)
INSTALL_MAN += man/ftio.1
