#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/short_path.sh -- writes libtrace/short_path.ld: the functions of
# libftio.so that a short traced process runs (the constructor, its first
# records, the delivery at its end), which the link places together at the
# start of the code (libtrace/libtrace.mk).  Each 64-KB window of code a
# process first touches is a page fault, tens of microseconds on this VM;
# spread over the whole library these functions were six windows of a traced
# `cat`, packed they are two (bench/README.md "exit14").
# Run it after a change that moves work onto or off that path: valgrind's
# callgrind lists the functions run by `true`, `cat`, `sh -c 'exec cat'`,
# `dd` and `python3` under the shim, with ftiod up (the delivery) and down
# (the spool).  A stale list costs page faults, never correctness.
# Usage: B=build sh bench/short_path.sh [out]   (default libtrace/short_path.ld)
set -e
B=${B:-build}
OUT=${1:-libtrace/short_path.ld}
LIB=$(readlink -f "$B/lib/libftio.so")
# callgrind profiles the same objects linked in the linker's own order
# (valgrind names no function outside .text); perf, the library as built.
make --no-print-directory B="$B" "$B/lib/unordered/libftio.so" >/dev/null
PLAIN=$(readlink -f "$B/lib/unordered/libftio.so")
command -v valgrind >/dev/null || { echo "short_path.sh: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
T=$(mktemp -d)
trap 'kill $DP 2>/dev/null; rm -rf "$T"' EXIT
mkdir -m 700 "$T/spool"
head -c 8192 /dev/urandom >"$T/data"
"$B/bin/ftiod" --auth none --listen "ipc://$T/in" --pub "ipc://$T/pub" --status-endpoint "ipc://$T/st" 2>"$T/ftiod.err" &
DP=$!
for i in $(seq 100); do [ -S "$T/in" ] && break; sleep 0.05; done
[ -S "$T/in" ] || { echo "short_path.sh: ftiod did not start: $(cat "$T/ftiod.err")" >&2; exit 1; }
export FTIO_AUTH=none FTIO_SPOOL_DIR="$T/spool"
# each_command CMD...: CMD "a short program's command line", for each of them.
each_command() {
  for c in "true" "cat $T/data" "sh -c 'exec cat $T/data'" "dd if=$T/data of=$T/out bs=1k" \
           "python3 -c 'open(\"$T/data\").read()'"; do
    "$@" "$c"
  done
}
callgrind_run() {
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$T/cg.%p" \
    sh -c "LD_PRELOAD=$PLAIN $1" >/dev/null 2>&1 || :
}
FTIO_ENDPOINT="ipc://$T/in" each_command callgrind_run
FTIO_ENDPOINT="ipc://$T/nobody" each_command callgrind_run
# Every function of libftio.so with a cost in any of the profiles.
for f in "$T"/cg.*; do callgrind_annotate --threshold=100 "$f" 2>/dev/null; done |
  grep -F "[$PLAIN]" | sed -n 's/.*:\([A-Za-z_][A-Za-z_0-9]*\)[^A-Za-z_0-9].*/\1/p' >"$T/names.cg"
# At callgrind's pace some paths do not run (an acknowledgement that comes
# before the exit wait): at full speed, each function of libftio.so whose
# own code took a page fault (an instruction fetch: the address is the
# instruction's) ran too.  Run the script twice: what the first list moved
# shows the functions behind it.
: >"$T/names.pf"
faults_run() {
  perf record -q -c 1 -e page-faults -d -o "$T/pf.data" -- sh -c "LD_PRELOAD=$LIB $1" >/dev/null 2>&1 || :
  perf script -i "$T/pf.data" -F ip,sym,dso,addr 2>/dev/null |
    awk -v lib="($LIB)" '$NF == lib && $1 == $2 { print $3 }' >>"$T/names.pf"
}
if command -v perf >/dev/null; then
  for i in 1 2 3; do FTIO_ENDPOINT="ipc://$T/in" each_command faults_run; done
else
  echo "short_path.sh: perf not found: callgrind's list alone" >&2
fi
sed 's/\..*//' "$T/names.cg" "$T/names.pf" | grep -v '^$' | sort -u >"$T/names"
[ -s "$T/names" ] || { echo "short_path.sh: no function of $LIB in the profiles" >&2; exit 1; }
{
  echo "/* SPDX-License-Identifier: BSD-3-Clause */"
  echo "/* libtrace/short_path.ld -- written by bench/short_path.sh (do not edit: run it)."
  echo " * The functions a short traced process runs, placed together ahead of the"
  echo " * rest of libftio.so's code (the objects are built with -ffunction-sections:"
  echo " * each function is a section .text.NAME, its clones .text.NAME.*).  INSERT"
  echo " * keeps the linker's default script for everything else. */"
  echo "SECTIONS"
  echo "{"
  echo "  .text.ftio_short :"
  echo "  {"
  echo "    *(.text.startup .text.startup.*)"
  echo "    *libc_nonshared.a:*(.text .text.*)"
  echo "    *libgcc.a:*(.text .text.*)"
  echo "    *crtbeginS.o(.text .text.*)"
  while read -r n; do echo "    *(.text.$n .text.$n.*)"; done <"$T/names"
  echo "  }"
  echo "}"
  echo "INSERT BEFORE .text;"
} >"$OUT"
echo "short_path.sh: $(wc -l <"$T/names") functions in $OUT"
