# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_realapps.mk -- the measurement machinery of bench/realapps on real
# programs (LAMMPS, one of our MPI examples) live and offline; the benchmark
# itself is `make bench` (bench/realapps/run.sh).  tests/realapps/lib.sh is
# their shared helper, not a test.
SHELL_TESTS += $(filter-out tests/realapps/lib.sh,$(sort $(wildcard tests/realapps/*.sh)))
