#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# demo_pages.sh -- `make demo` (examples/demo.sh) ends by drawing the live
# job's pages and says where they are: a shorter run of the demo (6
# checkpoints of 2 ranks every 2 s) must print both paths, and the pages
# must hold the job: the step-by-step page from its spool files
# (FTIO_SPOOL=tee) a bandwidth signal with one phase per checkpoint the
# application reported and a history; the report page from ftiod's log the
# signal from the spool files, its phases and one history point per message
# ftiod published for the job.  The demo's own verdict (its period within
# 5 %) is the demo's business: the pictures are checked whatever it says.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftio" "$B/bin/ftiod" "$B/bin/checkpoint" "$B/lib/libftio.so"
command -v mpirun >/dev/null || fail "mpirun not found"
FACTS="$PY $HERE/../plot/page_facts.py"
fact() {
  $FACTS "$T/$1.html" "$2" >"$T/fact.out" 2>&1 || fail "$1: $2: $(cat "$T/fact.out")"
  echo "ok: $1: $2"
}

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$APP_ASAN_OPTIONS" DEMO_PRELOAD="$PRELOAD" \
B="$B" DEMO_ITERATIONS=6 DEMO_COMPUTE=2 DEMO_BLOCK=8M DEMO_RANKS=2 DEMO_PLOT="$T/demo.html" \
  TMPDIR="$T" timeout 300 sh "$HERE/../../examples/demo.sh" >"$T/demo.out" 2>&1
rc=$?
echo "demo exit $rc"
grep -q "demo: ftio --plot failed\|demo: ftio report failed\|demo: no spool file" "$T/demo.out" \
  && fail "the demo could not draw its pages: $(tail -5 "$T/demo.out")"
grep -q "step by step (ftio --window adaptive --plot on the spool files): $T/demo.html" "$T/demo.out" \
  || fail "the demo did not say where the step-by-step page is: $(tail -8 "$T/demo.out")"
grep -q "what ftiod published (ftio report on its --log): *$T/demo-report.html" "$T/demo.out" \
  || fail "the demo did not say where the report page is: $(tail -8 "$T/demo.out")"
[ -s "$T/demo.html" ] && [ -s "$T/demo-report.html" ] || fail "the pages are not there"
ls "$T"/ftio-demo.* >/dev/null 2>&1 && fail "the demo left its temporary directory"
# The truth: the checkpoints the application itself reported.
n=$(grep -c "app        | iteration [0-9]*: compute" "$T/demo.out")
[ "$n" = 6 ] || fail "the application reported $n checkpoints, not 6"
fact demo "p.sections[0] == 'write' and p.count('path', 'signal') >= 1"
fact demo "p.count('rect', 'phase') >= $n - 1 and p.history_points('history-period') >= 2"
fact demo "p.meta.get('nodes, ranks') == '2 ranks'"
fact demo-report "p.sections[0] == 'write' and p.count('rect', 'phase') >= $n - 1"
fact demo-report "any('spool files' in x for x in p.notes)"
fact demo-report "p.distinct_x('history-period') == p.history_points('history-period') >= 2"
echo ok
