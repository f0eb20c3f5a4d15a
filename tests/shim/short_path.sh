#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# short_path.sh -- the layout that keeps a short traced process's page
# faults few (bench/README.md "exit14"; each is tens of microseconds on a VM
# with page-table isolation): the code it runs is packed at the start of
# libftio.so's code (libtrace/short_path.ld: the constructor, the first
# record, the delivery from the exiting thread), the library has no DT_FINI
# (the C runtime's empty _fini sat alone at the far end of the code), and
# the constructor's larger state (FTIO_EARLY) is zeros outside the file,
# made present in one call.  A link that dropped the script, or a function
# of that path renamed without running bench/short_path.sh, fails here.
. "$(dirname "$0")/../lib.sh"
need "$SHIM"
command -v readelf >/dev/null && command -v nm >/dev/null || fail "readelf and nm (binutils) not found"
set -- $(readelf -SW "$SHIM" | sed -n 's/.*\] \.text\.ftio_short *//p')
[ -n "$1" ] || fail "no .text.ftio_short section in $SHIM: linked without libtrace/short_path.ld"
lo=$((0x$2)) hi=$((0x$2 + 0x$4))
ok ".text.ftio_short: $4 bytes at $2"
set -- $(readelf -SW "$SHIM" | sed -n 's/.*\] \.text  *//p')
[ -n "$1" ] && [ $((0x$2)) -ge $hi ] && ok "the rest of the code (.text) after it" ||
  bad ".text does not follow .text.ftio_short"
# One function of each part of the short path (and the wrappers cat calls).
for f in ftio_init ftio_config_load ftio_identity_note ftio_flusher_start_if_needed ftio_flusher_end_here \
         ftio_sink_quick ftio_sink_open ftio_sink_finish ftio_zmtp_open ftio_wire_encode_columns read write close; do
  a=$(nm "$SHIM" | awk -v f="$f" '$3 == f && $2 ~ /^[tT]$/ { print $1; exit }')
  if [ -z "$a" ]; then bad "$f: not in $SHIM (renamed? run bench/short_path.sh)"; continue; fi
  [ $((0x$a)) -ge $lo ] && [ $((0x$a)) -lt $hi ] && ok "$f is on the short path's code" ||
    bad "$f (0x$a) is outside .text.ftio_short: run bench/short_path.sh"
done
readelf -d "$SHIM" | grep -q '(FINI)' && bad "libftio.so has a DT_FINI (libtrace/libtrace.mk -fini)" ||
  ok "no DT_FINI"
set -- $(readelf -SW "$SHIM" | sed -n 's/.*\] ftio_early *//p')
[ "$1" = NOBITS ] && ok "ftio_early is NOBITS ($4 bytes)" || bad "ftio_early is ${1:-missing}, not NOBITS"
# And the process still works: a traced cat's bytes recorded, nothing lost.
head -c 8192 /dev/urandom >"$T/in.bin"
FTIO_SPOOL=always traced cat "$T/in.bin" >"$T/out.bin" || bad "traced cat failed"
cmp -s "$T/in.bin" "$T/out.bin" && ok "cat copied its file" || bad "cat's copy differs"
wire recv "$T"/spool/*.msgpack >"$T/got"
expect_eq "$T/got" bytes.posix.read 8192 "the 8192 bytes read recorded"
finish
