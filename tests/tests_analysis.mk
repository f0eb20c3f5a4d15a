# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_analysis.mk -- Check unit tests of libftioanalysis.a: every
# tests/analysis/analysis_*.c becomes the binary $(B)/tests/analysis_*.
ANALYSIS_TESTS := $(patsubst tests/analysis/%.c,$(B)/tests/%,$(wildcard tests/analysis/analysis_*.c))

$(ANALYSIS_TESTS): $(B)/tests/%: $(B)/tests/analysis/%.o $(CHECK_MAIN) $(ANALYSIS_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(ANALYSIS_LIB) $(COMMON_LIB) $(FFTW_LIBS) $(CHECK_LIBS)

ALL_TARGETS += $(ANALYSIS_TESTS)
CHECK_PROGS += $(ANALYSIS_TESTS)

# The accuracy regression subset (bench/accuracy-gen --subset, scored by
# bench/accuracy_eval.py): a shell test.
SHELL_TESTS += tests/analysis/accuracy.sh tests/analysis/reallogs.sh
