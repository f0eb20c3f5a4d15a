# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_slurm.mk -- the launcher and Slurm tests: the SPANK plugin against a
# real single-node Slurm started by the test (tests/slurm/spank.sh) and
# ftio-run / a preloaded mpirun with a real ftiod (tests/slurm/launchers.sh).
SHELL_TESTS += $(sort $(wildcard tests/slurm/*.sh))
