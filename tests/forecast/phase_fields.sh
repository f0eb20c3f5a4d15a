#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# phase_fields.sh -- each phase described exactly (issue 26 item 1): a job
# whose every phase is known (`ftio-wire phases`: ranks that sit out every
# other phase, per-rank bytes, a new file per rank and a shared one every
# third phase, opens, fsyncs, closes, a file system per file) gives, field
# by field, the truth the generator wrote:
#   - offline, `ftio --json` on its spool files: `phases` (every phase) and
#     the typical phase's fields in `phase`;
#   - live, the same spool files replayed into ftiod: the `phase.last` of
#     its messages (each phase as it was described) and the `.end`'s
#     typical `phase`;
#   - a Darshan DXT text log (tests/data/activities-dxt.txt): every phase's
#     ranks, busiest rank, files and bytes equal what the log's segments in
#     it add up to, and its file system the headers' mnt_pt / fs_type.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
mkdir -p "$T/spool"
wire phases --spool "$T/spool" --job ph --ranks 4 --period 3 --phases 8 --truth "$T/truth.jsonl" \
  || fail "ftio-wire phases"
"$B/bin/ftio" --json "$T"/spool/*.msgpack >"$T/off.jsonl" 2>"$T/ftio.err" || fail "ftio --json"

start_daemon d --catch-up every
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool/*.msgpack 2>"$T/replay.err" \
  || fail "replay: $(cat "$T/replay.err")"
wait_topic "$T/d.log" ftio.ph.end 30

"$PY" - "$T/truth.jsonl" "$T/off.jsonl" "$T/d.log" <<'PYEOF' || fail "the phases are not the truth"
import json, sys
truth = [json.loads(l) for l in open(sys.argv[1])]
off = json.loads(open(sys.argv[2]).readline())
log = [json.loads(l) for l in open(sys.argv[3])]
FIELDS = ("ranks", "skew_bytes", "files", "opens", "metadata", "syncs", "fs", "bytes")

def same(t, p, origin, what):
    bad = [(k, t[k], p[k]) for k in FIELDS if t[k] != p[k]]
    for k in ("start", "end"):
        if abs(t[k] - (p[k] + origin)) > 1e-6:
            bad.append((k, t[k], p[k] + origin))
    assert not bad, "%s phase %d: %s" % (what, t["k"], bad)

# offline: every phase, in order
assert len(off["phases"]) == len(truth), "ftio described %d phases of %d" % (len(off["phases"]), len(truth))
for t, p in zip(truth, off["phases"]):
    same(t, p, off["time_origin"], "ftio --json")

# typical phase: the medians (round half away from zero for counts)
def median(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
def count(v):
    return int(median(v) + 0.5)
want = {k: count([t[k] for t in truth]) for k in ("ranks", "files", "opens", "metadata", "syncs")}
want["skew_bytes"] = median([t["skew_bytes"] for t in truth])
want["elapsed"] = median([t["end"] - t["start"] for t in truth])
want["fs"] = truth[0]["fs"]
def typical_ok(ph, what):
    bad = [(k, want[k], ph[k]) for k in want
           if (abs(want[k] - ph[k]) > 1e-6 if k == "elapsed" else want[k] != ph[k])]
    assert not bad, "%s typical phase: %s" % (what, bad)
typical_ok(off["phase"], "ftio --json")

# live: every phase as ftiod described it
lasts = {}
for d in log:
    m = d["message"]
    if d["topic"] == "ftio.ph.write":
        last = m["phase"]["last"]
    elif d["topic"] == "ftio.ph.end":
        last = m["summary"]["write"]["phase"]["last"]
        typical_ok(m["summary"]["write"]["phase"], "ftiod .end")
    else:
        continue
    if last["start"] is not None:
        lasts[round(last["start"], 6)] = last
for t in truth:
    # epoch seconds through a job-relative double: equal within a few us
    p = next((v for k, v in lasts.items() if abs(k - t["start"]) <= 5e-6), None)
    assert p, "ftiod never described phase %d (starting %.6f): %s" % (t["k"], t["start"], sorted(lasts))
    same(t, p, 0, "ftiod")
print("ok: %d phases, offline and live, equal to the truth" % len(truth))
PYEOF
ok "ftio --json and ftiod describe every phase as it was"

# A Darshan DXT log: each phase is what its segments add up to.
"$B/bin/ftio" --json "$HERE/../data/activities-dxt.txt" >"$T/dxt.jsonl" 2>"$T/dxt.err" \
  || fail "ftio --json on the DXT log"
"$PY" - "$HERE/../data/activities-dxt.txt" "$T/dxt.jsonl" <<'PYEOF' || fail "DXT phases"
import json, sys
seg, fid, fs = [], None, {}
for line in open(sys.argv[1]):
    w = line.split()
    if line.startswith("# DXT, file_id:"):
        fid = int(line.split("file_id:")[1].split(",")[0])
    elif line.startswith("# DXT, mnt_pt:"):
        mnt = line.split("mnt_pt:")[1].split(",")[0].strip()
        fs[fid] = line.split("fs_type:")[1].strip() + ":" + mnt
    elif w and w[0] == "X_POSIX" and w[2] == "write":
        seg.append((float(w[6]), float(w[7]), int(w[1]), fid, int(w[5])))
o = json.loads(open(sys.argv[2]).readline())
assert len(o["phases"]) >= 10, len(o["phases"])
covered = 0
for p in o["phases"]:
    ins = [s for s in seg if s[0] >= p["start"] - 1e-9 and s[1] <= p["end"] + 1e-9]
    covered += len(ins)
    per = {}
    for s in ins:
        per[s[2]] = per.get(s[2], 0) + s[4]
    got = (p["ranks"], p["skew_bytes"], p["files"], p["bytes"], p["fs"])
    want = (len(per), max(per.values()), len({s[3] for s in ins}), sum(s[4] for s in ins),
            fs[ins[0][3]])
    assert got == want, "phase at %.3f: ftio %s, the log %s" % (p["start"], got, want)
assert covered == len(seg), "%d of %d segments in a phase" % (covered, len(seg))
print("ok: %d DXT phases" % len(o["phases"]))
PYEOF
ok "DXT phases are what the log holds"
finish
