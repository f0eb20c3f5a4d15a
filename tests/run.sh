#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test given on the command line and prints one closing line
# "N passed, N failed".  Check binaries are counted per test case (from Check's
# own "Checks: X, Failures: Y, Errors: Z" line); a shell test counts as one
# test, passing when it exits 0.  Output of each test goes to $B/test-logs/.
B=${B:-build}
LOGS="$B/test-logs"
mkdir -p "$LOGS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's hwloc reads the PCI names file (pci.ids) through libpciaccess,
# which grows its buffer by small reallocs: ASan's realloc copies each time,
# and every rank and orted took 45-160 s to start under `make asan` (the MPI
# tests timed out at 120 s).  One node needs no PCI locality.
export HWLOC_COMPONENTS=-pci
# The suite starts from none of the caller's FTIO_* variables; those set
# below are named in FTIO_TEST_KEEP, which tests/lib.sh leaves alone.
for _v in $(env | sed -n 's/^\(FTIO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$_v"; done
export FTIO_TEST_KEEP="FTIO_AUTH FTIO_EXIT_WAIT_MS FTIO_TEST_SUITE"
# Every process a test starts carries this mark in its environment, so that
# the suite can tell, at its end, whether one of them was left behind.
export FTIO_TEST_SUITE="$$.$(date +%s%N)"
# Shell tests find the binaries under $FTIO_TEST_BUILD; each makes its own
# temporary directory and endpoints (tests/lib.sh).
export FTIO_TEST_BUILD="$B"
# Daemons in tests run --auth none unless a test says otherwise (the
# authentication tests start their own munged: start_munged in tests/lib.sh,
# e.g. tests/daemon/security.sh); the shims
# and tools they start must then send unauthenticated batches.
export FTIO_AUTH=none
# Shims wait up to 3 s (not 5 ms) for ftiod's last acknowledgements at exit, so
# that what the tests count is never in the socket and the spool file both on
# a loaded machine; bench/exit_latency measures the default.
export FTIO_EXIT_WAIT_MS=3000
# cpu_now: CPU = the CPU seconds (user + system) of this lane's finished
# children (the tests: each waits for what it started), from the shell's own
# `times` (into a file: in $(...) or a pipe it would be a subshell's).
cpu_now() {
  times >"$LOGS/.times-$LANE"
  CPU=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
                       printf "%.0f", t }' "$LOGS/.times-$LANE")
}
# run_one TEST: runs it (in $LOGS/NAME.log; under $LANE_NICE), prints its PASS
# or FAIL line (a failure with its FAIL lines and the tail of its log, in one
# write), appends
# "PASSED FAILED NAME" to $LOGS/results and "SECONDS CPU-SECONDS LANE NAME" to
# $LOGS/times (where the suite's time goes: tests/README.md).
LANE=main LANE_NICE=""
run_one() {
  t=$1
  name=$(basename "$t")
  log="$LOGS/$name.log"
  start=$(date +%s)
  cpu_now; cpu0=$CPU
  # A shell test has 300 s, or what its line "# suite-timeout: N" says (the
  # install test builds the tree: at nice 5 beside a CPU hog that takes more
  # than 300 s).
  # The limit guards against a hang, it times nothing: the second lane's
  # (nice 5) get three times as much, since beside a CPU hog at nice 0 they
  # get a small share of the machine (formats.sh: 9 s quiet, 149 s beside
  # stress-ng --cpu 8, past 300 s with a build beside that too).
  case "$t" in
    *.sh) limit=$(sed -n 's/^# suite-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -1)
          limit=${limit:-300}
          [ -n "$LANE_NICE" ] && limit=$((limit * 3))
          timeout "$limit" $LANE_NICE sh "$t" >"$log" 2>&1; rc=$? ;;
    *)    CK_DEFAULT_TIMEOUT=60 timeout 600 $LANE_NICE "$t" >"$log" 2>&1; rc=$? ;;
  esac
  secs=$(( $(date +%s) - start ))
  cpu_now; cpu=$(( CPU - cpu0 ))
  summary=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -1)
  if [ -n "$summary" ]; then
    n=$(echo "$summary" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
    f=$(echo "$summary" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1+\2/')
    f=$(( $f ))
    p=$(( n - f ))
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
  else
    if [ "$rc" = 0 ]; then p=1; f=0; else p=0; f=1; fi
  fi
  if [ "$f" = 0 ]; then
    printf 'PASS %-40s %3ss %s\n' "$name" "$secs" "$summary"
  else
    # The test's own FAIL lines first: a daemon's log printed after them
    # can push them out of the tail.
    { printf 'FAIL %-40s %3ss (rc=%s) %s\n' "$name" "$secs" "$rc" "$summary"
      grep -m 5 '^FAIL: ' "$log" | sed 's/^/    ! /'
      sed 's/^/    | /' "$log" | tail -40; } >"$LOGS/$name.fail"
    cat "$LOGS/$name.fail"
  fi
  echo "$p $f $name" >>"$LOGS/results"
  echo "$secs $cpu $LANE $name" >>"$LOGS/times"
}
: >"$LOGS/results"
: >"$LOGS/times"
SUITE_START=$(date +%s)
# Two lanes.  A shell test whose file has the line "# suite-lane: beside"
# asserts nothing that depends on time or load (installs, documents, option
# parsing, offline analyses of files; no live prediction, no deadline but
# the start-up waits of tests/lib.sh), so it runs beside the others, one at a
# time, in a second lane; every other test runs alone in the first lane, in
# order, as before.  The second lane runs at nice 5: the tests of the first
# lane, which must pass on a loaded machine anyway, keep the larger share of
# the CPU.
# A Check binary named in SUITE_BESIDE (tests/tests.mk: CHECK_BESIDE) runs
# there too.
beside=""; alone=""
for t in "$@"; do
  case "$t" in
    *.sh) if grep -q '^# suite-lane: beside' "$t"; then beside="$beside $t"; continue; fi ;;
    *)    case " ${SUITE_BESIDE:-} " in *" $t "*) beside="$beside $t"; continue ;; esac ;;
  esac
  alone="$alone $t"
done
if [ -n "$beside" ]; then
  ( LANE=beside LANE_NICE="nice -n 5"
    for t in $beside; do run_one "$t"; done ) &
  BESIDE=$!
fi
for t in $alone; do run_one "$t"; done
[ -n "$beside" ] && wait "$BESIDE"
passed=$(awk '{ s += $1 } END { print s + 0 }' "$LOGS/results")
failed=$(awk '{ s += $2 } END { print s + 0 }' "$LOGS/results")
failures=$(awk '$2 > 0 { printf " %s", $3 }' "$LOGS/results")
# Nothing a test started may outlive the suite (a daemon left running as
# another user, a receiver): any process still carrying our mark after a
# grace of 5 s fails the suite, and is stopped.
leftovers() {
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = $$ ] && continue
    grep -qz "^FTIO_TEST_SUITE=$FTIO_TEST_SUITE\$" "$d/environ" 2>/dev/null &&
      echo "$p $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | cut -c1-160)"
  done
}
for i in 1 2 3 4 5 6; do
  leftovers >"$LOGS/leftovers"
  [ -s "$LOGS/leftovers" ] || break
  [ $i = 6 ] || sleep 1
done
if [ -s "$LOGS/leftovers" ]; then
  echo "FAIL processes left behind by the tests:"
  sed 's/^/    | /' "$LOGS/leftovers"
  failures="$failures (leftover-processes)"; failed=$(( failed + 1 ))
  for p in $(cut -d' ' -f1 "$LOGS/leftovers"); do kill "$p" 2>/dev/null; done
fi
# Where the time went: each lane's seconds and its tests' CPU seconds, the
# slowest tests of the first lane (the suite's time is that lane's).
awk -v wall=$(( $(date +%s) - SUITE_START )) '
  { s[$3] += $1; c[$3] += $2 }
  END { printf "time: %d s; main lane %d s (CPU %d s), beside lane %d s (CPU %d s)\n",
               wall, s["main"], c["main"], s["beside"], c["beside"] }' "$LOGS/times"
echo "slowest of the main lane:$(sort -rn "$LOGS/times" | awk '$3 == "main" && n++ < 6 { printf " %s %d s,", $4, $1 }' | sed 's/,$//')"
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
