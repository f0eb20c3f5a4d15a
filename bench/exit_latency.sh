#!/bin/sh
# bench/exit_latency.sh -- what the shim adds to a short process's life when
# ftiod is up, down (nothing listens) and hung (SIGSTOP: connected, never
# reading) (issue 9: at most 5 ms median with the daemon away).  Each case
# runs `cat` of a small file N times (default 40), alternating with plain
# runs, and prints medians of wall time per process.  A process that
# recorded nothing starts no flusher at all; `cat FILE` records an open, a
# read and a close, so the whole delivery path is measured.
# BASE_LIB=path/to/older/libftio.so adds the same cases for another shim,
# side by side in the same run.
B=${B:-build}
N=${N:-40}
T=$(mktemp -d)
trap 'kill $DP 2>/dev/null; kill -CONT $DP 2>/dev/null; rm -rf "$T"' EXIT
mkdir -m 700 "$T/spool"
head -c 4096 /dev/urandom >"$T/data"
"$B/bin/ftiod" --auth none --listen "ipc://$T/in" --pub "ipc://$T/pub" --status-endpoint "ipc://$T/st" \
  2>"$T/ftiod.err" &
DP=$!
sleep 0.5
/usr/bin/python3 - "$N" "$T" "$DP" "$(pwd)/$B/lib/libftio.so" "${BASE_LIB:-}" <<'PYEOF'
import os, signal, statistics, subprocess, sys, time
n, T, dp, lib, base = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def env(libpath, endpoint):
    e = dict(os.environ, FTIO_AUTH="none", FTIO_SPOOL_DIR=T + "/spool", FTIO_ENDPOINT=endpoint)
    e.pop("FTIO_EXIT_WAIT_MS", None)
    if libpath:
        e["LD_PRELOAD"] = libpath
    return e
def run(e):
    t = time.perf_counter()
    subprocess.run(["cat", T + "/data"], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1e3
libs = [("this shim", lib)] + ([("base shim", base)] if base else [])
cases = [("daemon up", "ipc://%s/in" % T), ("daemon down", "ipc://%s/nobody" % T), ("daemon hung", "ipc://%s/in" % T)]
print("exit latency: cat of a 4 KiB file, %d runs per case, medians (ms per process)" % n)
print("%-12s %-10s %8s %8s %8s" % ("case", "shim", "plain", "traced", "added"))
for case, ep in cases:
    if case == "daemon hung":
        os.kill(dp, signal.SIGSTOP)
    for name, l in libs:
        plain, traced = [], []
        for i in range(n):
            plain.append(run(env(None, ep)))
            traced.append(run(env(l, ep)))
        mp, mt = statistics.median(plain), statistics.median(traced)
        print("%-12s %-10s %8.2f %8.2f %8.2f" % (case, name, mp, mt, mt - mp))
    if case == "daemon hung":
        os.kill(dp, signal.SIGCONT)
    for f in os.listdir(T + "/spool"):
        os.unlink(os.path.join(T + "/spool", f))
PYEOF
