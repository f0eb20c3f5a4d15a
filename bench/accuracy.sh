#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/accuracy.sh -- the accuracy benchmark: generates the semi-synthetic
# sweep of docs/ACCURACY.md (300 traces, 12 per combination) and the extra
# families (short pulse trains, read + write, varying volumes, a period
# change; what real codes do: phase bandwidths varying 6x, phases of two
# heights, a page-cache spike then a plateau, a drifting period), the
# activity families and the adversarial ones of issue 28 (three phases,
# random start delays, two activities of 10 s and 60 s, small frequent
# outputs beside big checkpoints) with bench/accuracy-gen, and scores the
# robust default and
# --compat offline (`ftio`), online (`ftio --window`: ftiod's messages) and
# through ftiod itself (replay, ACCURACY_DAEMON traces per family, default 2)
# with bench/accuracy_eval.py.  Figures go to bench/README.md by hand.
#   ACCURACY_SEED (1), ACCURACY_PER_COMBO (12), ACCURACY_DAEMON (2)
B=${B:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-accuracy.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
"$B/bench/accuracy-gen" "$T" --seed "${ACCURACY_SEED:-1}" --per-combo "${ACCURACY_PER_COMBO:-12}" \
  --spool || exit 1
"$PY" "$(dirname "$0")/accuracy_eval.py" "$T" --ftio "$B/bin/ftio" --ftiod "$B/bin/ftiod" \
  --daemon "${ACCURACY_DAEMON:-2}" "$@"
