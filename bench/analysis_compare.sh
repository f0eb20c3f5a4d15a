#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# analysis_compare.sh -- are two `ftio` builds' offline answers the same, byte
# for byte?  Runs BEFORE and AFTER on every trace file under the given paths
# (default: tests/data) in every output mode of the offline analysis, and
# compares stdout, stderr and the exit status of each run.  For changes that
# must not move an answer (readers, the sweep, the phase walk, the signal).
#
#   sh bench/analysis_compare.sh BEFORE/bin/ftio AFTER/bin/ftio [PATH...]
#
# Prints one line per difference and a summary; exit 1 when any run differs.
# The modes: the text answer, --json, -m read / all / both, --compat, the
# sliding analysis (--window adaptive --json, --window 60), -n 3, the
# exported signal (--export-signal to a file, compared too).
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_FTIO AFTER_FTIO [PATH...]" >&2; exit 2; }
BEFORE=$1
AFTER=$2
shift 2
[ $# -gt 0 ] || set -- tests/data
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-compare.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# One mode per line: the options given to both builds ($MODES, the same
# form, replaces them: e.g. fewer modes on a busy machine).
DEFAULT_MODES='
--json
-m read --json
-m all --json
-m both
--compat
--compat --json
--window adaptive --json
--window 60
-n 3 --sampling hold
--export-signal @SIG@
'
MODES=${MODES:-$DEFAULT_MODES}

runs=0
diffs=0
# Trace files: skip the documentation and the checksum lists beside them.
find "$@" -type f ! -name '*.md' ! -name '*.mtimes' ! -name '*.sha*' | sort >"$T/files"
while IFS= read -r f; do
  printf '%s\n' "$MODES" | while IFS= read -r mode; do
    [ -n "$mode" ] || continue
    for side in before after; do
      bin=$BEFORE
      [ $side = after ] && bin=$AFTER
      opts=$(printf '%s' "$mode" | sed "s|@SIG@|$T/sig.$side.csv|")
      rm -f "$T/sig.$side.csv"
      # shellcheck disable=SC2086
      "$bin" $opts "$f" >"$T/out.$side" 2>"$T/err.$side"
      echo "exit $?" >>"$T/err.$side"
      # the binary's own path is not part of the answer
      sed -i "s|$bin|ftio|g" "$T/err.$side"
      [ -f "$T/sig.$side.csv" ] && cat "$T/sig.$side.csv" >>"$T/out.$side"
    done
    if ! cmp -s "$T/out.before" "$T/out.after" || ! cmp -s "$T/err.before" "$T/err.after"; then
      echo "DIFFERS: ftio $mode $f"
      echo x >>"$T/diffs"
    fi
    echo x >>"$T/runs"
  done
done <"$T/files"
[ -f "$T/runs" ] && runs=$(wc -l <"$T/runs")
[ -f "$T/diffs" ] && diffs=$(wc -l <"$T/diffs")
echo "$runs runs over $(wc -l <"$T/files") files, $diffs differ"
[ "$diffs" -eq 0 ]
