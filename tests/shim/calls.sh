#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# calls.sh -- every wrapped POSIX/stdio call family records exactly what the
# program did (counts, bytes, layers), in three builds of the same program:
# plain, -D_FORTIFY_SOURCE=2 -O2 (__read_chk, __open_2, __fprintf_chk ...) and
# -D_FILE_OFFSET_BITS=64 (open64, pwrite64, stat64 ...).  The program tallies
# what it expects from its calls' return values (tests/shim/shim_calls.c);
# `ftio-wire recv` decodes what the shim sent.  Also: errno preservation (checked
# inside the program), pipes/sockets/excluded paths not traced, offsets,
# file names, exported symbols.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"

for v in shim_calls shim_calls_fortify shim_calls_lfs; do
  rm -rf "$T/d"; mkdir -p "$T/d"
  start_recv "$T/$v.got" -i 10 -n 1 -t 60
  if traced "$B/tests/$v" "$T/d" >"$T/$v.expect" 2>"$T/$v.err"; then
    ok "$v ran (errno checks passed)"
  else
    bad "$v exited non-zero: $(cat "$T/$v.err")"
  fi
  wait_recv
  compare_counts "$T/$v.expect" "$T/$v.got" "$v"
  expect_eq "$T/$v.got" finals 1 "$v final batch"
  expect_eq "$T/$v.got" lost 0 "$v lost"
  expect_eq "$T/$v.got" seq_gaps 0 "$v seq gaps"
  expect_eq "$T/$v.got" bad 0 "$v bad batches"
  # Nothing outside the test directory (libraries, /etc, /dev/null, pipes).
  others=$(grep '^file=' "$T/$v.got" | grep -v -E "^file=$T/d(/|\$)")
  [ -z "$others" ] && ok "$v: only files of the test dir" || bad "$v: unexpected files: $others"
  grep -q "^file=$T/d/p.dat$" "$T/$v.got" && ok "$v: absolute path sent" || bad "$v: p.dat not in files"
  grep -q "^file=$T/d/a.dat$" "$T/$v.got" && ok "$v: openat path resolved" || bad "$v: openat path wrong"
  grep -q "^file=$T/d/rel.dat$" "$T/$v.got" && ok "$v: relative path after chdir" || bad "$v: rel.dat path wrong"
  LC_ALL=C grep -a -q '[^[:print:][:space:]]' "$T/$v.got" && bad "$v: non-printable bytes in report" \
    || ok "$v: clean report"
  [ -z "$(ls "$T/spool")" ] && ok "$v: nothing spooled" || bad "$v: spooled with a receiver up"
done

# Which glibc entry points each build binds to (so the three runs above do
# cover the fortify and LFS names).
syms() { nm -D "$B/tests/$1" | awk '$1 == "U" { sub(/@.*/, "", $2); print $2 }'; }
for s in __read_chk __fprintf_chk __open_2; do
  syms shim_calls_fortify | grep -qx "$s" && ok "fortify build calls $s" || bad "fortify build lacks $s"
done
for s in open64 pwrite64 fstat64 lseek64 fopen64 mmap64; do
  syms shim_calls_lfs | grep -qx "$s" && ok "LFS build calls $s" || bad "LFS build lacks $s"
done

# Offsets: pwrite at its offset, O_APPEND at -1, per-descriptor positions.
rm -rf "$T/d"; mkdir -p "$T/d"
FTIO_SPOOL=always traced "$B/tests/shim_calls" "$T/d" >/dev/null
wire recv -r "$T"/spool/*.msgpack >"$T/recs"
grep -q 'op=write bytes=50 off=1000 ' "$T/recs" && ok "pwrite offset" || bad "pwrite offset 1000 missing"
grep -q 'op=write bytes=9 off=-1 ' "$T/recs" && ok "O_APPEND offset -1" || bad "append write not at -1"
grep -q 'layer=posix op=write bytes=100 off=300 ' "$T/recs" && ok "write position tracked" || bad "4th write not at 300"
grep -q 'layer=stdio op=read bytes=26 off=10 ' "$T/recs" && ok "stdio position tracked" || bad "fgets not at offset 10"
rm -f "$T"/spool/*

# Only wrapped symbols and the ftio.h API are exported.
bad=$(nm -D --defined-only "$SHIM" | awk '{print $3}' | grep -E '^(ftio_[a-z_]*|msgpack_|zmq_)' \
      | grep -v -x -E 'ftio_(flush|flush_named|mark|pause|resume|flush_|flush__)')
[ -z "$bad" ] && ok "no internal symbols exported" || bad "internal symbols exported: $bad"

# FTIO_LAYERS=stdio: POSIX calls pass through untraced.
rm -rf "$T/d"; mkdir -p "$T/d"
FTIO_SPOOL=always FTIO_LAYERS=stdio traced "$B/tests/shim_calls" "$T/d" >"$T/expect"
wire recv "$T"/spool/*.msgpack >"$T/got"
[ -z "$(val "$T/got" count.posix)" ] && ok "FTIO_LAYERS=stdio: no POSIX records" || bad "POSIX traced with FTIO_LAYERS=stdio"
grep '^count\.stdio\|^bytes\.stdio' "$T/expect" >"$T/expect.stdio"
compare_counts "$T/expect.stdio" "$T/got" "FTIO_LAYERS=stdio"
rm -f "$T"/spool/*

finish
