#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs every benchmark in turn (`make bench`).  Each prints its own table;
# copy the figures into bench/README.md when they change.
# BENCH_ONLY=accuracy|analysis|overhead|burst|ingest|exit_latency|scan|realapps|memory|contention runs one of them
# (bench/NAME.sh, or bench/NAME/run.sh for a benchmark with a folder of its own).
B=${B:-build}
export B
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
for name in accuracy analysis overhead burst ingest exit_latency scan realapps memory contention; do
  [ -n "$BENCH_ONLY" ] && [ "$BENCH_ONLY" != "$name" ] && continue
  script=bench/$name.sh
  [ -f "$script" ] || script=bench/$name/run.sh
  echo "=== $script"
  sh "$script" || { echo "$script failed" >&2; status=1; }
done
exit $status
