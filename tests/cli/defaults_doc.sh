#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# defaults_doc.sh -- the default endpoints have one home, common/defaults.h:
# every man page that spells one out spells the header's (ftiod --listen,
# --pub, --status-endpoint, the SPANK plugin's status=, ftio end / sub /
# replay / relay, ftio-run, the shim's FTIO_ENDPOINT), no man page names a
# loopback endpoint the header does not define, and ftiod --print-config
# prints the header's.  Fails when a default is changed in one place only.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod"
"$B/bin/ftiod" --config none --print-config >"$T/conf" 2>"$T/conf.err" || fail "ftiod --print-config: $(cat "$T/conf.err")"
"$PY" - "$ROOT" "$T/conf" <<'PYEOF' || fail "a man page or ftiod disagrees with common/defaults.h (above)"
import re, sys
root, conf = sys.argv[1], open(sys.argv[2]).read()
hdr = open(root + "/common/defaults.h").read()
val = dict(re.findall(r'^#define (FTIO_DEFAULT_\w+)\s+"([^"]*)"', hdr, re.M))
need = ("FTIO_DEFAULT_ENDPOINT", "FTIO_DEFAULT_PUB", "FTIO_DEFAULT_STATUS", "FTIO_DEFAULT_RELAY_SOCKET")
if any(n not in val for n in need):
    sys.exit("common/defaults.h: expected %s, read %s" % (", ".join(need), val))
E, P, S, R = (val[n] for n in need)
def page(name):
    t = open(root + "/man/" + name).read()
    return re.sub(r"\\f[BIRP]|\\[&:%]", "", t).replace("\\-", "-")
endpoint = re.compile(r"tcp://[0-9.]+:\d+|ipc://[\w./-]*\w")
# (page, the text that introduces the default, what the first endpoint after it must be)
checks = [("ftiod.1", '.BI --listen " E"', E), ("ftiod.1", '.BI --pub " E"', P),
          ("ftiod.1", '.BI --status-endpoint " E"', S), ("ftiod.1", ".BI status= E", S),
          ("ftio.1", "tells ftiod (its status endpoint", S), ("ftio.1", "ftiod's PUB endpoint (default", P),
          ("ftio.1", ".B --last\n", S), ("ftio.1", "ftiod's ingest endpoint, its", E),
          ("ftio.1", ".SS ftio relay", R), ("ftio-run.1", '.BI --endpoint " E"', E),
          ("libftio.7", ".B FTIO_ENDPOINT\n", E)]
bad = 0
for name, intro, want in checks:
    t = page(name)
    i = t.find(intro)
    m = endpoint.search(t, i) if i >= 0 else None
    if not m:
        print("FAIL: man/%s: no '%s' followed by an endpoint" % (name, intro.strip())); bad += 1
    elif m.group(0) != want:
        print("FAIL: man/%s: after '%s' the default is %s, common/defaults.h says %s" % (name, intro.strip(), m.group(0), want)); bad += 1
    else:
        print("ok: man/%s %s: %s" % (name, intro.strip(), want))
for name in ("ftiod.1", "ftio.1", "ftio-run.1", "libftio.7"):
    for ep in sorted(set(re.findall(r"tcp://127\.0\.0\.1:\d+", page(name))) - set(val.values())):
        print("FAIL: man/%s names %s, not a default of common/defaults.h" % (name, ep)); bad += 1
for key, want in (("listen", E), ("pub", P), ("status-endpoint", S)):
    if not re.search(r"^#?%s = %s$" % (re.escape(key), re.escape(want)), conf, re.M):
        print("FAIL: ftiod --print-config: %s is not %s" % (key, want)); bad += 1
sys.exit(1 if bad else 0)
PYEOF
ok "the man pages and ftiod give common/defaults.h's endpoints"
finish
