#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The attacks of the security audit (issue 8), tried against a daemon running
# with authentication, by a real second user (nobody) and a real munged:
#   - injection into another user's job: the attacker's batches land in the
#     attacker's own namespace (u65534:victim, docs/SECURITY.md "Job ids"),
#     the victim's period and volume unchanged;
#   - unauthenticated and forged batches: refused, counted;
#   - subscribers without a key or with a key not allowed get nothing, an
#     allowed key gets the predictions (CURVE);
#   - status and `ftio end` of another user's job: refused; one's own: fine;
#   - flooding the job table from one uid does not lock another uid out;
#   - connections past --max-connections are refused, status still answers;
#   - --auth none is refused on a non-loopback endpoint;
#   - the fuzzer against the authenticated path;
#   - the shim without munged spools, `ftio replay` then signs as its user.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE" "$B/bin/posix_periodic" "$B/lib/libftio.so"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
"$PY" -c "import zmq" 2>/dev/null || fail "python3-zmq missing"
start_munged
export FTIO_AUTH=munge
GEN="$WIRE"

# --auth none only where nobody else can reach.
rc=0; "$B/bin/ftiod" --auth none --listen tcp://0.0.0.0:0 --pub "ipc://$T/x.pub" \
  --status-endpoint "ipc://$T/x.st" 2>"$T/none.err" || rc=$?
[ $rc != 0 ] && grep -q "only on an ipc:// or loopback" "$T/none.err" || fail "--auth none on 0.0.0.0 accepted"

# Keys: the daemon's, an admin's (allowed), a stranger's (not).
mkdir "$T/clients"
( cd "$T" && "$B/bin/ftio" keygen server >/dev/null && "$B/bin/ftio" keygen admin >/dev/null &&
  "$B/bin/ftio" keygen stranger >/dev/null ) || fail "keygen"
[ "$(stat -c %a "$T/server.key")" = 600 ] || fail "secret key not 0600"
cp "$T/admin.pub" "$T/clients/"
chmod 644 "$T/stranger.key"          # nobody plays the stranger
SRV="$T/server.pub"

start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 \
  --curve-secret "$T/server.key" --curve-clients "$T/clients" \
  --max-jobs 12 --user-jobs 4 --max-connections 40 --job-timeout 30 --min-interval 0.2
[ "$(stat -c %a "$T/d.in")" = 666 ] || fail "--socket-mode not applied: $(stat -c %a "$T/d.in")"
st() { "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" --server-key "$SRV" \
       --key "$T/admin.key" >"$T/st.json" || fail "admin status"; }
field() { "$PY" -c "import json,sys; d=json.load(open('$T/st.json')); print(eval(sys.argv[1]))" "$1"; }
# settle EXPR: wait (up to 10 s) until the admin's status makes EXPR true (`s`);
# the checks that follow say what is wrong if it never does.
settle() { wait_for 10 status_is d "$1" --server-key "$SRV" --key "$T/admin.key"; }

# Subscribers: admin key, stranger key, no key (python, plain SUB).
"$B/bin/ftio" sub --endpoint "ipc://$T/d.pub" --server-key "$SRV" --key "$T/admin.key" \
  --json --timeout 60 --job victim >"$T/admin.sub" 2>"$T/admin_sub.err" &
SUBA=$!
as_user "$B/bin/ftio" sub --endpoint "ipc://$T/d.pub" --server-key "$SRV" --key "$T/stranger.key" \
  --json --timeout 12 >"$T/stranger.sub" 2>&1 &
SUBS=$!
"$PY" - "ipc://$T/d.pub" "$T/plain.sub" <<'PYEOF' &
import sys, zmq
s = zmq.Context().socket(zmq.SUB); s.setsockopt(zmq.SUBSCRIBE, b""); s.connect(sys.argv[1])
got = 0
p = zmq.Poller(); p.register(s, zmq.POLLIN)
import time
end = time.time() + 12
while time.time() < end:
    if p.poll(200):
        s.recv_multipart(); got += 1
open(sys.argv[2], "w").write(str(got))
PYEOF
SUBP=$!
# the admin's subscriber is in before the victim's job starts
wait_connected "$T/d.pub" || fail "no subscriber connected"

# The victim (root) runs a periodic job: period 2 s, 8 phases of 1 MiB x 4 ranks.
"$GEN" periodic --endpoint "ipc://$T/d.in" --job victim --ranks 4 --period 2 --phases 8 \
  --bytes 1048576 --no-final || fail "victim job"
# The attacker (nobody): signed batches into the victim's job ...
as_user env FTIO_AUTH=munge "$GEN" periodic --endpoint "ipc://$T/d.in" --job victim --ranks 2 \
  --period 38.5 --phases 3 --bytes 1073741824 --no-final || fail "attacker's generator failed"
# ... and unsigned ones.
as_user env FTIO_AUTH=none "$GEN" periodic --endpoint "ipc://$T/d.in" --job victim --ranks 2 \
  --period 38.5 --phases 3 --bytes 1073741824 --no-final || fail "attacker's generator failed"
settle "s['dropped']['unauthenticated'] >= 6 and [j for j in s['jobs'] if j['job'] == 'u65534:victim' and j['batches'] >= 6]"
st
echo "after the injection: $(field "d['dropped']")"
[ "$(field "d['dropped']['unauthenticated']")" -ge 6 ] || fail "unsigned batches not counted"
[ "$(field "[j['uid'] for j in d['jobs'] if j['job']=='victim'][0]")" = 0 ] || fail "victim's owner"
# The signed ones are nobody's own job: its id is in nobody's namespace.
[ "$(field "[j['uid'] for j in d['jobs'] if j['job']=='u65534:victim'][0]")" = 65534 ] ||
  fail "the attacker's batches are not in its own namespace"
[ "$(field "[j['processes'] for j in d['jobs'] if j['job']=='victim'][0]")" = 4 ] ||
  fail "the attacker's processes are in the victim's job"

# Status, --last and end: nobody sees only its own jobs; the id "victim" it
# names is its own job, never root's.
as_user "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" --server-key "$SRV" \
  >"$T/user.json" 2>"$T/user.err" || fail "user status: $(cat "$T/user.err")"
"$PY" -c "import json; d=json.load(open('$T/user.json')); assert [j['job'] for j in d['jobs']]==['u65534:victim'] and d['only_uid']==65534, d" \
  || fail "a user sees other users' jobs"
rc=0; as_user env FTIO_AUTH=none "$B/bin/ftiod" --status --status-endpoint "ipc://$T/d.st" \
  --server-key "$SRV" 2>"$T/anon.err" || rc=$?
[ $rc = 1 ] && grep -q "not allowed" "$T/anon.err" || fail "anonymous status answered: $(cat "$T/anon.err")"
as_user "$B/bin/ftio" sub --last --job victim --status-endpoint "ipc://$T/d.st" \
  --server-key "$SRV" --json >"$T/nobody_last.json" 2>"$T/last.err" || fail "nobody's own --last"
grep -q '"job":"u65534:victim"' "$T/nobody_last.json" && ! grep -q '"job":"victim"' "$T/nobody_last.json" ||
  fail "nobody's --last victim: $(cat "$T/nobody_last.json")"
# A claimed id of root's: nobody is refused, whatever it sends.
"$B/bin/ftio" claim --endpoint "ipc://$T/d.st" --server-key "$SRV" claimed.0 root || fail "root's claim"
rc=0; as_user "$B/bin/ftio" claim --endpoint "ipc://$T/d.st" --server-key "$SRV" mine.0 nobody \
  2>"$T/claim.err" || rc=$?
[ $rc = 1 ] && grep -q "not allowed" "$T/claim.err" || fail "a user could claim an id: $(cat "$T/claim.err")"
"$GEN" periodic --endpoint "ipc://$T/d.in" --job claimed.0 --ranks 1 --period 1 --phases 2 \
  --no-final >/dev/null || fail "claimed job"
rc=0; as_user "$B/bin/ftio" sub --last --job claimed.0 --status-endpoint "ipc://$T/d.st" \
  --server-key "$SRV" 2>"$T/last.err" || rc=$?
[ $rc = 1 ] && grep -q "not allowed" "$T/last.err" || fail "another user's --last answered"
rc=0; as_user "$B/bin/ftio" end --endpoint "ipc://$T/d.st" --server-key "$SRV" claimed.0 \
  2>"$T/end.err" || rc=$?
[ $rc = 1 ] && grep -q "not allowed" "$T/end.err" || fail "another user ended root's job"
"$B/bin/ftio" sub --last --job victim --status-endpoint "ipc://$T/d.st" --server-key "$SRV" \
  --json >"$T/last.json" || fail "the owner's --last"
grep -q '"job":"victim"' "$T/last.json" || fail "--last: $(cat "$T/last.json")"
# nobody ends its own "victim": root's goes on.
as_user "$B/bin/ftio" end --endpoint "ipc://$T/d.st" --server-key "$SRV" victim >/dev/null \
  2>"$T/end.err" || fail "nobody could not end its own job: $(cat "$T/end.err")"
settle "not [j for j in s['jobs'] if j['uid'] == 65534] and [j for j in s['jobs'] if j['job'] == 'victim']" ||
  fail "nobody's end: $(cat "$T/d.status.json")"

# Flooding: nobody opens 20 jobs; 4 are its quota; root still gets a new job.
i=0
while [ $i -lt 20 ]; do
  as_user "$GEN" periodic --endpoint "ipc://$T/d.in" --job "flood$i" --ranks 1 --phases 1 \
    --period 1 --no-final >/dev/null 2>&1
  i=$((i + 1))
done
"$GEN" periodic --endpoint "ipc://$T/d.in" --job other --ranks 2 --period 1 --phases 2 \
  --no-final || fail "other job"
settle "s['dropped']['over_user_jobs'] >= 16 and [j for j in s['jobs'] if j['job'] == 'other']"
st
[ "$(field "len([j for j in d['jobs'] if j['uid']==65534])")" = 4 ] || fail "user quota: $(field "[j['job'] for j in d['jobs']]")"
[ "$(field "d['dropped']['over_user_jobs']")" -ge 16 ] || fail "over_user_jobs not counted"
[ "$(field "len([j for j in d['jobs'] if j['job']=='other'])")" = 1 ] || fail "flooding locked root out"

# A user may end their own jobs (and so frees their quota).
for i in 0 1 2 3; do
  as_user "$B/bin/ftio" end --endpoint "ipc://$T/d.st" --server-key "$SRV" "flood$i" >/dev/null \
    2>"$T/end_own.err" || fail "the owner could not end flood$i: $(cat "$T/end_own.err")"
done
settle "not [j for j in s['jobs'] if j['uid'] == 65534]" || fail "the owner's jobs did not end"

# Connections: 60 idle ZeroMQ peers (held 6 s: what is tested is idle peers);
# at most 40 stay, status still answers.
"$PY" - "ipc://$T/d.in" <<'PYEOF' &
import sys, time, zmq
c = zmq.Context(); socks = []
for i in range(60):
    s = c.socket(zmq.DEALER); s.connect(sys.argv[1]); socks.append(s)
time.sleep(6)
PYEOF
CONN=$!
settle "s['dropped']['connections_refused'] >= 15"
st
echo "connections refused: $(field "d['dropped']['connections_refused']")"
[ "$(field "d['dropped']['connections_refused']")" -ge 15 ] || fail "connections not bounded"
wait $CONN
# ... and once they are gone the count is back down (no drift).
settle "s['totals']['connections'] <= 2" || { st; fail "open connections stay at $(field "d['totals']['connections']")"; }

# The fuzzer, signed: forged MACs and credentials are refused, the rest decoded.
timeout 120 "$GEN" fuzz --endpoint "ipc://$T/d.in" --count 2000 --seed 11 || fail "fuzzer"
settle "s['dropped']['malformed'] > 300 and s['dropped']['unauthenticated'] > 200"
kill -0 $DPID || fail "ftiod died under the signed fuzzer"
st
echo "after fuzzing: $(field "d['dropped']")"
[ "$(field "d['dropped']['malformed']")" -gt 300 ] || fail "fuzz batches did not reach the decoder"
[ "$(field "d['dropped']['unauthenticated']")" -gt 200 ] || fail "forged auth frames not refused"

# The shim: without munged it spools (the program is unaffected); `ftio replay`
# as nobody then gives the job to nobody.
mkdir -p "$T/spool"; chmod 777 "$T/spool"
as_user env LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS FTIO_ENDPOINT="ipc://$T/d.in" \
  FTIO_JOB=shimjob FTIO_AUTH=munge FTIO_MUNGE_SOCKET=/nonexistent/munge.sock \
  FTIO_SPOOL_DIR="$T/spool/u" "$B/bin/posix_periodic" -n 3 -p 0.3 -d "$T/spool" \
  >"$T/shim.out" 2>"$T/shim.err" || fail "traced program failed: $(cat "$T/shim.err")"
grep -q "cannot authenticate" "$T/shim.err" || fail "no warning about munged"
ls "$T/spool/u"/*.msgpack >/dev/null 2>&1 || fail "nothing spooled"
as_user "$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T/spool/u"/*.msgpack 2>"$T/replay.err" \
  || fail "replay: $(cat "$T/replay.err")"
# The live shim with munged: a job owned by nobody.
as_user env LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS FTIO_ENDPOINT="ipc://$T/d.in" \
  FTIO_JOB=livejob FTIO_AUTH=munge FTIO_SPOOL_DIR="$T/spool/v" "$B/bin/posix_periodic" -n 3 -p 0.3 \
  -d "$T/spool" >"$T/shim2.out" 2>"$T/shim2.err" || fail "traced program failed"
# Both end at once (their last batch is `final`): running or ended, their
# owner; ids nobody claimed live in nobody's namespace.
settle "len(set(j['job'] for j in s['jobs'] + s['ended'] if j['job'] in ('u65534:shimjob', 'u65534:livejob') and j['uid'] == 65534)) == 2"
st
[ "$(field "[j['uid'] for j in d['jobs'] + d['ended'] if j['job']=='u65534:shimjob'][0]")" = 65534 ] || fail "replayed job's owner"
[ "$(field "[j['uid'] for j in d['jobs'] + d['ended'] if j['job']=='u65534:livejob'][0]")" = 65534 ] || fail "live job's owner"
ls "$T/spool/v"/*.msgpack >/dev/null 2>&1 && fail "the authenticated shim spooled"

# Memory and rate bounds, socket group: a second daemon.  Memory is counted
# as the jobs use it (~0.02 MB for each of these: state, a block of bins, a
# few records; the 8-rank job more), so --max-memory 1 takes forty or so of
# the 80 jobs sent and refuses the others.
start_daemon m --auth munge --munge-socket "$T/munge.sock" --socket-mode 0660 \
  --socket-group nogroup --max-memory 1 --user-rate 100 --user-jobs 64
[ "$(stat -c %G "$T/m.in")" = nogroup ] || fail "--socket-group not applied"
as_user "$GEN" periodic --endpoint "ipc://$T/m.in" --job fast --ranks 8 --phases 20 --period 1 \
  --no-final >/dev/null || fail "fast"
for j in $(seq 1 80); do
  "$GEN" periodic --endpoint "ipc://$T/m.in" --job "mem$j" --ranks 1 --phases 1 --period 1 \
    --no-final >/dev/null || fail "mem$j"
done
wait_for 10 status_is m "s['dropped']['over_memory'] >= 2 and s['dropped']['over_user_rate'] >= 1"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/m.st" >"$T/st.json" || fail "root's status"
echo "memory and rate: $(field "d['dropped']['over_memory'], d['dropped']['over_user_rate'], len(d['jobs']), d['memory_reserved']")"
n=$(field "len(d['jobs'])")
[ "$n" -ge 2 ] && [ "$n" -lt 81 ] || fail "--max-memory 1 let $n of 81 jobs in"
[ "$(field "d['memory_reserved'] <= 1.2 * 1048576")" = True ] || fail "jobs use $(field "d['memory_reserved']") bytes past --max-memory 1"
[ "$(field "d['dropped']['over_memory']")" -ge 2 ] || fail "over_memory not counted"
[ "$(grep -c "memory bound reached" "$T/m.err")" = 1 ] || fail "memory refusal not logged exactly once"
[ "$(field "d['dropped']['over_user_rate']")" -ge 1 ] || fail "--user-rate not applied"

# The victim's job ends: its answer is the victim's own.
"$B/bin/ftio" end --endpoint "ipc://$T/d.st" --server-key "$SRV" victim >/dev/null || fail "owner's end"
wait_topic "$T/d.log" ftio.victim.end 30
period=$(jsonl "$T/d.log" "last('ftio.victim.end')['summary']['write']['period']")
bytes=$(jsonl "$T/d.log" "last('ftio.victim.end')['summary']['write']['bytes']")
echo "victim: period $period s (true 2), $bytes bytes (true $((8 * 4 * 1048576)))"
close 0.05 "$period" 2 || fail "victim's period moved to $period"
close 0.001 "$bytes" $((8 * 4 * 1048576)) || fail "victim's volume moved to $bytes"

wait $SUBA $SUBS $SUBP 2>/dev/null
grep -q '"job":"victim"' "$T/admin.sub" || fail "the admin subscriber got nothing: $(cat "$T/admin_sub.err")"
[ ! -s "$T/stranger.sub" ] || ! grep -q '"job"' "$T/stranger.sub" || fail "a stranger's key got predictions"
[ "$(cat "$T/plain.sub")" = 0 ] || fail "a subscriber without a key got $(cat "$T/plain.sub") messages"
echo "subscribers: admin $(grep -c '"job"' "$T/admin.sub") messages, stranger 0, no key 0"
echo ok
