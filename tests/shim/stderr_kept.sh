#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# stderr_kept.sh -- the flusher keeps the program's stderr for its
# diagnostics when that is a pipe or a terminal (libtrace/fdprivate.c).
#
# The flusher's private descriptor table keeps descriptor 2 unless the
# program traces a file there.  A pipe that a data call has already looked
# at is "not a file" in the fd table (first sight, fdtable.c), which the old
# test took for "a file": a program under mpirun (stderr a pipe to the
# launcher) that wrote to stderr before its first record lost every warning
# of the flusher (a daemon that cannot be reached, a library that cannot be
# loaded).  Here: FTIO_DEBUG=1, Python (whose start looks at its stderr)
# with stderr a pipe, and the flusher's lines must come through it.
. "$(dirname "$0")/../lib.sh"
need "$SHIM"

FTIO_DEBUG=1 FTIO_SPOOL=always traced "$PY" -c "import os; os.write(2, b'before\\n'); open('$T/out', 'w').write('x')" \
  2>&1 | cat >"$T/log.txt"
grep -q '^before$' "$T/log.txt" || bad "the program's own line is missing: $(head -3 "$T/log.txt")"
grep -q 'flusher runs in a private descriptor table' "$T/log.txt" &&
  grep -q 'batch seq 0' "$T/log.txt" && ok "the flusher's diagnostics reach a piped stderr" \
  || bad "the flusher's lines are missing from a piped stderr: $(cat "$T/log.txt")"

# A program that closes its stderr right after its first record: coreutils
# do at exit (close_stdout), and `cat` of a small file gets there before a
# new thread has run, the more so on a loaded node.  The flusher starts
# without the application waiting for it, so the close waits for the
# flusher's copy of the descriptor table (ftio_flusher_stderr_closing);
# pinned to one CPU, the thread cannot run before the close unless the close
# waits for it (without that wait the lines are lost: zmtp.sh's flake).
command -v taskset >/dev/null || fail "taskset (util-linux) not found"
echo data >"$T/small"
FTIO_DEBUG=1 FTIO_SPOOL=always traced taskset -c 0 cat "$T/small" 2>"$T/cat.log" >/dev/null ||
  bad "cat failed: $(cat "$T/cat.log")"
grep -q 'batch seq 0' "$T/cat.log" && ok "a program closing its stderr at once keeps the flusher's lines" ||
  bad "the flusher's lines are missing when the program closes its stderr at once: $(cat "$T/cat.log")"
finish
