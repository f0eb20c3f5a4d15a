#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `ftio relay` (PROTOCOL.md §1.5): a 4-rank MPI job whose shims connect to a
# relay, which forwards to ftiod over one connection: the job is predicted and
# ends complete with every byte, acknowledgements come back through the relay
# (nothing spooled), and ftiod sees one ingest connection.  Then two daemons
# behind one relay (--upstream A,B): each job goes to the daemon its id
# hashes to, as the shim's FTIO_ENDPOINT list does.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bin/checkpoint" "$B/bin/posix_periodic" "$B/lib/libftio.so"
start_daemon d
"$B/bin/ftio" relay --listen "ipc://$T/relay.sock" --upstream "ipc://$T/d.in" -v 2>"$T/relay.err" &
RP=$!; PIDS="$PIDS $RP"
wait_file "$T/relay.sock" || fail "the relay did not bind: $(cat "$T/relay.err")"
J=relay-$$
mkdir -p "$T/spool"
run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/relay.sock" -x FTIO_JOB=$J \
  -x FTIO_SPOOL_DIR="$T/spool" "$B/bin/checkpoint" -n 5 -c 0.4 -b 1M -o "$T" >"$T/app.out" 2>"$T/app.err"
[ "$rc" = 0 ] || fail "checkpoint: $(cat "$T/app.err")"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/status.json" || fail "status"
wait_topic "$T/d.log" "ftio.$J.end" 15
[ -z "$(ls "$T/spool")" ] || fail "spooled behind the relay: $(ls "$T/spool")"
"$PY" - "$T/d.log" $J "$T/status.json" <<'PYEOF' || fail "relay job"
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
ends = [d["message"] for d in msgs if d["topic"] == "ftio.%s.end" % sys.argv[2]]
preds = [d["message"] for d in msgs if d["topic"] == "ftio.%s.write" % sys.argv[2]]
e = ends[-1]
st = json.load(open(sys.argv[3]))
print("through the relay: %d predictions, .end bytes %d, complete %s, processes %d; ftiod connections %d"
      % (len(preds), e["bytes"], e["complete"], e["processes"], st["totals"]["connections"]))
assert len(ends) == 1 and e["complete"] is True and e["processes"] == 4
assert e["bytes"] == 5 * 4 * 1048576, e["bytes"]
assert len(preds) > 0
assert st["totals"]["connections"] == 1, st["totals"]
PYEOF

# Two daemons behind one relay.
start_daemon a
start_daemon b
"$B/bin/ftio" relay --listen "ipc://$T/relay2.sock" --upstream "ipc://$T/a.in,ipc://$T/b.in" 2>"$T/relay2.err" &
PIDS="$PIDS $!"
wait_file "$T/relay2.sock" || fail "the second relay did not bind: $(cat "$T/relay2.err")"
for k in 1 2 3 4; do
  FTIO_ENDPOINT="ipc://$T/relay2.sock" FTIO_JOB=shard$k-$$ FTIO_SPOOL_DIR="$T/spool" LD_PRELOAD="$PRELOAD" \
    ASAN_OPTIONS=$APP_ASAN_OPTIONS "$B/bin/posix_periodic" -d "$T" -n 2 -p 0.05 -b 64K -k 64K >/dev/null \
    || fail "posix_periodic $k"
done
# until the 4 jobs ended, on one daemon or the other (checked below)
ended() { [ "$(cat "$T/a.log" "$T/b.log" | grep -c '"topic":"ftio.shard[1-4]-'$$'.end"')" -ge 4 ]; }
wait_for 10 ended
[ -z "$(ls "$T/spool")" ] || fail "spooled behind the two-daemon relay"
"$PY" - "$T/a.log" "$T/b.log" $$ <<'PYEOF' || fail "sharding by job"
import json, sys
def fnv(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
logs = [set(json.loads(l)["topic"] for l in open(f)) for f in sys.argv[1:3]]
for k in range(1, 5):
    job = "shard%d-%s" % (k, sys.argv[3])
    want = fnv(job) % 2
    has = [("ftio.%s.end" % job) in t for t in logs]
    print(job, "-> daemon", "ab"[want], has)
    assert has[want] and not has[1 - want]
PYEOF
echo ok
