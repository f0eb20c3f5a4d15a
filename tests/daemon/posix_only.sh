#!/bin/sh
# A plain POSIX program (no MPI) under libftio.so: ftiod finds its period
# (sleep 1.5 s + a 64 MiB checkpoint in 8 writes, 8 times) within 5 % and
# counts every byte exactly once (8 x 64 MiB), one process, nothing lost.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/posix_periodic" "$B/lib/libftio.so"
start_daemon d
JOB=posix-$$
mkdir -p "$T/out"
t0=$(date +%s.%N)
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=$JOB FTIO_SPOOL_DIR="$T" LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
  timeout 60 "$B/bin/posix_periodic" -d "$T/out" -n 8 -p 1.5 -b 64M -k 8M >"$T/app.out" 2>"$T/app.err" \
  || fail "posix_periodic failed: $(cat "$T/app.err")"
t1=$(date +%s.%N)
wait_topic "$T/d.log" "ftio.$JOB.end" 20
P=$("$PY" -c "import sys; print((float(sys.argv[2]) - float(sys.argv[1])) / 8)" "$t0" "$t1")
final=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['period']")
cls=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['class']")
echo "true period ~$P s (wall time / iterations), predicted $final ($cls)"
close 0.05 "$final" "$P" || fail "period $final vs $P"
[ "$cls" = periodic ] || [ "$cls" = uncertain ] || fail "class $cls"
s=$(jsonl "$T/d.log" "(lambda m: '%d %d %d %d' % (m['ranks'], m['bytes'], m['records'], m['lost']))(last('ftio.$JOB.end')['summary']['write'])")
echo "ranks bytes records lost: $s"
[ "$s" = "1 $((8 * 67108864)) 64 0" ] || fail "expected 1 process, $((8 * 67108864)) bytes, 64 records, 0 lost"
echo ok
