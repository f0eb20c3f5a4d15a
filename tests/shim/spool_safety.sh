#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# spool_safety.sh -- spool files cannot be turned against their owner:
# the default spool directory is private ($TMPDIR/ftio-$UID, created 0700),
# files are created 0600 with O_EXCL|O_NOFOLLOW; a symlink planted at the
# spool path, a file there owned by another user, and a directory others
# can write to are all refused (nothing written through them, one warning),
# and the traced program still runs normally.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"
PROG="$B/bin/posix_periodic"
need "$PROG"
export FTIO_ENDPOINT="ipc://$T/nobody-listens"
run() { traced "$PROG" -n 2 -p 0.05 -d "$T/data" >/dev/null 2>"$T/err"; }
mkdir -p "$T/data"

# The default directory: private, created on first use; the file 0600.
unset FTIO_SPOOL_DIR
TMPDIR="$T" run || bad "program failed with the default spool directory"
d="$T/ftio-$(id -u)"
[ -d "$d" ] && [ "$(stat -c %a "$d")" = 700 ] && ok "default spool dir $d is 0700" \
  || bad "default spool dir: $(ls -ld "$d" 2>&1)"
f=$(ls "$d"/ftio-*.msgpack 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && ok "spool file is 0600" || bad "spool file: $(ls -l "$d")"

# A directory others can write to (like /tmp itself): refused; the trace
# goes to a private fallback (tests/shim/spool_fallback.sh).
mkdir -p "$T/shared"; chmod 1777 "$T/shared"
TMPDIR="$T" FTIO_SPOOL_DIR="$T/shared" run || bad "program failed with a shared spool directory"
[ -z "$(ls "$T/shared")" ] && ok "shared directory: nothing spooled there" || bad "spooled into $T/shared"
grep -q "writable by others" "$T/err" && ok "shared directory: said why" || bad "no warning: $(cat "$T/err")"
ls "$T"/ftio-$(id -u)-??????/ftio-*.msgpack >/dev/null 2>&1 && ok "shared directory: spooled to a private fallback" ||
  bad "shared directory: no fallback: $(cat "$T/err")"

# A symlink planted at the spool path (the pid is the shell's, kept by exec).
# The helper commands are not ours: no leak checking for them under ASan.
H=$(hostname)
export ASAN_OPTIONS=detect_leaks=0
mkdir -p "$T/priv"; chmod 700 "$T/priv"
echo "private" >"$T/victim"
FTIO_JOB=sym FTIO_SPOOL_DIR="$T/priv" LD_PRELOAD="$PRELOAD" sh -c \
  'ln -s "$1" "$2/ftio-sym-$5-$$.msgpack"; exec "$3" -n 2 -p 0.05 -d "$4"' sh \
  "$T/victim" "$T/priv" "$PROG" "$T/data" "$H" >/dev/null 2>"$T/err" || bad "program failed (symlink)"
[ "$(cat "$T/victim")" = private ] && ok "symlink: the target is untouched" || bad "symlink followed"

# A file at the spool path owned by someone else: not appended to.
FTIO_JOB=own FTIO_SPOOL_DIR="$T/priv" LD_PRELOAD="$PRELOAD" sh -c \
  'f="$1/ftio-own-$4-$$.msgpack"; : >"$f"; chown 65534 "$f"; exec "$2" -n 2 -p 0.05 -d "$3"' sh \
  "$T/priv" "$PROG" "$T/data" "$H" >/dev/null 2>"$T/err" || bad "program failed (foreign file)"
f=$(find "$T/priv" -user 65534 -name 'ftio-own-*')
[ -n "$f" ] && [ "$(wc -c <"$f")" = 0 ] && ok "foreign file: nothing appended" \
  || bad "file owned by uid 65534: $(ls -l "$T/priv")"
grep -q "not a private file of ours" "$T/err" && ok "foreign file: said why" || bad "no warning: $(cat "$T/err")"
finish
