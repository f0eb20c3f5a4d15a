#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""calibrate.py -- the calibration table of the robust confidence
(predictor/analysis/robust.c calib_p), measured.

    calibrate.py RESULTS.json [--families sweep,extra,adv]

RESULTS.json: `accuracy_eval.py --json` of the robust detector (every
offline answer and online message with its `evidence`: the onsets the period
was fitted on and their intervals' CV).  For each answer with onsets, n =
onsets - 1 intervals and se = max(CV, 0.02) / sqrt(n); the share within 10 %
of the true period per (row: n >= 1, 2, 3, 4, 5, 9; column: se >= 0, 0.015,
0.03, 0.05, 0.08, 0.12), with a +1/+2 prior, made non-increasing in se within
each row (pool-adjacent-violators, weighted by count).  Prints the table as C
and the counts behind it.  The caps of robust.c (fewer than 4 onsets, the
spectrum alone, a contradicting spectrum, an unresolved period) apply after
the table, so they are not fitted here.  Standard library only.
"""
import argparse, json, math

ROWS = [1, 2, 3, 4, 5, 9]
COLS = [0, 0.015, 0.03, 0.05, 0.08, 0.12]


def cell(n, se):
    r = max(i for i, v in enumerate(ROWS) if n >= v)
    c = max(i for i, v in enumerate(COLS) if se >= v)
    return r, c


def pava(vals, weights):
    """Non-increasing isotonic fit of vals (left to right)."""
    blocks = [[v, w, 1] for v, w in zip(vals, weights)]
    i = 0
    while i < len(blocks) - 1:
        if blocks[i][0] < blocks[i + 1][0]:
            v1, w1, c1 = blocks[i]
            v2, w2, c2 = blocks[i + 1]
            blocks[i] = [(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, c1 + c2]
            del blocks[i + 1]
            i = max(i - 1, 0)
        else:
            i += 1
    out = []
    for v, _, c in blocks:
        out += [v] * c
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--families", default="sweep,extra,adv")
    a = ap.parse_args()
    want = set(a.families.split(","))
    def kind(fam):
        return "sweep" if fam in ("mu", "lambda", "sigma") else "adv" if fam.startswith("adv") else "extra"
    hits = [[0] * len(COLS) for _ in ROWS]
    tot = [[0] * len(COLS) for _ in ROWS]
    for r in json.load(open(a.results)):
        if r.get("detector") != "robust" or kind(r["family"]) not in want:
            continue
        feats = list((r.get("online") or {}).get("feat", []))
        o = r["offline"]
        if o.get("period") and o.get("onsets"):
            feats.append((o["conf"], abs(o["period"] - o["T"]) <= 0.1 * o["T"], o["onsets"], o["cv"]))
        for _, ok, onsets, cv in feats:
            if not onsets or onsets < 2 or cv is None:
                continue
            n = onsets - 1
            r_, c_ = cell(n, max(cv, 0.02) / math.sqrt(n))
            tot[r_][c_] += 1
            hits[r_][c_] += 1 if ok else 0
    print("/* measured by bench/calibrate.py (%s) */" % a.results)
    print("static const double calib_p[][%d] = {" % len(COLS))
    for i, row in enumerate(ROWS):
        p = [(hits[i][j] + 1) / (tot[i][j] + 2) for j in range(len(COLS))]
        fit = pava(p, [tot[i][j] + 2 for j in range(len(COLS))])
        print("    { %s },   /* n >= %d: %s */" % (", ".join("%.3f" % v for v in fit), row,
                                                   " ".join("%d/%d" % (hits[i][j], tot[i][j]) for j in range(len(COLS)))))
    print("};")


if __name__ == "__main__":
    main()
