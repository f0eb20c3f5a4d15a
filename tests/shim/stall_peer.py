# SPDX-License-Identifier: BSD-3-Clause
"""stall_peer.py ENDPOINT READYFILE SECONDS -- a ROUTER peer (as ftiod) that
binds, then never receives (receive HWM 1, small kernel buffer): the sender's ZeroMQ
connects and can't write its queue.  Used by delivery.sh."""
import sys
import time

import zmq

ctx = zmq.Context()
sock = ctx.socket(zmq.ROUTER)
sock.setsockopt(zmq.RCVHWM, 1)
sock.setsockopt(zmq.RCVBUF, 4096)
sock.setsockopt(zmq.LINGER, 0)
sock.bind(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
