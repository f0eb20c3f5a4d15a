# SPDX-License-Identifier: BSD-3-Clause
# tests/: one fragment per component.  Each appends Check binaries to
# CHECK_PROGS and shell tests to SHELL_TESTS (both run by tests/run.sh).
# tests/README.md describes the kit: tests/lib.sh for shell tests, one
# main() for every Check binary, the ftio-wire tool.

# Every Check binary links this main(); its test file defines ftio_test_suite().
CHECK_MAIN := $(B)/tests/check_main.o
include tests/tests_analysis.mk
include tests/tests_readers.mk
include tests/tests_cli.mk
include tests/tests_darshan.mk
include tests/tests_scan.mk
include tests/tests_wire.mk
include tests/tests_shim.mk
include tests/tests_mpiio.mk
include tests/tests_daemon.mk
include tests/tests_history.mk
include tests/tests_plot.mk
include tests/tests_forecast.mk
SHELL_TESTS += tests/install.sh tests/kit.sh tests/deps.sh tests/license.sh tests/spdx.sh
include tests/tests_slurm.mk
include tests/tests_realapps.mk
# Check binaries that compute on data in memory and assert nothing that
# depends on time or load (the analysis, the wire format, the readers) run
# in the second lane of tests/run.sh, as a shell test with the line
# "# suite-lane: beside" does (the Makefile passes them as SUITE_BESIDE).
CHECK_BESIDE = $(filter $(ANALYSIS_TESTS) $(B)/tests/test_wire $(B)/tests/test_readers,$(CHECK_PROGS))
