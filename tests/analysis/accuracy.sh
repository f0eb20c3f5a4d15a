#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: offline analyses, and replays into ftiod --catch-up every,
#                       whose messages are those of ftio --window whenever they are made)
# suite-timeout: 900   (about 70 s of two cores; at nice 5 beside a loaded machine, 300 s was not enough)
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
# Settling (every message within 5 % from phase k on) by phase 4: the
# families of issue 16 cannot all do it by construction (a drifting period
# changes every phase and needs 6 intervals to show its trend; two heights
# and 6x bandwidths make alternating intervals), so "all" and "daemon" (one
# trace per family, 4 of 12 from those families) are lower than before they
# came; on this subset the previous detector settles the same share of the
# sweep (76.7 %), fewer of the families (65.0 % vs 72.5 %) and is wrong
# after right 23.6 % of the time on them (now 1.3 %).
# detector group key op value (groups: sweep_(ACCURACY.md), extra_families, all, daemon,
# calib_hi: the share within 10 % of the answers with confidence >= 0.8;
# job_job_level: the job-level answers of the activity and adversarial
# families against their dominant activity, issue 28 -- the old code: 25 %
# within 10 %, half of them periodic and wrong; calib_hi_adversarial_all:
# the adversarial families with those answers)
cat >"$T/thresholds" <<'EOT'
robust sweep_(ACCURACY.md) within10 >= 98
robust sweep_(ACCURACY.md) harmonic <= 1
robust sweep_(ACCURACY.md) mean_err <= 1
robust extra_families within10 >= 98
robust sweep_(ACCURACY.md) settled_by_4 >= 73
robust all settled_by_4 >= 70
robust all wrong_after_right <= 2
robust extra_families wrong_after_right <= 3
robust all next_err_median <= 2
robust all next_in_past <= 0
robust all bytes_err_median <= 2
robust daemon next_in_past <= 0
robust daemon settled_by_4 >= 60
robust calib_hi share >= 95
robust activities within10 >= 95
robust job_job_level within10 >= 98
robust job_job_level periodic_off10 <= 0
robust job_job_level online_periodic_off_named <= 1
robust calib_hi_adversarial_all share >= 98
compat sweep_(ACCURACY.md) within10 >= 70
compat sweep_(ACCURACY.md) within10 <= 85
EOT
"$PY" bench/accuracy_eval.py "$T/traces" --ftio "$B/bin/ftio" --ftiod "$B/bin/ftiod" --daemon 1 \
  --check "$T/thresholds"
