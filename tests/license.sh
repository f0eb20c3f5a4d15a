#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# license.sh -- the licence and the version: LICENSE is BSD-3-Clause of "The
# ftio authors"; the version is the one line of VERSION, and `ftio
# --version`, `ftiod --version`, ftio.pc (from @VERSION@), every man page's
# header and CHANGELOG.md's first entry say the same.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
need "$B/bin/ftio" "$B/bin/ftiod"
[ -f LICENSE ] && grep -q "^BSD 3-Clause License" LICENSE && grep -q "Copyright (c) [0-9]*, The ftio authors" LICENSE ||
  bad "LICENSE: not BSD-3-Clause of The ftio authors"
V=$(cat VERSION)
echo "$V" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || fail "VERSION: '$V'"
[ "$("$B/bin/ftio" --version)" = "ftio $V" ] || bad "ftio --version: $("$B/bin/ftio" --version), VERSION $V"
[ "$("$B/bin/ftiod" --version)" = "ftiod $V" ] || bad "ftiod --version: $("$B/bin/ftiod" --version)"
# the installed ftio.pc's Version: tests/install.sh (pkg-config --modversion)
grep -q '^Version: @VERSION@$' mk/ftio.pc.in || bad "mk/ftio.pc.in: Version is not @VERSION@"
for m in man/*.[0-9]; do
  grep -q "^\.TH .*\"ftio $V\"" "$m" || bad "$m: .TH does not say ftio $V: $(grep '^\.TH' "$m")"
done
[ "$(grep -m1 '^## ' CHANGELOG.md | awk '{print $2}')" = "$V" ] || bad "CHANGELOG.md's first entry: $(grep -m1 '^## ' CHANGELOG.md)"
finish
