#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# metrics_prometheus.sh -- ftiod's --metrics-listen (issue 26 item 4) scraped
# by a real Prometheus (Debian's prometheus, started here on loopback with a
# private configuration and storage, scraping every second): after a live
# job with a known file system and a burst of hostile messages, Prometheus'
# HTTP API must return the series ftiod exposes -- jobs, records (as a
# counter whose rate() is records/s), batches refused by reason, the
# prediction latency histogram, and the observed and predicted aggregate of
# the job's file system.  The endpoint itself: text format 0.0.4 on GET
# /metrics, 404 elsewhere, 405 for other methods; a bad --metrics-listen is
# one line and exit status 2.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
PROM=$(command -v prometheus) || fail "no prometheus (Debian package prometheus; mk/deps.sh installs it)"

"$B/bin/ftiod" --metrics-listen 127.0.0.1:0 --auth none >"$T/bad.out" 2>"$T/bad.err"
[ $? -eq 2 ] && [ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "metrics-listen" "$T/bad.err" \
  || fail "a bad --metrics-listen: $(cat "$T/bad.err")"
ok "a bad --metrics-listen is one line, exit 2"

# two free loopback ports: ftiod's metrics, Prometheus' own web API
set -- $("$PY" -c "
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(('127.0.0.1', 0))
print(*[x.getsockname()[1] for x in s])")
MPORT=$1 PPORT=$2
start_daemon d --metrics-listen "127.0.0.1:$MPORT" --machine-history 60
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ftiod
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
"$PROM" --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
  --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prom.out" 2>"$T/prom.err" &
PIDS="$PIDS $!"

export FTIO_AUTH=none
wire phases --endpoint "ipc://$T/d.in" --live --job pj --ranks 2 --period 2 --phases 6 \
  --first 0.3 --fs ext4:/scratch 2>"$T/job.err" || fail "ftio-wire phases: $(cat "$T/job.err")"
wire fuzz --endpoint "ipc://$T/d.in" --count 50 --seed 3 >/dev/null 2>&1 || true

# The endpoint as HTTP clients see it.
"$PY" - "$MPORT" <<'PYEOF' || fail "the metrics endpoint"
import sys, urllib.request, urllib.error
base = "http://127.0.0.1:%s" % sys.argv[1]
r = urllib.request.urlopen(base + "/metrics", timeout=5)
assert r.status == 200 and "version=0.0.4" in r.headers["Content-Type"], r.headers
body = r.read().decode()
for name in ("ftiod_jobs", "ftiod_records_total", "ftiod_batches_refused_total",
             "ftiod_prediction_latency_seconds_bucket", "ftiod_observed_bytes_per_second",
             "ftiod_forecast_bytes_per_second"):
    assert name in body, name
for path, method, code in (("/other", "GET", 404), ("/metrics", "POST", 405)):
    try:
        urllib.request.urlopen(urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None), timeout=5)
        raise AssertionError("%s %s answered 200" % (method, path))
    except urllib.error.HTTPError as e:
        assert e.code == code, (path, method, e.code)
print("ok: /metrics in the text format; 404 and 405 elsewhere")
PYEOF

# Prometheus has scraped them: ask its API.
query() {
  "$PY" - "$PPORT" "$1" "$2" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
port, q, cond = sys.argv[1:4]
try:
    r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q})), timeout=5))
except Exception:
    sys.exit(1)
res = r.get("data", {}).get("result", [])
vals = [float(x["value"][1]) for x in res]
labels = [x["metric"] for x in res]
sys.exit(0 if res and eval(cond) else 1)
PYEOF
}
check() {
  wait_for 60 query "$1" "$2" || fail "Prometheus: $1 does not satisfy $2"
  ok "Prometheus: $1 ($2)"
}
check 'up{job="ftiod"}' 'vals[0] == 1'
check 'ftiod_records_total' 'vals[0] > 0'
check 'rate(ftiod_records_total[10s])' 'vals[0] >= 0'
check 'ftiod_jobs' 'len(vals) == 2'
check 'sum(ftiod_batches_refused_total)' 'vals[0] > 0'
check 'ftiod_batches_refused_total{reason="malformed"}' 'len(vals) == 1'
check 'ftiod_prediction_latency_seconds_count' 'vals[0] > 0'
check 'histogram_quantile(0.5, ftiod_prediction_latency_seconds_bucket)' 'vals[0] > 0'
check 'max_over_time(ftiod_observed_bytes_per_second{fs="ext4:/scratch",mode="write"}[5m])' 'vals[0] > 0'
check 'ftiod_forecast_bytes_per_second{fs="ext4:/scratch",mode="write"}' 'len(vals) == 1'
finish
