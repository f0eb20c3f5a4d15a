#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/exit_latency.sh -- what the shim adds to a short process's life when
# ftiod is up, down (nothing listens) and hung (SIGSTOP: connected, never
# reading), and with a peer that greets and never reads ("silent peer", issue
# 29: no extra wait) (issue 9: at most 5 ms median with the daemon away; issue 21 item
# 7: at most 3 ms, and delivered rather than spooled with the daemon up).
# Each case runs `cat` of a small file N times (default 40), alternating
# with plain runs, and prints medians of wall time per process and how many
# of the N runs left a spool file.  `cat FILE` records an open, a read and a
# close, so the whole delivery path is measured; "nothing" runs `true`,
# which records nothing (the cost of being preloaded); "exec" runs
# `sh -c 'exec cat FILE'` with the daemon up (the hand-off at exec).
# BASE_LIB=path/to/older/libftio.so adds the same cases for another shim,
# side by side in the same run.  "zmq only" is this shim with FTIO_ZMTP=0
# (ZeroMQ from the first batch: the shim before libtrace/zmtp.c).
# MUNGE=1 adds "up, munge": a private munged and a second ftiod --auth munge,
# the shims with FTIO_AUTH=munge (the MUNGE frame on every batch).
# BASE_FTIOD=path/to/older/ftiod sends the base shim's cases to a second
# daemon of that build (the same options), so that "base shim" is the older
# shim and ftiod side by side with this tree's pair (an acknowledgement's
# latency is ftiod's as much as the shim's).
# STAT=1 adds, from `perf stat` around each run, the medians of the CPU time
# of all the process's threads (task-clock, ms) and of its page faults: on a
# loaded machine they move far less than wall time, and on a VM whose page
# faults cost tens of microseconds the faults are most of a short process's
# cost (bench/README.md "exit latency").  The wall columns then include perf's
# own start (tens to hundreds of ms): read them without STAT.
B=${B:-build}
N=${N:-40}
T=$(mktemp -d)
MP= MDP= SPP=
BDP=
trap 'kill $DP $BDP $MDP $MP $SPP 2>/dev/null; kill -CONT $DP $BDP 2>/dev/null; rm -rf "$T"' EXIT
mkdir -m 700 "$T/spool"
head -c 4096 /dev/urandom >"$T/data"
"$B/bin/ftiod" --auth none --listen "ipc://$T/in" --pub "ipc://$T/pub" --status-endpoint "ipc://$T/st" \
  2>"$T/ftiod.err" &
DP=$!
if [ -n "${BASE_FTIOD:-}" ]; then
  "$BASE_FTIOD" --auth none --listen "ipc://$T/bin" --pub "ipc://$T/bpub" --status-endpoint "ipc://$T/bst" \
    2>"$T/ftiod-base.err" &
  BDP=$!
fi
if [ "${MUNGE:-0}" = 1 ]; then
  mungekey -c -k "$T/munge.key" -b 1024 >/dev/null 2>&1 || { echo "mungekey failed" >&2; exit 1; }
  munged -F -f --socket="$T/munge.sock" --key-file="$T/munge.key" --log-file="$T/munged.log" \
    --pid-file="$T/munged.pid" --seed-file="$T/munged.seed" 2>"$T/munged.err" &
  MP=$!
  # (--user-jobs 0: every `cat` is a job of its own, and the same uid)
  "$B/bin/ftiod" --auth munge --munge-socket "$T/munge.sock" --user-jobs 0 --listen "ipc://$T/min" --pub "ipc://$T/mpub" \
    --status-endpoint "ipc://$T/mst" 2>"$T/ftiod-munge.err" &
  MDP=$!
fi
# A peer that completes the handshake and never reads (tests/shim/stall_peer.py):
# what anyone who binds the endpoint while ftiod is down can do.
/usr/bin/python3 "$(dirname "$0")/../tests/shim/stall_peer.py" "ipc://$T/silent" "$T/silent.ready" 3600 &
SPP=$!
sleep 0.5
/usr/bin/python3 - "$N" "$T" "$DP" "$(pwd)/$B/lib/libftio.so" "${BASE_LIB:-}" "${STAT:-0}" "${BDP:-0}" <<'PYEOF'
import os, signal, statistics, subprocess, sys, time
n, T, dp, lib, base = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
stat = sys.argv[6] == "1"
bdp = int(sys.argv[7])      # the base shim's own ftiod (BASE_FTIOD), 0: none
def env(libpath, endpoint, extra={}):
    e = dict(os.environ, FTIO_AUTH="none", FTIO_SPOOL_DIR=T + "/spool", FTIO_ENDPOINT=endpoint)
    e.update(extra)
    e.pop("FTIO_EXIT_WAIT_MS", None)
    if libpath:
        e["LD_PRELOAD"] = libpath
    return e
def run(e, cmd):
    """Wall ms, and with STAT=1 (CPU ms of all threads, page faults)."""
    if not stat:
        t = time.perf_counter()
        subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (time.perf_counter() - t) * 1e3, None
    # perf itself must not be preloaded: env gives LD_PRELOAD to the command only
    pre = ["env", "LD_PRELOAD=" + e["LD_PRELOAD"]] if "LD_PRELOAD" in e else ["env"]
    pe = dict(e)
    pe.pop("LD_PRELOAD", None)
    t = time.perf_counter()
    r = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock,page-faults", "--"] + pre + cmd, env=pe,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = (time.perf_counter() - t) * 1e3
    got = {f[2]: float(f[0]) for f in (l.split(",") for l in r.stderr.splitlines())
           if len(f) > 2 and f[0].replace(".", "", 1).isdigit()}
    return wall, (got.get("task-clock", 0.0), got.get("page-faults", 0.0))
def spooled():
    # The spool files and notices go; the marker of ftiod's last answer
    # (.ftio-up-*) stays, as on a node where ftiod answered the user before.
    d = T + "/spool"
    names = [f for f in os.listdir(d) if f.endswith(".msgpack")]
    for f in os.listdir(d):
        if not f.startswith(".ftio-up-"):
            os.unlink(os.path.join(d, f))
    return len(names)
CAT = ["cat", T + "/data"]
libs = [("this shim", lib, {}), ("zmq only", lib, {"FTIO_ZMTP": "0"})] + \
       ([("base shim", base, {})] if base else [])
def endpoint(name, ep):
    return ep.replace("/in", "/bin") if name == "base shim" and bdp and ep.endswith("/in") else ep
up, down = "ipc://%s/in" % T, "ipc://%s/nobody" % T
cases = [("daemon up", up, CAT), ("daemon down", down, CAT), ("daemon hung", up, CAT),
         ("silent peer", "ipc://%s/silent" % T, CAT),
         ("nothing, up", up, ["true"]), ("exec, up", up, ["sh", "-c", "exec cat " + T + "/data"])]
if os.path.exists(T + "/munge.sock"):
    cases.append(("up, munge", "ipc://%s/min" % T, CAT))
# One traced run first, not counted: the first batch a just-started ftiod
# answers can take longer than FTIO_EXIT_WAIT_MS (its first job, its pages),
# and with no answer of ftiod's known on the node yet that run spools: a
# start-up effect, not the steady state measured here (libtrace/README.md).
run(env(lib, up), CAT)
if bdp:
    run(env(base, endpoint("base shim", up)), CAT)
spooled()
print("exit latency: %d runs per case, medians (ms per process); spooled: runs that left a spool file" % n)
print("%-12s %-10s %8s %8s %8s %8s" % ("case", "shim", "plain", "traced", "added", "spooled") +
      (" %8s %8s %8s %7s %7s" % ("cpu", "cpu", "cpu", "faults", "faults") if stat else ""))
if stat:
    print("%-12s %-10s %8s %8s %8s %8s" % ("", "", "", "", "", "") +
          " %8s %8s %8s %7s %7s" % ("plain", "traced", "added", "plain", "traced"))
for case, ep, cmd in cases:
    if case == "daemon hung":
        for p in [dp] + ([bdp] if bdp else []):
            os.kill(p, signal.SIGSTOP)
    for name, l, extra in libs:
        plain, traced = [], []
        spooled()
        for i in range(n):
            plain.append(run(env(None, ep), cmd))
            auth = {"FTIO_AUTH": "munge", "FTIO_MUNGE_SOCKET": T + "/munge.sock"} if case == "up, munge" else {}
            traced.append(run(env(l, endpoint(name, ep), dict(extra, **auth)), cmd))
        med = lambda runs, f: statistics.median(f(r) for r in runs)
        mp, mt = med(plain, lambda r: r[0]), med(traced, lambda r: r[0])
        line = "%-12s %-10s %8.2f %8.2f %8.2f %5d/%d" % (case, name, mp, mt, mt - mp, spooled(), n)
        if stat:
            cp, ct = med(plain, lambda r: r[1][0]), med(traced, lambda r: r[1][0])
            line += " %8.2f %8.2f %8.2f %7.0f %7.0f" % (cp, ct, ct - cp, med(plain, lambda r: r[1][1]),
                                                       med(traced, lambda r: r[1][1]))
        print(line)
    if case == "daemon hung":
        for p in [dp] + ([bdp] if bdp else []):
            os.kill(p, signal.SIGCONT)
PYEOF
