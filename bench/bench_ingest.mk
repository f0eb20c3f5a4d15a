# SPDX-License-Identifier: BSD-3-Clause
# bench/bench_ingest.mk -- ftiod ingest benchmark (included from bench/bench.mk).
#   $(B)/bench/ingest   throughput (records/s decoded + merged), ftiod RSS over
#                       time, flush-to-prediction latency with a 1 h window.
#   bench/ingest.sh     runs it (short by default; INGEST_DURATION=600 for the spec run)
$(B)/bench/ingest: $(B)/bench/ingest_bench.o $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZMQ_LIBS) $(MSGPACK_LIBS) $(JANSSON_LIBS) -lm

BENCH_TARGETS += $(B)/bench/ingest $(B)/bin/ftiod

# bench/auth.sh: what authentication costs per batch and on the ingest rate.
$(B)/bench/auth-cost: $(B)/bench/auth_cost.o $(B)/predictor/daemon/auth_verify.o $(B)/predictor/daemon/log.o \
                      $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZMQ_LIBS) $(MSGPACK_LIBS) -lm

BENCH_TARGETS += $(B)/bench/auth-cost

# bench/sitescale.sh: N live jobs (ftio-wire fleet) into one ftiod; step:
# one analysis step's CPU time for a job of H hours (bench/step_bench.c).
$(B)/bench/step: $(B)/bench/step_bench.o $(FTIOD_JOB_OBJS) $(FORECAST_LIB) \
                 $(PUBLISH_LIB) $(B)/lib/libftioanalysis.a $(B)/lib/libftiocommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/bench/step_bench.o $(FTIOD_JOB_OBJS) $(FORECAST_LIB) \
	  $(PUBLISH_LINK) -lm

BENCH_TARGETS += $(B)/bench/step $(B)/bin/ftio-wire

# bench/forecast_bench.c: what the machine forecast costs for 10^3-10^5 jobs
# (bench/README.md "contention").
$(B)/bench/forecast: $(B)/bench/forecast_bench.o $(FORECAST_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

BENCH_TARGETS += $(B)/bench/forecast
