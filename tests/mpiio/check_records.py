#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_records.py -- compare traced records with what a test program did.

  check_records.py --dir DIR --records FILE --files FILE [--nested] [--ranks N]

DIR holds expect.<rank> files written by mpiio_calls (lines
"file op flags bytes offset min_duration_ns"); FILE (--records) holds the
traced records, one per line: "rank layer op flags bytes offset fid ts te";
--files holds "fid path" lines.  A file in expect is named by its basename
without ".dat" ("calls" -> DIR/calls.dat).

Checks, per rank: the MPI-IO records of the test files are exactly the
expected ones (same multiset of op/flags/bytes/offset/file, each at least
min_duration long), every record has te >= ts, and with --nested every POSIX
or STDIO record on a test file is flagged nested (bit 2), and there is at
least one.  Prints one line per problem and exits 1 if there is any.
"""
import argparse
import collections
import os
import sys

MPIIO, POSIX, STDIO = 2, 0, 1
NESTED = 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--records", required=True)
    ap.add_argument("--files", required=True)
    ap.add_argument("--nested", action="store_true")
    ap.add_argument("--ranks", type=int, default=0)
    a = ap.parse_args()

    problems = []
    names = {}                       # fid -> test file name
    with open(a.files) as f:
        for line in f:
            fid, path = line.rstrip("\n").split(" ", 1)
            base = os.path.basename(path)
            if os.path.dirname(os.path.realpath(path)) == os.path.realpath(a.dir) and base.endswith(".dat"):
                names[int(fid)] = base[:-4]

    got = collections.defaultdict(list)      # rank -> [(file, op, flags, bytes, off, dur)]
    nested_seen = 0
    with open(a.records) as f:
        for n, line in enumerate(f, 1):
            rank, layer, op, flags, nbytes, off, fid, ts, te = map(int, line.split()[:9])
            if te < ts:
                problems.append(f"record {n}: te < ts: {line.strip()}")
            if fid not in names:
                continue
            if layer == MPIIO:
                got[rank].append((names[fid], op, flags, nbytes, off, te - ts))
            elif a.nested and layer in (POSIX, STDIO):
                nested_seen += 1
                if not flags & NESTED:
                    problems.append(f"record {n}: POSIX I/O on {names[fid]} inside MPI-IO not flagged nested: {line.strip()}")

    ranks = sorted(int(x.split(".")[1]) for x in os.listdir(a.dir) if x.startswith("expect."))
    if a.ranks and len(ranks) != a.ranks:
        problems.append(f"expected {a.ranks} expect files, found {len(ranks)}")
    for r in ranks:
        want = []
        with open(os.path.join(a.dir, f"expect.{r}")) as f:
            for line in f:
                fn, op, flags, nbytes, off, mindur = line.split()
                want.append((fn, int(op), int(flags), int(nbytes), int(off), int(mindur)))
        pool = collections.defaultdict(list)
        for rec in got.get(r, []):
            pool[rec[:5]].append(rec[5])
        for w in sorted(want, key=lambda w: -w[5]):
            durs = pool.get(w[:5], [])
            ok = [d for d in durs if d >= w[5]]
            if not ok:
                why = "too short" if durs else "missing"
                problems.append(f"rank {r}: {why}: file={w[0]} op={w[1]} flags={w[2]} bytes={w[3]} off={w[4]} min_ns={w[5]} (have durations {durs})")
                continue
            durs.remove(max(ok) if w[5] else ok[0])
        for key, durs in pool.items():
            for _ in durs:
                problems.append(f"rank {r}: unexpected record: file={key[0]} op={key[1]} flags={key[2]} bytes={key[3]} off={key[4]}")
        print(f"rank {r}: {len(want)} expected MPI-IO records, {len(got.get(r, []))} traced")
    for r in got:
        if r not in ranks:
            problems.append(f"records for rank {r} that has no expect file")
    if a.nested:
        print(f"{nested_seen} POSIX/STDIO records on the test files")
        if nested_seen == 0:
            problems.append("no POSIX record under MPI-IO at all (nested layer not traced?)")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
