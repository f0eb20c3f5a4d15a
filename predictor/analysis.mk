# SPDX-License-Identifier: BSD-3-Clause
# predictor/analysis.mk -- libftioanalysis.a, the period-detection library
# (predictor/analysis.h; one file per concern in predictor/analysis/).
ANALYSIS_SRCS := $(wildcard predictor/analysis/*.c)
ANALYSIS_OBJS := $(ANALYSIS_SRCS:%.c=$(B)/%.o)
ANALYSIS_LIB  := $(B)/lib/libftioanalysis.a

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

ALL_TARGETS += $(ANALYSIS_LIB)
