#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hot_page.sh -- the globals every traced call reads (shim.h FTIO_HOT: flags,
# the real functions' pointers, the offsets of the thread-local variables,
# FTIO_FAST) are one page of libftio.so: the section starts on a page and is
# at most a page long.  On a kernel that empties the TLB at each system call
# every further page is a page walk per call (libtrace/README.md "The hot
# path, page by page"); a variable added to the section, or one file's
# variables emitted around core.c's page-aligned first one, would spread it.
. "$(dirname "$0")/../lib.sh"
need "$SHIM"
command -v readelf >/dev/null || fail "readelf (binutils) not found"
line=$(readelf -SW "$SHIM" | sed -n 's/.*\] ftio_hot *//p')
[ -n "$line" ] || fail "no ftio_hot section in $SHIM"
set -- $line           # type address offset size ...
addr=$((0x$2)) size=$((0x$4))
[ $((addr % 4096)) = 0 ] && ok "ftio_hot starts on a page ($2)" || bad "ftio_hot starts at $2, not on a page"
[ "$size" -le 4096 ] && ok "ftio_hot is $size bytes: one page" || bad "ftio_hot is $size bytes: more than a page"
# The constructor's state (shim.h FTIO_WARM) rides on the page the loader
# writes anyway for the wrapped symbols' table (core.c): all of it on that
# page, or a short process faults one more in (bench/README.md "exit latency").
sec() { readelf -SW "$SHIM" | sed -n "s/.*\] $1 *//p"; }
set -- $(sec ftio_syms)
syms=$((0x$2 / 4096))
set -- $(sec ftio_warm)
[ -n "$1" ] || fail "no ftio_warm section in $SHIM"
first=$((0x$2 / 4096)) last=$(((0x$2 + 0x$4 - 1) / 4096))
[ "$first" = "$syms" ] && [ "$last" = "$syms" ] && ok "ftio_warm ($4 bytes) is on the ftio_syms page" ||
  bad "ftio_warm spans pages $first-$last, ftio_syms is on page $syms: move state out of FTIO_WARM"
finish
