#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# identity.sh -- the application identity the shim sends for the memory of
# runs (libtrace/identity.c, PROTOCOL.md §1 `app`): the hash of the
# arguments, never the arguments, on the wire.
#   1. `sh -c SCRIPT FILE 'hunter2 secret' 42 x` under the shim (spool files):
#      each process's first batch, and only it, carries `app`; its args and
#      args_norm are FNV-1a 64 of argv[1..] joined by spaces (digit runs as
#      '#' for args_norm), computed here independently; FTIO_APP is its name,
#      the uid the real one; the secret is in no byte of the spool files;
#   2. the executable as the user named it: ./prog (relative), prog found on
#      PATH, a symbolic link (its own name, not the target's, with the target
#      file's stamp), and a rewritten argv[0] falls back on /proc/self/exe;
#   3. `ftio history key` prints the key ftiod and `ftio scan --history`
#      compute for a command line: the same hashes.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/bin/ftio"

# fnv ARGS...: the two hashes of argv[1..] (python, independent of common/app_key.c)
fnv() {
  "$PY" - "$@" <<'PYEOF'
import re, sys
def h(b):
    x = 0xcbf29ce484222325
    for c in b"ftio-args-1\0" + b:
        x = ((x ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % x
a = " ".join(sys.argv[1:]).rstrip(" ").encode()
print(h(a), h(re.sub(rb"[0-9]+", b"#", a)))
PYEOF
}
# app_of FILE: the app line(s) of a spool file
app_of() { "$WIRE" dump "$1" | grep '^app '; }

# ---- 1. the hash, never the arguments -------------------------------------------------
mkdir -p "$T/run"
script='echo hi > "$0.out"; dd if=/dev/zero of=/dev/null bs=1 count=0 2>/dev/null; cat "$0.out" > "$0.copy"'
( cd "$T/run" && FTIO_SPOOL=file FTIO_APP=my-model traced sh -c "$script" "$T/run/f" "hunter2 secret" 42 x ) \
  || fail "the traced command failed"
set -- "$T"/spool/ftio-*.msgpack
[ -f "$1" ] || fail "no spool file"
n_app=0
for f in "$@"; do
  n=$(app_of "$f" | wc -l)
  [ "$n" = 1 ] || bad "$f: $n app lines (one per process image expected)"
  first=$("$WIRE" dump "$f" | awk '/^batch / { b++ } /^app / { print b; exit }')
  [ "$first" = 1 ] || bad "$f: app is not in the first batch (batch $first)"
  n_app=$((n_app + n))
done
[ "$n_app" -ge 2 ] || bad "expected app from sh and cat, got $n_app"
sh_line=$(for f in "$@"; do app_of "$f"; done | grep 'exe=[^ ]*/sh ' | head -1)
[ -n "$sh_line" ] || fail "no app line of sh: $(for f in "$@"; do app_of "$f"; done)"
set -- $(fnv -c "$script" "$T/run/f" "hunter2 secret" 42 x)
want_args=$1 want_norm=$2
echo "$sh_line"
case "$sh_line" in
  *" args=$want_args args_norm=$want_norm name=my-model uid=$(id -u)") ok "args and args_norm are the hashes of argv[1..]; name and uid" ;;
  *) bad "sh's app line: expected args=$want_args args_norm=$want_norm name=my-model uid=$(id -u)" ;;
esac
if grep -l "hunter2" "$T"/spool/ftio-*.msgpack >/dev/null; then
  bad "the secret argument is in a spool file"
else
  ok "no byte of the spool files holds the arguments"
fi

# ---- 2. the executable as the user named it ----------------------------------------------
mkdir -p "$T/bin" "$T/w"
cp "$(command -v dd)" "$T/bin/mydd"
ln -s mydd "$T/bin/alias"
run_dd() { ( cd "$T/w" && FTIO_SPOOL=file FTIO_SPOOL_DIR="$T/spool2" traced "$@" if=/dev/zero of="$T/w/o" bs=4k count=1 2>/dev/null ) || fail "$* failed"; }
exe_of() { for f in "$T"/spool2/ftio-*.msgpack; do app_of "$f"; done | sed -n 's/^app exe=\([^ ]*\) exe_id=\([^ ]*\) .*/\1 \2/p'; rm -rf "$T/spool2"; }
stamp=$(stat -c '%d %i %Y' "$T/bin/mydd" | awk '{ printf "%x:%x:%x", $1, $2, $3 }')
( cd "$T/bin" && FTIO_SPOOL=file FTIO_SPOOL_DIR="$T/spool2" traced ./mydd if=/dev/zero of="$T/w/o" bs=4k count=1 2>/dev/null ) || fail "./mydd"
[ "$(exe_of)" = "$T/bin/mydd $stamp" ] || bad "./mydd: exe and stamp"
PATH="$T/bin:$PATH" run_dd mydd
[ "$(exe_of)" = "$T/bin/mydd $stamp" ] || bad "mydd on PATH: exe"
PATH="$T/bin:$PATH" run_dd alias
[ "$(exe_of)" = "$T/bin/alias $stamp" ] || bad "a symbolic link is named as the user named it, with the target's stamp"
FTIO_SPOOL=file FTIO_SPOOL_DIR="$T/spool2" LD_PRELOAD="$PRELOAD" "$PY" -c \
  'import os, sys; os.execv(sys.argv[1], ["no-such-name"] + sys.argv[2:])' "$T/bin/mydd" \
  if=/dev/zero of="$T/w/o" bs=4k count=1 2>/dev/null || fail "exec with another argv[0]"
got=$(exe_of | grep " $stamp\$")
[ "$got" = "$T/bin/mydd $stamp" ] || bad "a rewritten argv[0]: /proc/self/exe's path expected, got '$got'"
ok "the executable: relative, on PATH, a link by its own name, a rewritten argv[0]"

# ---- 3. ftio history key: the same hashes ------------------------------------------------------
set -- $(fnv -in in.lj -var seed 4242)
"$B/bin/ftio" history key -- lmp -in in.lj -var seed 4242 >"$T/key" 2>"$T/key.err" || fail "ftio history key: $(cat "$T/key.err")"
cat "$T/key"
grep -q "^prog lmp$" "$T/key" && grep -q "^args $1$" "$T/key" && grep -q "^args_norm $2$" "$T/key" \
  || bad "ftio history key: expected prog lmp, args $1, args_norm $2"
"$B/bin/ftio" history key --cmdline "/opt//lmp -in in.lj -var seed 4242 " >"$T/key2" || fail "key --cmdline"
grep -q "^args $1$" "$T/key2" || bad "ftio history key --cmdline (a Darshan log's exe): another hash"
finish
