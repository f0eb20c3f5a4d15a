# SPDX-License-Identifier: BSD-3-Clause
# predictor/plot.mk -- libftioplot.a: the HTML pictures (inline SVG) and CSV
# exports of an analysis (predictor/plot/plot.h), used by `ftio --plot`,
# `--export-signal`, `--export-spectrum` and `ftio report`.
PLOT_SRCS := $(wildcard predictor/plot/*.c)
PLOT_OBJS := $(PLOT_SRCS:%.c=$(B)/%.o)
PLOT_LIB  := $(B)/lib/libftioplot.a

$(PLOT_LIB): $(PLOT_OBJS)

ALL_TARGETS += $(PLOT_LIB)
