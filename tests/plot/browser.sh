#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# browser.sh -- ftio's pictures in a real browser: headless Chromium (Debian
# package chromium, installed by mk/deps.sh) renders
#   offline   ftio --window adaptive --plot on a periodic trace of 4 simulated
#             ranks (ftio-wire spool files: 12 phases of 0.8 s every 4 s),
#   many      500 periods: the overview without the phase train (it would be
#             a solid block) and a second chart of the last periods with it,
#   compat    ftio --compat --plot on the TMIO reference trace (cosine,
#             z-score threshold; its reads in a second section),
#   report    ftio report on the --log of a live ftiod that followed a paced
#             periodic job writing and reading,
#   disagree  ftio --plot on the TMIO reference, whose tallest spectral line
#             is not the answer: marked, labelled and explained,
#   machine   ftio report --machine on the machine messages of a live ftiod
#             that followed two paced jobs on one file system (observed and
#             predicted aggregate, each job a band, the collisions),
# and for each the DOM it parsed must hold the SVG elements (signal path,
# phase rects, reconstruction, next phase, spectrum with threshold and
# candidates, one history point per published analysis), and the screenshot
# must be a picture: many colours, ink beyond the background, and pixels of
# the signal's, the phases', the next phase's and the candidates' colours.
# The pages must not reach the network (no http(s) URL but the SVG namespace,
# no script).  If Chromium cannot start, the test fails and says why.
. "$(dirname "$0")/../lib.sh"
FTIO="$B/bin/ftio"
need "$FTIO" "$B/bin/ftiod" "$WIRE"
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome) \
  || fail "no Chromium (Debian package chromium; mk/deps.sh installs it)"
DOM="$PY $HERE/../plot/dom_count.py"
PNG="$PY $HERE/../plot/png_check.py"
D="$HERE/../data"

# chrome what ARGS...: headless Chromium with a private profile; its output
# (stdout) as given by the caller.
chrome() {
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$T/chrome" --disable-extensions "$@" 2>>"$T/chrome.log"
}

# render NAME HEIGHT: $T/NAME.html -> $T/NAME.png and $T/NAME.dom, from one
# start of Chromium (it takes the screenshot and dumps the DOM it parsed)
render() {
  rm -f "$T/$1.png"
  chrome --screenshot="$T/$1.png" --dump-dom --window-size=1040,$2 "file://$T/$1.html" >"$T/$1.dom"
  [ -s "$T/$1.png" ] || fail "Chromium made no screenshot of $1.html: $(grep -v -i 'dbus\|fontconfig' "$T/chrome.log" | tail -3)"
  [ -s "$T/$1.dom" ] || fail "Chromium dumped no DOM of $1.html"
}

# expect NAME QUERY OP N: the count of QUERY (dom_count.py) in NAME.dom
expect() {
  n=$($DOM "$T/$1.dom" "$2") || fail "dom_count $2"
  [ "$n" "$3" "$4" ] || fail "$1: $2: $n elements, expected $3 $4"
  echo "ok: $1: $2 = $n"
}

# plot NAME HEIGHT ARGS...: `ftio --plot $T/NAME.html ARGS` (stderr in
# $T/NAME.err), then render the page
plot() {
  name=$1 height=$2
  shift 2
  timeout 60 "$FTIO" --plot "$T/$name.html" "$@" >/dev/null 2>"$T/$name.err" \
    || fail "ftio --plot ($name): $(cat "$T/$name.err")"
  render "$name" "$height"
}

# expects NAME <<EOF: `expect NAME QUERY OP N` for each line "QUERY OP N"
expects() {
  while read -r query op n; do
    expect "$1" "$query" "$op" "$n"
  done
}

self_contained() {
  if grep -Eo '(https?:)?//[A-Za-z0-9.-]+' "$T/$1.html" | grep -v '^http://www.w3.org' | grep -q .; then
    fail "$1.html refers to the network: $(grep -Eo 'https?://[^" ]+' "$T/$1.html" | grep -v w3.org | head -3)"
  fi
  grep -qi '<script\|<link\|<img\|@import' "$T/$1.html" && fail "$1.html loads something"
  echo "ok: $1: self-contained"
}

# The live parts, the report's job (4 s) and the machine part's two jobs
# (20 s), run from the start, each to its own ftiod, while the pages of files
# are drawn (nothing there depends on time).
start_daemon d
timeout 60 "$WIRE" periodic --endpoint "ipc://$T/d.in" --job live --ranks 2 --period 2 \
  --duration 0.4 --bytes 20000000 --phases 8 --speed 4 --read >/dev/null 2>"$T/gen.err" &
PIDS="$PIDS $!"; LIVE=$!
start_daemon m --machine-log 1 --machine-horizon 60 --machine-history 30
FTIO_AUTH=none "$WIRE" phases --endpoint "ipc://$T/m.in" --live --job mja --ranks 2 --period 3 \
  --phases 6 --first 0.5 >/dev/null 2>"$T/mja.err" & PIDS="$PIDS $!"; MJA=$!
FTIO_AUTH=none "$WIRE" phases --endpoint "ipc://$T/m.in" --live --job mjb --ranks 3 --period 4 \
  --phases 5 --first 0.6 >/dev/null 2>"$T/mjb.err" & PIDS="$PIDS $!"; MJB=$!

# ---- offline: ftio --window adaptive --plot ---------------------------------
mkdir -p "$T/spool"
"$WIRE" periodic --spool "$T/spool" --job plotjob --ranks 4 --period 4 --duration 0.8 \
  --bytes 50000000 --phases 12 || fail "ftio-wire"
timeout 60 "$FTIO" --window adaptive --plot "$T/offline.html" "$T"/spool/*.msgpack >"$T/offline.txt" \
  2>"$T/offline.err" || fail "ftio --plot: $(cat "$T/offline.err")"
steps=$(grep -c '^\[' "$T/offline.txt")
[ "$steps" -ge 10 ] || fail "ftio --window printed $steps steps"
render offline 2000
self_contained offline
expects offline <<EOF
path.signal = 1
rect.phase = 12
path.reconstruction = 1
rect.next = 1
svg.spectrum-chart/path.spectrum = 1
svg.spectrum-chart/line.threshold = 1
circle.candidate.dominant = 1
svg.history-period/circle.history-point = $steps
svg.history-confidence/circle.history-point = $steps
svg.history-error/circle -ge 3
svg.history-error/path.history-error-line = 1
svg.history-bytes/circle.history-point -ge 5
EOF
$PNG "$T/offline.png" --min-colours 64 --min-ink 0.10 --colour signal=1d4ed8:300 \
  --colour phase=fdeac9:1000 --colour next=15803d:40 --colour candidate=ea580c:20 \
  --colour reconstruction=dc2626:100 || fail "offline screenshot"

# ---- many periods: the overview without a (solid) train, then a zoom on the
# last periods with the train and the next phase ------------------------------
mkdir -p "$T/many"
"$WIRE" periodic --spool "$T/many" --job many --ranks 1 --period 1 --duration 0.1 \
  --bytes 1000000 --phases 500 || fail "ftio-wire many"
plot many 1200 -f 50 "$T"/many/*.msgpack
expects many <<EOF
svg.bandwidth/path.signal = 1
svg.bandwidth/path.reconstruction = 0
svg.bandwidth-zoom/path.signal = 1
svg.bandwidth-zoom/path.reconstruction = 1
svg.bandwidth-zoom/rect.next = 1
svg.bandwidth-zoom/rect.phase -ge 5
svg.bandwidth-zoom/rect.phase -le 7
EOF
[ "$(wc -c <"$T/many.html")" -lt 400000 ] || fail "many.html is $(wc -c <"$T/many.html") bytes"

# ---- compat: the cosine and the z-score threshold ---------------------------
plot compat 1100 --compat "$D/tmio-8ranks.jsonl"
expects compat <<EOF
section.run = 2
run-1/path.signal = 1
rect.phase = 0
run-1/path.reconstruction = 1
run-1/svg.spectrum-chart/line.threshold = 1
run-1/circle.candidate -ge 1
svg.history-period = 0
EOF
$PNG "$T/compat.png" --min-colours 64 --min-ink 0.10 --colour signal=1d4ed8:300 \
  --colour candidate=ea580c:20 --colour threshold=dc2626:100 || fail "compat screenshot"

# ---- report: a live job in ftiod's --log -------------------------------------
# (it has run since the start)
wait "$LIVE" || fail "ftio-wire live: $(cat "$T/gen.err")"
wait_topic "$T/d.log" "ftio.live.end" 30
nw=$(jsonl "$T/d.log" "len(all_of('ftio.live.write'))")
nr=$(jsonl "$T/d.log" "len(all_of('ftio.live.read'))")
# The chart leaves out a point that would cover the previous one (plot_page.c):
# the end's analysis and the last boundary's can be published in the same
# millisecond.  So: at least one point per message published 0.1 s or more
# after the one before it, at most one point per message.
apart() {
  jsonl "$T/d.log" "sum(1 for i, m in enumerate(all_of('$1')) if i == 0 or abs(m['published'] - all_of('$1')[i-1]['published']) >= 0.1)"
}
dw=$(apart ftio.live.write)
dr=$(apart ftio.live.read)
[ "$dw" -ge 3 ] && [ "$dr" -ge 3 ] || fail "write and read messages apart in time: $dw and $dr"
[ "$nw" -ge 3 ] && [ "$nr" -ge 3 ] || fail "ftiod published $nw write and $nr read messages"
timeout 60 "$FTIO" report "$T/d.log" -o "$T/report.html" >"$T/report.out" 2>"$T/report.err" \
  || fail "ftio report: $(cat "$T/report.err")"
grep -q "wrote $T/report.html (job live, $nw write and $nr read predictions)" "$T/report.out" \
  || fail "ftio report said: $(cat "$T/report.out")"
render report 2600
self_contained report
expects report <<EOF
section.run = 2
run-1/svg.history-period/circle.history-point -ge $dw
run-1/svg.history-period/circle.history-point -le $nw
run-2/svg.history-period/circle.history-point -ge $dr
run-2/svg.history-period/circle.history-point -le $nr
run-1/svg.history-confidence/line.level = 1
run-1/svg.history-error/circle -ge 2
run-1/svg.bandwidth/path.signal = 1
run-2/svg.bandwidth/path.signal = 1
run-1/svg.bandwidth/rect.phase -ge 1
run-1/div.meta/div.fact -ge 3
run-1/svg.history-total/path.history-total = 1
EOF
expect offline "svg.history-total" = 0
expect report "p.note" = 2
$PNG "$T/report.png" --min-colours 32 --min-ink 0.05 --colour periodic=16a34a:100 \
  --colour error=7c3aed:50 --colour signal=1d4ed8:100 --colour phase=fdeac9:200 \
  || fail "report screenshot"

# ---- the tallest line that is not the answer: marked, labelled, explained ----
plot disagree 1300 "$D/tmio-8ranks.jsonl"
expects disagree <<EOF
svg.spectrum-chart/circle.disagree-line = 1
svg.spectrum-chart/text.disagree-label = 1
p.disagree = 1
div.meta/div.fact -ge 1
EOF
$PNG "$T/disagree.png" --min-colours 32 --min-ink 0.05 --colour disagree=7c2d12:30 \
  || fail "disagree screenshot"

# ---- machine: ftio report --machine on a live ftiod's machine messages -------
# (its jobs have run since the start)
wait "$MJB" || fail "ftio-wire phases: $(cat "$T/mjb.err")"
wait "$MJA" || fail "ftio-wire phases: $(cat "$T/mja.err")"
# the message with both jobs' phases listed that came last
at=$(jsonl "$T/m.log" "max([m['published'] for t, m in msgs if t == 'ftio.machine' and len(m['jobs']) >= 2] or [0])")
[ "$at" != 0 ] || fail "no machine message listed both jobs"
timeout 60 "$FTIO" report --machine "$T/m.log" --at "$at" -o "$T/machine.html" >"$T/machine.out" \
  2>"$T/machine.err" || fail "ftio report --machine: $(cat "$T/machine.err")"
render machine 1500
self_contained machine
expects machine <<EOF
section.machine = 1
svg.machine-chart = 1
svg.machine-chart/path.observed = 1
svg.machine-chart/path.forecast = 1
svg.machine-chart/path.band = 2
svg.machine-chart/line.now = 1
svg.machine-active/path.active = 1
div.legend/i.b1 = 1
EOF
$PNG "$T/machine.png" --min-colours 32 --min-ink 0.05 --colour observed=bfdbfe:200 \
  --colour band0=f59e0b:200 --colour band1=10b981:200 || fail "machine screenshot"
echo ok
