# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_daemon.mk -- ftiod: Check unit tests of the job state and of the
# conversion parity with the offline reader, and end-to-end shell tests (which
# forge wire batches with `ftio-wire periodic|tmio|fuzz`, tests/tests_wire.mk).
#   test_job              the per-job state (job.c)
#   test_parity           the daemon's path and the spool reader give the same requests
#   test_job_activities   the per-activity streams of a job (job_activities.c)
DAEMON_CHECKS := $(addprefix $(B)/tests/,test_job test_parity test_job_activities)

# Each links job.o with the per-job files it calls (FTIOD_JOB_OBJS:
# per-activity streams, which report through libftiopublish.a (jansson), the
# processes' clocks, and the machine view's per-job state, libftioforecast.a);
# test_parity reads spool files with the readers.
$(DAEMON_CHECKS): $(B)/tests/%: $(B)/tests/daemon/%.o $(CHECK_MAIN) $(FTIOD_JOB_OBJS) $(PUBLISH_LIB) \
                  $(FORECAST_LIB) $(FTIO_READERS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(FTIOD_JOB_OBJS) $(PUBLISH_LIB) $(FORECAST_LIB) \
	  $(FTIO_READERS_LINK) $(CHECK_LIBS) -lm

# Admission of a batch (admit.c): the daemon's objects but its main().
DAEMON_TEST_ADMIT := $(B)/tests/test_admit
$(DAEMON_TEST_ADMIT): $(B)/tests/daemon/test_admit.o $(CHECK_MAIN) $(FTIOD_CORE_OBJS) $(FTIOD_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/daemon/test_admit.o $(CHECK_MAIN) $(FTIOD_CORE_OBJS) \
	  $(FTIOD_LIBS) $(CHECK_LIBS) $(FFTW_LIBS) $(ZMQ_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) \
	  $(COMPRESS_LIBS) $(HISTORY_LIBS) $(MHD_LIBS) -lm

ALL_TARGETS += $(DAEMON_CHECKS) $(DAEMON_TEST_ADMIT)
CHECK_PROGS += $(DAEMON_CHECKS) $(DAEMON_TEST_ADMIT)
SHELL_TESTS += $(filter-out tests/daemon/ack_check.sh,$(sort $(wildcard tests/daemon/*.sh)))
