#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin (slurm/spank_ftio.c) against a real single-node Slurm.
#
# Starts, in a temporary directory: munged with its own key, slurmctld and
# slurmd (generated slurm.conf: SlurmUser=root, proctrack/linuxproc,
# task/none, this host with its CPUs, free ports, plugstack.conf naming our
# plugin with default=off) and ftiod (--auth none, ipc://).  Then:
#   1. srun --ftio -n 2 posix_periodic: predictions arrive as job
#      "<jobid>.0" with the fields jobid and step, 2 ranks, and the step's
#      .end within a few seconds of srun's return (the ranks' final batches);
#   2. srun without --ftio (site default off) is not traced; --ftio=bogus is
#      refused by srun with the plugin's one-line error; --ftio-app=NAME
#      traces the step with FTIO_APP=NAME in its tasks' environment;
#   3. one batch job, two concurrent steps with periods 2 s and 3 s: published
#      separately, each with its own period; `ftio sub --job J`, started
#      before them, sees both steps (and both steps' ends: a step's end does
#      not stop it) and nothing of a job "<J>0.0" sent next to them;
#   4. a step whose process is killed (no final batch): the plugin's
#      `end <job>.<step>` ends it at once (ended_by "told"), not at the
#      300 s timeout;
#   5. sbatch --ftio: the script's own I/O is job "<J>.batch", the srun step it
#      starts (inheriting --ftio) "<J>.0"; a step with --ftio=off is not traced
#      although it inherits the script's LD_PRELOAD;
#   6. claims (docs/SECURITY.md "Job ids"), with a second ftiod running
#      --auth munge and the plugin switched to it (status= lists both
#      daemons: the claim reaches each): uid 4242 squats the next
#      job ids' step 0 before nobody's `srun --ftio` starts; the plugin claims
#      "<J>.0" for nobody in slurmstepd, so nobody's step is job "<J>.0"
#      (every byte, owner 65534) and the squatter's batch sits in
#      "u4242:<J>.0".
# Everything it started is stopped on exit.  When Slurm cannot start here,
# the test fails and says why; it never passes by skipping.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/bin/posix_periodic" "$B/lib/libftio.so" "$WIRE"
[ -f "$B/lib/spank_ftio.so" ] || fail "missing $B/lib/spank_ftio.so: <slurm/spank.h> not found at build time (Debian libslurm-dev, mk/deps.sh)"
for p in slurmctld slurmd srun sbatch sinfo squeue; do
  command -v $p >/dev/null || fail "$p not found (Debian packages slurmctld slurmd slurm-client, mk/deps.sh)"
done
[ "$(id -u)" = 0 ] || fail "slurmd must run as root to start steps (SlurmUser=root); run the test as root"

start_munged
start_daemon d

# Four free TCP ports on loopback (slurmctld, slurmd, srun's range).
PORTS=$("$PY" -c "
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in ss))")
set -- $PORTS
CTLD_PORT=$1; SLURMD_PORT=$2
HOST=$(hostname -s)
CPUS=$(nproc)
mkdir -p "$T/state" "$T/spool"
cat >"$T/plugstack.conf" <<EOF
required $B/lib/spank_ftio.so default=off endpoint=ipc://$T/d.in status=ipc://$T/d.st lib=$(echo "$PRELOAD" | tr " " ":") auth=none
EOF
cat >"$T/slurm.conf" <<EOF
ClusterName=ftiotest
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
PlugStackConfig=$T/plugstack.conf
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID
# The plugin says where ftiod is; an FTIO_ENDPOINT of the caller would win.
unset FTIO_ENDPOINT

slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.err" 2>&1 &
PIDS="$PIDS $!"
slurmd -D -f "$SLURM_CONF" >"$T/slurmd.err" 2>&1 &
PIDS="$PIDS $!"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
  i=$((i + 1))
  if [ $i -gt 150 ]; then
    tail -5 "$T/slurmctld.log" "$T/slurmd.log" 2>/dev/null
    fail "Slurm did not start: the node is not idle after 15 s ($(sinfo -h -o '%t %E' 2>&1))"
  fi
  sleep 0.1
done
echo "Slurm up: $HOST, $CPUS CPUs, slurmctld port $CTLD_PORT, slurmd port $SLURMD_PORT"

now() { "$PY" -c 'import time; print(time.time())'; }
# since T0: seconds from T0 to now, to 0.1 s.
since() { "$PY" -c 'import sys, time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$1"; }

# ---- 1. one step, 2 tasks --------------------------------------------------
timeout 60 srun --ftio -n 2 -J one "$B/bin/posix_periodic" -d "$T" -n 6 -p 1 -b 8M \
  >"$T/one.out" 2>"$T/one.err" || fail "srun --ftio failed: $(cat "$T/one.err")"
T_END=$(now)
J1=$(squeue -h -a -t all -n one -o %i 2>/dev/null | head -1)
[ -n "$J1" ] || fail "squeue does not know the job of the first step"
wait_topic "$T/d.log" "ftio.$J1.0.end" 10
LAG=$(since "$T_END")
"$PY" - "$T/d.log" "$J1" "$T_END" "$T/one.out" "$HERE/../daemon" <<'PYEOF' || fail "step $J1.0"
import json, sys
J, t_end = sys.argv[2], float(sys.argv[3])
sys.path.insert(0, sys.argv[5])
from phase_truth import periodic_phases, off
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
w = [m for t, m in msgs if t == "ftio.%s.0.write" % J]
assert w, "no prediction for job %s.0: %s" % (J, sorted({t for t, _ in msgs}))
last = w[-1]
assert last["job"] == J + ".0" and last["jobid"] == J and last["step"] == "0", last
assert last["ranks"] == 2, last["ranks"]
# The truth: the program's own phases inside the message's window (1 s apart
# on an idle machine; more when its writes slow down under load).
truth = periodic_phases(sys.argv[4])
err = off(last["period"], truth, last["window"]["start"], last["window"]["end"])
assert err is not None and err < 0.1, (last["period"], last["window"], truth)
end = [m for t, m in msgs if t == "ftio.%s.0.end" % J][-1]
assert end["jobid"] == J and end["step"] == "0" and end["ended_by"] in ("final", "told"), end
assert end["complete"], end
print("step %s.0: %d predictions, period %.3f s, ranks %d, ended by %s"
      % (J, len(w), last["period"], last["ranks"], end["ended_by"]))
PYEOF
echo "the end of step $J1.0 was published within $LAG s of srun's return"
"$PY" -c 'import sys; sys.exit(float(sys.argv[1]) >= 5)' "$LAG" || fail "the end of step $J1.0 came $LAG s after the step"

# ---- 2. default off, bad option ---------------------------------------------
# Job lines only: ftiod's machine message goes into --log at each minute of
# the wall clock (--machine-log 60), whatever the steps do.
job_lines() { grep -vc '"topic":"ftio.machine"' "$T/d.log"; }
before=$(job_lines)
timeout 30 srun -n 1 -J off "$B/bin/posix_periodic" -d "$T" -n 2 -p 0.2 -b 1M >/dev/null 2>"$T/off.err" \
  || fail "srun without --ftio failed: $(cat "$T/off.err")"
sleep 1.5
[ "$(job_lines)" = "$before" ] || fail "a step without --ftio was traced (default=off): $(tail -n +$((before + 1)) "$T/d.log" | grep -v '"topic":"ftio.machine"' | cut -c1-120 | head -3)"
echo "without --ftio: not traced"
if timeout 30 srun --ftio=bogus -n 1 true 2>"$T/bogus.err"; then
  fail "srun --ftio=bogus was accepted"
fi
grep -q "ftio: --ftio=bogus: expected on or off" "$T/bogus.err" || fail "--ftio=bogus: $(cat "$T/bogus.err")"
echo "--ftio=bogus refused: $(grep -m1 'ftio:' "$T/bogus.err")"
# --ftio-app=name: the tasks get FTIO_APP (the memory of runs), and the step is traced
app=$(timeout 30 srun --ftio-app=md-prod -n 1 sh -c 'echo "$FTIO_APP ${LD_PRELOAD:+preloaded}"' 2>"$T/app.err") \
  || fail "srun --ftio-app failed: $(cat "$T/app.err")"
[ "$app" = "md-prod preloaded" ] || fail "srun --ftio-app=md-prod: the task saw '$app', not 'md-prod preloaded'"
if timeout 30 srun --ftio-app= -n 1 true 2>"$T/app2.err"; then
  fail "srun --ftio-app= (empty) was accepted"
fi
echo "--ftio-app: FTIO_APP=md-prod in the traced task; an empty name refused"

# ---- 3. two concurrent steps of one job, periods 2 s and 3 s ----------------
cat >"$T/two.sh" <<EOF
#!/bin/sh
srun --ftio --overlap -n 1 "$B/bin/posix_periodic" -d "$T" -n 7 -p 2 -b 8M >"$T/two-a.out" 2>&1 &
srun --ftio --overlap -n 1 "$B/bin/posix_periodic" -d "$T" -n 5 -p 3 -b 8M >"$T/two-b.out" 2>&1 &
wait
EOF
J2=$(sbatch --parsable -n 2 -o "$T/two.log" "$T/two.sh") || fail "sbatch failed"
J2=${J2%%;*}
"$B/bin/ftio" sub --job "$J2" --json --endpoint "ipc://$T/d.pub" --timeout 40 >"$T/sub.out" 2>"$T/sub.err" &
SUB=$!
PIDS="$PIDS $SUB"
sleep 0.5
# A job whose id starts like J's: ftio sub --job J must not show it.
"$WIRE" periodic --endpoint "ipc://$T/d.in" --job "${J2}0.0" --ranks 1 --period 1 \
  --phases 5 --bytes 1048576 || fail "generator"
wait_topic "$T/d.log" "ftio.$J2.0.end" 40
wait_topic "$T/d.log" "ftio.$J2.1.end" 20
sleep 0.5
"$PY" - "$T/d.log" "$J2" "$T/two-a.out" "$T/two-b.out" "$HERE/../daemon" <<'PYEOF' || fail "concurrent steps of $J2"
import json, sys
J = sys.argv[2]
sys.path.insert(0, sys.argv[5])
from phase_truth import periodic_phases, off
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
periods = {}
for s in ("0", "1"):
    end = [m for t, m in msgs if t == "ftio.%s.%s.end" % (J, s)][-1]
    p = end["summary"]["write"]["period"]
    assert end["jobid"] == J and end["step"] == s, end
    assert end["summary"]["write"]["ranks"] == 1, end["summary"]["write"]["ranks"]
    periods[s] = p
print("job %s: step 0 period %s s, step 1 period %s s" % (J, periods["0"], periods["1"]))
# Which step got which period depends on the order srun started them: the
# shorter answer is judged against the program that wrote every 2 s, by its
# own phases over the whole run (the end's summary covers all of it).
got = sorted(periods.values())
for p, out in zip(got, sys.argv[3:5]):
    err = off(p, periodic_phases(out), float("-inf"), float("inf"))
    assert err is not None and err < 0.1, (periods, out, periodic_phases(out))
PYEOF
kill $SUB 2>/dev/null; wait $SUB 2>/dev/null
"$PY" - "$T/sub.out" "$J2" <<'PYEOF' || fail "ftio sub --job $J2: $(cat "$T/sub.err")"
import json, sys
J = sys.argv[2]
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
jobs = {o["job"] for o in objs}
ends = [o["job"] for o in objs if "summary" in o]
print("ftio sub --job %s saw %s, ends of %s" % (J, sorted(jobs), sorted(ends)))
assert jobs == {J + ".0", J + ".1"}, jobs
assert sorted(ends) == [J + ".0", J + ".1"], ends
PYEOF

# ---- 4. a killed step ends when Slurm says so --------------------------------
# The task kills its writer once ftiod has records of it (an event, not a
# time: on a loaded machine the writer may not have written in 3 s).
cat >"$T/killed.sh" <<EOF
#!/bin/sh
"$B/bin/posix_periodic" -d "$T" -n 100 -p 0.5 -b 1M >/dev/null &
w=\$!
i=0
# (the poller is not the traced program: no shim in it, nor under make asan
# the sanitizer's leak report of python itself)
while [ \$i -lt 600 ]; do
  env -u LD_PRELOAD "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" 2>/dev/null |
    env -u LD_PRELOAD "$PY" -c "import json, sys; sys.exit(0 if any(j['job'] == '\$SLURM_JOB_ID.0' and j['bytes'] >= 1048576 for j in json.load(sys.stdin)['jobs']) else 1)" && break
  sleep 0.05; i=\$((i + 1))
done
kill -9 \$w
EOF
chmod +x "$T/killed.sh"
timeout 30 srun --ftio -n 1 -J killed "$T/killed.sh" 2>"$T/killed.err" || true
T_END=$(now)
J3=$(squeue -h -a -t all -n killed -o %i 2>/dev/null | head -1)
[ -n "$J3" ] || fail "no job id for the killed step"
wait_topic "$T/d.log" "ftio.$J3.0.end" 10
LAG=$(since "$T_END")
by=$(jsonl "$T/d.log" "last('ftio.$J3.0.end')['ended_by']")
complete=$(jsonl "$T/d.log" "last('ftio.$J3.0.end')['complete']")
echo "killed step $J3.0: ended by $by (complete: $complete) within $LAG s of the step's end"
[ "$by" = told ] || fail "the killed step ended by $by, not by the plugin's end request"
[ "$complete" = False ] ||
  fail "a killed step's summary says complete: $(jsonl "$T/d.log" "{k: v for k, v in last('ftio.$J3.0.end').items() if k != 'summary'}")"

# ---- 5. sbatch --ftio: the batch script is step "batch", its srun steps their own
cat >"$T/batch.sh" <<EOF
#!/bin/sh
"$B/bin/posix_periodic" -d "$T" -n 4 -p 0.5 -b 1M
srun -n 1 "$B/bin/posix_periodic" -d "$T" -n 4 -p 0.5 -b 1M
srun --ftio=off -n 1 "$B/bin/posix_periodic" -d "$T" -n 2 -p 0.2 -b 1M
EOF
J5=$(sbatch --parsable --ftio -o "$T/batch.log" "$T/batch.sh") || fail "sbatch --ftio failed"
J5=${J5%%;*}
wait_topic "$T/d.log" "ftio.$J5.batch.end" 20
wait_topic "$T/d.log" "ftio.$J5.0.end" 20
"$PY" - "$T/d.log" "$J5" <<'PYEOF' || fail "sbatch --ftio: $(cat "$T/batch.log")"
import json, sys
J = sys.argv[2]
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
for step in ("batch", "0"):
    end = [m for t, m in msgs if t == "ftio.%s.%s.end" % (J, step)][-1]
    # Not MPI: its processes' finals end it after ftiod's --settle-end (idle),
    # unless the plugin's `end` comes first (told, the usual case).
    assert end["jobid"] == J and end["step"] == step and end["ended_by"] in ("idle", "told"), end
    assert end["complete"], end
    assert end["summary"]["write"]["bytes"] == 4 * 1048576, end["summary"]["write"]["bytes"]
assert not [t for t, m in msgs if t.startswith("ftio.%s.1." % J)], "srun --ftio=off was traced"
print("sbatch --ftio: job %s.batch and %s.0 traced apart, each 4 MiB; %s.1 (--ftio=off) not traced" % (J, J, J))
PYEOF

# ---- 6. the step's id is its user's: the plugin's claim (auth=munge) ---------
start_daemon m --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666
cat >"$T/plugstack.conf" <<EOF
required $B/lib/spank_ftio.so default=off endpoint=ipc://$T/m.in status=ipc://$T/d.st,ipc://$T/m.st lib=$(echo "$PRELOAD" | tr " " ":") auth=munge
EOF
# Slurm's ids are sequential: uid 4242 squats the next three steps 0.
for k in 1 2 3; do
  setpriv --reuid=4242 --regid=4242 --clear-groups -- env FTIO_AUTH=munge "$WIRE" periodic \
    --endpoint "ipc://$T/m.in" --job "$((J5 + k)).0" --ranks 1 --period 1 --phases 1 \
    --bytes 1073741824 --no-final || fail "the squatter's batch"
done
mkdir -m 777 "$T/six"
as_user env FTIO_AUTH=munge FTIO_SPOOL_DIR="$T/six/spool" sh -c "cd '$T/six' && timeout 60 srun --ftio \
  -n 1 -J six '$B/bin/posix_periodic' -d '$T/six' -n 4 -p 0.5 -b 1M" >"$T/six.out" 2>"$T/six.err" ||
  fail "nobody's srun --ftio failed: $(cat "$T/six.err")"
J6=$(squeue -h -a -t all -n six -o %i 2>/dev/null | head -1)
[ -n "$J6" ] || fail "no job id for nobody's step"
wait_topic "$T/m.log" "ftio.$J6.0.end" 20
grep -q "job $J6.0: claimed for uid 65534" "$T/m.err" || fail "the plugin did not claim $J6.0 for nobody"
FTIO_AUTH=munge "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/m.st" >"$T/m.json" ||
  fail "status of m"
"$PY" - "$T/m.json" "$J6" <<'PYEOF' || fail "claims under Slurm"
import json, sys
d, J = json.load(open(sys.argv[1])), sys.argv[2]
step = [e for e in d["ended"] if e["job"] == J + ".0"]
assert step, "no ended job %s.0: %s" % (J, [e["job"] for e in d["ended"]])
e = step[0]
assert e["uid"] == 65534, e["uid"]
assert e["summary"]["write"]["bytes"] == 4 * 1048576, e["summary"]["write"]["bytes"]
squat = [j for j in d["jobs"] if j["job"] == "u4242:%s.0" % J]
assert squat and squat[0]["uid"] == 4242, [j["job"] for j in d["jobs"]]
print("claims: nobody's step %s.0 is nobody's (%d bytes); the squatter's batch is in u4242:%s.0"
      % (J, e["summary"]["write"]["bytes"], J))
PYEOF
echo ok
