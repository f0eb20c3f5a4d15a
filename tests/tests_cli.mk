# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_cli.mk -- Check unit tests of the option tables (common/cliopt.c),
# the control socket's requests (common/control.c) and
# the shared analysis options (predictor/options/analysis_options.c); their end-to-end
# test is tests/cli/options.sh (registered with tests/cli/*.sh in tests/tests_readers.mk).
CLIOPT_TEST := $(B)/tests/test_cliopt

$(CLIOPT_TEST): $(B)/tests/cli/test_cliopt.o $(CHECK_MAIN) $(OPTIONS_LIB) $(B)/lib/libftioanalysis.a \
               $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(FFTW_LIBS) $(CHECK_LIBS) -lm

ALL_TARGETS += $(CLIOPT_TEST)
CHECK_PROGS += $(CLIOPT_TEST)

# The control socket's requests (common/control.c).
CONTROL_TEST := $(B)/tests/test_control

$(CONTROL_TEST): $(B)/tests/cli/test_control.o $(CHECK_MAIN) $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZMQ_LIBS) $(JANSSON_LIBS) $(CHECK_LIBS)

ALL_TARGETS += $(CONTROL_TEST)
CHECK_PROGS += $(CONTROL_TEST)
