#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dump.sh -- `ftio-wire dump` end to end: generate a spool file (`ftio-wire
# gen`), dump it, and check that truncated and corrupted files give a
# one-line error with the byte offset and a non-zero exit, after printing the
# batches before it.  And the tool's usage: every subcommand listed by
# --help, an unknown one refused.
. "$(dirname "$0")/../lib.sh"
need "$WIRE"

timeout 30 "$WIRE" gen 3 --records 5 --period 2 --job j42 --rank 1 --nranks 4 > "$T/a.msgpack" \
  || fail "generator failed"
timeout 30 "$WIRE" dump "$T/a.msgpack" > "$T/out" || fail "dump of a valid file failed"
[ "$(grep -c '^batch ' "$T/out")" = 3 ] || fail "expected 3 batch lines"
[ "$(grep -c '^rec ' "$T/out")" = 15 ] || fail "expected 15 rec lines"
[ "$(grep -c '^file id=0x2a2a2a2a path=/scratch/gen/out.dat$' "$T/out")" = 1 ] || fail "file entry"
grep -q '^batch .* job=j42 .* rank=1 nranks=4 seq=2 .* final=1 ' "$T/out" || fail "last batch header"
grep -q '^total .* batches=3 records=15 lost=0 bytes_rw=15728640$' "$T/out" || fail "total line"
# Second batch starts at 2 s: ts = 1e12 + 2e9 ns.
grep -q '^rec ts=1002000000000 te=1002001000000 op=write layer=posix bytes=1048576 ' "$T/out" \
  || fail "record line"

# Two files, stdin, summary mode.
timeout 30 "$WIRE" dump -s - "$T/a.msgpack" < "$T/a.msgpack" > "$T/sum" || fail "summary"
[ "$(grep -c '^batch ' "$T/sum")" = 6 ] && ! grep -q '^rec ' "$T/sum" || fail "summary output"

# Truncation: the two full batches are printed, then an error naming the offset.
size=$(wc -c < "$T/a.msgpack")
head -c $((size - 3)) "$T/a.msgpack" > "$T/trunc.msgpack"
timeout 30 "$WIRE" dump "$T/trunc.msgpack" > "$T/out" 2> "$T/err" && fail "truncated file accepted"
[ "$(grep -c '^batch ' "$T/out")" = 2 ] || fail "batches before the truncation"
off=$(sed -n 's/^batch .* offset=\([0-9]*\) .*seq=2 .*/\1/p' "$T/out")
[ -z "$off" ] || fail "third batch printed"
grep -q "trunc.msgpack: offset [0-9]*: truncated batch" "$T/err" || fail "truncation message: $(cat "$T/err")"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one error line"

# Garbage after valid batches.
{ cat "$T/a.msgpack"; printf 'garbage'; } > "$T/junk.msgpack"
timeout 30 "$WIRE" dump "$T/junk.msgpack" > "$T/out" 2> "$T/err" && fail "garbage accepted"
grep -q "junk.msgpack: offset $size: " "$T/err" || fail "garbage offset: $(cat "$T/err")"

# Missing file and bad usage: one line, non-zero.
timeout 30 "$WIRE" dump "$T/nope" 2> "$T/err" > /dev/null && fail "missing file accepted"
[ "$(wc -l < "$T/err")" = 1 ] || fail "missing file message"
timeout 30 "$WIRE" gen x 2> /dev/null > /dev/null && fail "bad gen count accepted"
# The tool itself: --help lists every subcommand; an unknown one exits 2.
"$WIRE" --help >"$T/help" || fail "ftio-wire --help: exit $?"
for c in dump gen records recv periodic tmio fuzz trace; do
  grep -q "^  $c " "$T/help" || fail "ftio-wire --help does not list $c"
  "$WIRE" $c --help >/dev/null || fail "ftio-wire $c --help: exit $?"
done
rc=0; "$WIRE" nosuch 2>"$T/err" >/dev/null || rc=$?
[ $rc = 2 ] && head -1 "$T/err" | grep -q "^ftio-wire: unknown command 'nosuch'" || fail "unknown command: rc=$rc $(cat "$T/err")"
echo "ok"
