#!/bin/sh
# ftio replay of spool files into ftiod gives the same frequencies as the
# offline `ftio --sampling average` on the same files (both modes).  The spool
# files are the TMIO reference trace tests/data/tmio-8ranks.jsonl turned into
# wire batches of 8 simulated processes (daemon-gen tmio).  ftiod runs with a
# long --min-interval so that its one analysis sees the whole job, as offline.
. "$(dirname "$0")/lib.inc"
need "$B/bin/ftiod" "$B/bin/ftio" "$B/tests/daemon-gen"
mkdir -p "$T/spool"
"$B/tests/daemon-gen" tmio "$HERE/../data/tmio-8ranks.jsonl" --spool "$T/spool" --job tm \
  || fail "daemon-gen tmio"
for m in write read; do
  timeout 60 "$B/bin/ftio" --json --sampling average -m $m "$T"/spool/*.msgpack >"$T/off.$m.json" \
    || fail "offline ftio -m $m"
done
start_daemon d --min-interval 1000
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/d.in" "$T"/spool/*.msgpack 2>"$T/replay.err" \
  || fail "replay: $(cat "$T/replay.err")"
wait_topic "$T/d.log" ftio.tm.end 30
for m in write read; do
  off=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['frequency'])" "$T/off.$m.json")
  on=$(jsonl "$T/d.log" "last('ftio.tm.end')['summary']['$m']['frequency']")
  ncand_off=$("$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['candidates']))" "$T/off.$m.json")
  ncand_on=$(jsonl "$T/d.log" "len(last('ftio.tm.end')['summary']['$m']['candidates'])")
  echo "$m: offline f=$off ($ncand_off candidates), ftiod f=$on ($ncand_on candidates)"
  close 1e-6 "$on" "$off" || fail "$m: ftiod $on != offline $off"
  [ "$ncand_on" = "$ncand_off" ] || fail "$m: candidates differ"
done
recs=$(jsonl "$T/d.log" "last('ftio.tm.end')['summary']['write']['records'] + last('ftio.tm.end')['summary']['read']['records']")
[ "$recs" = 2190 ] || fail "records $recs, expected 2190"
# Replaying the same files again is recognised batch by batch: nothing counted twice.
start_daemon e --min-interval 1000 --job-timeout 2
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/e.in" "$T"/spool/ftio-tm-gen-2000.msgpack 2>/dev/null
timeout 60 "$B/bin/ftio" replay --endpoint "ipc://$T/e.in" "$T"/spool/*.msgpack 2>/dev/null
wait_topic "$T/e.log" ftio.tm.end 30
dups=$(grep -c . "$T/e.log")
st=$(jsonl "$T/e.log" "last('ftio.tm.end')['summary']['write']['records'] + last('ftio.tm.end')['summary']['read']['records']")
[ "$st" = 2190 ] || fail "after a double replay: $st records, expected 2190"
echo "ok"
