# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_daemon.mk -- ftiod: Check unit tests of the job state and of the
# conversion parity with the offline reader, and end-to-end shell tests (which
# forge wire batches with `ftio-wire periodic|tmio|fuzz`, tests/tests_wire.mk).
DAEMON_TEST_JOB := $(B)/tests/test_job

# job.o calls job_activities.o (per-activity streams), which reports through
# libftiopublish.a (jansson).
$(DAEMON_TEST_JOB): $(B)/tests/daemon/test_job.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
                    $(B)/predictor/daemon/job_activities.o $(PUBLISH_LIB) \
                    $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/daemon/test_job.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
	  $(B)/predictor/daemon/job_activities.o $(PUBLISH_LINK) $(CHECK_LIBS) -lm

# Conversion parity: the daemon's path and the spool reader give the same requests.
DAEMON_TEST_PARITY := $(B)/tests/test_parity
$(DAEMON_TEST_PARITY): $(B)/tests/daemon/test_parity.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
                       $(B)/predictor/daemon/job_activities.o $(PUBLISH_LIB) \
                       $(READERS_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/daemon/test_parity.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
	  $(B)/predictor/daemon/job_activities.o \
	  $(PUBLISH_LIB) $(FTIO_READERS_LINK) $(CHECK_LIBS) -lm

# The per-activity streams of a job (job_activities.c).
DAEMON_TEST_ACTS := $(B)/tests/test_job_activities
$(DAEMON_TEST_ACTS): $(B)/tests/daemon/test_job_activities.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
                     $(B)/predictor/daemon/job_activities.o $(PUBLISH_LIB) \
                     $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/daemon/test_job_activities.o $(CHECK_MAIN) $(B)/predictor/daemon/job.o \
	  $(B)/predictor/daemon/job_activities.o $(PUBLISH_LINK) $(CHECK_LIBS) -lm

# Admission of a batch (admit.c): the daemon's objects but its main().
DAEMON_TEST_ADMIT := $(B)/tests/test_admit
$(DAEMON_TEST_ADMIT): $(B)/tests/daemon/test_admit.o $(CHECK_MAIN) $(FTIOD_CORE_OBJS) $(FTIOD_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/daemon/test_admit.o $(CHECK_MAIN) $(FTIOD_CORE_OBJS) \
	  $(FTIOD_LIBS) $(CHECK_LIBS) $(FFTW_LIBS) $(ZMQ_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) \
	  $(COMPRESS_LIBS) -lm

ALL_TARGETS += $(DAEMON_TEST_JOB) $(DAEMON_TEST_PARITY) $(DAEMON_TEST_ACTS) $(DAEMON_TEST_ADMIT)
CHECK_PROGS += $(DAEMON_TEST_JOB) $(DAEMON_TEST_PARITY) $(DAEMON_TEST_ACTS) $(DAEMON_TEST_ADMIT)
SHELL_TESTS += $(sort $(wildcard tests/daemon/*.sh))
