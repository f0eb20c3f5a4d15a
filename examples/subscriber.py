#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""subscriber.py -- consume ftiod's predictions from Python (pyzmq).

    python3 subscriber.py [--endpoint tcp://127.0.0.1:5556] [--job J]
                          [--transfer BYTES] [--bandwidth B/S] [--count N]

ftiod publishes two-frame messages: the topic ``ftio.<job>.<mode>`` and a
JSON prediction (PROTOCOL.md section 2).  ``next.start`` / ``next.end`` (Unix
epoch seconds) and ``next.bytes`` give the job's next I/O burst.  Like
subscriber.c, this plays a scheduler that wants to run its own transfer
without colliding with the job's bursts: go now if it fits before the burst,
else wait for it to end.  ``class`` "none" means no advice.  The job's
``ftio.<job>.end`` message carries the final prediction per mode.  Since
protocol v3 each prediction also lists the job's ``activities`` (one per file
pattern: dumps, checkpoints ...), each with its own period and next phase;
they are printed below the advice.  Since protocol v4 ``source`` says where
the answer comes from: "observed" (the job's own data) or "history" (the
application's earlier runs, published from the job's first batch, before its
first output; ``history`` says how many runs and how they were matched).
"""
import argparse
import json
import time

import zmq


def advise(p, transfer, bandwidth):
    job, mode, cls = p.get("job"), p.get("mode"), p.get("class")
    nxt = p.get("next") or {}
    if cls == "none" or nxt.get("start") is None:
        print(f"{job}/{mode}: no periodic behaviour detected (yet): default policy")
        print_activities(p)
        return
    now = time.time()
    start, end, size = nxt["start"], nxt["end"], nxt["bytes"]
    need = transfer / bandwidth
    print(f"{job}/{mode}: period {p['period']:.2f} s (conf {p['confidence']:.2f}, {cls}); "
          f"next burst in {start - now:.2f} s, {size / 2**20:.1f} MiB, {end - start:.2f} s long")
    hist = p.get("history")
    if p.get("source") == "history" and hist:
        print(f"     (from the application's earlier runs: {hist['runs']} runs, matched by "
              f"{hist['level']}; not seen in this job yet)")
    if now + need <= start:
        print(f"  -> start our {transfer / 2**20:.1f} MiB transfer now "
              f"(done {start - now - need:.2f} s before the burst)")
    else:
        print(f"  -> defer our transfer until the burst ends, in {end - now:.2f} s")
    err = p.get("last_error")
    if err:
        print(f"     (ftiod's previous guess of a burst start was off by {err['start']:+.3f} s)")
    print_activities(p)


def print_activities(p):
    """One line per activity (protocol v3): pattern, share, period, next phase."""
    for a in p.get("activities") or []:
        per = f"period {a['period']:.2f} s (conf {a['confidence']:.2f}, {a['class']})" \
            if a.get("period") is not None else f"no period ({a['class']})"
        nxt = a.get("next") or {}
        when = f", next in {nxt['start'] - time.time():.2f} s" if nxt.get("start") is not None else ""
        mark = "*" if a.get("matches_job") else " "
        print(f"   {mark}activity {a['pattern']} ({a['share'] * 100:.0f} % of bytes): {per}{when}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", default="tcp://127.0.0.1:5556")
    ap.add_argument("--job")
    ap.add_argument("--transfer", type=float, default=256 * 2**20)
    ap.add_argument("--bandwidth", type=float, default=1e9)
    ap.add_argument("--count", type=int, default=0)
    a = ap.parse_args()

    sub = zmq.Context.instance().socket(zmq.SUB)
    # The trailing dot keeps job 12 from matching job 123.
    sub.setsockopt_string(zmq.SUBSCRIBE, f"ftio.{a.job}." if a.job else "ftio.")
    sub.connect(a.endpoint)
    n = 0
    while a.count == 0 or n < a.count:
        topic, body = sub.recv_multipart()
        if topic == b"ftio.machine":   # the machine forecast, every second: not a job's
            continue
        p = json.loads(body)
        if topic.endswith(b".end"):
            print(f"{topic.decode()}: job finished; final: "
                  + ", ".join(f"{m} period {s.get('period')}" for m, s in p["summary"].items()))
            for s in p["summary"].values():
                print_activities(s)
            if a.job:
                break
        else:
            advise(p, a.transfer, a.bandwidth)
        n += 1


if __name__ == "__main__":
    main()
