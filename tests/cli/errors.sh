#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# errors.sh -- `ftio` on bad input and bad usage: malformed and truncated files
# of every format give exactly one line "ftio: FILE: offset N: ..." or
# "ftio: FILE: line L: ..." and exit 1 (never a crash); --lenient analyses
# what could be read; unknown options and bad values print one line, exit 2.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data

# expect_error STATUS PATTERN ftio-args...: stderr is exactly one line
# matching PATTERN (a grep -E regex), status as given, nothing on stdout.
expect_error() {
  want=$1; pat=$2; shift 2
  timeout 60 "$FTIO" "$@" >"$T/out" 2>"$T/err"; rc=$?
  lines=$(wc -l <"$T/err")
  if [ "$rc" != "$want" ]; then bad "ftio $* -> exit $rc, want $want: $(cat "$T/err")"; return; fi
  if [ "$want" = 1 ] && [ "$lines" != 1 ]; then bad "ftio $*: $lines stderr lines: $(cat "$T/err")"; return; fi
  head -1 "$T/err" | grep -Eq -- "$pat" || bad "ftio $*: stderr '$(head -1 "$T/err")' !~ /$pat/"
  [ -s "$T/out" ] && bad "ftio $*: printed on stdout on error"
  return 0
}

# ---- input that would turn ftio against the machine ---------------------
# A DXT line with a column too many: rejected, not guessed (it made ftio use
# 2.4 GB and print a bogus period).
awk '/^ *X_POSIX/ && !done { print $0 " 7"; done = 1; next } { print }' $D/sample-dxt.txt >"$T/extra.txt"
expect_error 1 "^ftio: $T/extra.txt: line [0-9]+: .*too many fields" "$T/extra.txt"
# A CSV row with a field too many (or too few): rejected, not guessed.
{ head -3 $D/sample.csv; echo "1,write,7,8,1048576,5"; } >"$T/extra.csv"
expect_error 1 "^ftio: $T/extra.csv: line 4: 6 fields, the header has 5" "$T/extra.csv"
# A 45-byte CSV claiming a 30-year span: a clear error, at once (that one
# request is longer than the default --max-span, which drops it: tests/cli/max_span.sh).
printf 'rank,op,t_start,t_end,bytes\n0,write,0,1e9,1\n' >"$T/span.csv"
expect_error 1 "spans 1e\+09 s.*lower -f" --max-span 1e9 "$T/span.csv"
expect_error 1 "over --max-memory 1 MB" --max-memory 1 -f 1000 "$D/sample.csv"
expect_error 2 "^ftio: --max-memory: must be in \\[1, [0-9e+]+\\], not 0$" --max-memory 0 "$D/sample.csv"

# ---- truncated copies of every format ------------------------------------
size() { wc -c <"$1" | tr -d ' '; }
head -c $(( $(size $D/tmio-8ranks.jsonl) / 2 )) $D/tmio-8ranks.jsonl >"$T/half.jsonl"
expect_error 1 "^ftio: $T/half.jsonl: line [0-9]+: " "$T/half.jsonl"
head -c 20000 $D/tmio-8ranks.msgpack >"$T/half.msgpack"
expect_error 1 "^ftio: $T/half.msgpack: offset [0-9]+: truncated msgpack item$" "$T/half.msgpack"
head -c 200 $D/custom.json >"$T/cut.json"
expect_error 1 "^ftio: $T/cut.json: line [0-9]+: " "$T/cut.json"
# a row cut inside its op column (a cut that leaves valid digits is undetectable in CSV)
head -5 $D/sample.csv >"$T/cut.csv"; printf '2,wri' >>"$T/cut.csv"
expect_error 1 "^ftio: $T/cut.csv: line [0-9]+: " "$T/cut.csv"
head -c 1000 $D/sample-dxt.txt >"$T/cut.txt"
expect_error 1 "^ftio: $T/cut.txt: line [0-9]+: " "$T/cut.txt"

# ---- malformed content ----------------------------------------------------
printf '{"write_sync": {"bandwidth": {"b_rank_avr": [1, 2], "t_rank_s": [0], "t_rank_e": [1, 2]}}}\n' >"$T/len.json"
expect_error 1 "^ftio: $T/len.json: line 1: write_sync: arrays differ in length" "$T/len.json"
printf 'rank,op,t_start,t_end,bytes\n0,write,0,1,5\n0,write,x,1,5\n' >"$T/bad.csv"
expect_error 1 "^ftio: $T/bad.csv: line 3: t_start, t_end and bytes must be numbers, not \"x\" \\(byte 50\\)$" "$T/bad.csv"
printf '# DXT, x\n X_POSIX 0 write 0 0 100\n' >"$T/bad.dxt"
expect_error 1 "^ftio: $T/bad.dxt: line 2: too few fields" "$T/bad.dxt"
printf '\223\301\001\002' >"$T/bad.msgpack"
expect_error 1 "^ftio: $T/bad.msgpack: offset 0: invalid msgpack$" "$T/bad.msgpack"
# an array32 / map32 claiming 2^32-1 items in a few bytes: an error, not a
# 64-GB allocation (msgpack-c sizes its objects from the header)
printf '\335\377\377\377\377\001\002' >"$T/huge.msgpack"
expect_error 1 "^ftio: $T/huge.msgpack: offset 0: a msgpack array or map claims more items than the file holds$" "$T/huge.msgpack"
printf '\221\337\377\377\377\377\001' >"$T/huge2.msgpack"
expect_error 1 "^ftio: $T/huge2.msgpack: offset 0: a msgpack array or map claims more items than the file holds$" "$T/huge2.msgpack"
printf '\203\241v\002\243job\241x\241n\001' >"$T/bad.spool"
expect_error 1 "^ftio: $T/bad.spool: offset [0-9]+: " "$T/bad.spool"
head -c 4096 /dev/urandom | tr -d '\200-\237\336\337{' | tr -d '#,X' >"$T/noise.bin"
expect_error 1 "^ftio: $T/noise.bin: (offset|line) [0-9]+: " "$T/noise.bin"
: >"$T/empty.json"
expect_error 1 "^ftio: $T/empty.json: offset 0: empty file$" "$T/empty.json"
expect_error 1 "^ftio: $T/missing.json: No such file or directory$" "$T/missing.json"
expect_error 1 "^ftio: no read requests in the trace$" -m read $D/zmq-example.json
# Shorter than one sample at -f: an answer (class none, "too short"), not an
# error (issue 28: Darshan logs of a second ended with status 1).
timeout 60 "$FTIO" --json -f 0.01 $D/zmq-example.json >"$T/out" 2>"$T/err" || bad "too short: exit $?: $(cat "$T/err")"
python3 tests/cli/jcheck.py too-short 'j["class"] == "none"' 'j["reason"].startswith("too short")' \
  'j["period"] is None' <"$T/out" || bad "(see above)"

# ---- --lenient: analyse what was read, warn once ---------------------------
timeout 60 "$FTIO" --lenient --json "$T/half.jsonl" >"$T/out" 2>"$T/err" || bad "--lenient exit $?"
grep -q "^ftio: warning: $T/half.jsonl: line [0-9]*: .*kept what was read" "$T/err" || bad "--lenient warning: $(cat "$T/err")"
python3 tests/cli/jcheck.py lenient-jsonl 'j["records"] > 0' 'j["records"] < 1095' \
  'j["window"]["samples"] > 0' <"$T/out" || bad "(see above)"
timeout 60 "$FTIO" --lenient "$T/half.msgpack" >"$T/out" 2>"$T/err" || bad "--lenient msgpack exit $?"
grep -q '^period' "$T/out" || bad "--lenient msgpack printed no analysis"

# ---- usage errors: one line "ftio: ..." on stderr, exit 2 --------------------
for args in "-x $D/custom.json" "--bogus $D/custom.json" "-f 0 $D/custom.json" "-f abc $D/custom.json" \
            "-f" "-m sideways $D/custom.json" "-t 1.5 $D/custom.json" "-n -1 $D/custom.json" \
            "-n 99 $D/custom.json" "--sampling spline $D/custom.json" "--dxt lustre $D/custom.json" \
            "--window -3 $D/custom.json" "--format yaml $D/custom.json" "-ts 5 -te 1 $D/custom.json" "" ; do
  # shellcheck disable=SC2086
  timeout 60 "$FTIO" $args >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" = 2 ] || bad "ftio $args -> exit $rc, want 2"
  [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^ftio: ' "$T/err" || bad "ftio $args: not one line: $(cat "$T/err")"
  [ -s "$T/out" ] && bad "ftio $args: printed on stdout"
done
timeout 10 "$FTIO" --help | grep -q '^usage: ftio' || bad "--help"
timeout 10 "$FTIO" --version | grep -Eq '^ftio [0-9]+\.[0-9]+' || bad "--version"
finish
