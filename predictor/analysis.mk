# SPDX-License-Identifier: BSD-3-Clause
# predictor/analysis.mk -- libftioanalysis.a, the period-detection library
# (predictor/analysis.h; one file per concern in predictor/analysis/):
# requests -> signal -> samples -> analysis.  No command-line code (that is
# libftiooptions.a, predictor/options.mk) and no output (libftiopublish.a).
ANALYSIS_SRCS := $(wildcard predictor/analysis/*.c)
ANALYSIS_OBJS := $(ANALYSIS_SRCS:%.c=$(B)/%.o)
ANALYSIS_LIB  := $(B)/lib/libftioanalysis.a

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)

ALL_TARGETS += $(ANALYSIS_LIB)
