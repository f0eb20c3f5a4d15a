# SPDX-License-Identifier: BSD-3-Clause
# tests/: one fragment per component.  Each appends Check binaries to
# CHECK_PROGS and shell tests to SHELL_TESTS (both run by tests/run.sh).
# tests/README.md describes the kit: tests/lib.sh for shell tests, one
# main() for every Check binary, the ftio-wire tool.

# Every Check binary links this main(); its test file defines ftio_test_suite().
CHECK_MAIN := $(B)/tests/check_main.o
include tests/analysis.mk
include tests/readers.mk
include tests/cli.mk
include tests/darshan.mk
include tests/scan.mk
include tests/wire.mk
include tests/shim.mk
include tests/mpiio.mk
include tests/daemon.mk
include tests/plot.mk
SHELL_TESTS += tests/install.sh tests/kit.sh tests/deps.sh tests/license.sh tests/spdx.sh
include tests/slurm.mk
include tests/realapps.mk
