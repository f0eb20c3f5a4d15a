# SPDX-License-Identifier: BSD-3-Clause
# predictor/options.mk -- libftiooptions.a: the analysis options every command
# line shares (predictor/analysis_options.h, predictor/options/): their
# common/cliopt.h table entries, bounds, defaults and resolution.  Linked by
# `ftio`, ftiod and ftio-scan-mpi; the analysis library holds no option-table code.
OPTIONS_SRCS := $(wildcard predictor/options/*.c)
OPTIONS_OBJS := $(OPTIONS_SRCS:%.c=$(B)/%.o)
OPTIONS_LIB  := $(B)/lib/libftiooptions.a

$(OPTIONS_LIB): $(OPTIONS_OBJS)

ALL_TARGETS += $(OPTIONS_LIB)
