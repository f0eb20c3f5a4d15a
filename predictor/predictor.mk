# SPDX-License-Identifier: BSD-3-Clause
# predictor/: the analysis library, the trace readers, `ftio` and `ftiod`.
# One fragment per owner so changes do not collide.
include predictor/analysis.mk
include predictor/plot.mk
include predictor/scan.mk
include predictor/cli.mk
include predictor/daemon.mk
