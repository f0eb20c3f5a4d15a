#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A hung daemon (SIGSTOP: connected, never reading, never acknowledging).
# The application is not slowed down; the shim resends what is not
# acknowledged, then spools it (FTIO_ACK_TIMEOUT_MS), and at exit spools
# what is left after FTIO_EXIT_WAIT_MS: every batch is acknowledged or in the
# spool file.  When the daemon wakes up (SIGCONT) and the spool file is
# replayed, the job's last .end covers every byte, complete, each batch
# counted once.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bin/posix_periodic" "$B/lib/libftio.so"
start_daemon d
J=hung-$$
mkdir -p "$T/out" "$T/spool"
run() {
  FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=$J FTIO_SPOOL_DIR="$T/spool" FTIO_FLUSH_MS=100 \
    FTIO_ACK_TIMEOUT_MS=300 FTIO_EXIT_WAIT_MS=200 LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
    timeout 60 "$B/bin/posix_periodic" -d "$T/out" -n 8 -p 0.25 -b 1M -k 64K >/dev/null 2>"$T/app.err"
}
kill -STOP $DPID
t0=$(date +%s.%N)
run || fail "posix_periodic: $(cat "$T/app.err")"
t1=$(date +%s.%N)
"$PY" -c "import sys; d=float(sys.argv[2])-float(sys.argv[1]); print('run took %.2f s (8 x 0.25 s of compute)' % d); sys.exit(0 if d < 4.5 else 1)" $t0 $t1 \
  || fail "the application was slowed down by the hung daemon"
grep -q 'did not take all of job' "$T/app.err" && ok_said=1 || fail "no notice of the spool: $(cat "$T/app.err")"
n=$(ls "$T/spool" | grep -c msgpack)
[ "$n" -ge 1 ] || fail "nothing spooled while the daemon hung"
kill -CONT $DPID
"$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool/*.msgpack 2>"$T/replay.err" \
  || fail "replay: $(cat "$T/replay.err")"
cat "$T/replay.err"
wait_topic "$T/d.log" "ftio.$J.end" 10
# until an .end (the first or a corrected one) covers every byte; the check
# below says what is wrong if none does
wait_for 10 log_is "$T/d.log" "(lambda e: e['bytes'] == 8 * 1048576 and e['complete'])(last('ftio.$J.end'))"
"$PY" - "$T/d.log" $J <<'PYEOF' || fail "end message"
import json, sys
ends = [d["message"] for d in map(json.loads, open(sys.argv[1])) if d["topic"] == "ftio.%s.end" % sys.argv[2]]
e = ends[-1]
print("%d .end; last: revision %d, bytes %d, complete %s" % (len(ends), e["revision"], e["bytes"], e["complete"]))
assert e["bytes"] == 8 * 1048576 and e["complete"] is True
PYEOF
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/status.json" || fail "status"
"$PY" -c "
import json,sys; s=json.load(open(sys.argv[1])); e=[x for x in s['ended'] if x['job']==sys.argv[2]][0]
r=e['summary']['write']['records']
print('records %d (each write once)' % r)
assert r == 8 * 16, e" "$T/status.json" $J || fail "records counted twice or lost"
echo ok
