#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# spool_fallback.sh -- another user cannot disable my spool (issue 21 item
# 3).  nobody pre-creates root's default spool directory ($TMPDIR/ftio-0,
# here in a sticky world-writable TMPDIR like /tmp): the shim refuses it as
# before, but spools to a private directory of its own instead
# ($TMPDIR/ftio-0-XXXXXX, reused by the job's later processes; or
# $XDG_RUNTIME_DIR/ftio when that is ours) and names it once per job.  The
# reverse too: root pre-creates nobody's.  Nothing is written into the
# other user's directory, and the spooled trace is whole.  On the previous
# code nothing was spooled at all.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/bin/posix_periodic"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
no_leak_checks
unset FTIO_SPOOL_DIR
export FTIO_ENDPOINT="ipc://$T/nobody-listens"
chmod 711 "$T"
mkdir -p "$T/tmp" "$T/data" "$T/data-nb"
chmod 1777 "$T/tmp" "$T/data-nb"
PROG="$B/bin/posix_periodic"

# nobody takes root's name first.
setpriv --reuid=nobody --regid=nogroup --clear-groups -- mkdir -m 755 "$T/tmp/ftio-0" ||
  fail "nobody could not create $T/tmp/ftio-0"
for i in 1 2 3; do
  TMPDIR="$T/tmp" FTIO_JOB=fb traced "$PROG" -n 2 -p 0.05 -d "$T/data" >/dev/null 2>>"$T/fb.err" ||
    bad "run $i: the program failed"
done
[ -z "$(ls -A "$T/tmp/ftio-0")" ] && ok "nothing written into nobody's directory" ||
  bad "written into nobody's directory: $(ls -A "$T/tmp/ftio-0")"
set -- "$T"/tmp/ftio-0-??????
[ $# = 1 ] && [ -d "$1" ] && ok "one private fallback directory: $(basename "$1")" ||
  bad "fallback directories: $(ls "$T/tmp")"
alt=$1
[ "$(stat -c '%u %a' "$alt")" = "0 700" ] && ok "the fallback is root's, 0700" ||
  bad "fallback: $(stat -c '%u %a' "$alt")"
[ "$(ls "$alt"/ftio-fb-*.msgpack 2>/dev/null | wc -l)" = 3 ] && ok "3 processes spooled there" ||
  bad "spool files: $(ls -A "$alt")"
wire recv "$alt"/ftio-fb-*.msgpack >"$T/fb"
expect_eq "$T/fb" count.posix.write 96 "the fallback's trace: writes (3 x 2 x 16)"
expect_eq "$T/fb" finals 3 "the fallback's trace: finals"
expect_eq "$T/fb" seq_gaps 0 "the fallback's trace: gaps"
[ "$(grep -c "belongs to uid 65534, not to us: job fb spools to $alt instead" "$T/fb.err")" = 1 ] &&
  ok "said once for the job, with the directory" || bad "warnings: $(cat "$T/fb.err")"
[ "$(grep -c 'did not take all of job fb' "$T/fb.err")" = 1 ] && grep -q "spooled to $alt" "$T/fb.err" &&
  ok "the spool notice names the fallback" || bad "notice: $(cat "$T/fb.err")"

# $XDG_RUNTIME_DIR, when it is ours, comes first.
mkdir -m 700 "$T/xdg"
TMPDIR="$T/tmp" XDG_RUNTIME_DIR="$T/xdg" FTIO_JOB=xdg traced "$PROG" -n 2 -p 0.05 -d "$T/data" \
  >/dev/null 2>"$T/xdg.err" || bad "xdg: the program failed"
ls "$T/xdg/ftio"/ftio-xdg-*.msgpack >/dev/null 2>&1 && ok "spooled to \$XDG_RUNTIME_DIR/ftio" ||
  bad "xdg: $(cat "$T/xdg.err")"

# The reverse: root takes nobody's name; nobody still spools.
mkdir -m 755 "$T/tmp/ftio-65534"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- env TMPDIR="$T/tmp" FTIO_JOB=nb \
  LD_PRELOAD="$PRELOAD" "$PROG" -n 2 -p 0.05 -d "$T/data-nb" >/dev/null 2>"$T/nb.err" ||
  bad "nobody: the program failed"
set -- "$T"/tmp/ftio-65534-??????
[ -d "$1" ] && [ "$(stat -c %u "$1")" = 65534 ] && ls "$1"/ftio-nb-*.msgpack >/dev/null 2>&1 &&
  ok "nobody spooled to its own fallback $(basename "$1")" || bad "nobody: $(ls -la "$T/tmp"; cat "$T/nb.err")"
[ -z "$(ls -A "$T/tmp/ftio-65534")" ] && ok "nothing written into root's directory" ||
  bad "written into root's directory"
finish
