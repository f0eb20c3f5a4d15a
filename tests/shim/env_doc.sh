#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# env_doc.sh -- libftio(7) documents every FTIO_* variable of the shim's one
# table (env_vars[] in libtrace/config.c, between its BEGIN/END
# ftio-env-table markers) and no other: the same names, and for the integers
# the same "[lo, hi]; default d", for the flags the same "Flag, default d",
# for the strings "Default s" or "s (default)".
# The man page's "Not read by the shim" section is left out.  Fails on the
# code before the table (there was none, and FTIO_IGNORE_PROGRAMS was
# undocumented).
. "$(dirname "$0")/../lib.sh"
"$PY" - "$ROOT/libtrace/config.c" "$ROOT/man/libftio.7" "$ROOT/common/defaults.h" <<'PYEOF' || fail "the table and libftio(7) differ (above)"
import re, sys
src, man, hdr = (open(p, encoding="utf-8").read() for p in sys.argv[1:4])
m = re.search(r"/\* BEGIN ftio-env-table \*/(.*?)/\* END ftio-env-table \*/", src, re.S)
if not m:
    sys.exit("config.c: no ftio-env-table markers")
row = re.compile(r'\[V_\w+\]\s*=\s*\{\s*"(FTIO_[A-Z_]+)",\s*(ENV_\w+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),'
                 r'\s*(NULL|\w+|"[^"]*"),')
body = m.group(1)
rows = {r[0]: r[1:] for r in row.findall(body)}
if len(rows) != body.count("[V_") or not rows:
    sys.exit("config.c: %d rows read of %d (a row not in the expected form?)" % (len(rows), body.count("[V_")))
# The man page: ".TP / .B FTIO_X / paragraph" entries before "Not read by the shim".
text = man.split(".SS Not read by the shim")[0]
doc = {}
for e in re.finditer(r"^\.TP\n\.B (FTIO_[A-Z_]+)\n(.*?)(?=^\.(?:TP|SS|SH)\b|\Z)", text, re.S | re.M):
    para = re.sub(r"\\f[BIRP]|\\[&:%]", "", e.group(2)).replace("\\-", "-")
    doc[e.group(1)] = " ".join(para.split())
bad = 0
def fail(msg):
    global bad
    print("FAIL:", msg); bad += 1
for name in sorted(set(rows) - set(doc)):
    fail("%s is in config.c's table but not documented in man/libftio.7" % name)
for name in sorted(set(doc) - set(rows)):
    fail("%s is documented in man/libftio.7 but not in config.c's table" % name)
def c_string(expr):
    """A text default: a literal, a macro of common/defaults.h, or a static
    array of config.c (adjacent literals)."""
    if expr.startswith('"'):
        return expr[1:-1]
    d = re.search(r'^#define %s\s+"([^"]*)"' % expr, hdr, re.M)
    if d:
        return d.group(1)
    a = re.search(r"\b%s\[\]\s*=\s*((?:\s*\"[^\"]*\")+)\s*;" % expr, src)
    if not a:
        sys.exit("config.c: cannot read the default %s" % expr)
    return "".join(re.findall(r'"([^"]*)"', a.group(1)))
for name, (kind, d, lo, hi, text) in sorted(rows.items()):
    if name not in doc:
        continue
    want = {"ENV_INT": "[%s, %s]; default %s." % (lo, hi, d), "ENV_FLAG": "Flag, default %s" % d}.get(kind)
    if kind == "ENV_TEXT" and text != "NULL" and c_string(text):
        t = c_string(text)
        if "Default %s" % t not in doc[name] and "%s (default)" % t not in doc[name]:
            fail("%s: man/libftio.7 does not say 'Default %s' (or '%s (default)')" % (name, t, t))
        continue
    if want and want not in doc[name]:
        fail("%s: man/libftio.7 does not say '%s': %s" % (name, want, doc[name][:200]))
print("ok: %d variables in the table, %d documented" % (len(rows), len(doc)))
sys.exit(1 if bad else 0)
PYEOF
ok "libftio(7) and config.c's table agree"
finish
