#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""jcheck.py -- assert facts about the JSON `ftio --json` printed (helper of
tests/cli/*.sh; jq may be missing, python3 is there).

usage: ftio --json FILE | python3 jcheck.py LABEL 'EXPR' ...
Each EXPR is a Python expression over `j` (the parsed object) with helpers
rel(x, want, tol=1e-6) (relative) and near(x, want, tol=1e-6) (absolute).
Prints every failing expression with the values involved; exit 1 if any failed.
"""
import json
import sys


def rel(x, want, tol=1e-6):
    return x is not None and abs(x - want) <= tol * abs(want)


def near(x, want, tol=1e-6):
    return x is not None and abs(x - want) <= tol


def main():
    label, exprs = sys.argv[1], sys.argv[2:]
    text = sys.stdin.read()
    try:
        j = json.loads(text)
    except ValueError as e:
        print(f"{label}: output is not JSON ({e}): {text[:200]!r}")
        return 1
    bad = 0
    for e in exprs:
        try:
            ok = eval(e, {"rel": rel, "near": near, "j": j, "len": len, "abs": abs})
        except Exception as ex:  # a missing key is a failure, not a crash
            ok, e = False, f"{e} raised {ex!r}"
        if not ok:
            bad += 1
            print(f"{label}: FAILED {e}")
    if bad:
        print(f"{label}: got {json.dumps(j)[:1500]}")
    else:
        print(f"{label}: ok ({len(exprs)} checks)")
    return 1 if bad else 0


sys.exit(main())
