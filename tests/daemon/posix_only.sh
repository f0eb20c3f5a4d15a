#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A plain POSIX program (no MPI) under libftio.so: ftiod finds its period
# (sleep 1.5 s + a 64 MiB checkpoint in 8 writes, 8 times; the truth: the
# checkpoints' start times the program prints) within 5 % and
# counts every byte exactly once (8 x 64 MiB), one process, nothing lost.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/posix_periodic" "$B/lib/libftio.so"
start_daemon d
JOB=posix-$$
mkdir -p "$T/out"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=$JOB FTIO_SPOOL_DIR="$T" LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
  timeout 60 "$B/bin/posix_periodic" -d "$T/out" -n 8 -p 1.5 -b 64M -k 8M >"$T/app.out" 2>"$T/app.err" \
  || fail "posix_periodic failed: $(cat "$T/app.err")"
wait_topic "$T/d.log" "ftio.$JOB.end" 20
# The truth: the program's own checkpoint start times (CLOCK_REALTIME, printed
# per iteration).  On a loaded machine the fsync of a checkpoint takes 0.1 s or
# 0.5 s (the first ones on a cold disk), so the intervals spread (1.58-1.95 s
# seen) and the period is somewhere between their median (the steady rhythm)
# and their mean (the average rate): the answer must be within 5 % of one.
PP=$("$PY" -c "
import re, statistics, sys
s = [float(m.group(1)) for m in re.finditer(r'^iteration \d+: .* from ([0-9.]+) to ', open(sys.argv[1]).read(), re.M)]
d = [b - a for a, b in zip(s, s[1:])]
print('%.6f %.6f' % (statistics.median(d), (s[-1] - s[0]) / (len(s) - 1)) if len(s) == 8 else 'none')" "$T/app.out")
[ "$PP" != none ] || fail "posix_periodic did not print 8 start times: $(cat "$T/app.out")"
MEDIAN=${PP% *} MEAN=${PP#* }
final=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['period']")
cls=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['class']")
echo "true period: median interval $MEDIAN s, mean $MEAN s (the program's own checkpoint start times); predicted $final ($cls)"
"$PY" -c "import re, sys; s = re.findall(r'from ([0-9.]+) to ([0-9.]+)', open(sys.argv[1]).read()); print('starts - first:', ' '.join('%.2f' % (float(a) - float(s[0][0])) for a, b in s), '/ durations:', ' '.join('%.2f' % (float(b) - float(a)) for a, b in s))" "$T/app.out"
close 0.05 "$final" "$MEDIAN" || close 0.05 "$final" "$MEAN" || fail "period $final vs median $MEDIAN / mean $MEAN"
[ "$cls" = periodic ] || [ "$cls" = uncertain ] || fail "class $cls"
s=$(jsonl "$T/d.log" "(lambda m: '%d %d %d %d' % (m['ranks'], m['bytes'], m['records'], m['lost']))(last('ftio.$JOB.end')['summary']['write'])")
echo "ranks bytes records lost: $s"
[ "$s" = "1 $((8 * 67108864)) 64 0" ] || fail "expected 1 process, $((8 * 67108864)) bytes, 64 records, 0 lost"
echo ok
