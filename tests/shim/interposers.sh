#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# interposers.sh -- libftio.so beside another interposer (Darshan, a
# profiler, a site's own shim) in LD_PRELOAD: each wrapper forwards to the
# next definition in the program's order (dlsym RTLD_NEXT, core.c
# ftio_resolve).  With the other interposer after libftio.so, libftio.so's
# read and write go through it (it counts the file's bytes) and ftio records
# them; with it before, its calls reach libftio.so's wrappers and are
# recorded.  dd moves 3 MiB with read and write; the truth is the file's size.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/tests/next_interposer.so"
head -c 3145728 /dev/urandom >"$T/in.bin"
size=$(wc -c <"$T/in.bin")
for order in after before; do
  rm -f "$T"/spool/* "$T/out.bin" "$T/tally"
  # (under make asan the sanitizer's runtime stays first: ftio_asan_prefix)
  if [ "$order" = after ]; then pre="$PRELOAD:$B/tests/next_interposer.so"
  else pre="$(ftio_asan_prefix "$SHIM")$B/tests/next_interposer.so:$SHIM"; fi
  NEXT_TALLY="$T/tally" FTIO_SPOOL=always LD_PRELOAD="$pre" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$APP_ASAN_OPTIONS" \
    dd if="$T/in.bin" of="$T/out.bin" bs=64k 2>"$T/dd.err" || bad "dd ($order) failed: $(cat "$T/dd.err")"
  cmp -s "$T/in.bin" "$T/out.bin" && ok "interposer $order libftio.so: dd copied the file" \
    || bad "interposer $order libftio.so: the copy differs"
  [ -s "$T/tally" ] || bad "interposer $order libftio.so: no tally"
  expect_eq "$T/tally" read "$size" "interposer $order libftio.so: bytes read through the interposer"
  expect_eq "$T/tally" write "$size" "interposer $order libftio.so: bytes written through the interposer"
  wire recv "$T"/spool/*.msgpack >"$T/got.$order"
  expect_eq "$T/got.$order" bytes.posix.read "$size" "interposer $order libftio.so: bytes read recorded"
  expect_eq "$T/got.$order" bytes.posix.write "$size" "interposer $order libftio.so: bytes written recorded"
done
finish
