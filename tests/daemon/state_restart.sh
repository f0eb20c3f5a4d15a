#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Durable state (--state-dir) and acknowledged delivery (PROTOCOL.md §1.4, §4):
# ftiod is killed with SIGKILL in the middle of a job, at five different
# points (five jobs side by side, one daemon each), and restarted on the same
# state directory 0.5 s later.  The shims keep what was not acknowledged and
# send it to the new daemon; the new daemon continues the job from its
# journal.  Without any replay, each job then has exactly one `.end`, which
# covers every byte the program wrote, with complete: true.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/posix_periodic" "$B/lib/libftio.so"
PHASES=12 PERIOD=0.5 SIZE=1048576
for k in 1 2 3 4 5; do
  mkdir -p "$T/out$k" "$T/spool$k"
  start_daemon d$k --state-dir "$T/state$k"
  eval "D$k=\$DPID"
  FTIO_ENDPOINT="ipc://$T/d$k.in" FTIO_JOB=restart$k-$$ FTIO_SPOOL_DIR="$T/spool$k" FTIO_FLUSH_MS=100 \
    FTIO_ACK_TIMEOUT_MS=700 LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
    timeout 60 "$B/bin/posix_periodic" -d "$T/out$k" -n $PHASES -p $PERIOD -b 1M -k 256K \
    >"$T/app$k.out" 2>"$T/app$k.err" &
  eval "A$k=\$!"; PIDS="$PIDS $!"
done
# Kill points spread over the job (about 6 s long): 0.8, 1.9, 3.0, 4.1, 5.2 s.
for k in 1 2 3 4 5; do
  sleep 1.1    # what is tested: kill points spread over the job
  eval "kill -KILL \$D$k"
  # restarted 0.5 s later (the downtime is what is tested)
  (sleep 0.5; exec "$B/bin/ftiod" --listen "ipc://$T/d$k.in" --pub "ipc://$T/e$k.pub" \
     --status-endpoint "ipc://$T/e$k.st" --log "$T/e$k.log" -v --auth none \
     --state-dir "$T/state$k" 2>>"$T/e$k.err") &
  PIDS="$PIDS $!"
done
for k in 1 2 3 4 5; do
  eval "wait \$A$k" || fail "posix_periodic $k failed: $(cat "$T/app$k.err")"
done
for k in 1 2 3 4 5; do
  wait_topic "$T/e$k.log" "ftio.restart$k-$$.end" 20
done
sleep 1.5    # a second `.end` would come now
for k in 1 2 3 4 5; do
  grep -q '"topic":"ftio.restart'$k-$$'.end"' "$T/d$k.log" && fail "job $k: the killed daemon published an .end"
  "$PY" - "$T/e$k.log" "restart$k-$$" $((PHASES * SIZE)) "$T/spool$k" <<'PYEOF' || fail "job $k"
import json, os, sys
log, job, want, spool = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ends = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.%s.end" % job]
e = ends[-1]
print("job %s: %d .end, bytes %d of %d, complete %s, revision %d, missing %d, spooled %s"
      % (job, len(ends), e["bytes"], want, e["complete"], e["revision"], e["missing_batches"],
         os.listdir(spool)))
assert len(ends) == 1, "more than one .end"
assert e["bytes"] == want, "bytes"
assert e["complete"] is True and e["missing_batches"] == 0 and e["revision"] == 0
PYEOF
  grep -q "restored" "$T/e$k.err" || fail "job $k: the new daemon did not restore the job"
done
# The state directory keeps an ended job until --keep-ended; a job that is
# forgotten leaves no journal.
ls "$T/state1"/*.journal >/dev/null 2>&1 || fail "no journal kept for the ended job"
echo ok
