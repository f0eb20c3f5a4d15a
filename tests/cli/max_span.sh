#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# max_span.sh -- one bad timestamp does not make a bogus answer: a CSV row
# whose t_end was mutated from 26.050 to 268050 gave a window of [0, 268050] s,
# 197 MB and a "next phase" three days later at confidence 0.998 with exit 0.
# Now a request longer than --max-span (default 3600 s, ftiod's --horizon)
# is dropped with one warning line, the rest is analysed as before; the
# option has bounds; ftio scan's row carries the warning.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
need "$FTIO"

awk -F, 'BEGIN { OFS = "," } $4 == "26.050" && !done { $4 = "268050"; done = 1 } { print }' \
  tests/data/sample.csv >"$T/mut.csv"
cmp -s tests/data/sample.csv "$T/mut.csv" && fail "no row with t_end 26.050 to mutate"
"$FTIO" --json -m write "$T/mut.csv" >"$T/out.json" 2>"$T/err"; rc=$?
[ $rc = 0 ] || bad "mutated CSV: exit $rc $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^ftio: warning: 1 requests longer than --max-span 3600 s dropped" "$T/err" ||
  bad "mutated CSV: stderr: $(cat "$T/err")"
"$PY" - "$T/out.json" <<'PY' || bad "mutated CSV: answer (above)"
import json, sys
r = json.load(open(sys.argv[1]))
w = r["window"]
ok = w["end"] < 100 and abs(r["period"] - 5) < 0.25 and r["next"]["start"] < 100
print("window", w, "period", r["period"], "next", r["next"]["start"], "records", r["records"])
sys.exit(0 if ok else 1)
PY
ok "a 268050 s request dropped with a warning; the answer is the unmutated trace's"

# the option: a longer span keeps it (the window then covers it), bounds checked
"$FTIO" --json -m write -f 0.5 --max-span 1e6 "$T/mut.csv" >"$T/out2.json" 2>"$T/err2" ||
  bad "--max-span 1e6: $(cat "$T/err2")"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["window"]["end"] > 2e5 else 1)' \
  "$T/out2.json" || bad "--max-span 1e6 dropped the long request"
grep -q "max-span" "$T/err2" && bad "--max-span 1e6 still warns: $(cat "$T/err2")"
for v in 0 0.5 1e10 x; do
  "$FTIO" --max-span $v tests/data/sample.csv >/dev/null 2>"$T/err3"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$T/err3")" = 1 ] && grep -q "^ftio: --max-span: " "$T/err3" ||
    bad "--max-span $v: exit $rc $(cat "$T/err3")"
done
ok "--max-span: 1e6 keeps it, out-of-bounds values are one line and exit 2"

# ftio scan: the same default, the row says so
"$FTIO" scan --quiet --jsonl "$T/rows.jsonl" "$T/mut.csv" >/dev/null 2>&1 || bad "scan of the mutated CSV failed"
grep -q '"warning":"1 requests longer than 3600 s dropped"' "$T/rows.jsonl" || bad "scan row: $(cat "$T/rows.jsonl")"
finish
