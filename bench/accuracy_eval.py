#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""accuracy_eval.py -- score ftio and ftiod on the traces of accuracy-gen.

    accuracy_eval.py DIR --ftio PATH [--ftiod PATH] [--daemon N] [--jobs J]
                     [--detectors robust,compat] [--check FILE] [--json OUT]

For every trace of DIR/manifest.tsv and every mode its truth has, for each
detector (the default `robust` and `--compat`):
  offline  `ftio --json -m MODE trace.csv`: the answer on the whole trace;
  online   `ftio --window adaptive --step 1 --json -m MODE trace.csv`: the
           messages ftiod publishes for the trace (tests/daemon/replay_online.sh
           proves the two equal, message for message);
  daemon   with --daemon N, the first N traces of every family also through
           the real path: `ftio replay` of the trace's spool files into ftiod
           (--catch-up every: each boundary, as `ftio --window`), its --log
           read back.
Metrics (docs/ACCURACY.md §3): within 10 % of the true period (misses count as
failures), detected share, mean / median / p90 error where found, harmonic
answers (T/k), median confidence, seconds per trace; online: the phase after
which every message is within 5 % (settle; for a period change, counted from
the change), share of messages wrong (> 10 %) or without a period after the
first right one, next.start error against the next true phase start in % of
T (and how many lay in the past of their window), bytes-per-phase error, and
the calibration table (confidence bins vs share within 10 %).
--check FILE: key value thresholds (minimum shares, maximum errors); exit 1
naming every figure below its threshold (the regression test).
Activity families (DIR/activities.tsv, several periodic activities per job):
each true activity is found in `ftio --json`'s `activities` by its file
pattern and shape, and scored on its own period (found, within 10 %, median
and p90 error, traces where ftio reports as many activities as there are);
online, in `ftio --window --step 2`'s messages, the phase of its own after
which every message gives it within 5 % (settle).
Standard library only.
"""
import argparse, concurrent.futures, json, math, os, shutil, statistics, subprocess, sys, tempfile, time


def read_truth(path):
    t = {}
    for line in open(path):
        k, _, v = line.partition(" ")
        mode, _, key = k.partition(".")
        vals = [float(x) for x in v.split()]
        t.setdefault(mode, {})[key] = vals if key in ("starts", "ends", "bytes") else vals[0]
    return t


def run_json(cmd, many=False):
    t0 = time.time()
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    dt = time.time() - t0
    if cp.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), cp.returncode, cp.stderr.strip()[-300:]))
    if many:
        return [json.loads(l) for l in cp.stdout.splitlines() if l.strip()], dt
    return json.loads(cp.stdout), dt


def err(p, T):
    return abs(p - T) / T if p else None


def harmonic(p, T):
    if not p:
        return False
    r = T / p
    k = round(r)
    return k >= 2 and abs(r - k) <= 0.05


def score_online(msgs, truth, shift=0.0):
    """Online figures of one trace and mode from its messages (times shifted
    to the CSV's time base)."""
    T = truth["period"]
    starts, nbytes = truth["starts"], truth["bytes"]
    change = int(truth.get("change_at", 0))
    rows = []
    for m in msgs:
        end = m["window"]["end"] - shift
        ph = sum(1 for s in starts if s <= end)          # phases begun so far
        p = m.get("period")
        nxt = m["next"]["start"] - shift if m["next"]["start"] is not None else None
        rows.append((end, ph, p, m.get("confidence"), nxt, m["next"]["bytes"], m.get("evidence")))
    # After a period change the truth is the new regime: judge from there.
    judged = [r for r in rows if r[1] > change] if change else rows
    # A drifting period: each message against the current interval (the
    # last two phase starts it has seen), from the third phase on.
    if truth.get("drift"):
        judged = [r for r in judged if r[1] >= 3]
        Tm = [starts[r[1] - 1] - starts[r[1] - 2] for r in judged]
    else:
        Tm = [T] * len(judged)
    ok5 = [r[2] is not None and err(r[2], t) <= 0.05 for r, t in zip(judged, Tm)]
    ok10 = [r[2] is not None and err(r[2], t) <= 0.10 for r, t in zip(judged, Tm)]
    last_bad = max([i for i, k in enumerate(ok5) if not k], default=-1)
    settle = (judged[last_bad + 1][1] - change) if last_bad + 1 < len(judged) else None
    first = next((i for i, k in enumerate(ok10) if k), None)
    after = ok10[first + 1:] if first is not None else []
    out = {"settle": settle, "after_right": len(after), "after_wrong": sum(1 for k in after if not k),
           "messages": len(judged), "next_err": [], "past": 0, "bytes_err": [], "calib": [], "feat": []}
    for (end, ph, p, c, nxt, nb, ev), k in zip(judged, ok10):
        if p is not None and c is not None:
            out["calib"].append((c, k))
            # what the confidence was made of (bench/calibrate.py)
            out["feat"].append((c, k, ev["onsets"] if ev else None, ev["interval_cv"] if ev else None))
        if nxt is None or ph < 3:
            continue
        if nxt < end - 1e-6:
            out["past"] += 1
        later = [i for i, s in enumerate(starts) if s > end]
        if later:
            i = later[0]
            out["next_err"].append(100 * abs(nxt - starts[i]) / (starts[i] - starts[i - 1] if truth.get("drift") and i else T))
            if nb:
                out["bytes_err"].append(100 * abs(nb - nbytes[i]) / nbytes[i])
    return out


def pct(a, b):
    return 100.0 * a / b if b else float("nan")


def q(v, f):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))]


def summarize(items):
    """Offline and online figures of a list of (offline, online) results."""
    n = len(items)
    found = [o for o, _ in items if o["period"]]
    errs = [err(o["period"], o["T"]) for o in found]
    s = {"n": n, "detected": pct(len(found), n),
         "within10": pct(sum(1 for e in errs if e <= 0.10), n),
         "mean_err": 100 * statistics.mean(errs) if errs else float("nan"),
         "median_err": 100 * statistics.median(errs) if errs else float("nan"),
         "p90_err": 100 * q(errs, 0.9), "harmonic": pct(sum(1 for o, _ in items if o["period"]
                                                          and err(o["period"], o["T"]) > 0.10
                                                          and harmonic(o["period"], o["T"])), n),
         "median_conf": statistics.median([o["conf"] for o in found]) if found else float("nan"),
         "s_per_trace": statistics.median([o["time"] for o, _ in items])}
    on = [x for _, x in items if x is not None]
    if on:
        settled = [x["settle"] for x in on]
        s["settled_by_4"] = pct(sum(1 for v in settled if v is not None and v <= 4), len(on))
        s["median_settle"] = statistics.median([v if v is not None else 99 for v in settled])
        s["wrong_after_right"] = pct(sum(x["after_wrong"] for x in on), sum(x["after_right"] for x in on))
        ne = [e for x in on for e in x["next_err"]]
        s["next_err_median"] = statistics.median(ne) if ne else float("nan")
        s["next_in_past"] = sum(x["past"] for x in on)
        be = [e for x in on for e in x["bytes_err"]]
        s["bytes_err_median"] = statistics.median(be) if be else float("nan")
    return s


def calibration(results, extra=()):
    pairs = [(c, k) for _, o in results for x in ([o["online"]] if o["online"] else []) for c, k in x["calib"]]
    pairs += [(o["offline"]["conf"], err(o["offline"]["period"], o["offline"]["T"]) <= 0.10)
              for _, o in results if o["offline"]["period"] and o["offline"]["conf"] is not None]
    pairs += list(extra)
    rows = []
    for lo, hi in ((0, .2), (.2, .4), (.4, .6), (.6, .8), (.8, .9), (.9, .95), (.95, 1.01)):
        sel = [k for c, k in pairs if lo <= c < hi]
        rows.append((lo, hi, len(sel), pct(sum(sel), len(sel))))
    hi = [k for c, k in pairs if c >= 0.8]
    return rows, len(hi), pct(sum(hi), len(hi))


def daemon_messages(args, prefix, tid, detector, tmp):
    """Replay the trace's spool into a fresh ftiod; its messages per mode."""
    d = tempfile.mkdtemp(dir=tmp)
    ep = "ipc://%s/d" % d
    log = os.path.join(d, "log.jsonl")
    os.environ["FTIO_AUTH"] = "none"      # our daemon runs --auth none: replay unsigned
    cmd = [args.ftiod, "--auth", "none", "--listen", ep + ".in", "--pub", ep + ".pub", "--status-endpoint", ep + ".st",
           "--log", log, "--catch-up", "every", "--settle-end", "0.2"] + (["--compat"] if detector == "compat" else [])
    # --catch-up every: the replay arrives at once, and by default a job that
    # far behind goes to its newest boundary; scored here is every boundary.
    # --settle-end 0.2: `ftio replay` sends the processes' batches merged in
    # time order and has sent them all when the .end is awaited, so no batch
    # can follow the processes' final ones; ftiod's default (2 s of quiet
    # after them) is only waiting, for each of the traces.
    p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run([args.ftiod, "--status", "--status-endpoint", ep + ".st"],
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        spool = sorted(os.path.join(prefix + ".spool", f) for f in os.listdir(prefix + ".spool"))
        subprocess.run([args.ftio, "replay", "--endpoint", ep + ".in"] + spool, check=True,
                       capture_output=True, timeout=120)
        deadline = time.time() + 120
        while time.time() < deadline:
            if os.path.exists(log) and any('"ftio.%s.end"' % tid in l for l in open(log)):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("ftiod never ended job %s" % tid)
    finally:
        p.terminate()
        p.wait()
    msgs = {}
    for line in open(log):
        m = json.loads(line)
        topic = m["topic"].rsplit(".", 1)[1]
        if topic in ("write", "read"):
            msgs.setdefault(topic, []).append(m["message"])
    shutil.rmtree(d, ignore_errors=True)
    return msgs


def one(args, entry, detector, use_daemon, tmp):
    tid, family, param, value, noise = entry
    prefix = os.path.join(args.dir, tid)
    truth = read_truth(prefix + ".truth")
    flag = ["--compat"] if detector == "compat" else []
    out = []
    dmsgs = daemon_messages(args, prefix, tid, detector, tmp) if use_daemon else None
    for mode, tr in sorted(truth.items()):
        off, dt = run_json([args.ftio, "--json", "-m", mode] + flag + [prefix + ".csv"])
        on, _ = run_json([args.ftio, "--window", "adaptive", "--step", "1", "--json", "-m", mode]
                         + flag + [prefix + ".csv"], many=True)
        res = {"id": tid, "family": family, "group": "%s %s=%s %s" % (family, param, value, noise),
               "mode": mode, "detector": detector,
               "offline": {"period": off.get("period"), "conf": off.get("confidence"), "T": tr["period"],
                           "time": dt, "onsets": (off.get("evidence") or {}).get("onsets"),
                           "cv": (off.get("evidence") or {}).get("interval_cv")},
               "online": score_online(on, tr)}
        if dmsgs is not None:
            # spool clock: CSV time 0 is the epoch second accuracy-gen wrote
            with open(os.path.join(args.dir, "spool-epoch")) as f:
                epoch = float(f.read())
            res["daemon"] = score_online(dmsgs.get(mode, []), tr, shift=epoch)
        out.append(res)
    return out


def read_acts(path):
    """DIR/ID.acts: per activity k, "k.key value..." lines (accuracy_gen.c)."""
    acts = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition(" ")
        i, _, key = k.partition(".")
        a = acts.setdefault(int(i), {})
        if key in ("pattern", "shape"):
            a[key] = v
        elif key == "period":
            a[key] = float(v)
        else:
            a[key] = [float(x) for x in v.split()]
    return [acts[i] for i in sorted(acts)]


def one_activities(args, entry):
    """The activity families: `ftio --json` on the trace's spool files (they
    carry the file names); each true activity is looked up by its pattern and
    shape in the answer's `activities`, and scored on its own period."""
    tid, family, _ = entry
    prefix = os.path.join(args.dir, tid)
    truth = read_acts(prefix + ".acts")
    spool = sorted(os.path.join(prefix + ".spool", f) for f in os.listdir(prefix + ".spool"))
    off, dt = run_json([args.ftio, "--json", "-m", "write"] + spool)
    # online: the sliding analysis (ftiod's loop), in epoch seconds: the
    # generator anchors its time 0 at the epoch second of DIR/spool-epoch
    on, _ = run_json([args.ftio, "--window", "adaptive", "--step", "2", "--json", "--absolute-time",
                      "-m", "write"] + spool, many=True)
    with open(os.path.join(args.dir, "spool-epoch")) as f:
        epoch = float(f.read())
    got = off.get("activities", [])
    out = []
    # The job-level answer (issue 28) against the dominant activity (the one
    # that moves the most bytes); online messages against the activity they
    # name (`activity`), or the dominant when they name none.
    dom = max(range(len(truth)), key=lambda k: sum(truth[k]["bytes"]))
    Td = truth[dom]["period"]
    def name_of(t):
        return t["pattern"] + ("" if t["shape"] == "all" else " (%s)" % t["shape"])
    by_name = {name_of(t): t for t in truth}
    job = {"id": tid, "family": family, "T": Td, "period": off.get("period"), "conf": off.get("confidence"),
           "class": off.get("class"), "calib": [], "msgs": 0, "periodic": 0, "periodic_off_named": 0,
           "periodic_off_dom_late": 0, "periodic_late": 0}
    if off.get("period") and off.get("confidence") is not None:
        job["calib"].append((off["confidence"], err(off["period"], Td) <= 0.10))
    dstarts = truth[dom]["starts"]
    for msg in on:
        p, c = msg.get("period"), msg.get("confidence")
        if p is None or c is None:
            continue
        end = msg["window"]["end"] - epoch
        t = by_name.get(msg.get("activity")) or truth[dom]
        ok = err(p, t["period"]) <= 0.10
        job["calib"].append((c, ok))
        job["msgs"] += 1
        if msg.get("class") == "periodic":
            job["periodic"] += 1
            job["periodic_off_named"] += not ok
            if sum(1 for x in dstarts if x <= end) >= 4:   # the dominant's 4th phase seen
                job["periodic_late"] += 1
                job["periodic_off_dom_late"] += err(p, Td) > 0.10
    out.append(job)
    for k, tr in enumerate(truth):
        def mine(acts):
            m = [a for a in acts if a["pattern"] == tr["pattern"] and a["shape"] == tr["shape"]]
            return m[0] if m else None
        a = mine(got)
        # settle: phases begun when every later message is within 5 %
        rows = []
        for msg in on:
            end = msg["window"]["end"] - epoch
            b = mine(msg.get("activities", []))
            p = b["period"] if b else None
            rows.append((sum(1 for x in tr["starts"] if x <= end), p is not None and err(p, tr["period"]) <= 0.05))
        bad = max([i for i, (_, ok) in enumerate(rows) if not ok], default=-1)
        settle = rows[bad + 1][0] if bad + 1 < len(rows) else None
        out.append({"id": tid, "family": family, "activity": k, "T": tr["period"], "found": a is not None,
                    "period": a["period"] if a else None, "conf": a["confidence"] if a else None,
                    "n_reported": len(got), "n_true": len(truth), "time": dt, "settle": settle})
    return out


def summarize_job_level(js):
    """The job-level answers of the activity families against their dominant activity."""
    n = len(js)
    errs = [err(j["period"], j["T"]) if j["period"] else None for j in js]
    return {"n": n, "within10": pct(sum(1 for e in errs if e is not None and e <= 0.10), n),
            "within5": pct(sum(1 for e in errs if e is not None and e <= 0.05), n),
            "periodic_within5": pct(sum(1 for j, e in zip(js, errs) if e is not None and e <= 0.05
                                        and j["class"] == "periodic"), n),
            "periodic_off10": sum(1 for j, e in zip(js, errs) if j["class"] == "periodic" and
                                  (e is None or e > 0.10)),
            "median_err": 100 * statistics.median([e for e in errs if e is not None]) if any(e is not None for e in errs) else float("nan"),
            "online_periodic_off_named": pct(sum(j["periodic_off_named"] for j in js), sum(j["periodic"] for j in js)),
            "online_periodic_off_dom_late": pct(sum(j["periodic_off_dom_late"] for j in js),
                                                sum(j["periodic_late"] for j in js))}


def summarize_activities(rs):
    n = len(rs)
    errs = [err(r["period"], r["T"]) for r in rs if r["period"]]
    traces = {r["id"]: r for r in rs}
    return {"n": n, "matched": pct(sum(1 for r in rs if r["found"]), n),
            "within10": pct(sum(1 for e in errs if e <= 0.10), n),
            "median_err": 100 * statistics.median(errs) if errs else float("nan"),
            "p90_err": 100 * q(errs, 0.9),
            "count_right": pct(sum(1 for r in traces.values() if r["n_reported"] == r["n_true"]), len(traces)),
            "settled_by_4": pct(sum(1 for r in rs if r["settle"] is not None and r["settle"] <= 4), n),
            "median_settle": statistics.median([r["settle"] if r["settle"] is not None else 99 for r in rs]),
            "s_per_trace": statistics.median([r["time"] for r in traces.values()])}


def table(title, rows, keys, fmt):
    print("\n" + title + "\n")
    print("| " + " | ".join(k for k, _ in keys) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(keys))) + "|")
    for name, s in rows:
        print("| " + " | ".join([name] + [fmt(s.get(k)) for _, k in keys[1:]]) + " |")


def fmtv(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "-" if math.isnan(v) else ("%.1f" % v if abs(v) >= 1 or v == 0 else "%.2f" % v)
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--ftio", required=True)
    ap.add_argument("--ftiod")
    ap.add_argument("--daemon", type=int, default=0, help="traces per family through ftiod")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--detectors", default="robust,compat")
    ap.add_argument("--check", help="thresholds file: fail below them")
    ap.add_argument("--json", help="write every per-trace result here")
    args = ap.parse_args()
    entries = [l.rstrip("\n").split("\t") for l in open(os.path.join(args.dir, "manifest.tsv"))]
    tmp = tempfile.mkdtemp(prefix="ftio-acc-")
    per_family = {}
    work = []
    for e in entries:
        per_family[e[1]] = per_family.get(e[1], 0) + 1
        for det in args.detectors.split(","):
            work.append((e, det, args.ftiod is not None and per_family[e[1]] <= args.daemon))
    t0 = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for r in ex.map(lambda w: one(args, w[0], w[1], w[2], tmp), work):
            results.extend(r)
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        json.dump(results, open(args.json, "w"))
    print("accuracy: %d traces, %d (trace, mode) pairs per detector, %.0f s" %
          (len(entries), len(results) // max(1, len(args.detectors.split(","))), time.time() - t0))
    off_keys = [("group", None), ("n", "n"), ("detected %", "detected"), ("within 10 % (all)", "within10"),
                ("mean err %", "mean_err"), ("median err %", "median_err"), ("p90 err %", "p90_err"),
                ("T/k %", "harmonic"), ("median conf", "median_conf"), ("s/trace", "s_per_trace")]
    on_keys = [("group", None), ("n", "n"), ("settled by phase 4 %", "settled_by_4"),
               ("median settle phase", "median_settle"), ("wrong after first right %", "wrong_after_right"),
               ("next.start err % of T (median)", "next_err_median"), ("next.start in the past", "next_in_past"),
               ("bytes/phase err % (median)", "bytes_err_median")]
    overall = {}
    failed = []
    for det in args.detectors.split(","):
        mine = [r for r in results if r["detector"] == det]
        groups = {}
        for r in mine:
            groups.setdefault(r["group"] + ("" if r["mode"] == "write" else " (read)"), []).append(r)
        rows = [(g, summarize([(dict(r["offline"]), r["online"]) for r in rs])) for g, rs in groups.items()]
        sweep = [r for r in mine if r["family"] in ("mu", "lambda", "sigma")]
        adv = [r for r in mine if r["family"].startswith("adv")]
        extra = [r for r in mine if r["family"] not in ("mu", "lambda", "sigma") and r not in adv]
        for name, sel in (("sweep (ACCURACY.md)", sweep), ("extra families", extra),
                          ("adversarial families", adv), ("all", mine)):
            if sel:
                rows.append(("**" + name + "**", summarize([(dict(r["offline"]), r["online"]) for r in sel])))
        overall[det] = dict(rows)
        table("%s detector: offline (`ftio`)" % det, rows, off_keys, fmtv)
        table("%s detector: online (`ftio --window`, the messages of ftiod)" % det, rows, on_keys, fmtv)
        dm = [r for r in mine if "daemon" in r]
        if dm:
            ds = summarize([(dict(r["offline"]), r["daemon"]) for r in dm])
            table("%s detector: online through ftiod (replay, %d traces)" % (det, len(dm)),
                  [("daemon", ds)], on_keys, fmtv)
            overall[det]["daemon"] = ds
        for cname, sel in (("all", mine), ("sweep", sweep), ("extra", extra), ("adversarial", adv)):
            if not sel:
                continue
            cal, n_hi, share_hi = calibration([(None, r) for r in sel])
            print("\n%s detector: calibration, %s (offline answers and online messages)\n" % (det, cname))
            print("| confidence | n | within 10 % |\n|---|---:|---:|")
            for lo, hi, n, s in cal:
                print("| [%.2f, %.2f) | %d | %s |" % (lo, min(hi, 1.0), n, fmtv(s)))
            print("| **≥ 0.8** | %d | %s |" % (n_hi, fmtv(share_hi)))
            overall[det]["calib_hi" if cname == "all" else "calib_hi_" + cname] = {"share": share_hi}
    acts = os.path.join(args.dir, "activities.tsv")
    if os.path.exists(acts) and "robust" in args.detectors.split(","):
        ents = [l.rstrip("\n").split("\t") for l in open(acts) if l.strip()]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            allr = [x for r in ex.map(lambda e: one_activities(args, e), ents) for x in r]
        ar = [r for r in allr if "activity" in r]
        jl = [r for r in allr if "activity" not in r]
        jrows = {}
        for r in jl:
            jrows.setdefault(r["family"], []).append(r)
        rows = [(g, summarize_job_level(v)) for g, v in sorted(jrows.items())]
        for name, sel in (("adversarial", [r for r in jl if r["family"].startswith("adv")]),
                          ("activity families", [r for r in jl if not r["family"].startswith("adv")]),
                          ("job level", jl)):
            if sel:
                rows.append(("**%s**" % name, summarize_job_level(sel)))
        overall.setdefault("robust", {}).update({"job " + g.strip("*"): v for g, v in rows})
        table("robust detector: the job-level answer of the activity families against the dominant "
              "activity (the one that moves the most bytes)", rows,
              [("family", None), ("n", "n"), ("offline within 10 %", "within10"), ("within 5 %", "within5"),
               ("periodic and within 5 %", "periodic_within5"), ("periodic > 10 % off", "periodic_off10"),
               ("median err %", "median_err"),
               ("online: periodic msgs > 10 % off the activity named %", "online_periodic_off_named"),
               ("online, from the dominant's 4th phase: periodic > 10 % off it %",
                "online_periodic_off_dom_late")], fmtv)
        adv_pairs = [p for r in jl if r["family"].startswith("adv") for p in r["calib"]]
        if adv_pairs:
            robust = [r for r in results if r["detector"] == "robust" and r["family"].startswith("adv")]
            cal, n_hi, share_hi = calibration([(None, r) for r in robust], adv_pairs)
            print("\nrobust detector: calibration, adversarial families with their job-level answers\n")
            print("| confidence | n | within 10 % |\n|---|---:|---:|")
            for lo, hi, n, sh in cal:
                print("| [%.2f, %.2f) | %d | %s |" % (lo, min(hi, 1.0), n, fmtv(sh)))
            print("| **≥ 0.8** | %d | %s |" % (n_hi, fmtv(share_hi)))
            overall["robust"]["calib_hi_adversarial_all"] = {"share": share_hi}
        fams = {}
        for r in ar:
            fams.setdefault("%s activity %d" % (r["family"], r["activity"] + 1), []).append(r)
        rows = [(g, summarize_activities(rs)) for g, rs in sorted(fams.items())]
        rows.append(("**activities**", summarize_activities(ar)))
        overall.setdefault("robust", {}).update(dict(rows))
        table("robust detector: each activity of the activity families (`ftio --json` on the spool "
              "files, %d traces)" % len(ents), rows,
              [("activity", None), ("n", "n"), ("found %", "matched"), ("within 10 %", "within10"),
               ("median err %", "median_err"), ("p90 err %", "p90_err"),
               ("traces with the right count %", "count_right"), ("online: settled within 5 % by its phase 4 %",
               "settled_by_4"), ("median settle phase", "median_settle"), ("s/trace", "s_per_trace")], fmtv)
        if args.json:
            json.dump(ar, open(args.json + ".activities", "w"))
    if args.check:
        for line in open(args.check):
            line = line.split("#")[0].split()
            if not line:
                continue
            det, raw, key, op, val = line[0], line[1], line[2], line[3], float(line[4])
            group = raw.replace("_", " ")
            groups = overall.get(det, {})
            got = groups.get("**%s**" % group, groups.get(raw, groups.get(group, {}))).get(key)
            ok = got is not None and not math.isnan(got) and (got >= val if op == ">=" else got <= val)
            print("check %s %s %s %s %g: %s" % (det, group, key, op, val, fmtv(got)))
            if not ok:
                failed.append("%s %s %s = %s (want %s %g)" % (det, group, key, fmtv(got), op, val))
        if failed:
            print("FAILED: " + "; ".join(failed))
            sys.exit(1)


if __name__ == "__main__":
    main()
