#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""truth.py APP RUNDIR -- the truth of one run of the realapps benchmark,
taken from the program itself (its output files' birth and modification
times, its own logs), never from ftio and never from wall time / iterations.

Prints one JSON object:
  {"app": APP, "activities": [
     {"name": "dumps", "glob": "dump.*.lammpstrj", "configured": "...",
      "drift": false,                 # true: the period changes on purpose
      "phases": [[start, end, bytes], ...],   # epoch seconds, bytes; by start
      "check_period": S or null,      # a second, independent reading of the
      "check_source": "..."},         #   period (the program's log, its files)
     ...]}
An activity is one periodic output stream (dumps, restarts, frames, ...).
Standard library only; exit 1 with one line on stderr when the files are
not there (the program did not produce what it should).
"""
import glob, json, os, re, subprocess, sys, time


def fail(msg):
    print("truth.py: " + msg, file=sys.stderr)
    sys.exit(1)


def file_times(paths):
    """(birth, mtime, size) of each file, by `stat` (statx: os.stat has no
    birth time on Linux before Python 3.12).  Birth 0 (not kept by the file
    system) falls back on the modification time."""
    if not paths:
        return {}
    out = subprocess.run(["stat", "-c", "%.9W %.9Y %s %n"] + paths, capture_output=True, text=True, check=True)
    res = {}
    for line in out.stdout.splitlines():
        w, y, s, n = line.split(" ", 3)
        w, y = float(w), float(y)
        res[n] = (w if w > 0 else y, y, int(s))
    return res


def per_file_activity(run, name, pattern, configured, step_re):
    """One file per output (LAMMPS dump.*, restart.*): a phase from the file's
    birth to its last modification, its size in bytes; ordered by the step
    number in the name."""
    paths = glob.glob(os.path.join(run, "app", pattern))
    if not paths:
        fail("%s: no file %s in %s/app" % (name, pattern, run))
    times = file_times(paths)
    steps = {p: int(re.search(step_re, os.path.basename(p)).group(1)) for p in paths}
    phases = [list(times[p]) for p in sorted(paths, key=lambda p: steps[p])]
    return {"name": name, "glob": pattern, "configured": configured, "drift": False, "phases": phases,
            "steps": sorted(steps.values()), "check_period": None, "check_source": None}


def lammps_thermo(run):
    """{step: elapsed s} from log.lammps (thermo_style ... cpu: the wall time
    since the run started, LAMMPS' own timer)."""
    path = os.path.join(run, "app", "log.lammps")
    if not os.path.exists(path):
        fail("no log.lammps")
    rows, cols = {}, None
    for line in open(path):
        f = line.split()
        if f and f[0] == "Step":
            cols = f
            continue
        if cols and len(f) == len(cols) and f[0].isdigit():
            rows[int(f[0])] = float(f[cols.index("CPU")])
        elif cols and f and f[0] == "Loop":
            cols = None
    return rows


def timer_period(acts_steps, thermo):
    """The mean time between outputs according to the program's own timer."""
    pts = [thermo[s] for s in acts_steps if s in thermo]
    return (pts[-1] - pts[0]) / (len(pts) - 1) if len(pts) > 1 else None


def lammps(run):
    params = dict(kv.split("=") for kv in open(os.path.join(run, "app", "params")).read().split()[1:])
    thermo = lammps_thermo(run)
    acts = [per_file_activity(run, "dumps", "dump.*.lammpstrj", "every %s steps" % params["dump"],
                              r"dump\.(\d+)\."),
            per_file_activity(run, "restarts", "restart.*.bin", "every %s steps" % params["restart"],
                              r"restart\.(\d+)\.")]
    for a in acts:
        # step 0's dump is written in the setup, before LAMMPS' timer starts
        a["check_period"] = timer_period([s for s in a["steps"] if s > 0], thermo)
        a["check_source"] = "log.lammps thermo CPU column (LAMMPS' elapsed wall time) at the output steps"
    return acts


def phaselog(run, specs):
    """Our examples (phaselog.h): `phase ACTIVITY INDEX RANK START END BYTES`
    lines on stdout, every rank's own CLOCK_REALTIME notes; one output of an
    activity spans its ranks: the earliest start, the latest end, the sum of
    the bytes.  specs: {activity: (file glob, drift)}.  The check: the same
    outputs' files, by birth time (earliest over the ranks)."""
    phases = {}
    for line in open(os.path.join(run, "app.out")):
        f = line.split()
        if len(f) == 7 and f[0] == "phase":
            a, k, s, e, b = f[1], int(f[2]), float(f[4]), float(f[5]), int(f[6])
            p = phases.setdefault(a, {}).setdefault(k, [s, e, 0])
            p[0], p[1], p[2] = min(p[0], s), max(p[1], e), p[2] + b
    if not phases:
        fail("no phase lines in app.out")
    params = open(os.path.join(run, "app", "params")).read().strip()
    acts = []
    for a, (pattern, drift) in specs.items():
        if a not in phases:
            fail("no phase of activity %s in app.out" % a)
        paths = glob.glob(os.path.join(run, "app", pattern))
        births = {}
        for p, (w, _, _) in file_times(paths).items():
            k = int(re.search(r"\.(\d+)", os.path.basename(p)).group(1))
            births[k] = min(births.get(k, w), w)
        b = [births[k] for k in sorted(births)]
        check = None
        if len(b) > 1:
            check = b[-1] - b[-2] if drift else (b[-1] - b[0]) / (len(b) - 1)
        acts.append({"name": a, "glob": pattern, "configured": params, "drift": drift,
                     "phases": [phases[a][k] for k in sorted(phases[a])], "check_period": check,
                     "check_source": "the output files' birth times (earliest rank)"})
    return acts


SHAPES = {"rank0": {"output": ("out.*", False)},
          "uneven": {"ckpt": ("ckpt.*", False)},
          "heights": {"fields": ("field.*", False), "restarts": ("restart.*", False)},
          "stagger": {"output": ("out.*", False)},
          "drift": {"output": ("out.*", True)},
          "hdf5": {"h5": ("h5.*.h5", False)}}

def gromacs(run):
    """Checkpoints: one state_stepN.cpt each (-cpnum); the last one, written
    at the final step, ends the run and is not part of the periodic stream.
    Frames: the times traj_comp.xtc grew (xtc.sizes: its mtime and size,
    polled), bytes = the growth.  Second readings: md.log's own "Writing
    checkpoint, step N at DATE" lines (1 s resolution), and for the frames
    the checkpoints' step rate times nstxout-compressed."""
    app = os.path.join(run, "app")
    params = dict(kv.split("=") for kv in open(os.path.join(app, "params")).read().split()[1:])
    ck = per_file_activity(run, "checkpoints", "state_step*.cpt", "mdrun -cpt %s (minutes) -cpnum" % params["cpt"],
                           r"state_step(\d+)\.")
    ck["phases"], ck["steps"] = ck["phases"][:-1], ck["steps"][:-1]
    logged = []
    for line in open(os.path.join(app, "md.log")):
        m = re.match(r"Writing checkpoint, step (\d+) at (.*)", line.strip())
        if m and int(m.group(1)) in ck["steps"]:
            logged.append(time.mktime(time.strptime(m.group(2), "%a %b %d %H:%M:%S %Y")))
    if len(logged) > 1:
        ck["check_period"] = (logged[-1] - logged[0]) / (len(logged) - 1)
        ck["check_source"] = "md.log 'Writing checkpoint, step N at DATE' (1 s resolution)"
    frames, size = [], 0
    for line in open(os.path.join(app, "xtc.sizes")):
        t, n = line.split()
        t, n = float(t), int(n)
        if n > size:
            frames.append([t, t, n - size])
            size = n
    fr = {"name": "frames", "glob": "traj_comp.xtc", "configured": "nstxout-compressed = %s steps" %
          params["nstxout-compressed"], "drift": False, "phases": frames, "check_period": None, "check_source": None}
    s, p = ck["steps"], ck["phases"]
    if len(s) > 1:
        rate = (s[-1] - s[0]) / (p[-1][0] - p[0][0])
        fr["check_period"] = int(params["nstxout-compressed"]) / rate
        fr["check_source"] = "the checkpoints' steps per second x nstxout-compressed"
    return [fr, ck]


def fio(run):
    """fio_bw.N.log (N: the job's place in periodic.fio): one line per I/O,
    `epoch ms, KiB/s, dir, bytes, offset`; an output is a run of I/Os no
    more than 0.5 s apart (the think times are 3 s and 1 s).  Second
    reading: fio's think time plus the median output's duration."""
    specs = [("checkpoint", "ckpt.dat", 3.0), ("log", "log.dat", 1.0)]
    acts = []
    for n, (name, fname, think) in enumerate(specs, 1):
        path = os.path.join(run, "app", "fio_bw.%d.log" % n)
        if not os.path.exists(path):
            fail("no %s" % path)
        ios = sorted((int(f[0]) / 1000.0, int(f[3])) for f in (l.split(",") for l in open(path)) if len(f) >= 4)
        phases = []
        for t, b in ios:
            if phases and t - phases[-1][1] <= 0.5:
                phases[-1][1] = t
                phases[-1][2] += b
            else:
                phases.append([t, t, b])
        # the last output is cut short by fio's runtime
        if len(phases) > 1 and phases[-1][2] < phases[0][2]:
            phases.pop()
        d = sorted(p[1] - p[0] for p in phases)
        acts.append({"name": name, "glob": fname, "configured": "thinktime %g s" % think, "drift": False,
                     "phases": phases, "check_period": think + d[len(d) // 2] if d else None,
                     "check_source": "fio's think time + the median output's duration"})
    return acts


EXTRACTORS = {"lammps": lammps, "gromacs": gromacs, "fio": fio}
EXTRACTORS.update({k: (lambda run, v=v: phaselog(run, v)) for k, v in SHAPES.items()})


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in EXTRACTORS:
        fail("usage: truth.py %s RUNDIR" % "|".join(sorted(EXTRACTORS)))
    app, run = sys.argv[1], sys.argv[2]
    acts = EXTRACTORS[app](run)
    for a in acts:
        a["phases"].sort(key=lambda p: p[0])
        if len(a["phases"]) < 3:
            fail("%s: only %d outputs (3 needed for a period)" % (a["name"], len(a["phases"])))
    json.dump({"app": app, "activities": acts}, sys.stdout)
    print()


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError, IndexError, AttributeError, subprocess.CalledProcessError) as e:
        fail("%s: %s" % (type(e).__name__, e))
