#!/usr/bin/python3
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
import glob, json, os, re, subprocess, sys


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

EXTRACTORS = {"lammps": lammps}
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
    main()
