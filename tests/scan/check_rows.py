#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_rows.py -- checks the rows of `ftio scan` (tests/scan/scan.sh).

  check_rows.py CSV JSONL DARSHAN_DIR EXPECTED_ROWS

CSV and JSON Lines are well formed (every CSV row has the header's columns,
every line is one JSON object) and say the same thing in the same order; the
row count is as expected; and for every readable real log the job context and
the bytes equal what Darshan's own darshan-parser printed (the
X.darshan.parser.txt.gz next to each log): job id, uid, nprocs, run time,
exe, and the bytes of the signal source (per-file counters: POSIX + STDIO
BYTES_READ/WRITTEN; HEATMAP: the bins of heatmap:POSIX + heatmap:STDIO).
Prints one line per problem; exits 1 if any.
"""
import csv, gzip, json, os, re, sys

csv_path, jsonl_path, ddir, expected = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = []
with open(csv_path, newline="") as f:
    rows = list(csv.reader(f))
header, rows = rows[0], rows[1:]
for i, r in enumerate(rows):
    if len(r) != len(header):
        bad.append(f"csv row {i}: {len(r)} columns, header has {len(header)}")
rows = [dict(zip(header, r)) for r in rows]
objs = []
with open(jsonl_path) as f:
    for i, line in enumerate(f):
        try:
            o = json.loads(line)
        except ValueError as e:
            bad.append(f"jsonl line {i}: not JSON: {e}")
            continue
        if not isinstance(o, dict):
            bad.append(f"jsonl line {i}: not an object")
        objs.append(o)
if len(rows) != expected or len(objs) != expected:
    bad.append(f"{len(rows)} CSV rows and {len(objs)} JSON lines, expected {expected}")
for r, o in zip(rows, objs):
    if r["file"] != o.get("file"):
        bad.append(f"order differs: {r['file']} vs {o.get('file')}")
        continue
    if bool(r["error"]) != bool(o.get("error")):
        bad.append(f"{r['file']}: error in one output only")
    if r["error"]:
        continue
    for k in ("job", "exe", "source", "temporal"):
        if (r[k] or None) != o.get(k):
            bad.append(f"{r['file']}: {k} CSV {r[k]!r} JSON {o.get(k)!r}")
    for k in ("uid", "nprocs", "bytes_read", "bytes_written"):
        if (int(r[k]) if r[k] else None) != o.get(k):
            bad.append(f"{r['file']}: {k} CSV {r[k]!r} JSON {o.get(k)!r}")
    for m in ("read", "write"):
        j = o.get(m) or {}
        if (float(r[m + "_period"]) if r[m + "_period"] else None) != j.get("period"):
            bad.append(f"{r['file']}: {m} period CSV {r[m + '_period']} JSON {j.get('period')}")

def parser_facts(log):
    facts, by = {}, {"counters": [0, 0], "heatmap": [0, 0]}
    with gzip.open(log + ".parser.txt.gz", "rt", errors="replace") as f:
        for line in f:
            if line.startswith("# "):
                m = re.match(r"# (jobid|uid|nprocs|run time|exe): (.*)", line.rstrip("\n"))
                if m:
                    facts[m.group(1)] = m.group(2)
                continue
            c = line.rstrip("\n").split("\t")
            if len(c) < 6:
                continue
            if c[0] in ("POSIX", "STDIO"):
                if c[3].endswith("_BYTES_READ"):
                    by["counters"][0] += int(c[4])
                elif c[3].endswith("_BYTES_WRITTEN"):
                    by["counters"][1] += int(c[4])
            elif c[0] == "HEATMAP" and c[5] in ("heatmap:POSIX", "heatmap:STDIO"):
                if c[3].startswith("HEATMAP_READ_BIN_"):
                    by["heatmap"][0] += int(c[4])
                elif c[3].startswith("HEATMAP_WRITE_BIN_"):
                    by["heatmap"][1] += int(c[4])
    return facts, by

checked = 0
for r in rows:
    log = r["file"]
    if r["error"] or not log.startswith(ddir) or not os.path.exists(log + ".parser.txt.gz"):
        continue
    facts, by = parser_facts(log)
    checked += 1
    name = os.path.relpath(log, ddir)
    if facts.get("jobid") != r["job"]:
        bad.append(f"{name}: job {r['job']} != parser {facts.get('jobid')}")
    if facts.get("uid") != r["uid"]:
        bad.append(f"{name}: uid {r['uid']} != parser {facts.get('uid')}")
    if facts.get("nprocs") != r["nprocs"]:
        bad.append(f"{name}: nprocs {r['nprocs']} != parser {facts.get('nprocs')}")
    rt = float(facts.get("run time", "nan"))
    if not r["run_time"] or abs(float(r["run_time"]) - rt) > 1e-3 * max(1.0, rt):
        bad.append(f"{name}: run_time {r['run_time']} != parser {rt}")
    if (facts.get("exe") or "").strip() != r["exe"].strip():
        bad.append(f"{name}: exe {r['exe']!r} != parser {facts.get('exe')!r}")
    if r["source"] in by:
        want = by[r["source"]]
        got = [int(r["bytes_read"]), int(r["bytes_written"])]
        if got != want:
            bad.append(f"{name}: {r['source']} bytes read/written {got} != parser {want}")
if checked < 40:
    bad.append(f"only {checked} logs checked against darshan-parser")
for b in bad:
    print("FAIL:", b)
print(f"{len(rows)} rows, {checked} checked against darshan-parser, {len(bad)} problems")
sys.exit(1 if bad else 0)
