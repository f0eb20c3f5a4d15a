# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_forecast.mk -- libftioforecast.a (predictor/forecast/) and the
# machine view of ftiod (issue 26): the Check test of the library, the shell
# tests of ftiod's machine topic, phase fields, metrics (a real Prometheus)
# and `ftio report --machine` in Chromium (tests/forecast/*.sh).
FORECAST_TESTS := $(B)/tests/test_forecast

$(FORECAST_TESTS): $(B)/tests/%: $(B)/tests/forecast/%.o $(CHECK_MAIN) $(FORECAST_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(FORECAST_LIB) $(COMMON_LIB) $(CHECK_LIBS) -lm

ALL_TARGETS += $(FORECAST_TESTS)
CHECK_PROGS += $(FORECAST_TESTS)
SHELL_TESTS += $(sort $(wildcard tests/forecast/*.sh))
