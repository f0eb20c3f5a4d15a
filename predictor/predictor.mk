# SPDX-License-Identifier: BSD-3-Clause
# predictor/: the libraries of the pipeline, in its order, then the programs
# that link them (a fragment names the libraries of the ones before it):
#   analysis.mk  libftioanalysis.a  requests -> signal -> samples -> answer
#   forecast.mk  libftioforecast.a  phases described, durations, the machine forecast
#   options.mk   libftiooptions.a   the analysis options of every command line
#   readers.mk   libftioreaders.a   trace files -> requests (offline)
#   publish.mk   libftiopublish.a   answer -> JSON prediction object, text
#   plot.mk      libftioplot.a      answer -> HTML pictures, CSV exports
#   history.mk   libftiohistory.a   the memory of runs (SQLite, PostgreSQL)
#   scan.mk      libftioscan.a      whole archives (`ftio scan`), ftio-scan-mpi
#   cli.mk       ftio               daemon.mk  ftiod
include predictor/analysis.mk
include predictor/forecast.mk
include predictor/options.mk
include predictor/readers.mk
include predictor/publish.mk
include predictor/plot.mk
include predictor/history.mk
include predictor/scan.mk
include predictor/cli.mk
include predictor/daemon.mk
