#!/bin/sh
# Runs every benchmark in turn (`make bench`).  Each prints its own table;
# copy the figures into bench/README.md when they change.
# BENCH_ONLY=accuracy|analysis|overhead|burst|ingest|exit_latency|scan runs one of them.
B=${B:-build}
export B
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
for name in accuracy analysis overhead burst ingest exit_latency scan; do
  [ -n "$BENCH_ONLY" ] && [ "$BENCH_ONLY" != "$name" ] && continue
  echo "=== bench/$name.sh"
  sh "bench/$name.sh" || { echo "bench/$name.sh failed" >&2; status=1; }
done
exit $status
