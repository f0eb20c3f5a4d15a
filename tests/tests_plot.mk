# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_plot.mk -- the pictures and exports (predictor/plot/):
#   $(B)/tests/test_plot    Check suite: units, escaping, ticks, whole-or-absent
#                           output files, CSV quoting, a page of a hostile job id
#   tests/plot/browser.sh   the pages rendered in headless Chromium: DOM and screenshot
#   tests/plot/exports.sh   CSV exports against ftio --json, bad input, ftio report errors
#   tests/plot/live_pages.sh  ftio report's signal and phases (log, --trace), stale repeats,
#                           activities, ftio sub --last --plot, metadata, both modes, the
#                           tallest line that is not the answer (facts: page_facts.py)
#   tests/plot/demo_pages.sh  make demo writes the live job's pages and says where
PLOT_TEST := $(B)/tests/test_plot

$(PLOT_TEST): $(B)/tests/plot/test_plot.o $(CHECK_MAIN) $(PLOT_LIB) $(PUBLISH_LIB) $(B)/lib/libftioanalysis.a \
              $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(PLOT_LIB) $(PUBLISH_LIB) $(B)/lib/libftioanalysis.a $(COMMON_LIB) \
	  $(FFTW_LIBS) $(JANSSON_LIBS) $(CHECK_LIBS) -lm

ALL_TARGETS += $(PLOT_TEST)
CHECK_PROGS += $(PLOT_TEST)
SHELL_TESTS += tests/plot/browser.sh tests/plot/exports.sh tests/plot/live_pages.sh tests/plot/demo_pages.sh
