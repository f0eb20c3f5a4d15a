#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# activities.sh -- `ftio` reports every periodic activity of a job
# (ALGORITHM.md §10, PROTOCOL.md §2 `activities`): a Darshan DXT log naming
# its files (dumps to one file per output every 3 s, a restart file rewritten
# every 15 s: tests/data/activities-dxt.txt), a binary Darshan log's name
# records (the same patterns as its DXT text), the activity families of
# bench/accuracy-gen (spool files with file names; truth per activity from
# the generator's own phase times), one activity = the job's answer, and the
# text output.  The job-level answer is the heaviest activity's, named in
# `activity`, never the whole signal's mixture (issue 28); each activity
# names an example file.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need "$B/bin/ftio" "$B/bench/accuracy-gen"
FTIO=$B/bin/ftio
J="$PY tests/cli/jcheck.py"

timeout 60 "$FTIO" --json tests/data/activities-dxt.txt | $J dxt \
  'near(j["period"], 15, 0.75)' 'len(j["activities"]) == 2' \
  '[a["pattern"] for a in j["activities"]] == ["/scratch/run/restart.equil", "/scratch/run/dump.#.lammpstrj"]' \
  'rel(j["activities"][0]["period"], 15, 0.05)' 'rel(j["activities"][1]["period"], 3, 0.05)' \
  'j["activities"][0]["rule"] == "file" and j["activities"][1]["rule"] == "pattern"' \
  'j["activities"][1]["files"] == 40 and j["activities"][0]["files"] == 1' \
  '[a["matches_job"] for a in j["activities"]] == [True, False]' \
  'rel(j["activities"][0]["share"] + j["activities"][1]["share"], 1, 1e-9)' \
  'rel(j["activities"][1]["bytes"], 40 * 262144, 1e-9)' \
  'all(a["class"] == "periodic" and a["next"]["start"] >= j["window"]["end"] for a in j["activities"])' \
  'rel(j["activities"][0]["phase"]["bytes"], 16 * 1048576, 0.05)' \
  'j["activity"] == "/scratch/run/restart.equil" and j["period"] == j["activities"][0]["period"]' \
  'j["activities"][1]["example"] == "/scratch/run/dump.100.lammpstrj"' || bad "(see above)"

# One activity: the job's own answer.
timeout 60 "$FTIO" --json tests/data/sample-dxt.txt | $J one \
  'len(j["activities"]) == 1' 'j["activities"][0]["period"] == j["period"]' \
  'j["activities"][0]["matches_job"]' 'j["activities"][0]["pattern"] == "/scratch/out.dat"' || bad "(see above)"
# Formats without file names: one activity of unknown files.
timeout 60 "$FTIO" --json tests/data/sample.csv | $J csv \
  'len(j["activities"]) == 1' 'j["activities"][0]["rule"] == "unknown"' || bad "(see above)"

timeout 60 "$FTIO" tests/data/activities-dxt.txt >"$T/text" || bad "text exit $?"
grep -q '^activities    2$' "$T/text" && grep -q '^ \*1\. /scratch/run/restart.equil (file, 1 file' "$T/text" &&
  grep -q '^  2\. /scratch/run/dump.#.lammpstrj (pattern, 40 files' "$T/text" || bad "text: $(cat "$T/text")"

# A binary Darshan log names its files (name records): its DXT segments fall
# into one activity per pattern, the names darshan-dxt-parser prints for it.
D=tests/data/darshan/runtime_and_dxt_heatmaps_diagonal_write_only/runtime_and_dxt_heatmaps_diagonal_write_only.darshan
P=/yellow/users/treddy/github_projects/heatmap_diagonal/rank_#_write_#_bytes
timeout 60 "$FTIO" --json "$D" | $J darshan-binary \
  "[(a['pattern'], a['files']) for a in j['activities']] == [('$P', 32)]" || bad "(see above)"
gzip -dc "$D.dxt.txt.gz" | "$PY" -c '
import re, sys
names = {l.split("file_name: ")[1].strip() for l in sys.stdin if "file_name: " in l}
pats = {re.sub(r"[0-9]+", "#", n) for n in names}
sys.exit(0 if len(names) == 32 and pats == {sys.argv[1]} else print(len(names), pats) or 1)' "$P" ||
  bad "darshan-dxt-parser names differ"

# Pictures: each activity's phases and next phase in its own colour.
timeout 60 "$FTIO" --plot "$T/p.html" tests/data/activities-dxt.txt >/dev/null || bad "--plot exit $?"
for c in 'act-phase a0' 'act-phase a1' 'act-next a0' 'act-next a1' 'class="a1"></i>2. /scratch/run/dump.#.lammpstrj (period 3'; do
  grep -q "$c" "$T/p.html" || bad "--plot: no '$c' in the page"
done

# The generator's activity families: every activity within 10 % of its truth.
"$B/bench/accuracy-gen" "$T/gen" --families activities --subset >/dev/null || fail "accuracy-gen"
"$PY" - "$T/gen" "$FTIO" <<'PY' || bad "(see above)"
import glob, json, os, subprocess, sys
d, ftio = sys.argv[1], sys.argv[2]
bad = n = 0
for line in open(os.path.join(d, "activities.tsv")):
    tid, fam, nact = line.split()
    truth = {}
    for l in open(os.path.join(d, tid + ".acts")):
        k, _, v = l.rstrip("\n").partition(" ")
        i, _, key = k.partition(".")
        truth.setdefault(int(i), {})[key] = v
    out = subprocess.run([ftio, "--json"] + sorted(glob.glob(os.path.join(d, tid + ".spool", "*.msgpack"))),
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        print("%s: ftio exit %d: %s" % (tid, out.returncode, out.stderr)); bad += 1; continue
    j = json.loads(out.stdout)
    acts = j["activities"]
    if len(acts) != int(nact):
        print("%s: %d activities, want %s" % (tid, len(acts), nact)); bad += 1
    # the job-level answer: the heaviest activity's (answer.h: of those
    # within 10 % of the most bytes, the first pattern), named
    most = max(a["bytes"] for a in acts)
    heavy = min((a for a in acts if a["bytes"] >= 0.9 * most),
                key=lambda a: (a["pattern"].encode(), a["shape"] != "large"))
    name = heavy["pattern"] + ("" if heavy["shape"] == "all" else " (%s)" % heavy["shape"])
    if heavy["period"] is not None and (j["activity"] != name or j["period"] != heavy["period"]
                                        or j["class"] != heavy["class"]):
        print("%s: job-level %s s %s of %r, the heaviest %r says %s s" % (tid, j["period"], j["class"],
              j["activity"], name, heavy["period"])); bad += 1
    for k, t in truth.items():
        n += 1
        m = [a for a in acts if a["pattern"] == t["pattern"] and a["shape"] == t["shape"]]
        T = float(t["period"])
        if not m or m[0]["period"] is None or abs(m[0]["period"] - T) > 0.1 * T:
            print("%s: activity %s (%s) want %.3f s, got %s" % (tid, t["pattern"], t["shape"], T,
                                                                 m[0]["period"] if m else "nothing"))
            bad += 1
print("activity families: %d activities, %d wrong" % (n, bad))
sys.exit(1 if bad or n < 16 else 0)
PY
ok "activities"
finish
