# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_history.mk -- the memory of runs (predictor/history/, the daemon's
# glue predictor/daemon/history_*.c, libtrace/identity.c):
#   test_store     the store on SQLite (schema, levels, bounds, damaged, locked)
#   tests/history/*.sh  the identity on the wire, ftiod's priors live (mpirun),
#                  `ftio history`, the archive path, PostgreSQL with two daemons
$(B)/tests/history/test_store.o: CFLAGS += $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
$(B)/tests/test_store: $(B)/tests/history/test_store.o $(CHECK_MAIN) $(HISTORY_LIB) $(ANALYSIS_LIB) \
                       $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CHECK_MAIN) $(HISTORY_LIB) $(ANALYSIS_LIB) $(COMMON_LIB) \
	  $(HISTORY_LIBS) $(FFTW_LIBS) $(CHECK_LIBS)

ALL_TARGETS += $(B)/tests/test_store
CHECK_PROGS += $(B)/tests/test_store
SHELL_TESTS += $(sort $(wildcard tests/history/*.sh))
