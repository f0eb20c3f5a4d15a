#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# options.sh -- one CLI: every command parses its options from one table
# (common/cliopt.c) and the analysis options share their bounds
# (predictor/options/analysis_options.c).  Checks, for ftio, ftio sub, ftio replay,
# ftio end and ftiod:
#  - the same spellings work everywhere: -f10, -f 10, --freq=10, --freq 10;
#  - out-of-bounds values are refused with the same one line and exit 2;
#  - --help exits 0, names every option, and every option it names is in the
#    man page; ftiod.1 states each of ftiod's defaults as its table does, and
#    names the variables of its env column;
#  - ftiod's configuration file: a value is taken, the command line wins, a
#    bad line is "FILE:LINE: ..." with exit 2; packaging/ftiod.conf is what
#    `ftiod --print-config` prints;
#  - `ftio sub` on an endpoint nobody serves exits 1 within its --timeout;
#  - `ftiod --status` still shows a job after it ended, `ftio sub --last`
#    still answers for it, and --status asks several daemons.
. "$(dirname "$0")/../lib.sh"
cd "$HERE/../.." || exit 1
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
FTIO="$B/bin/ftio"; FTIOD="$B/bin/ftiod"
D=tests/data
bad=0
ok() { echo "ok: $*"; }
no() { echo "FAIL: $*"; bad=1; }

# run CMD...: status in $rc, stdout in $T/out, stderr in $T/err
run() { timeout 30 "$@" >"$T/out" 2>"$T/err"; rc=$?; }
# refused LINE-REGEX CMD...: exit 2, exactly one line on stderr matching, nothing on stdout
refused() {
  pat=$1; shift
  run "$@"
  if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq -- "$pat" "$T/err" && [ ! -s "$T/out" ]; then
    ok "$* -> $(cat "$T/err")"
  else
    no "$* -> exit $rc, stderr '$(cat "$T/err")', want one line /$pat/ and exit 2"
  fi
}

# ---- spellings ---------------------------------------------------------------
for spelling in "-f7" "-f 7" "--freq=7" "--freq 7"; do
  # shellcheck disable=SC2086
  run "$FTIO" $spelling "$D/custom.json"
  if [ "$rc" = 0 ] && grep -q "fs 7 Hz" "$T/out"; then ok "ftio $spelling"; else no "ftio $spelling: $(cat "$T/err")"; fi
  # shellcheck disable=SC2086
  run "$FTIO" $(echo "$spelling" | sed 's/7/0/') "$D/custom.json"; a=$(cat "$T/err")
  # shellcheck disable=SC2086
  run "$FTIOD" --config none $(echo "$spelling" | sed 's/7/0/'); b=$(cat "$T/err")
  [ "${a#ftio: }" = "${b#ftiod: }" ] && [ "$rc" = 2 ] && ok "ftio/ftiod $spelling out of bounds: $a" \
    || no "ftio/ftiod differ on ${spelling}: '$a' vs '$b'"
done
run "$FTIO" -ts 1 -te 10 -t0.5 -m write "$D/custom.json"
[ "$rc" = 0 ] && ok "ftio -ts 1 -te 10 -t0.5 -m write" || no "single-dash long options: $(cat "$T/err")"
# ftio sub and ftio end name the endpoint they could not reach: the value was taken.
for spelling in "-e" "-e " "--endpoint=" "--endpoint "; do
  ep="ipc://$T/nobody"
  # shellcheck disable=SC2086
  run "$FTIO" sub $spelling$ep --timeout 0.3
  [ "$rc" = 1 ] && grep -q "$ep" "$T/err" && ok "ftio sub $spelling$ep" || no "ftio sub $spelling: exit $rc $(cat "$T/err")"
  # shellcheck disable=SC2086
  run "$FTIO" end $spelling$ep --timeout 0.3 job1
  [ "$rc" = 1 ] && grep -q "$ep" "$T/err" && ok "ftio end $spelling$ep" || no "ftio end $spelling: exit $rc $(cat "$T/err")"
done
# A repeated --endpoint is one list: each daemon named is asked (the joined
# list lives as long as the command).
for cmd in "end job1" "claim job1 root"; do
  # shellcheck disable=SC2086
  run "$FTIO" ${cmd%% *} --endpoint "ipc://$T/nobody1" --endpoint "ipc://$T/nobody2" --timeout 0.3 ${cmd#* }
  [ "$rc" = 1 ] && grep -q "ipc://$T/nobody1 " "$T/err" && grep -q "ipc://$T/nobody2 " "$T/err" \
    && ok "ftio $cmd: a repeated --endpoint asks both" || no "ftio $cmd, --endpoint twice: exit $rc $(cat "$T/err")"
done
for spelling in "-s0" "-s 0" "--speed=0" "--speed 0"; do
  # shellcheck disable=SC2086
  refused '^ftio replay: --speed: must be in \(0, [0-9]+\], not 0$' "$FTIO" replay $spelling x.msgpack
done
for spelling in "-c0" "-c 0" "--count=0" "--count 0"; do
  # shellcheck disable=SC2086
  refused '^ftio sub: --count: must be in \[1, [0-9]+\], not 0$' "$FTIO" sub $spelling
done

# ---- the shared analysis options: the same bounds, the same words ------------
for args in "--tol 1.5" "--tol 0" "--freq 20000" "--step 0" "--window -1" "--window x" \
            "--sampling spline" "--max-memory 0" "--freq abc" "--detector fft"; do
  # shellcheck disable=SC2086
  run "$FTIO" $args "$D/custom.json"; a=$(cat "$T/err"); ra=$rc
  # shellcheck disable=SC2086
  run "$FTIOD" --config none $args; b=$(cat "$T/err")
  case $args in --freq*|--compat*)   # the options ftio scan shares
    # shellcheck disable=SC2086
    run "$FTIO" scan $args "$D/custom.json"; c=$(cat "$T/err")
    [ "${c#ftio scan: }" = "${a#ftio: }" ] || no "ftio scan $args: '$c' vs '$a'" ;;
  esac
  if [ "$ra" = 2 ] && [ "$rc" = 2 ] && [ "${a#ftio: }" = "${b#ftiod: }" ] && \
     echo "$a" | grep -Eq -- "^ftio: --[a-z-]+: must be "; then
    ok "$args: $a"
  else
    no "$args: ftio '$a' (exit $ra), ftiod '$b' (exit $rc)"
  fi
done
refused '^ftio: --tol: must be in \(0, 1\], not 1.5$' "$FTIO" --tol 1.5 "$D/custom.json"
refused '^ftiod: --tol: must be in \(0, 1\], not 1.5$' "$FTIOD" --config none -t1.5
refused '^ftio sub: --timeout: must be in \[0, [0-9]+\], not -1$' "$FTIO" sub --timeout=-1
refused '^ftio end: --timeout: must be in \(0, 3600\], not 0$' "$FTIO" end --timeout 0 j
refused "^ftio: unknown option '--bogus'" "$FTIO" --bogus "$D/custom.json"
refused "^ftio sub: unknown option '--bogus'" "$FTIO" sub --bogus
refused "^ftio replay: unknown option '--bogus'" "$FTIO" replay --bogus x
refused "^ftio end: unknown option '--bogus'" "$FTIO" end --bogus
refused "^ftiod: unknown option '--bogus'" "$FTIOD" --bogus
refused "^ftiod: --json takes no value" "$FTIOD" --json=1
refused "^ftio sub: --endpoint needs a value" "$FTIO" sub --endpoint
refused "^ftio: -te must be after -ts" "$FTIO" -ts 5 -te 1 "$D/custom.json"

# ---- --help: exit 0, every option, and the man page knows each ---------------
helpcheck() {   # MAN NAME CMD... ; options the help must name are in $want
  man=$1; name=$2; shift 2
  run "$@" --help
  [ "$rc" = 0 ] || { no "$name --help: exit $rc"; return; }
  for o in $want; do grep -q -- "$o" "$T/out" || no "$name --help does not name $o"; done
  missing=""
  for o in $(grep -oE -- '--[a-z][a-z-]+' "$T/out" | sort -u); do
    grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$man" || missing="$missing $o"
  done
  [ -z "$missing" ] && ok "$name --help: exit 0, all options, all in $man" \
    || no "$name --help names options $man does not document:$missing"
  run "$@" -V
  [ "$rc" = 0 ] && grep -Eq "[0-9]+\.[0-9]+" "$T/out" || no "$name -V: exit $rc"
}
want="--freq --mode --tol -ts -te --top --no-psd --compat --detector --sampling --autocorrelation --window --step --max-memory --dxt --format --lenient --absolute-time --keep-nested --json --help --version"
helpcheck man/ftio.1 ftio "$FTIO"
want="--job --all-jobs --endpoint --json --count --timeout --duration --server-key --key --last --status-endpoint"
helpcheck man/ftio.1 "ftio sub" "$FTIO" sub
want="--csv --jsonl --threads --quiet --progress --mode --freq --compat --max-samples --lenient --dxt"
helpcheck man/ftio.1 "ftio scan" "$FTIO" scan
want="--history --endpoint --status-endpoint --timeout --server-key --key --user --cmdline --json"
helpcheck man/ftio.1 "ftio history" "$FTIO" history
want="--endpoint --speed --realtime"
helpcheck man/ftio.1 "ftio replay" "$FTIO" replay
want="--endpoint --timeout --server-key --key"
helpcheck man/ftio.1 "ftio end" "$FTIO" end
want="--listen --pub --status-endpoint --log --state-dir --history --history-apps --config --freq --tol --no-psd --compat --detector --sampling --window --step --max-memory --settle --min-interval --threads --catch-up --horizon --summary-records --job-timeout --keep-ended --max-jobs --max-procs --max-msg --rcvhwm --auth --munge-socket --curve-secret --curve-clients --socket-mode --socket-group --max-connections --user-jobs --user-procs --user-rate --status --server-key --key --json --verbose --print-config"
helpcheck man/ftiod.1 ftiod "$FTIOD"
# The man pages state the default of every option that has one as the table
# does (ftiod: --print-config; ftio: --help's "(default X)"), and ftiod.1's
# ENVIRONMENT names every variable of ftiod's env column (ftiod --help).
mandefaults() {   # PAGE HELP [CONF]: the OPTIONS section of PAGE against the table
  "$PY" - "$@" <<'PYEOF'
import re, sys
page, helptext = open(sys.argv[1]).read(), open(sys.argv[2]).read()
name = sys.argv[1].split("/")[-1]
if len(sys.argv) > 3:   # ftiod --print-config: "#option = default"
    table = dict(re.findall(r"^#([a-z][a-z-]*) = (.+)$", open(sys.argv[3]).read(), re.M))
else:                   # --help: "  -f, --freq HZ  ... (default 10)", maybe on a line of its own
    table = {}
    for block in re.split(r"\n(?= {2,6}-)", helptext):   # an option, its continued lines
        opt, said = re.match(r"\s+(?:-\w, )?--?([a-z][a-z-]+)", block), re.search(r"\(default ([^)]*)\)", block)
        if opt and said:
            table[opt.group(1)] = said.group(1)
def plain(t):
    return re.sub(r"\\f[BIRP]|\\[&:%]", "", t).replace("\\-", "-")
def value(v):   # "256 MiB" -> 268435456.0, "0: one per core" -> 0.0, "adaptive" -> "adaptive"
    m = re.match(r"(-?\d+(?:\.\d+)?(?:e\d+)?)\s*(KiB|MiB|GiB)?\b", v)
    if m:
        return float(m.group(1)) * {None: 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)]
    return v.split()[0].rstrip(":") if v.split() else v
options = page.split("\n.SH OPTIONS", 1)[1].split("\n.SH ", 1)[0]
bad, checked = [], []
for item in re.split(r"\n\.TP\n", options)[1:]:
    head, _, body = item.split("\n.SS", 1)[0].partition("\n")
    names = re.findall(r"--?([a-z][a-z-]+)", plain(head))
    text = " ".join(re.sub(r"^\.[A-Z]+ ?", "", plain(l)) for l in body.split("\n"))
    # "(default X", "X (default)", "; default X."
    stated = [m.group(1) or m.group(2) or m.group(3) for m in re.finditer(
        r"\(default:? ([^;),]+)|(\S+) \(default\)|[;,] default (\S+?)[.,;]?(?=\s|$)", text)]
    # one default per option of the heading, in order (--user-jobs, --user-procs ...)
    for opt, said in zip(names, stated):
        if opt not in table:   # computed or no default (--max-connections, --munge-socket)
            continue
        checked.append(opt)
        if value(said) != value(table[opt]):
            bad.append("--%s: %s says %s, the table %s" % (opt, name, said, table[opt]))
bad += ["--%s: no default stated (the table's: %s)" % (o, table[o]) for o in table
        if o not in checked]
env = re.search(r"^Environment: (.*?)\.$", helptext, re.M | re.S) if len(sys.argv) > 3 else None
variables = re.findall(r"(\w+), the default --", env.group(1)) if env else []
section = page.split("\n.SH ENVIRONMENT", 1)[1].split("\n.SH ", 1)[0]
bad += ["ENVIRONMENT does not name %s (--help does)" % v for v in variables
        if ".B %s\n" % v not in section]
for b in bad:
    print("FAIL: man/%s: %s" % (name, b))
print("%s: %d stated defaults checked (%s); variables %s" % (name, len(checked), " ".join(checked),
      " ".join(variables) or "-"))
sys.exit(1 if bad or not checked else 0)
PYEOF
}
"$FTIOD" --config none --print-config >"$T/defaults.conf" 2>&1
"$FTIOD" --help >"$T/ftiod.help" 2>&1
mandefaults man/ftiod.1 "$T/ftiod.help" "$T/defaults.conf" \
  && ok "ftiod.1 states the table's defaults and names its variables" \
  || no "ftiod.1 and ftiod's table disagree (above)"
"$FTIO" --help >"$T/ftio.help" 2>&1
mandefaults man/ftio.1 "$T/ftio.help" && ok "ftio.1 states the defaults of ftio --help" \
  || no "ftio.1 and ftio's table disagree (above)"

# ---- ftiod's configuration file ------------------------------------------------
"$FTIOD" --config none --print-config >"$T/template.conf" 2>&1
cmp -s "$T/template.conf" packaging/ftiod.conf && ok "packaging/ftiod.conf = ftiod --print-config" \
  || no "packaging/ftiod.conf is not what ftiod --print-config prints (regenerate it)"
# The template, uncommented, is a valid configuration (every default passes the checks).
sed -e 's/^#\([a-z][a-z-]*\) =$//' -e 's/^#\([a-z][a-z-]* = .*\)/\1/' -e '/^#no-psd$/d' -e '/^#compat$/d' \
  -e 's/^#\(verbose\)$/\1/' -e 's/^window = adaptive$/window = adaptive  # or seconds/' \
  -e 's/^auth = munge$/auth = none/' \
  -e "s|^listen = .*|listen = ipc://$T/c.in|" -e "s|^pub = .*|pub = ipc://$T/c.pub|" \
  -e "s|^status-endpoint = .*|status-endpoint = ipc://$T/wrong.st|" -e 's/^keep-ended = .*/keep-ended = 3/' \
  packaging/ftiod.conf >"$T/c.conf"
echo 'job-timeout = "2"   # quotes and a trailing comment' >>"$T/c.conf"
"$FTIOD" --config "$T/c.conf" --status-endpoint "ipc://$T/c.st" 2>"$T/c.err" &
CPID=$!; PIDS="$PIDS $CPID"
i=0
until grep -q "listening on" "$T/c.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 50 ] && { no "ftiod --config did not start: $(cat "$T/c.err")"; break; }
  sleep 0.1
done
run "$FTIOD" --status --json --status-endpoint "ipc://$T/c.st"
if [ "$rc" = 0 ] && "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['keep_ended'] == 3 and d['auth'] == 'none', d" "$T/out"; then
  ok "config values taken (keep-ended 3, auth none), the command line's --status-endpoint won"
else
  no "ftiod --config: $(cat "$T/out" "$T/err" "$T/c.err")"
fi
# --status reads the endpoint from the configuration file too.
printf 'status-endpoint = ipc://%s/c.st\n' "$T" >"$T/st.conf"
run "$FTIOD" --config "$T/st.conf" --status --json
[ "$rc" = 0 ] && grep -q '"keep_ended":3' "$T/out" && ok "ftiod --status --config FILE asks the file's endpoint" \
  || no "ftiod --status --config: exit $rc $(cat "$T/err")"
FTIO_DAEMON_CONFIG="$T/st.conf" run "$FTIOD" --status --json
[ "$rc" = 0 ] && grep -q '"keep_ended":3' "$T/out" && ok "ftiod: FTIO_DAEMON_CONFIG is the default --config" \
  || no "FTIO_DAEMON_CONFIG: exit $rc $(cat "$T/err")"
FTIO_DAEMON_CONFIG="$T/missing.conf" run "$FTIOD" --status
[ "$rc" = 2 ] && grep -q "missing.conf: No such file" "$T/err" && ok "FTIO_DAEMON_CONFIG naming a missing file: exit 2" \
  || no "FTIO_DAEMON_CONFIG missing: exit $rc $(cat "$T/err")"
FTIO_STATUS="ipc://$T/c.st" run "$FTIOD" --config none --status --json
[ "$rc" = 0 ] && ok "ftiod --status: FTIO_STATUS" || no "FTIO_STATUS: $(cat "$T/err")"
printf '# a comment\nfreq = 10\n\ntol = 1.5\n' >"$T/bad.conf"
refused "^ftiod: $T/bad.conf:4: --tol: must be in \(0, 1\], not 1.5$" "$FTIOD" --config "$T/bad.conf"
printf 'freq = 10\nbogus = 3\n' >"$T/bad2.conf"
refused "^ftiod: $T/bad2.conf:2: unknown option 'bogus'$" "$FTIOD" --config "$T/bad2.conf"
printf 'status\n' >"$T/bad3.conf"
refused "^ftiod: $T/bad3.conf:1: --status is not for a configuration file$" "$FTIOD" --config "$T/bad3.conf"
printf 'no-psd = maybe\n' >"$T/bad4.conf"
refused "^ftiod: $T/bad4.conf:1: --no-psd is a flag" "$FTIOD" --config "$T/bad4.conf"
printf 'freq =\n' >"$T/bad5.conf"
refused "^ftiod: $T/bad5.conf:1: --freq needs a value$" "$FTIOD" --config "$T/bad5.conf"
refused "^ftiod: $T/missing.conf: No such file or directory$" "$FTIOD" --config "$T/missing.conf"
# The command line wins over a bad value in the file? No: the file's line is
# skipped only when the option was given, and then it is not even checked.
printf 'tol = 1.5\n' >"$T/tol.conf"
run "$FTIOD" --config "$T/tol.conf" --tol 0.5 --status --status-endpoint "ipc://$T/c.st"
[ "$rc" = 0 ] && ok "command line --tol wins over the file's" || no "command line did not win: $(cat "$T/err")"

# ---- ftio sub on an endpoint nobody serves: exit 1 within the timeout ----------
start=$(date +%s%N)
run "$FTIO" sub --endpoint "ipc://$T/nobody.pub" --timeout 1
took=$(( ($(date +%s%N) - start) / 1000000 ))
if [ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "cannot reach" "$T/err" && \
   [ "$took" -ge 1000 ] && [ "$took" -lt 3000 ]; then
  ok "ftio sub on nobody: exit 1 after $took ms: $(cat "$T/err")"
else
  no "ftio sub on nobody: exit $rc after $took ms: $(cat "$T/err")"
fi
FTIO_PUB="ipc://$T/env.pub" run "$FTIO" sub --timeout 0.3
grep -q "ipc://$T/env.pub" "$T/err" && ok "ftio sub: FTIO_PUB" || no "FTIO_PUB not used: $(cat "$T/err")"
# Without options or environment, the clients find ftiod in its configuration file.
printf 'freq = 10\nlisten = ipc://%s/conf.in\npub = tcp://*:59999\nstatus-endpoint = tcp://0.0.0.0:59998\n' "$T" >"$T/daemon.conf"
FTIO_DAEMON_CONFIG="$T/daemon.conf" run "$FTIO" sub --timeout 0.3
grep -q "tcp://127.0.0.1:59999" "$T/err" && ok "ftio sub: ftiod.conf's pub (wildcard -> 127.0.0.1)" || no "sub: daemon config: $(cat "$T/err")"
FTIO_DAEMON_CONFIG="$T/daemon.conf" run "$FTIO" end --timeout 0.3 j
grep -q "tcp://127.0.0.1:59998" "$T/err" && ok "ftio end: ftiod.conf's status-endpoint" || no "end: daemon config: $(cat "$T/err")"
FTIO_DAEMON_CONFIG="$T/daemon.conf" FTIO_PUB="ipc://$T/env.pub" run "$FTIO" sub --timeout 0.3
grep -q "ipc://$T/env.pub" "$T/err" && ok "FTIO_PUB wins over ftiod.conf" || no "env vs conf: $(cat "$T/err")"

# ---- ended jobs: --status and sub --last still answer ------------------------
start_daemon d --job-timeout 30 --keep-ended 4
# connected, but nothing published: says so, exit 1
run "$FTIO" sub --endpoint "ipc://$T/d.pub" --timeout 1
[ "$rc" = 1 ] && grep -q "connected to" "$T/err" && ok "silent endpoint: $(cat "$T/err")" \
  || no "silent endpoint: exit $rc $(cat "$T/err")"
"$WIRE" periodic --endpoint "ipc://$T/d.in" --job done1 --ranks 2 --mpi --period 2 \
  --phases 6 --bytes 1048576 || no "generator"
wait_topic "$T/d.log" "ftio.done1.end" 20
run "$FTIOD" --status --json --status-endpoint "ipc://$T/d.st"
if [ "$rc" = 0 ] && "$PY" - "$T/out" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [j for j in d["jobs"] if j["job"] == "done1"], "still running?"
e = [j for j in d["ended"] if j["job"] == "done1"]
assert e, d["ended"]
e = e[0]
assert e["ended_by"] == "final" and e["complete"] is True, e
assert e["ended_at"] > 1.6e9 and "write" in e["summary"], e
PYEOF
then ok "--status --json lists the ended job (ended_by final, complete, summary)"; else no "ended job not in --status: $(cat "$T/out")"; fi
run "$FTIOD" --status --status-endpoint "ipc://$T/d.st"
grep -q "recently ended" "$T/out" && grep -q "done1.*final.*yes" "$T/out" && ok "--status table shows the ended job" \
  || no "--status table: $(cat "$T/out")"
grep -q "MiB" "$T/out" && ok "--status: bytes in human units" || no "--status bytes not in human units"
run "$FTIO" sub --last --job done1 --status-endpoint "ipc://$T/d.st"
[ "$rc" = 0 ] && grep -q "job done1 ended" "$T/out" && grep -q "period 2.00 s" "$T/out" && grep -q "MiB" "$T/out" \
  && ok "ftio sub --last answers for an ended job: $(head -2 "$T/out" | tr '\n' '|')" \
  || no "sub --last for an ended job: exit $rc $(cat "$T/out" "$T/err")"
SLURM_JOB_ID=done1 run "$FTIO" sub --last --json --status-endpoint "ipc://$T/d.st"
[ "$rc" = 0 ] && grep -q '"job": *"done1"' "$T/out" && grep -Eq '"bytes": *[0-9]' "$T/out" && ! grep -q MiB "$T/out" \
  && ok "SLURM_JOB_ID is --job's default; --json keeps raw numbers" \
  || no "SLURM_JOB_ID: exit $rc $(cat "$T/out" "$T/err")"
run "$FTIO" sub --last --job never --status-endpoint "ipc://$T/d.st"
[ "$rc" = 1 ] && grep -q "no such job" "$T/err" && ok "sub --last on an unknown job: exit 1" || no "unknown job: exit $rc"
# several daemons at once
start_daemon e
run "$FTIOD" --status --status-endpoint "ipc://$T/d.st,ipc://$T/e.st"
[ "$rc" = 0 ] && [ "$(grep -c '^== ipc://' "$T/out")" = 2 ] && ok "--status asks two daemons" \
  || no "--status E,E: exit $rc $(cat "$T/out" "$T/err")"
run "$FTIOD" --status --json --status-endpoint "ipc://$T/d.st" --status-endpoint "ipc://$T/e.st"
[ "$rc" = 0 ] && [ "$(wc -l <"$T/out")" = 2 ] && ok "--status --json with a repeated option: one document per daemon" \
  || no "--status repeated: $(cat "$T/out" "$T/err")"
"$WIRE" periodic --endpoint "ipc://$T/e.in" --job onE --ranks 1 --period 1 \
  --phases 2 --bytes 4096 --no-final || no "generator (e)"
run "$FTIO" end --endpoint "ipc://$T/d.st,ipc://$T/e.st" onE
[ "$rc" = 0 ] && grep -q "at ipc://$T/e.st is ending job onE" "$T/out" && ok "ftio end E,E: the daemon that has the job ends it" \
  || no "ftio end E,E: exit $rc $(cat "$T/out" "$T/err")"
run "$FTIO" end --endpoint "ipc://$T/d.st,ipc://$T/e.st" nowhere
[ "$rc" = 1 ] && grep -q "no such job" "$T/err" && ok "ftio end E,E of an unknown job: exit 1" || no "end unknown on two: exit $rc"
refused "^ftiod: --status-endpoint: one endpoint to bind" "$FTIOD" --config none --status-endpoint "ipc://$T/x,ipc://$T/y"

[ "$bad" = 0 ] && echo "options.sh: all ok"
exit $bad
