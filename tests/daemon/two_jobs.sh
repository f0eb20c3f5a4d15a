#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two jobs streaming at the same time get their own topics and their own
# periods (2 s and 3.5 s; job B also reads), within 5 %.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
start_daemon d --min-interval 0.2
timeout 60 "$B/bin/ftio" sub --endpoint "ipc://$T/d.pub" --job jobA --timeout 50 >"$T/subA.out" 2>&1 &
SUB=$!; PIDS="$PIDS $SUB"
wait_connected "$T/d.pub" || fail "ftio sub did not connect"
wire periodic --endpoint "ipc://$T/d.in" --job jobA --ranks 3 --period 2 \
  --phases 10 --speed 5 &
GA=$!
wire periodic --endpoint "ipc://$T/d.in" --job jobB --ranks 2 --period 3.5 \
  --phases 8 --speed 5 --read &
GB=$!
wait $GA || fail "generator A"
wait $GB || fail "generator B"
wait_topic "$T/d.log" ftio.jobA.end 30
wait_topic "$T/d.log" ftio.jobB.end 30
wait $SUB || fail "ftio sub --job jobA did not end with the job's summary"
cat "$T/subA.out"
grep -q "jobB" "$T/subA.out" && fail "ftio sub --job jobA printed jobB"
grep -q "job jobA ended" "$T/subA.out" || fail "no end line in ftio sub"
n=$(jsonl "$T/d.log" "len([1 for t, m in msgs if t.startswith('ftio.jobA.') and m.get('job') != 'jobA'])")
[ "$n" = 0 ] || fail "topic ftio.jobA.* carried another job"
n=$(jsonl "$T/d.log" "len(all_of('ftio.jobA.write'))"); [ "$n" -ge 2 ] || fail "only $n predictions for jobA"
n=$(jsonl "$T/d.log" "len(all_of('ftio.jobA.read'))"); [ "$n" = 0 ] || fail "jobA has no reads"
for spec in jobA:write:2 jobB:write:3.5 jobB:read:3.5; do
  job=${spec%%:*}; rest=${spec#*:}; mode=${rest%%:*}; p=${rest#*:}
  got=$(jsonl "$T/d.log" "last('ftio.$job.end')['summary']['$mode']['period']")
  cls=$(jsonl "$T/d.log" "last('ftio.$job.end')['summary']['$mode']['class']")
  echo "$job $mode: period $got ($cls), true $p"
  close 0.05 "$got" "$p" || fail "$job $mode period $got, expected $p"
  [ "$cls" = periodic ] || [ "$cls" = uncertain ] || fail "$job $mode class $cls"
done
echo ok
