#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""score.py -- scores of the realapps benchmark (bench/README.md "realapps").

    score.py RUNDIR                  one run: prints one JSON object (result.json)
    score.py --table RESULTS.jsonl   the Markdown table, medians over the runs
                                     of each program
    score.py --compare BEFORE.jsonl AFTER.jsonl
                                     medians side by side (e.g. baseline.jsonl
                                     against a changed detector's runs)
    score.py --calib RESULTS.jsonl...
                                     the calibration of the job-level answers'
                                     confidence (live, --window and offline),
                                     each against the activity it names

RUNDIR is what run_one.sh leaves: truth.json (truth.py: the program's own
times), d.log (ftiod's --log: the live messages), job, offline.json
(`ftio --json`) and window.jsonl (`ftio --window adaptive --json`).

The truth of an activity (one periodic output stream): its outputs' start
times, end times and bytes.  Its period is the median interval between
starts (for a drifting activity, `drift`, the interval that is current at the
time judged: the last one begun).  The job-level answer is judged against
the activity that moves the most bytes (the heaviest) and said which activity
period it is closest to.  Per answer:
  final      the `.end` summary (live), `ftio --json` (offline), the last
             window message (window): period error %, class, confidence,
             phase.bytes error % against the median bytes of the activity's
             outputs (for the job answer, each output with what other
             activities wrote at the same time: phase_bytes);
  messages   (live and window) settle: the output index (1 = first output of
             the activity begun) from which every message is within 5 %
             (null: never), judged on the messages until the activity's last
             output begins (after it come the program's last writes, a final
             checkpoint, which no period describes); periodic_off10: messages of class periodic more
             than 10 % off (of `periodic` such messages); next_err: median of
             |next.start - the first true start after the window's end (live:
             after the later of it and `published`, before which next.start
             never lies)| in % of the true period, from the 3rd output on; next_bytes_err:
             median |next.bytes - that output's bytes| in %.
Per-activity answers (issue 17): a message that carries `activities` (each
with at least period, confidence, class, pattern or files, next) has each
entry matched to the truth activity whose file glob fits its pattern/files,
and scored like the job answer; without the array only the job answer is.
Standard library only.
"""
import fnmatch, json, os, re, statistics, sys


def load(run, name):
    with open(os.path.join(run, name)) as f:
        return json.load(f)


def intervals(phases):
    s = [p[0] for p in phases]
    return [b - a for a, b in zip(s, s[1:])]


def true_period(act, t=None):
    """The activity's period; for a drifting one, the interval current at
    time t (the last one begun by t; the last one overall when t is None)."""
    ph = act["phases"]
    if not act.get("drift"):
        return (ph[-1][0] - ph[0][0]) / (len(ph) - 1)
    starts = [p[0] for p in ph if t is None or p[0] <= t]
    if len(starts) < 2:
        starts = [p[0] for p in ph[:2]]
    return starts[-1] - starts[-2]


def rel(p, T):
    return abs(p - T) / T if p else None


def pct(x):
    return None if x is None else round(100.0 * x, 2)


def activity_summary(act):
    d = intervals(act["phases"])
    T = true_period(act)
    b = [p[2] for p in act["phases"]]
    return {"name": act["name"], "glob": act["glob"], "configured": act.get("configured"),
            "drift": bool(act.get("drift")), "outputs": len(act["phases"]), "period": round(T, 4),
            "interval_cv": round(statistics.pstdev(d) / statistics.mean(d), 4),
            "bytes_per_output": statistics.median(b), "bytes": sum(b),
            "check_period": act.get("check_period"), "check_source": act.get("check_source")}


def closest(p, acts):
    """The activity whose period is nearest to p (relative), with the error."""
    if not p:
        return None, None
    best = min(acts, key=lambda a: rel(p, true_period(a)))
    return best["name"], pct(rel(p, true_period(best)))


def phase_bytes(act, acts):
    """The bytes of the phase each output of act makes for a job-level
    answer, which cannot tell apart outputs written together: the output's
    own plus those of other activities that overlap it (within 5 % of the
    period: LAMMPS writes a restart right after the dump of the same step)."""
    tol = 0.05 * true_period(act)
    out = []
    for s, e, b in act["phases"]:
        out.append(b + sum(b2 for o in acts if o is not act for s2, e2, b2 in o["phases"]
                           if s2 <= e + tol and e2 >= s - tol))
    return out


def score_final(ans, act, acts, nbytes):
    """nbytes: the true bytes of each output (phase_bytes for the job)."""
    if ans is None:
        return None
    p = ans.get("period")
    T = true_period(act)
    B = statistics.median(nbytes)
    pb = (ans.get("phase") or {}).get("bytes")
    name, cerr = closest(p, acts)
    return {"period": p, "err": pct(rel(p, T)), "class": ans.get("class"), "confidence": ans.get("confidence"),
            "bytes": pb, "bytes_err": pct(abs(pb - B) / B) if pb else None, "closest": name, "closest_err": cerr}


def score_messages(rows, act, nbytes):
    """rows: (window end, published or None, answer) in publication order;
    nbytes: the true bytes of each output."""
    starts = [p[0] for p in act["phases"]]
    out = {"messages": len(rows), "with_period": 0, "periodic": 0, "periodic_off10": 0, "settle": None,
           "first_output": None, "next_err": None, "next_bytes_err": None}
    if not rows:
        return out
    judged = []
    next_err, bytes_err = [], []
    for end, published, a in rows:
        k = sum(1 for s in starts if s <= end)          # outputs begun by the window's end
        T = true_period(act, end)
        p = a.get("period")
        e = rel(p, T)
        if end <= starts[-1]:
            judged.append((k, e))
        if p:
            out["with_period"] += 1
        if a.get("class") == "periodic":
            out["periodic"] += 1
            if e is None or e > 0.10:
                out["periodic_off10"] += 1
        nxt = (a.get("next") or {}).get("start")
        if p and nxt is not None and k >= 3:
            # live, next.start is never before the message was published
            # (PROTOCOL.md §2): the output it means is the first after both
            ref = max(end, published or end)
            later = [i for i, s in enumerate(starts) if s > ref]
            if later:
                i = later[0]
                next_err.append(100.0 * abs(nxt - starts[i]) / T)
                nb = (a.get("next") or {}).get("bytes")
                if nb:
                    tb = nbytes[i]
                    bytes_err.append(100.0 * abs(nb - tb) / tb)
    if not judged:
        return out
    out["first_output"] = judged[0][0]
    bad = [i for i, (k, e) in enumerate(judged) if e is None or e > 0.05]
    last_bad = bad[-1] if bad else -1
    if last_bad + 1 < len(judged):
        out["settle"] = max(1, judged[last_bad + 1][0])
    if next_err:
        out["next_err"] = round(statistics.median(next_err), 2)
    if bytes_err:
        out["next_bytes_err"] = round(statistics.median(bytes_err), 2)
    return out


def norm(s):
    """A file name or pattern reduced to compare: basename, digit runs and
    wildcards (* ? #) as one '*'."""
    return re.sub(r"[0-9*?#]+", "*", os.path.basename(str(s)))


def entry_matches(entry, act):
    names = []
    for key in ("pattern", "files", "file", "name"):
        v = entry.get(key)
        if isinstance(v, list):
            names += v
        elif v:
            names.append(v)
    g = norm(act["glob"])
    return any(fnmatch.fnmatch(os.path.basename(str(n)), act["glob"]) or norm(n) == g for n in names)


def activity_answers(msg, act):
    for e in (msg or {}).get("activities") or []:
        if isinstance(e, dict) and entry_matches(e, act):
            return e
    return None


def named(msg, acts, heavy):
    """The true activity a job-level answer says it is (`activity`, protocol
    v4), else the heaviest."""
    name = (msg or {}).get("activity")
    for e in (msg or {}).get("activities") or []:
        if isinstance(e, dict) and name and e.get("pattern") == name.split(" (")[0]:
            for a in acts:
                if entry_matches(e, a):
                    return a
    return heavy


def calib_pairs(msgs, acts, heavy):
    """(confidence, within 10 %) of job-level answers, each against the
    activity it names (the heaviest when it names none); a drifting
    activity against the interval current at the window's end."""
    out = []
    for m in msgs:
        if not m or m.get("period") is None or m.get("confidence") is None:
            continue
        a = named(m, acts, heavy)
        e = rel(m["period"], true_period(a, (m.get("window") or {}).get("end")))
        out.append([m["confidence"], e is not None and e <= 0.10])
    return out


def calib_table(paths):
    pairs = []
    for path in paths:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                pairs += r.get("calib", [])
    print("| confidence | n | within 10 % |\n|---|---:|---:|")
    for lo, hi in ((0, .2), (.2, .4), (.4, .6), (.6, .8), (.8, .9), (.9, .95), (.95, 1.01)):
        sel = [k for c, k in pairs if lo <= c < hi]
        print("| [%.2f, %.2f) | %d | %s |" % (lo, min(hi, 1.0), len(sel),
                                               "%.1f" % (100.0 * sum(sel) / len(sel)) if sel else "-"))
    hi = [k for c, k in pairs if c >= 0.8]
    print("| **≥ 0.8** | %d | %s |" % (len(hi), "%.1f" % (100.0 * sum(hi) / len(hi)) if hi else "-"))


def main_run(run):
    truth = load(run, "truth.json")
    acts = truth["activities"]
    job = open(os.path.join(run, "job")).read().strip()
    live, end = [], None
    for line in open(os.path.join(run, "d.log")):
        d = json.loads(line)
        if d["topic"] == "ftio.%s.write" % job:
            live.append(d["message"])
        elif d["topic"] == "ftio.%s.end" % job:
            end = d["message"]
    final_live = (end or {}).get("summary", {}).get("write")
    offline = load(run, "offline.json")
    window = [json.loads(l) for l in open(os.path.join(run, "window.jsonl")) if l.strip()]
    heavy = max(acts, key=lambda a: sum(p[2] for p in a["phases"]))
    res = {"app": truth["app"], "run": os.path.basename(os.path.normpath(run)), "job": job,
           "activities": [activity_summary(a) for a in acts], "heaviest": heavy["name"],
           "ended": end is not None, "ended_by": (end or {}).get("ended_by"),
           "complete": (end or {}).get("complete"), "lost": (end or {}).get("lost_records"),
           "fs": open(os.path.join(run, "app.fs")).read().strip() if os.path.exists(os.path.join(run, "app.fs")) else None}

    def rows(msgs, pick):
        return [(m["window"]["end"], m.get("published"), a) for m in msgs for a in [pick(m)] if a is not None]

    jb = phase_bytes(heavy, acts)
    res["job_answer"] = {
        "live": {"final": score_final(final_live, heavy, acts, jb),
                 "messages": score_messages(rows(live, lambda m: m), heavy, jb)},
        "offline": {"final": score_final(offline, heavy, acts, jb)},
        "window": {"final": score_final(window[-1] if window else None, heavy, acts, jb),
                   "messages": score_messages(rows(window, lambda m: m), heavy, jb)}}
    # Per-activity answers, when the messages carry them (issue 17).
    per = []
    if any(m.get("activities") for m in live + window + [final_live or {}, offline]):
        for a in acts:
            def pick(m, a=a):
                return activity_answers(m, a)
            ab = [x[2] for x in a["phases"]]
            per.append({"activity": a["name"],
                        "live": {"final": score_final(pick(final_live), a, acts, ab),
                                 "messages": score_messages(rows(live, pick), a, ab)},
                        "offline": {"final": score_final(pick(offline), a, acts, ab)},
                        "window": {"final": score_final(pick(window[-1]) if window else None, a, acts, ab),
                                   "messages": score_messages(rows(window, pick), a, ab)}})
    res["per_activity"] = per
    # the job-level answers' confidence against their truth (score.py --calib)
    res["calib"] = calib_pairs(live + window + [final_live, offline], acts, heavy)
    lf, lm = res["job_answer"]["live"]["final"], res["job_answer"]["live"]["messages"]
    res["targets"] = {
        "period_within_5": bool(lf and lf["err"] is not None and lf["err"] <= 5),
        "bytes_within_10": bool(lf and lf["bytes_err"] is not None and lf["bytes_err"] <= 10),
        "no_periodic_off10": lm["periodic_off10"] == 0,
        "settled_by_4": lm["settle"] is not None and lm["settle"] <= 4}
    json.dump(res, sys.stdout)
    print()


# ---- the table ---------------------------------------------------------------------

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(x, nd=1, unit=""):
    if x is None:
        return "–"
    if isinstance(x, float) and x != int(x) or nd:
        return ("%%.%df" % nd) % x + unit
    return "%d%s" % (x, unit)


def counts(v):
    """['periodic', 'periodic', 'uncertain'] -> 'periodic ×2, uncertain'."""
    c = {}
    for x in v:
        c[str(x)] = c.get(str(x), 0) + 1
    return ", ".join(k + (" ×%d" % n if n > 1 else "") for k, n in sorted(c.items(), key=lambda kv: -kv[1]))


def names(v):
    """One name when every run agrees, else counts()."""
    return str(v[0]) if len(set(v)) == 1 else counts(v)


def table(path):
    runs = {}
    errors = {}
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        if "error" in r:
            errors.setdefault(r["app"], []).append(r["error"])
            continue
        runs.setdefault(r["app"], []).append(r)
    print("| program | heaviest activity: true T (outputs, intervals' cv) | other activities | live final: error, class, conf |"
          " closest activity (error) | offline `ftio` error | `--window` final error |"
          " bytes/phase error | next.start error, % T | settled at output | periodic msgs > 10 % off |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    order = list(runs) + [a for a in errors if a not in runs]
    for app in order:
        rs = runs.get(app, [])
        if not rs:
            print("| %s | failed: %s |||||||||| " % (app, "; ".join(errors[app])[:120]))
            continue
        heavy = [next(a for a in r["activities"] if a["name"] == r["heaviest"]) for r in rs]
        hv = "%s: %s s (%d, cv %s)" % (names([r["heaviest"] for r in rs]), fmt(med([h["period"] for h in heavy]), 2),
                                        med([h["outputs"] for h in heavy]),
                                        fmt(med([h["interval_cv"] for h in heavy]), 2))
        others = "; ".join("%s %s s" % (n, fmt(med([a["period"] for r in rs for a in r["activities"]
                                                    if a["name"] == n]), 2))
                           for n in sorted({a["name"] for r in rs for a in r["activities"]} -
                                           {r["heaviest"] for r in rs})) or "–"
        lf = [r["job_answer"]["live"]["final"] or {} for r in rs]
        lm = [r["job_answer"]["live"]["messages"] for r in rs]
        of = [r["job_answer"]["offline"]["final"] or {} for r in rs]
        wf = [r["job_answer"]["window"]["final"] or {} for r in rs]
        live = "%s %%, %s, %s" % (fmt(med([x.get("err") for x in lf]), 1), counts([x.get("class") for x in lf]),
                                  fmt(med([x.get("confidence") for x in lf]), 2))
        clo = "%s (%s %%)" % (names([x.get("closest") for x in lf]), fmt(med([x.get("closest_err") for x in lf]), 1))
        settle = [m["settle"] for m in lm]
        st = fmt(med(settle), 0) + ("" if None not in settle else " (never: %d of %d)" % (settle.count(None), len(rs)))
        off = "%s of %s" % (fmt(med([m["periodic_off10"] for m in lm]), 0), fmt(med([m["periodic"] for m in lm]), 0))
        print("| %s (%d run%s) | %s | %s | %s | %s | %s %% | %s %% | %s %% | %s | %s | %s |" % (
            app, len(rs), "s" if len(rs) > 1 else "", hv, others, live, clo,
            fmt(med([x.get("err") for x in of]), 1), fmt(med([x.get("err") for x in wf]), 1),
            fmt(med([x.get("bytes_err") for x in lf]), 1), fmt(med([m["next_err"] for m in lm]), 1), st, off))
        if any(r["per_activity"] for r in rs):
            for n in sorted({p["activity"] for r in rs for p in r["per_activity"]}):
                pa = [p for r in rs for p in r["per_activity"] if p["activity"] == n]
                f = [p["live"]["final"] or {} for p in pa]
                m = [p["live"]["messages"] for p in pa]
                if not any(f) and not any(x["messages"] for x in m):
                    print("| ↳ %s (per activity) | no answer for it in any message |||||||||| " % n)
                    continue
                print("| ↳ %s (per activity) | | | %s %%, %s, %s | | %s %% | %s %% | %s %% | %s | %s | %s of %s |" % (
                    n, fmt(med([x.get("err") for x in f]), 1), counts([x.get("class") for x in f]),
                    fmt(med([x.get("confidence") for x in f]), 2),
                    fmt(med([(p["offline"]["final"] or {}).get("err") for p in pa]), 1),
                    fmt(med([(p["window"]["final"] or {}).get("err") for p in pa]), 1),
                    fmt(med([x.get("bytes_err") for x in f]), 1), fmt(med([x["next_err"] for x in m]), 1),
                    fmt(med([x["settle"] for x in m]), 0), fmt(med([x["periodic_off10"] for x in m]), 0),
                    fmt(med([x["periodic"] for x in m]), 0)))
    n = sum(len(v) for v in runs.values())
    t = [r["targets"] for v in runs.values() for r in v]
    if t:
        print()
        print("Targets met, runs of %d: period within 5 %% %d, bytes/phase within 10 %% %d, "
              "no periodic message > 10 %% off %d, settled by the 4th output %d; failed runs %d." % (
                  n, sum(x["period_within_5"] for x in t), sum(x["bytes_within_10"] for x in t),
                  sum(x["no_periodic_off10"] for x in t), sum(x["settled_by_4"] for x in t),
                  sum(len(v) for v in errors.values())))


def load_runs(path):
    runs = {}
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            runs.setdefault(r["app"], []).append(r)
    return runs


def compare(before, after):
    """Side by side, medians per program: BEFORE → AFTER."""
    a, b = load_runs(before), load_runs(after)

    def figs(rs):
        rs = [r for r in rs if "error" not in r]
        if not rs:
            return None
        lf = [r["job_answer"]["live"]["final"] or {} for r in rs]
        lm = [r["job_answer"]["live"]["messages"] for r in rs]
        return {"err": med([x.get("err") for x in lf]), "bytes": med([x.get("bytes_err") for x in lf]),
                "next": med([m["next_err"] for m in lm]), "settle": med([m["settle"] for m in lm]),
                "never": sum(1 for m in lm if m["settle"] is None), "off": med([m["periodic_off10"] for m in lm]),
                "targets": sum(all(r["targets"].values()) for r in rs), "n": len(rs)}

    def pair(x, y, k, nd=1):
        return "%s → %s" % (fmt(x[k], nd) if x else "–", fmt(y[k], nd) if y else "–")
    print("| program | live final error % | bytes/phase error % | next.start error % T | settled at output |"
          " never settled | periodic msgs > 10 % off | runs meeting all targets |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for app in list(a) + [x for x in b if x not in a]:
        x, y = figs(a.get(app, [])), figs(b.get(app, []))
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            app, pair(x, y, "err"), pair(x, y, "bytes"), pair(x, y, "next"), pair(x, y, "settle", 0),
            pair(x, y, "never", 0), pair(x, y, "off", 0),
            "%s/%s → %s/%s" % (x["targets"] if x else "–", x["n"] if x else "–",
                               y["targets"] if y else "–", y["n"] if y else "–")))


def main():
    try:
        dispatch()
    except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as e:
        print("score.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)


def dispatch():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "--calib":
        calib_table(sys.argv[2:])
    elif len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        main_run(sys.argv[1])
    else:
        print("usage: score.py RUNDIR | score.py --table RESULTS.jsonl | score.py --compare BEFORE.jsonl AFTER.jsonl"
              " | score.py --calib RESULTS.jsonl...", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
