# predictor/cli.mk -- libftioreaders.a (trace readers + report JSON/text) and
# the `ftio` command.  `ftio sub` / `ftio replay` (predictor/cli/sub.c,
# replay.c, owned by the daemon engineer) are linked only once their files
# exist; main.c then dispatches to them (FTIO_HAVE_SUB / FTIO_HAVE_REPLAY).
READERS_SRCS := $(wildcard predictor/readers/*.c) predictor/report.c
READERS_OBJS := $(READERS_SRCS:%.c=$(B)/%.o)
READERS_LIB  := $(B)/lib/libftioreaders.a

FTIO_SUB_SRC    := $(wildcard predictor/cli/sub.c)
FTIO_REPLAY_SRC := $(wildcard predictor/cli/replay.c)
FTIO_CLI_SRCS := predictor/cli/main.c predictor/cli/analyze.c $(FTIO_SUB_SRC) $(FTIO_REPLAY_SRC)
FTIO_CLI_OBJS := $(FTIO_CLI_SRCS:%.c=$(B)/%.o)
FTIO_BIN      := $(B)/bin/ftio
# Everything `ftio` and tools built on the readers link against, in order.
FTIO_READERS_LINK := $(READERS_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a \
                     $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS)

$(READERS_LIB): $(READERS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# main.o must be rebuilt when sub.c / replay.c appear: depend on them.
$(B)/predictor/cli/main.o: CFLAGS += $(if $(FTIO_SUB_SRC),-DFTIO_HAVE_SUB) \
                                    $(if $(FTIO_REPLAY_SRC),-DFTIO_HAVE_REPLAY)
$(B)/predictor/cli/main.o: $(FTIO_SUB_SRC) $(FTIO_REPLAY_SRC)

$(FTIO_BIN): $(FTIO_CLI_OBJS) $(READERS_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(FTIO_CLI_OBJS) $(FTIO_READERS_LINK) $(ZMQ_LIBS) -lm

ALL_TARGETS += $(READERS_LIB) $(FTIO_BIN)
INSTALL_BIN += $(FTIO_BIN)
INSTALL_MAN += man/ftio.1
