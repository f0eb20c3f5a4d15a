#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# deps.sh -- `make demo` installs only what the demo needs (the build and MPI),
# `make check` everything the tests run (mk/deps.sh demo|check): with a
# dpkg-query that knows no package and a non-root id (PATH shims), each list
# is what mk/deps.sh asks apt-get for; and `make -n demo` builds no test.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
mkdir -p "$T/shim"
printf '#!/bin/sh\nexit 1\n' >"$T/shim/dpkg-query"
printf '#!/bin/sh\necho 1000\n' >"$T/shim/id"
chmod +x "$T/shim/dpkg-query" "$T/shim/id"
pkgs() { PATH="$T/shim:$PATH" sh mk/deps.sh "$@" 2>&1 | sed -n 's/^deps: not root; install them with: apt-get install//p'; }
demo=" $(pkgs demo) "; check=" $(pkgs check) "
[ "$demo" != "  " ] && [ "$check" != "  " ] || fail "no package list from mk/deps.sh: $(PATH="$T/shim:$PATH" sh mk/deps.sh demo 2>&1)"
for p in build-essential libopenmpi-dev openmpi-bin libzmq3-dev libfftw3-dev python3; do
  case $demo in *" $p "*) ;; *) bad "demo lacks $p: $demo" ;; esac
done
for p in chromium prometheus slurmd slurmctld man-db logrotate check environment-modules python3-zmq; do
  case $demo in *" $p "*) bad "demo installs $p" ;; esac
  case $check in *" $p "*) ;; *) bad "check lacks $p" ;; esac
done
for p in $demo; do case $check in *" $p "*) ;; *) bad "check lacks the demo's $p" ;; esac; done
ok "demo: $demo"
PATH="$T/shim:$PATH" sh mk/deps.sh bogus >/dev/null 2>&1; [ $? = 2 ] || bad "mk/deps.sh bogus: not a usage error"

make -n --no-print-directory B="$T/fresh" demo >"$T/plan" 2>&1 || fail "make -n demo: $(tail -3 "$T/plan")"
grep -q "sh mk/deps.sh demo" "$T/plan" || bad "make demo does not use mk/deps.sh demo"
grep -q -- "-o $T/fresh/bin/checkpoint" "$T/plan" || bad "make demo plans no checkpoint build"
grep -E "$T/fresh/(tests|bench)/|-lcheck" "$T/plan" | head -3 | grep . && bad "make demo builds tests or benches"
finish
