# SPDX-License-Identifier: BSD-3-Clause
# predictor/daemon.mk -- ftiod, the online predictor (predictor/daemon/).
FTIOD_SRCS := $(wildcard predictor/daemon/*.c)
FTIOD_OBJS := $(FTIOD_SRCS:%.c=$(B)/%.o)
# Everything but ftiod_main.o, for the unit tests and the ingest bench.
FTIOD_CORE_OBJS := $(filter-out $(B)/predictor/daemon/ftiod_main.o,$(FTIOD_OBJS))
# job.o and the per-job files it calls (per-activity streams, the processes'
# clocks, the machine view's per-job state), for the unit tests and benches
# that merge batches without a daemon; they link libftioforecast.a too.
FTIOD_JOB_OBJS := $(addprefix $(B)/predictor/daemon/,job.o job_activities.o job_clock.o job_machine.o)
# The pipeline's libraries ftiod links: its analysis options, the analysis,
# the machine view (libftioforecast.a), the publication and the memory of
# runs (no readers: its requests come off the wire, common/batch_requests.c).
FTIOD_LIBS := $(OPTIONS_LIB) $(PUBLISH_LIB) $(HISTORY_LIB) $(FORECAST_LIB) $(ANALYSIS_LIB) $(COMMON_LIB)
# The metrics endpoint (--metrics-listen, metrics.c): libmicrohttpd.
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)

# the configuration file's path is compiled in (mk/paths.mk)
$(B)/predictor/daemon/ftiod_main.o: $(FTIO_PATHS_H)

$(B)/bin/ftiod: $(FTIOD_OBJS) $(FTIOD_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(FTIOD_OBJS) $(FTIOD_LIBS) \
	  $(FFTW_LIBS) $(ZMQ_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) $(COMPRESS_LIBS) $(HISTORY_LIBS) $(MHD_LIBS)

ALL_TARGETS += $(B)/bin/ftiod
INSTALL_BIN += $(B)/bin/ftiod
INSTALL_MAN += man/ftiod.1
