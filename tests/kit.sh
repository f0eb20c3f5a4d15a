#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# kit.sh -- the test kit itself (tests/README.md): tests/lib.sh's results
# (bad goes on and fails the test, even one that ends with exit 0; fail ends
# it at once with the tails of $T/*.err; finish), its cleanup (background
# processes stopped, $T removed, a sanitizer report fails the test), its
# polling (wait_for times out, and returns as soon as the condition holds;
# wait_gone, wait_grep), and `make check TESTS=...` (only the named tests,
# with or without extension or as a path; an unknown name is an error).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# probe NAME BODY: a test script sourcing the kit, run; its output in
# $T/NAME.out, its exit status in $rc.
probe() {
  mkdir -p "$T/probe"
  printf '. "%s/tests/lib.sh"\n%s\n' "$ROOT" "$2" >"$T/probe/$1.sh"
  rc=0
  FTIO_TEST_BUILD="$B" TMPDIR="$T/probe" sh "$T/probe/$1.sh" >"$T/$1.out" 2>&1 || rc=$?
}

probe bad 'bad "first"; bad "second"; echo "went on"; finish'
[ $rc = 1 ] && grep -q '^FAIL: first$' "$T/bad.out" && grep -q '^went on$' "$T/bad.out" &&
  grep -q '^2 failure(s)$' "$T/bad.out" && ok "bad: counted, the test goes on, finish exits 1" ||
  bad "bad: rc=$rc $(cat "$T/bad.out")"
probe bad_exit0 'bad "x"; exit 0'
[ $rc = 1 ] && ok "a test that called bad exits 1 even with exit 0" || bad "bad then exit 0: rc=$rc"
probe fail 'echo "some reason" >"$T/prog.err"; fail "stop"; echo "not reached"'
[ $rc = 1 ] && grep -q '^FAIL: stop$' "$T/fail.out" && grep -q 'some reason' "$T/fail.out" &&
  ! grep -q 'not reached' "$T/fail.out" && ok "fail: ends the test with the tails of \$T/*.err" ||
  bad "fail: rc=$rc $(cat "$T/fail.out")"
probe good 'ok "fine"; finish'
[ $rc = 0 ] && grep -q '^all ok$' "$T/good.out" && ok "finish: exit 0 without failures" || bad "finish: rc=$rc"
probe seterr 'set -e; sleep 0.1 & PIDS="$PIDS $!"; wait; echo "done"'
[ $rc = 0 ] && ok "cleanup under set -e with a process already gone: exit 0" || bad "set -e cleanup: rc=$rc $(cat "$T/seterr.out")"

# Cleanup: a background process is stopped and $T removed.
probe cleanup 'sleep 100 & PIDS="$PIDS $!"; echo "pid=$! dir=$T"'
pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$T/cleanup.out")
dir=$(sed -n 's/.* dir=//p' "$T/cleanup.out")
[ $rc = 0 ] && [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && [ -n "$dir" ] && [ ! -e "$dir" ] &&
  ok "cleanup: background process stopped, temporary directory removed" ||
  bad "cleanup: rc=$rc pid=$pid dir=$dir"
probe sanitizer 'echo "==1==ERROR: AddressSanitizer: heap-use-after-free" >"$T/daemon.err"; echo ok'
[ $rc = 1 ] && grep -q 'sanitizer report' "$T/sanitizer.out" && ok "a sanitizer report in \$T/*.err fails the test" ||
  bad "sanitizer: rc=$rc"

# Polling.
t0=$(date +%s%N)
wait_for 0.3 false && bad "wait_for false succeeded"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -ge 300 ] && [ $ms -lt 3000 ] && ok "wait_for times out after ${ms} ms (0.3 s asked)" || bad "wait_for took $ms ms"
( sleep 0.2; echo "ready now" >"$T/late.txt" ) &
t0=$(date +%s%N)
wait_grep "$T/late.txt" '^ready' 10 || bad "wait_grep missed the line"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt 2000 ] && ok "wait_grep returns once the line is there (${ms} ms)" || bad "wait_grep took $ms ms"
sleep 0.3 & p=$!
wait_gone $p 5 && ok "wait_gone: the process exited" || bad "wait_gone timed out"

# make check TESTS=...: only those, whatever the spelling; unknown names refused.
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory B="$B" "$@"; }
mk -n check TESTS="test_wire calls.sh tests/daemon/restart" 2>/dev/null | grep 'tests/run.sh' >"$T/run.line"
tr ' ' '\n' <"$T/run.line" | sed '1,/tests\/run\.sh/d' | grep . >"$T/run.args"
n=$(grep -c -E '/tests/test_wire$|^tests/shim/calls\.sh$|^tests/daemon/restart\.sh$' "$T/run.args")
all=$(wc -l <"$T/run.args")
[ "$n" = 3 ] && [ "$all" = 3 ] && ok "make check TESTS=: exactly the 3 named tests" ||
  bad "make check TESTS=: $(cat "$T/run.line")"
rc=0; mk check-names TESTS="calls nosuch" >/dev/null 2>"$T/names.err" || rc=$?
[ $rc != 0 ] && grep -q "no test named nosuch" "$T/names.err" && ok "unknown test name: refused" ||
  bad "unknown test name: rc=$rc $(cat "$T/names.err")"
mk -s list-tests >"$T/list"
grep -qx calls "$T/list" && grep -qx test_wire "$T/list" && grep -qx kit "$T/list" &&
  ok "make list-tests: $(wc -l <"$T/list") names" || bad "list-tests: $(cat "$T/list")"
finish
