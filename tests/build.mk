# tests/: one fragment per component.  Each appends Check binaries to
# CHECK_PROGS and shell tests to SHELL_TESTS (both run by tests/run.sh).
include tests/analysis.mk
include tests/readers.mk
include tests/cli.mk
include tests/darshan.mk
include tests/scan.mk
include tests/wire.mk
include tests/shim.mk
include tests/mpiio.mk
include tests/daemon.mk
SHELL_TESTS += tests/install.sh
