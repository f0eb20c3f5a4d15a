#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""score.py RUNDIR -- scores a contention run (bench/contention/run.sh) against
the programs' own truth; writes RUNDIR/score.json and RUNDIR/table.md and
prints the table.

Truth: each program's phase lines ("phase ACTIVITY INDEX RANK START END
BYTES", CLOCK_REALTIME), a job's phase K being the union of its ranks' (and
activities') notes of index K: the program's own iteration; the disk's
sectors written (disk.tsv).  ftiod's side: its --log (every prediction and
every machine message).

  duration    for each phase of a job from its 4th on: the last prediction
              published between the job's previous phase and this one
              (whose next.start lies within half a period of the phase's
              true start): next.duration's median against the phase's true
              duration; the baseline is the median of the job's own past
              phases (their true durations), and ftiod's old answer the
              prediction's phase.duration (next.end - next.start before
              issue 26).  Within 30 %, median error, the 90 % interval's
              coverage; overall and for the phases that collided (overlapped
              another job's phase).
  busy        a second is busy when the jobs' phases cover >= 30 % of it; the
              forecast published LEAD s before predicts it busy when its
              expected jobs in a phase (writers, every file system) >= 0.3;
              contended (N = 2) when two jobs' phases each cover >= 30 % of
              it, predicted when the expected jobs in a phase >= 1.5; each
              beside the F1 of a forecast that says "always" (its base rate).
  bytes       per 10-s window, the forecast's bytes (LEAD s before) against the
              programs' bytes (each rank's spread over its phase) and the disk's.
  collisions  predicted (listed by a message published >= LEAD s before the
              overlap) vs happened (two jobs' true phases overlapping).
"""
import json
import math
import os
import statistics
import sys

BUSY = 0.3


def load_truth(run):
    """Each job's phases: the program's own phase K is the union of its
    ranks' (and activities') notes of index K."""
    jobs = {}
    for line in open(os.path.join(run, "jobs.txt")):
        name = line.split()[0]
        by_index = {}
        for l in open(os.path.join(run, name + ".out")):
            w = l.split()
            if len(w) == 7 and w[0] == "phase":
                by_index.setdefault(int(w[2]), []).append((float(w[4]), float(w[5]), float(w[6])))
        phases = []
        for k in sorted(by_index):
            spans = sorted(by_index[k])
            phases.append({"start": min(x[0] for x in spans), "end": max(x[1] for x in spans),
                           "bytes": sum(x[2] for x in spans), "spans": spans})
        jobs[name] = phases
    return jobs


def median(v):
    return statistics.median(v) if v else math.nan


def overlaps(jobs, name, p):
    for other, ph in jobs.items():
        if other == name:
            continue
        for q in ph:
            if q["start"] < p["end"] and q["end"] > p["start"]:
                return True
    return False


def score_durations(jobs, log):
    rows = []
    for name, phases in jobs.items():
        msgs = [m for t, m in log if t == "ftio.%s.write" % name]
        for k in range(3, len(phases)):
            p, prev = phases[k], phases[k - 1]
            d = p["end"] - p["start"]
            cand = [m for m in msgs if prev["end"] <= m["published"] < p["start"]
                    and m.get("next") and isinstance(m["next"].get("duration"), dict)]
            if not cand:
                continue
            m = cand[-1]
            T = m.get("period") or (p["start"] - prev["start"])
            if abs(m["next"]["start"] - p["start"]) > 0.5 * T:
                rows.append({"job": name, "k": k, "timed": False})
                continue
            du = m["next"]["duration"]
            base = median([q["end"] - q["start"] for q in phases[:k]])
            old = (m.get("phase") or {}).get("duration")
            rows.append({"job": name, "k": k, "timed": True, "true": d, "model": du["median"],
                         "low": du["low"], "high": du["high"], "baseline": base, "old": old,
                         "collided": overlaps(jobs, name, p), "scope": du["model"]["scope"],
                         "load": m["next"].get("load")})
    return rows


def summary(rows, key):
    ok = [r for r in rows if r.get("timed")]
    if not ok:
        return {"n": 0}
    err = [abs(r[key] / r["true"] - 1) for r in ok if r.get(key)]
    return {"n": len(ok), "within30": sum(e <= 0.3 for e in err) / len(err) if err else math.nan,
            "median_error": median(err)}


def cover(jobs, s):
    iv = sorted((max(p["start"], s), min(p["end"], s + 1)) for ph in jobs.values() for p in ph
                if p["start"] < s + 1 and p["end"] > s)
    c, end = 0.0, s
    for a, e in iv:
        a = max(a, end)
        if e > a:
            c += e - a
            end = e
    return c


def truth_bytes(jobs, a, b):
    v = 0.0
    for ph in jobs.values():
        for p in ph:
            for s, e, by in p["spans"]:
                o = min(e, b) - max(s, a)
                if o > 0:
                    v += by * o / max(e - s, 1e-6)
    return v


def disk_bytes(disk, a, b):
    def at(t):
        for i in range(1, len(disk)):
            if disk[i][0] >= t:
                t0, s0 = disk[i - 1]
                t1, s1 = disk[i]
                return s0 + (s1 - s0) * (t - t0) / max(t1 - t0, 1e-9)
        return disk[-1][1]
    return (at(b) - at(a)) * 512


def by_start(machine):
    out = {}
    for m in machine:
        starts = {f["forecast"]["start"] for f in m["fs"]}
        for s in starts:
            out[s] = m
    return out


def forecast_at(m, lead, what):
    """sum over file systems of forecast[what][lead]"""
    v = 0.0
    for f in m["fs"]:
        a = f["forecast"].get(what) or []
        if lead < len(a):
            v += a[lead]
    return v


def jobs_in_phase(jobs, s):
    """how many jobs' phases cover >= BUSY of second [s, s+1)"""
    n = 0
    for ph in jobs.values():
        c = sum(max(0.0, min(p["end"], s + 1) - max(p["start"], s)) for p in ph)
        n += c >= BUSY
    return n


def score_busy(jobs, machine, lead, t0, t1, level=1):
    """seconds with >= level jobs in a phase, predicted by the expected
    number of jobs in a phase (writers, every file system) >= level - 0.5;
    "always" is the F1 of predicting every second so (the base rate)."""
    fc = by_start(machine)
    tp = fp = fn = tn = 0
    for s in range(int(t0), int(t1)):
        m = fc.get(s - lead)
        if m is None:
            continue
        busy = jobs_in_phase(jobs, s) >= level if level > 1 else cover(jobs, s) >= BUSY
        pred = forecast_at(m, lead, "writers") >= level - 0.5 if level > 1 else \
               forecast_at(m, lead, "writers") >= BUSY
        tp += busy and pred
        fp += pred and not busy
        fn += busy and not pred
        tn += not busy and not pred
    p = tp / (tp + fp) if tp + fp else math.nan
    r = tp / (tp + fn) if tp + fn else math.nan
    f1 = 2 * p * r / (p + r) if p + r else math.nan
    n = tp + fp + fn + tn
    base = (tp + fn) / n if n else math.nan
    return {"lead": lead, "level": level, "precision": p, "recall": r, "f1": f1, "seconds": n,
            "busy": tp + fn, "always_f1": 2 * base / (1 + base) if n else math.nan}


def score_bytes(jobs, machine, disk, lead, t0, t1):
    fc = by_start(machine)
    errs, derrs = [], []
    for s in range(int(t0), int(t1) - 10, 10):
        m = fc.get(s - lead)
        if m is None:
            continue
        pred = sum(forecast_at(m, lead + i, "write") for i in range(10))
        tb = truth_bytes(jobs, s, s + 10)
        if tb > 0:
            errs.append(abs(pred - tb) / tb)
        if disk:
            db = disk_bytes(disk, s, s + 10)
            if db > 0:
                derrs.append(abs(pred - db) / db)
    return {"lead": lead, "windows": len(errs), "median_error": median(errs),
            "within20": sum(e <= 0.2 for e in errs) / len(errs) if errs else math.nan,
            "median_error_disk": median(derrs)}


def score_collisions(jobs, machine, lead, t1):
    truth = []
    names = sorted(jobs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for p in jobs[a]:
                for q in jobs[b]:
                    s, e = max(p["start"], q["start"]), min(p["end"], q["end"])
                    if e > s:
                        truth.append((a, b, s, e))
    predicted = {}
    for m in machine:
        for c in m["collisions"]:
            if c["start"] - m["published"] < lead or c["end"] > t1:
                continue
            a, b = sorted(c["jobs"])
            predicted.setdefault((a, b, round(c["start"])), c)
    def happened(a, b, s, e):
        return any(x == a and y == b and ts < e + 1 and te > s - 1 for x, y, ts, te in truth)
    right = sum(happened(a, b, c["start"], c["end"]) for (a, b, _), c in predicted.items())
    caught = 0
    for a, b, s, e in truth:
        if any(x == a and y == b and c["start"] < e + 1 and c["end"] > s - 1
               for (x, y, _), c in predicted.items()):
            caught += 1
    return {"lead": lead, "predicted": len(predicted), "happened_of_predicted": right,
            "true": len(truth), "predicted_of_true": caught,
            "precision": right / len(predicted) if predicted else math.nan,
            "recall": caught / len(truth) if truth else math.nan}


def pct(v):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else "%.1f %%" % (100 * v)


def main():
    run = sys.argv[1]
    jobs = load_truth(run)
    log = [(d["topic"], d["message"]) for d in map(json.loads, open(os.path.join(run, "d.log")))]
    machine = [m for t, m in log if t == "ftio.machine"]
    disk = []
    if os.path.exists(os.path.join(run, "disk.tsv")):
        for l in open(os.path.join(run, "disk.tsv")):
            if not l.startswith("#"):
                t, s = l.split()
                disk.append((float(t), float(s)))
    allp = [p for ph in jobs.values() for p in ph]
    t0 = min(p["start"] for p in allp) + 60          # the periods known by then
    t1 = min(ph[-1]["end"] for ph in jobs.values())   # every job still running
    periods = [median([b["start"] - a["start"] for a, b in zip(ph, ph[1:])]) for ph in jobs.values()]
    lead = int(round(median(periods)))
    rows = score_durations(jobs, log)
    ok = [r for r in rows if r.get("timed")]
    coll = [r for r in ok if r["collided"]]
    res = {
        "jobs": {n: {"phases": len(ph), "period": median([b["start"] - a["start"] for a, b in zip(ph, ph[1:])]),
                     "duration": median([p["end"] - p["start"] for p in ph])} for n, ph in jobs.items()},
        "duration": {
            "phases": len(rows), "timed": len(ok),
            "model": summary(ok, "model"), "baseline": summary(ok, "baseline"), "old": summary(ok, "old"),
            "model_collided": summary(coll, "model"), "baseline_collided": summary(coll, "baseline"),
            "old_collided": summary(coll, "old"),
            "coverage": sum(r["low"] <= r["true"] <= r["high"] for r in ok) / len(ok) if ok else math.nan,
            "scopes": sorted({r["scope"] for r in ok}),
        },
        "busy": [score_busy(jobs, machine, L, t0, t1) for L in sorted({5, lead, 30, 60})] +
                [score_busy(jobs, machine, L, t0, t1, 2) for L in sorted({5, lead, 30})],
        "bytes": [score_bytes(jobs, machine, disk, L, t0, t1) for L in sorted({lead, 30})],
        "collisions": [score_collisions(jobs, machine, L, t1) for L in sorted({5, lead})],
        "cost": {"median": median([m["cost"] for m in machine]), "max": max([m["cost"] for m in machine] or [math.nan])},
        "one_period": lead, "judged_from": t0, "judged_to": t1,
    }
    json.dump(res, open(os.path.join(run, "score.json"), "w"), indent=1, default=str)
    dm = res["duration"]
    lines = [
        "| jobs | %s |" % ", ".join("%s (T %.1f s, %d phases, %.2f s each)" % (n, j["period"], j["phases"], j["duration"])
                                   for n, j in res["jobs"].items()),
        "",
        "| next phase's duration (%d phases scored, %d collided) | within 30 %% | median error |" % (len(ok), len(coll)),
        "|---|---:|---:|",
        "| next.duration (model) | %s | %s |" % (pct(dm["model"].get("within30")), pct(dm["model"].get("median_error"))),
        "| past-median baseline | %s | %s |" % (pct(dm["baseline"].get("within30")), pct(dm["baseline"].get("median_error"))),
        "| ftiod before (phase.duration) | %s | %s |" % (pct(dm["old"].get("within30")), pct(dm["old"].get("median_error"))),
        "| collided: model | %s | %s |" % (pct(dm["model_collided"].get("within30")), pct(dm["model_collided"].get("median_error"))),
        "| collided: baseline | %s | %s |" % (pct(dm["baseline_collided"].get("within30")), pct(dm["baseline_collided"].get("median_error"))),
        "| 90 %% interval coverage | %s | |" % pct(dm["coverage"]),
        "",
        "| seconds with >= N jobs in a phase, lead | precision | recall | F1 | F1 of 'always' | such / judged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for b in res["busy"]:
        lines.append("| N = %d, %d s%s | %s | %s | %s | %s | %d / %d |" % (
            b["level"], b["lead"], " (one period)" if b["lead"] == lead else "", pct(b["precision"]),
            pct(b["recall"]), pct(b["f1"]), pct(b["always_f1"]), b["busy"], b["seconds"]))
    lines += ["", "| bytes per 10 s, lead | windows | median error (programs) | within 20 % | median error (disk) |",
              "|---|---:|---:|---:|---:|"]
    for b in res["bytes"]:
        lines.append("| %d s | %d | %s | %s | %s |" % (b["lead"], b["windows"], pct(b["median_error"]),
                                                     pct(b["within20"]), pct(b["median_error_disk"])))
    lines += ["", "| collisions, lead | predicted | of which happened | true | of which predicted |", "|---|---:|---:|---:|---:|"]
    for c in res["collisions"]:
        lines.append("| %d s | %d | %d (%s) | %d | %d (%s) |" % (c["lead"], c["predicted"], c["happened_of_predicted"],
                                                             pct(c["precision"]), c["true"], c["predicted_of_true"], pct(c["recall"])))
    lines += ["", "machine forecast cost per second: median %.2f ms, max %.2f ms" %
              (1000 * res["cost"]["median"], 1000 * res["cost"]["max"])]
    table = "\n".join(lines) + "\n"
    open(os.path.join(run, "table.md"), "w").write(table)
    print(table)


if __name__ == "__main__":
    main()
