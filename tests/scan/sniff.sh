#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# sniff.sh -- telling a trace from other files reads a few KB, not the file:
# `ftio` on a 4 GiB sparse file of zeros says "unknown trace format" at once
# with a small resident set (it read all 4 GiB before); `ftio scan` of an
# archive skips files that are not traces (a README.md whose prose names the
# CSV columns, notes mentioning X_POSIX, the sparse file) without counting
# them as jobs, counts a non-trace named on the command line as unreadable,
# and stops with one line naming a path that does not exist.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
need "$FTIO"

# run_rss OUT CMD...: run CMD, stderr to OUT; prints "rc maxrss_kB seconds"
run_rss() {
  "$PY" - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "w") as err:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, round(time.monotonic() - t, 2))
PY
}

truncate -s 4G "$T/sparse-4G.bin" || fail "truncate -s 4G"
set -- $(run_rss "$T/err" "$FTIO" "$T/sparse-4G.bin")
rc=$1; rss=$2; secs=$3
[ "$rc" = 1 ] && grep -q "unknown trace format" "$T/err" || bad "ftio sparse-4G.bin: rc=$rc $(cat "$T/err")"
[ "$rss" -lt 65536 ] || bad "ftio sparse-4G.bin: max RSS $rss kB (it paged the file in)"
ok "ftio on a 4 GiB sparse file: exit $rc, max RSS $rss kB, $secs s"
set -- $(run_rss "$T/err" "$FTIO" --max-memory 16 "$T/sparse-4G.bin")
[ "$1" = 1 ] && [ "$2" -lt 65536 ] || bad "--max-memory 16: rc=$1 rss=$2 kB $(cat "$T/err")"

# an archive: one log and three files that are not traces
mkdir -p "$T/arch/sub"
cp tests/data/darshan/empty_log/empty_log.darshan "$T/arch/sub/"
cp tests/data/sample.csv "$T/arch/sub/job.csv"
printf '# An archive\n\nThe CSV traces have the columns rank, op, t_start, t_end, bytes.\n' >"$T/arch/README.md"
printf 'notes:\n  the DXT lines start with X_POSIX or X_MPIIO\n' >"$T/arch/NOTES.txt.bak"
ln "$T/sparse-4G.bin" "$T/arch/sparse-4G.bin"
set -- $(run_rss "$T/scan.err" "$FTIO" scan --quiet --csv "$T/rows.csv" "$T/arch")
[ "$1" = 0 ] || bad "ftio scan archive: rc=$1 $(cat "$T/scan.err")"
[ "$2" -lt 262144 ] || bad "ftio scan archive: max RSS $2 kB"
"$FTIO" scan --quiet --csv "$T/rows.csv" "$T/arch" >"$T/sum" 2>"$T/scan.err"
head -1 "$T/sum" | grep -q "2 files, 2 jobs analysed, 0 unreadable, 3 other files skipped" ||
  bad "scan summary: $(head -1 "$T/sum")"
[ "$(wc -l <"$T/rows.csv")" = 3 ] || bad "rows: $(cat "$T/rows.csv")"
grep -q "README\|NOTES\|sparse" "$T/rows.csv" && bad "a file that is no trace has a row"
ok "ftio scan: README.md, notes and a sparse file skipped, not counted as jobs"

# named explicitly: it is a row with an error
"$FTIO" scan --quiet --csv "$T/named.csv" "$T/arch/README.md" >"$T/sum" 2>"$T/err"; rc=$?
[ $rc = 1 ] && head -1 "$T/sum" | grep -q "1 unreadable" || bad "named README.md: rc=$rc $(head -1 "$T/sum")"

# a path that is not there: one line naming it, exit 1, no scan
"$FTIO" scan --quiet "$T/nonexistent" "$T/arch" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^ftio scan: $T/nonexistent: No such file or directory$" "$T/err" ||
  bad "ftio scan nonexistent: rc=$rc $(cat "$T/err")"
[ -s "$T/out" ] && bad "ftio scan nonexistent printed a summary"
ok "ftio scan nonexistent: one line naming the path, exit 1"
finish
