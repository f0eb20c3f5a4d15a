# SPDX-License-Identifier: BSD-3-Clause
# predictor/publish.mk -- libftiopublish.a: an analysis result as the JSON
# prediction object of PROTOCOL.md §2 and as text (predictor/publish/report.h).
# The last stage of the pipeline, shared by `ftio` and ftiod; it needs the
# analysis library's types, libftiocommon.a's units and jansson, not the readers.
PUBLISH_SRCS := $(wildcard predictor/publish/*.c)
PUBLISH_OBJS := $(PUBLISH_SRCS:%.c=$(B)/%.o)
PUBLISH_LIB  := $(B)/lib/libftiopublish.a

$(PUBLISH_LIB): $(PUBLISH_OBJS)

ALL_TARGETS += $(PUBLISH_LIB)
# What a program that publishes results links, in order (ftiod's objects in
# the tests and benches of the daemon).
PUBLISH_LINK := $(PUBLISH_LIB) $(ANALYSIS_LIB) $(COMMON_LIB) $(FFTW_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS)
