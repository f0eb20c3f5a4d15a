# tests/cli.mk -- Check unit tests of the option tables (common/cliopt.c) and
# the shared analysis options (predictor/analysis/options.c); their end-to-end
# test is tests/cli/options.sh (registered with tests/cli/*.sh in readers.mk).
CLIOPT_TEST := $(B)/tests/test_cliopt

$(CLIOPT_TEST): $(B)/tests/cli/test_cliopt.o $(CHECK_MAIN) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(FFTW_LIBS) $(CHECK_LIBS) -lm

ALL_TARGETS += $(CLIOPT_TEST)
CHECK_PROGS += $(CLIOPT_TEST)
