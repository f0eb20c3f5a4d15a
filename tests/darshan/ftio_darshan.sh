#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# ftio_darshan.sh -- `ftio LOG.darshan` end to end: content detection (any
# file name), each signal source (DXT, HEATMAP, counters), old and big-endian
# formats, and bad input: a partial log is an error (a warning with
# --lenient), a truncated or damaged log gives one line "ftio: FILE: offset N:"
# and exit 1, never a crash.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data/darshan

# A DXT log under a name without extension: detected from content, DXT
# segments are the requests (32 ranks write 1 byte each, one after another).
cp $D/runtime_and_dxt_heatmaps_diagonal_write_only/runtime_and_dxt_heatmaps_diagonal_write_only.darshan "$T/log.bin"
"$FTIO" --json "$T/log.bin" >"$T/out" 2>"$T/err" || bad "DXT log: $(cat "$T/err")"
grep -q '"ranks": *32' "$T/out" || bad "DXT log: expected 32 ranks: $(grep ranks "$T/out")"
grep -q '"records": *32' "$T/out" || bad "DXT log: expected 32 DXT requests: $(grep records "$T/out")"

# HEATMAP (DLIO, Darshan 3.4.x, no DXT): the 30 s checkpoint writes every ~120 s
log=$D/dlio_logs/snyder_python3_id3116902-2110366_12-19-66957-4077632997277538683_1.darshan
"$FTIO" --json "$log" >"$T/out" 2>"$T/err" || bad "heatmap log: $(cat "$T/err")"
grep -q '"mode": *"write"' "$T/out" || bad "heatmap log: no write analysis"

# counters only, every format version and byte order: reads and decodes
for log in $D/release_logs/*.darshan; do
  "$FTIO" --json "$log" >"$T/out" 2>"$T/err"; rc=$?
  # these tiny jobs last < 0.1 s: the analysis may say so, the reader may not fail
  if [ $rc != 0 ] && ! grep -q 'shorter than one sample' "$T/err"; then bad "$log: rc=$rc $(cat "$T/err")"; fi
done

# a partial log is never silent
log=$D/partial_data_dxt/partial_data_dxt.darshan
"$FTIO" "$log" >"$T/out" 2>"$T/err" && bad "partial log accepted silently"
grep -q "partial log: Darshan's DXT_POSIX module ran out of memory" "$T/err" || bad "partial: $(cat "$T/err")"
"$FTIO" --lenient --mode read -f 10000 "$log" >"$T/out" 2>"$T/err" || bad "partial --lenient: $(cat "$T/err")"
grep -q "warning: .*partial log" "$T/err" || bad "partial --lenient: no warning: $(cat "$T/err")"

# truncated, damaged, wrong magic: one line with an offset, exit 1
src=$D/release_logs/mpi-io-test-x86_64-3.5.0.darshan
for n in 20 400 1500 2500; do
  head -c $n "$src" >"$T/trunc.darshan"
  "$FTIO" "$T/trunc.darshan" >"$T/out" 2>"$T/err"; rc=$?
  [ $rc = 1 ] || bad "truncated at $n: exit $rc"
  [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "^ftio: $T/trunc.darshan: offset [0-9]+: " "$T/err" ||
    bad "truncated at $n: $(cat "$T/err")"
done
python3 - "$src" "$T/damaged.darshan" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(1400, len(b), 7):
    b[i] ^= 0x5a            # scribble over the compressed regions
open(sys.argv[2], "wb").write(b)
PY
"$FTIO" "$T/damaged.darshan" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -Eq "^ftio: $T/damaged.darshan: offset [0-9]+: " "$T/err" || bad "damaged: rc=$rc $(cat "$T/err")"
printf '3.41\0\0\0\0XXXXXXXX' | cat - "$src" | head -c 3000 >"$T/magic.darshan"
"$FTIO" --format darshan "$T/magic.darshan" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "offset 8: bad Darshan magic number" "$T/err" || bad "bad magic: rc=$rc $(cat "$T/err")"

finish
