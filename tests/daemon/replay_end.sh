#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Spool files replayed during a job and after its end (PROTOCOL.md §2, §4):
#  - job 1: process B only spools (FTIO_SPOOL=file); A streams.  A's final
#    ends the job after the settle (.end revision 0, ended_by idle, A's bytes,
#    complete); `ftio replay` of B's
#    spool file after that is merged into the same job and a corrected .end
#    follows: revision 1, A + B's bytes, complete -- not a second job;
#  - job 2: the spool file of C is replayed while D still runs: one .end
#    (revision 0) with C + D's bytes;
#  - a replay of batches the daemon already has changes nothing (duplicates).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bin/posix_periodic" "$B/lib/libftio.so"
start_daemon d
MB=1048576
run() {  # run JOB NAME SPOOLMODE PHASES: posix_periodic traced as job JOB
  mkdir -p "$T/out-$2" "$T/spool-$2"
  FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=$1 FTIO_SPOOL=$3 FTIO_SPOOL_DIR="$T/spool-$2" FTIO_FLUSH_MS=100 \
    LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
    timeout 60 "$B/bin/posix_periodic" -d "$T/out-$2" -n $4 -p 0.2 -b 1M -k 256K >/dev/null 2>"$T/app-$2.err"
}
J1=late-$$ J2=during-$$
run $J1 b file 3 || fail "B"
[ -n "$(ls "$T/spool-b")" ] || fail "B spooled nothing"
run $J1 a auto 4 || fail "A"
wait_topic "$T/d.log" "ftio.$J1.end" 10
"$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool-b/*.msgpack 2>"$T/replay1.err" \
  || fail "replay after the end: $(cat "$T/replay1.err")"
cat "$T/replay1.err"
wait_for 10 log_is "$T/d.log" "len(all_of('ftio.$J1.end')) == 2" || fail "no corrected .end for $J1"
"$PY" - "$T/d.log" $J1 $MB <<'PYEOF' || fail "job $J1 end messages"
import json, sys
log, job, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
ends = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.%s.end" % job]
for e in ends:
    print("revision %d: bytes %d, complete %s, processes %d" % (e["revision"], e["bytes"], e["complete"], e["processes"]))
assert [e["revision"] for e in ends] == [0, 1]
assert ends[0]["bytes"] == 4 * mb and ends[0]["processes"] == 1
assert ends[1]["bytes"] == 7 * mb and ends[1]["processes"] == 2 and ends[1]["complete"] is True
PYEOF
# A second replay of the same file: duplicates, nothing new, no third .end.
"$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool-b/*.msgpack 2>/dev/null || fail "second replay"
sleep 1.5    # what is tested: no third .end in the time a revision would take
[ "$(jsonl "$T/d.log" "len(all_of('ftio.$J1.end'))")" = 2 ] || fail "a duplicate replay revised the job"

# Job 2: replayed while the job runs.
run $J2 c file 3 || fail "C"
run $J2 d auto 15 & DP=$!; PIDS="$PIDS $DP"
# C's spool file is replayed once D's job is running in the daemon
wait_for 10 status_is d "[j for j in s['jobs'] if j['job'] == '$J2' and j['records'] > 0]" ||
  fail "D's job never reached the daemon"
"$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool-c/*.msgpack 2>"$T/replay2.err" \
  || fail "replay during the job: $(cat "$T/replay2.err")"
wait $DP || fail "D"
wait_topic "$T/d.log" "ftio.$J2.end" 10
sleep 1.5    # what is tested: no second .end in the time a revision would take
"$PY" - "$T/d.log" $J2 $MB <<'PYEOF' || fail "job $J2 end"
import json, sys
log, job, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
ends = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.%s.end" % job]
print([(e["revision"], e["bytes"], e["complete"]) for e in ends])
assert len(ends) == 1 and ends[0]["bytes"] == 18 * mb and ends[0]["complete"] is True
PYEOF
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/status.json" || fail "status"
"$PY" -c "
import json,sys; s=json.load(open(sys.argv[1]))
assert not [x for x in s['jobs'] if x['job'] == sys.argv[2]], 'an ended job among the running ones'
e=[x for x in s['ended'] if x['job']==sys.argv[2]]
assert len(e) == 1 and e[0]['revision'] == 1 and e[0]['ended_by'] == 'idle', e" "$T/status.json" $J1 \
  || fail "--status does not show the ended job"
echo ok
