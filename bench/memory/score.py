#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""score.py -- scores of the memory benchmark (bench/README.md "memory").

    score.py OUT                    every run of OUT (run.sh's directory): one
                                    JSON object per line
    score.py --table RESULTS.jsonl  the Markdown table

A run is OUT/NAME with truth.json (bench/realapps/truth.py: each activity's
outputs [start, end, bytes], from the program itself); its messages are
OUT/d.log's topics ftio.mem-NAME.write/read, its first batch the time of
ftiod's "job mem-NAME: first batch" line in OUT/d.err.

Per run and activity (T: the true period, the median interval between its
outputs' starts):
  ok_after   seconds from the first batch to the first message with an
             answer (the job-level one, or an `activities` entry) whose
             period is within 5 % of T and whose next.start is within 10 % of
             T of the activity's first output that begins after the message
             was published (null: never); before_output: whether that
             message came before the activity's first output;
             source: where that answer came from (history, observed);
             outputs_before: how many of the activity's outputs had begun by
             then (what the issue counts: "after the 3rd-5th output")
Per run:
  level, runs     what the memory matched (from the first message's history)
  first_after     seconds from the first batch to the job's first message
                  of any source (its first prediction), first_source its
                  source
  prior_err       the first prior's (source history) job-level period: its
                  error from the nearest true period, % of it (null: no prior)
  periodic_off    answers of class periodic (job-level and activities) whose
                  period is more than 10 % from every true period, counted
                  in all, after the second output of the job's first activity
                  has begun (+ ftiod's settle, 2.5 s: what could have seen
                  it), and of those the ones from the memory (source
                  history); handover: seconds from the second output to the
                  first message saying handed_over (changed runs)
  calibration     each message whose answer is the prior's (source history):
                  [confidence, 1 when its period is within 10 % of a true
                  period else 0, the same against the coming intervals: the
                  median of the (up to) three intervals from the activity's
                  last output before the message on, what the message
                  predicts (a program whose pace drifts with the machine's
                  load: LAMMPS)]
Standard library only.
"""
import datetime, json, os, re, statistics, sys

SETTLE = 2.5     # ftiod's --settle (1.5 s) and a step: what a message can have seen


def true_period(act):
    s = [p[0] for p in act["phases"]]
    return statistics.median(b - a for a, b in zip(s, s[1:]))


def coming_period(act, t):
    s = [p[0] for p in act["phases"]]
    seq = ([x for x in s if x <= t][-1:] + [x for x in s if x > t])[:4]
    iv = [b - a for a, b in zip(seq, seq[1:])]
    return statistics.median(iv) if iv else None


def answers(m):
    """(period, next_start, class, confidence, source, pattern) of the
    job-level answer and of each activity entry."""
    out = [(m.get("period"), (m.get("next") or {}).get("start"), m.get("class"), m.get("confidence"),
            m.get("source"), None)]
    for a in m.get("activities") or []:
        out.append((a.get("period"), (a.get("next") or {}).get("start"), a.get("class"),
                    a.get("confidence"), a.get("source"), a.get("pattern")))
    return out


def first_batch(err, job):
    m = re.search(r"^(\S+)Z ftiod\[\d+\] \w+: job %s: first batch" % re.escape(job), err, re.M)
    if not m:
        return None
    return datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp()


def score_run(out, name, msgs, err):
    run = os.path.join(out, name)
    truth = json.load(open(os.path.join(run, "truth.json")))
    job = "mem-" + name
    mine = [m for t, m in msgs if t in ("ftio.%s.write" % job, "ftio.%s.read" % job)]
    mine.sort(key=lambda m: m["published"])
    fb = first_batch(err, job)
    acts = truth["activities"]
    periods = [true_period(a) for a in acts]
    res = {"run": name, "app": truth["app"], "first_batch": fb, "messages": len(mine), "activities": []}
    h0 = next((m.get("history") for m in mine if m.get("history")), None)
    res["level"] = h0.get("level") if h0 else None
    res["runs"] = h0.get("runs") if h0 else None
    res["first_after"] = round(mine[0]["published"] - fb, 3) if mine and fb else None
    res["first_source"] = mine[0].get("source") if mine else None
    p0 = next((m["period"] for m in mine if m.get("source") == "history" and m.get("period")), None)
    res["prior_err"] = round(100.0 * min(abs(p0 - T) / T for T in periods), 1) if p0 else None
    for act, T in zip(acts, periods):
        starts = [p[0] for p in act["phases"]]
        hit = None
        for m in mine:
            after = [s for s in starts if s > m["published"]]
            for p, ns, cls, conf, src, pat in answers(m):
                if not p or ns is None or not after:
                    continue
                if abs(p - T) <= 0.05 * T and abs(ns - after[0]) <= 0.10 * T:
                    hit = (m, src)
                    break
            if hit:
                break
        a = {"name": act["name"], "period": round(T, 3), "outputs": len(starts),
             "first_output_after": round(starts[0] - fb, 3) if fb else None}
        if hit and fb:
            a.update(ok_after=round(hit[0]["published"] - fb, 3), before_output=hit[0]["published"] < starts[0],
                     source=hit[1], outputs_before=sum(s <= hit[0]["published"] for s in starts))
        else:
            a.update(ok_after=None, before_output=False, source=None, outputs_before=None)
        res["activities"].append(a)
    # periodic answers far from every true period, after the job's 2nd output
    second = sorted(p[0] for a in acts for p in a["phases"])
    second = acts[0]["phases"][1][0] if len(acts[0]["phases"]) > 1 else second[1]
    off_all = off_late = off_late_history = periodic = 0
    calib = []
    for m in mine:
        for p, ns, cls, conf, src, pat in answers(m):
            if cls != "periodic" or not p:
                continue
            periodic += 1
            far = all(abs(p - T) > 0.10 * T for T in periods)
            off_all += far
            late = far and m["published"] > second + SETTLE
            off_late += late
            off_late_history += late and src == "history"
        if m.get("source") == "history" and m.get("period"):
            near = [c for c in (coming_period(a, m["published"]) for a in acts) if c]
            calib.append([round(m["confidence"], 3),
                          int(any(abs(m["period"] - T) <= 0.10 * T for T in periods)),
                          int(any(abs(m["period"] - T) <= 0.10 * T for T in near))])
    hand = next((m["published"] for m in mine if (m.get("history") or {}).get("state") == "handed_over"), None)
    res.update(periodic=periodic, periodic_off=off_all, periodic_off_after_2nd=off_late,
               periodic_off_after_2nd_history=off_late_history,
               handover_after_2nd=round(hand - second, 3) if hand else None, calibration=calib,
               reason=next(((m.get("history") or {}).get("reason") for m in mine
                            if (m.get("history") or {}).get("reason")), None))
    return res


def table(rows):
    print("| run | level (runs) | first message, s after the first batch (source) | prior's period error, % | "
          "activity | period s | first output after the first batch, s | "
          "first message within 5 % / 10 %, s after the first batch | from | outputs begun by then | before the output | "
          "periodic > 10 % off (after the 2nd output: all, of them from history) | hand-over, s after the 2nd output |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    calib = []
    for r in rows:
        if "error" in r:
            print("| %s | %s | | | | | | | | | | | |" % (r.get("run"), r["error"]))
            continue
        calib += r["calibration"]
        for i, a in enumerate(r["activities"]):
            first = "-" if r.get("first_after") is None else "%.2f (%s)" % (r["first_after"], r["first_source"])
            print("| %s | %s | %s | %s | %s | %.3f | %s | %s | %s | %s | %s | %s | %s |" % (
                r["run"] if i == 0 else "", ("%s (%s)" % (r["level"], r["runs"]) if r["level"] else "-") if i == 0 else "",
                first if i == 0 else "",
                ("-" if r.get("prior_err") is None else "%.1f" % r["prior_err"]) if i == 0 else "",
                a["name"], a["period"], a["first_output_after"],
                "-" if a["ok_after"] is None else "%.2f" % a["ok_after"], a["source"] or "-",
                "-" if a.get("outputs_before") is None else a["outputs_before"],
                "yes" if a["before_output"] else "no",
                "%d of %d (%d, %d)" % (r["periodic_off"], r["periodic"], r["periodic_off_after_2nd"],
                                       r["periodic_off_after_2nd_history"]) if i == 0 else "",
                ("-" if r["handover_after_2nd"] is None else "%.2f" % r["handover_after_2nd"]) if i == 0 else ""))
    print()
    print("Calibration of the prior's confidence (messages with source history):")
    print()
    print("| confidence | messages | period within 10 % of the run's | of the coming intervals' |")
    print("|---|---|---|---|")
    pct = lambda v: "%.0f %%" % (100.0 * sum(v) / len(v)) if v else "-"
    for lo, hi in ((0, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)):
        b = [c for c in calib if lo <= c[0] < hi]
        print("| [%.1f, %.1f) | %d | %s | %s |" % (lo, min(hi, 1.0), len(b), pct([c[1] for c in b]),
                                                 pct([c[-1] for c in b])))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table([json.loads(l) for l in open(sys.argv[2]) if l.strip()])
        return
    if len(sys.argv) != 2:
        sys.exit("usage: score.py OUT | score.py --table RESULTS.jsonl")
    out = sys.argv[1]
    msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(os.path.join(out, "d.log")))]
    err = open(os.path.join(out, "d.err")).read()
    names = sorted((d for d in os.listdir(out) if os.path.exists(os.path.join(out, d, "truth.json"))),
                   key=lambda d: os.path.getmtime(os.path.join(out, d, "truth.json")))
    for name in names:
        if name.endswith("-archived"):
            continue      # no daemon saw it: it went to the store by ftio scan
        try:
            print(json.dumps(score_run(out, name, msgs, err)))
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            print(json.dumps({"run": name, "error": "%s: %s" % (type(e).__name__, e)}))
    # runs that failed (the program could not run here): why, from its own words
    for name in sorted(os.listdir(out)):
        d = os.path.join(out, name)
        if os.path.isdir(d) and not os.path.exists(os.path.join(d, "truth.json")) and \
                os.path.exists(os.path.join(d, "app.err")):
            lines = [l.strip() for l in open(os.path.join(d, "app.err")) if l.strip()]
            why = next((lines[i + 1] for i, l in enumerate(lines) if l.startswith("Fatal error") and i + 1 < len(lines)),
                       lines[-1] if lines else "no output")
            print(json.dumps({"run": name, "error": "the program failed: " + why}))


if __name__ == "__main__":
    main()
