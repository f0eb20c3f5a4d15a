#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# torch_save.sh -- a PyTorch training loop that checkpoints with
# torch.save(obj, path) every K steps (python3-torch, Debian's /usr/bin/python3;
# PyTorch writes the file through a C++ stream): live under ftiod, the
# checkpoint activity's bytes are the files' sizes and its period is within
# 5 % of the program's own save times (its log: the range from the median
# interval to the mean), and the job is complete.
. "$(dirname "$0")/../lib.sh"
need "$SHIM"
TORCH_PY=/usr/bin/python3
"$TORCH_PY" -c 'import torch' 2>"$T/import.err" \
  || fail "no PyTorch for $TORCH_PY (make check installs python3-torch): $(tail -1 "$T/import.err")"
start_daemon d --settle-end 2
mkdir -p "$T/run"
# 12 saves, every 5 steps of 0.24 s: a checkpoint every 1.2 s.
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=torch \
  traced "$TORCH_PY" "$(dirname "$0")/torch_ckpt.py" "$T/run" 12 5 0.24 2>"$T/torch.err" \
  || fail "the PyTorch loop failed: $(tail -3 "$T/torch.err")"
wait_topic "$T/d.log" ftio.torch.end 60
sizes=$(cat "$T"/run/ckpt_*.pt | wc -c)
[ "$(ls "$T"/run/ckpt_*.pt | wc -l)" = 12 ] && ok "12 checkpoints written ($sizes bytes)" || bad "checkpoints: $(ls "$T/run")"
# The program's own period, from its save times: it sleeps to a deadline, so
# on a loaded machine a late save is followed by a short interval, and two
# answers are right, the usual interval (the median) and the rate the saves
# came at (the mean); the truth is the range between them, as in
# tests/daemon/phase_truth.py.
truth=$("$PY" -c '
import statistics, sys
t = [float(l.split()[0]) for l in open(sys.argv[1])]
d = [b - a for a, b in zip(t, t[1:])]
print(*sorted((statistics.median(d), statistics.fmean(d))))' "$T/run/saves.log")
act() { jsonl "$T/d.log" "[a for a in last('ftio.torch.end')['summary']['write']['activities'] if 'ckpt_' in a['pattern']][0]$1"; }
b=$(act "['bytes']" | cut -d. -f1)
[ "$b" = "$sizes" ] && ok "checkpoint activity: $b bytes = the files' sizes" || bad "checkpoint activity bytes '$b', files $sizes"
p=$(act "['period']")
in_range() { "$PY" -c 'import sys; p, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo * 0.95 <= p <= hi * 1.05)' "$@"; }
in_range "$p" $truth && ok "checkpoint period $p s within 5 % of the program's median..mean $truth s" \
  || bad "checkpoint period '$p' s, the program's median..mean $truth s ($(act ''))"
[ "$(jsonl "$T/d.log" 'last("ftio.torch.end")["complete"]')" = True ] && ok "the job's .end is complete" \
  || bad ".end: $(jsonl "$T/d.log" 'last("ftio.torch.end")')"
u=$(jsonl "$T/d.log" 'last("ftio.torch.end")["unseen_bytes"]["write"]')
ok "unseen bytes written: $u"
finish
