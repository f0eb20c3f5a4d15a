# SPDX-License-Identifier: BSD-3-Clause
# predictor/forecast.mk -- libftioforecast.a (predictor/forecast/): what the
# whole machine will do (issue 26): each phase described (phase_track.h), how
# long the next one will take under load (duration.h), the machine-wide
# aggregate forecast and its collisions (forecast.h).  Needs nothing but
# libftiocommon.a; linked by ftiod and `ftio`.
FORECAST_SRCS := $(wildcard predictor/forecast/*.c)
FORECAST_OBJS := $(FORECAST_SRCS:%.c=$(B)/%.o)
FORECAST_LIB  := $(B)/lib/libftioforecast.a

$(FORECAST_LIB): $(FORECAST_OBJS)

ALL_TARGETS += $(FORECAST_LIB)
