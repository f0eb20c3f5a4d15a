# SPDX-License-Identifier: BSD-3-Clause
# tests/tests_scan.mk -- `ftio scan` (predictor/scan/)
#   tests/scan/scan.sh      the real Darshan logs: rows vs darshan-parser,
#                           error rows, CSV/JSONL, summary, exit statuses
#   tests/scan/scan_mpi.sh  mpirun -np 2: the same rows as the threaded scan
#   tests/scan/sniff.sh     what is no trace is told in a few KB and skipped;
#                           a missing path is an error
#   tests/scan/filters.sh   start/end columns and --user/--exe/--since/--until/
#                           --min-bytes against darshan-parser
SHELL_TESTS += tests/scan/scan.sh tests/scan/scan_mpi.sh tests/scan/sniff.sh tests/scan/filters.sh
