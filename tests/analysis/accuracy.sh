#!/bin/sh
# accuracy.sh -- the accuracy regression test: a fixed subset of the
# benchmark (bench/accuracy-gen --subset: 2 traces of 25 combinations, every
# family), scored by bench/accuracy_eval.py offline, online and through ftiod
# (one trace per family), for the robust default and --compat; fails when a
# figure falls below the thresholds at the end (a little below what
# bench/accuracy measured on this subset; bench/README.md has the figures).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need "$B/bench/accuracy-gen" "$B/bin/ftio" "$B/bin/ftiod"
"$B/bench/accuracy-gen" "$T/traces" --subset --spool || fail "accuracy-gen"
# detector group key op value (groups: sweep_(ACCURACY.md), extra_families, all, daemon,
# calib_hi: the share within 10 % of the answers with confidence >= 0.8)
cat >"$T/thresholds" <<'EOT'
robust sweep_(ACCURACY.md) within10 >= 98
robust sweep_(ACCURACY.md) harmonic <= 1
robust sweep_(ACCURACY.md) mean_err <= 1
robust extra_families within10 >= 98
robust all settled_by_4 >= 80
robust all wrong_after_right <= 2
robust all next_err_median <= 2
robust all next_in_past <= 0
robust all bytes_err_median <= 2
robust daemon next_in_past <= 0
robust daemon settled_by_4 >= 85
robust calib_hi share >= 95
robust activities within10 >= 95
compat sweep_(ACCURACY.md) within10 >= 70
compat sweep_(ACCURACY.md) within10 <= 85
EOT
"$PY" bench/accuracy_eval.py "$T/traces" --ftio "$B/bin/ftio" --ftiod "$B/bin/ftiod" --daemon 1 \
  --check "$T/thresholds"
