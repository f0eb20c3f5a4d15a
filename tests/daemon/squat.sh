#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# squat.sh -- job ids cannot be taken (issue 21 item 1; docs/SECURITY.md
# "Job ids"), with a real munged and real second and third uids:
#  - nobody sends a batch for 4711.0 before root's step starts (Slurm ids are
#    sequential: the old rule "a job belongs to the uid of its first batch"
#    gave nobody the id, root's batches were dropped as foreign);
#  - the step is claimed for root as the SPANK plugin does (`ftio claim`,
#    the same control request), root's job streams, nobody keeps sending:
#    root's batches are merged, nobody's are not in root's job, and a
#    subscriber of `ftio.4711.0.` sees root's data only;
#  - root's own `ftio sub --last --job 4711.0` answers with root's job;
#  - ids nobody claimed live in their sender's namespace: nobody and uid
#    4242 both run `run1` and each gets its own job (u65534:run1,
#    u4242:run1), each ends only its own; a sender naming another's
#    namespace ("u4242:run1") stays in its own;
#  - a claim of a Slurm job id without its step (a prolog's `ftio claim
#    $SLURM_JOB_ID USER`) covers its steps: 5000 claimed for uid 4242, whose
#    5000.0 and 5000.batch keep their ids, while nobody's 5000.1 does not.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
"$PY" -c "import zmq" 2>/dev/null || fail "python3-zmq missing"
start_munged
export FTIO_AUTH=munge
as_4242() { setpriv --reuid=4242 --regid=4242 --clear-groups -- "$@"; }
MiB=1048576

start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 --job-timeout 60 \
  --min-interval 0.2
st() { "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/st.json" || fail "status"; }
field() { "$PY" -c "import json,sys; d=json.load(open('$T/st.json')); print(eval(sys.argv[1]))" "$1"; }
settle() { wait_for 15 status_is d "$1"; }

# The scheduler: a plain SUB on the prefix ftio.4711.0. (PUB without CURVE).
"$PY" - "ipc://$T/d.pub" "$T/sched.sub" <<'PYEOF' &
import json, sys, time, zmq
s = zmq.Context().socket(zmq.SUB)
s.setsockopt(zmq.SUBSCRIBE, b"ftio.4711.0.")
s.connect(sys.argv[1])
p = zmq.Poller(); p.register(s, zmq.POLLIN)
out = open(sys.argv[2], "w")
end = time.time() + 90
while time.time() < end:
    if p.poll(200):
        topic, msg = s.recv_multipart()
        out.write(json.dumps({"topic": topic.decode(), "message": json.loads(msg)}) + "\n")
        out.flush()
        if topic == b"ftio.4711.0.end":
            break
PYEOF
SUBP=$!
PIDS="$PIDS $SUBP"
wait_connected "$T/d.pub" || fail "the scheduler's subscriber did not connect"

# nobody squats 4711.0 before the step starts: one batch, a bogus GiB.
as_user "$WIRE" periodic --endpoint "ipc://$T/d.in" --job 4711.0 --ranks 1 --period 1 --phases 1 \
  --bytes 1073741824 --no-final || fail "nobody's squatting batch"
settle "[j for j in s['jobs'] if j['uid'] == 65534]" || fail "nobody's batch did not arrive"
# slurmstepd (root) claims the step for its user before the tasks start.
"$B/bin/ftio" claim --endpoint "ipc://$T/d.st" 4711.0 root || fail "the claim was refused"
# root's step: period 2 s, 8 phases of 1 MiB x 4 ranks; nobody keeps sending.
"$WIRE" periodic --endpoint "ipc://$T/d.in" --job 4711.0 --ranks 4 --period 2 --phases 8 \
  --bytes $MiB --no-final || fail "root's step"
as_user "$WIRE" periodic --endpoint "ipc://$T/d.in" --job 4711.0 --ranks 2 --period 38.5 \
  --phases 3 --bytes 1073741824 --no-final || fail "nobody's later batches"
settle "[j for j in s['jobs'] if j['job'] == '4711.0' and j['processes'] == 4]" || true
st
echo "jobs: $(field "[(j['job'], j['uid'], j['processes'], j['bytes']) for j in d['jobs']]")"
[ "$(field "[j['uid'] for j in d['jobs'] if j['job'] == '4711.0'][0]")" = 0 ] ||
  fail "4711.0 is not root's: $(field "d['jobs']")"
[ "$(field "[j['processes'] for j in d['jobs'] if j['job'] == '4711.0'][0]")" = 4 ] ||
  fail "4711.0 holds another user's processes"
[ "$(field "[j['bytes'] for j in d['jobs'] if j['job'] == '4711.0'][0]")" = "$((32 * MiB)).0" ] ||
  fail "4711.0 holds $(field "[j['bytes'] for j in d['jobs'] if j['job'] == '4711.0'][0]") bytes, root sent $((32 * MiB))"
[ "$(field "[j['uid'] for j in d['jobs'] if j['job'] == 'u65534:4711.0'][0]")" = 65534 ] ||
  fail "nobody's batches are not in its own namespace"
[ "$(field "d['dropped']['foreign']")" = 0 ] || fail "root's batches were dropped as foreign"

# root's own --last answers with root's job.
"$B/bin/ftio" sub --last --job 4711.0 --status-endpoint "ipc://$T/d.st" --json >"$T/last.json" ||
  fail "root's --last"
grep -q '"job":"4711.0"' "$T/last.json" || fail "--last: $(cat "$T/last.json")"

# Unclaimed ids of two users do not collide, nor can one name the other's.
as_user "$WIRE" periodic --endpoint "ipc://$T/d.in" --job run1 --ranks 1 --period 1 --phases 3 \
  --bytes $MiB --no-final || fail "nobody's run1"
as_4242 "$WIRE" periodic --endpoint "ipc://$T/d.in" --job run1 --ranks 2 --period 1 --phases 3 \
  --bytes $MiB --no-final || fail "uid 4242's run1"
as_user "$WIRE" periodic --endpoint "ipc://$T/d.in" --job u4242:run1 --ranks 1 --period 1 \
  --phases 1 --bytes $MiB --no-final || fail "nobody naming 4242's namespace"
settle "len([j for j in s['jobs'] if 'run1' in j['job']]) == 3" || true
st
echo "run1: $(field "sorted((j['job'], j['uid'], j['processes']) for j in d['jobs'] if 'run1' in j['job'])")"
[ "$(field "[(j['uid'], j['processes']) for j in d['jobs'] if j['job'] == 'u65534:run1']")" = "[(65534, 1)]" ] ||
  fail "nobody's run1: $(field "d['jobs']")"
[ "$(field "[(j['uid'], j['processes']) for j in d['jobs'] if j['job'] == 'u4242:run1']")" = "[(4242, 2)]" ] ||
  fail "uid 4242's run1: $(field "d['jobs']")"
[ "$(field "[j['uid'] for j in d['jobs'] if j['job'] == 'u65534:u4242:run1']")" = "[65534]" ] ||
  fail "nobody got into another namespace: $(field "d['jobs']")"
# Each ends its own run1 by the name it used.
as_4242 "$B/bin/ftio" end --endpoint "ipc://$T/d.st" run1 >/dev/null 2>"$T/end4242.err" ||
  fail "uid 4242 could not end its run1: $(cat "$T/end4242.err")"
wait_topic "$T/d.log" ftio.u4242:run1.end
settle "[j for j in s['jobs'] if j['job'] == 'u65534:run1']" ||
  fail "uid 4242's end ended nobody's run1"

# A job-level claim covers the job's steps.
"$B/bin/ftio" claim --endpoint "ipc://$T/d.st" 5000 4242 || fail "the claim of job 5000"
for step in 0 batch; do
  as_4242 "$WIRE" periodic --endpoint "ipc://$T/d.in" --job "5000.$step" --ranks 1 --period 1 \
    --phases 2 --bytes $MiB --no-final || fail "uid 4242's 5000.$step"
done
as_user "$WIRE" periodic --endpoint "ipc://$T/d.in" --job 5000.1 --ranks 1 --period 1 --phases 2 \
  --bytes $MiB --no-final || fail "nobody's 5000.1"
settle "len([j for j in s['jobs'] if '5000.' in j['job']]) == 3" || true
st
echo "job 5000: $(field "sorted((j['job'], j['uid']) for j in d['jobs'] if '5000.' in j['job'])")"
[ "$(field "sorted((j['job'], j['uid']) for j in d['jobs'] if '5000.' in j['job'])")" = \
  "[('5000.0', 4242), ('5000.batch', 4242), ('u65534:5000.1', 65534)]" ] || fail "job-level claim"

# root's step ends: the scheduler saw root's data only.
"$B/bin/ftio" end --endpoint "ipc://$T/d.st" 4711.0 >/dev/null || fail "root's end"
wait_topic "$T/d.log" ftio.4711.0.end
wait $SUBP
"$PY" - "$T/sched.sub" $((32 * MiB)) <<'PYEOF' || fail "the scheduler saw another user's data"
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
assert msgs, "no message on ftio.4711.0."
for m in msgs:
    assert m["message"]["job"] == "4711.0", m["topic"]
end = [m["message"] for m in msgs if m["topic"] == "ftio.4711.0.end"]
assert end, "no ftio.4711.0.end"
s = end[-1]["summary"]["write"]
assert abs(s["bytes"] - int(sys.argv[2])) < 1, s["bytes"]
assert abs(s["period"] - 2) < 0.1, s["period"]
assert end[-1]["processes"] == 4, end[-1]["processes"]
print("scheduler: %d messages on ftio.4711.0., end: %d bytes, period %.3f s, %d processes"
      % (len(msgs), s["bytes"], s["period"], end[-1]["processes"]))
PYEOF
echo ok
