# SPDX-License-Identifier: BSD-3-Clause
"""ack_peer.py SOCKET_PATH STATUS_ENDPOINT FTIOD STOP_PID STOP_STDERR SPOOL -- a sender (a
DEALER, as the shim: ZMTP 3.0 spoken here on a plain socket) that does not
read its acknowledgements while ftiod stops: do they all reach it?  Used by
ack_linger.sh, and by relay_ack_linger.sh with SOCKET_PATH an `ftio relay`'s
front in front of ftiod and STOP_PID, STOP_STDERR the relay's (it says
"stopped (" too, with -v); STATUS_ENDPOINT is always ftiod's.

It sends SPOOL's batches in steps of STEP, waiting each time until ftiod has
taken them (its status), and never reads: ftiod's acknowledgements fill the
kernel's buffer of the connection (FIONREAD says how many are there: each is
17 bytes), then wait in ftiod's ROUTER queue.  Once QUEUED_MIN to QUEUED_MAX
of them (fewer than the ROUTER's send HWM, 1000, past which it drops) are
not in the kernel's buffer, it SIGTERMs ftiod, waits until ftiod says it
stopped (then it closes its sockets) and a little more, and reads
everything.  A ROUTER closed with linger 0 drops what waits in its queue; a
short linger lets it leave.

Prints sent= in_kernel= queued= acks=.  Spool files hold msgpack maps back to
back (PROTOCOL.md §1): each is one batch, sent as it is."""
import array
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import termios
import time

STEP = 100
QUEUED_MIN, QUEUED_MAX = 200, 700
ACK_BYTES = 2 + 2 + 13          # [delimiter] [ack]: two short frames
READ_LATE = 0.1                 # s after ftiod's "stopped": past its close, within a short linger

# Our greeting (signature, version 3.0, NULL, as-server 0) and READY as a
# DEALER with an empty identity: libtrace/zmtp.c's.
HELLO = (bytes([0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 3, 0]) + b"NULL" + bytes(16) + bytes(1) + bytes(31) +
         bytes([4, 41, 5]) + b"READY" + bytes([11]) + b"Socket-Type" + bytes([0, 0, 0, 6]) + b"DEALER" +
         bytes([8]) + b"Identity" + bytes(4))


def batches(path):
    """The raw bytes of each msgpack object of a spool file (skipped, not decoded)."""
    data = open(path, "rb").read()

    def skip(i):
        b = data[i]
        i += 1
        if b <= 0x7f or b >= 0xe0 or b in (0xc0, 0xc2, 0xc3):
            return i
        if 0x80 <= b <= 0x8f:
            return items(i, 2 * (b & 0x0f))
        if 0x90 <= b <= 0x9f:
            return items(i, b & 0x0f)
        if 0xa0 <= b <= 0xbf:
            return i + (b & 0x1f)
        fixed = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8,
                 0xca: 4, 0xcb: 8, 0xd4: 2, 0xd5: 3, 0xd6: 5, 0xd7: 9, 0xd8: 17}
        if b in fixed:
            return i + fixed[b]
        sized = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4}
        if b in sized:
            n = int.from_bytes(data[i:i + sized[b]], "big")
            return i + sized[b] + n
        ext = {0xc7: 1, 0xc8: 2, 0xc9: 4}
        if b in ext:
            n = int.from_bytes(data[i:i + ext[b]], "big")
            return i + ext[b] + 1 + n
        counted = {0xdc: (2, 1), 0xdd: (4, 1), 0xde: (2, 2), 0xdf: (4, 2)}
        if b in counted:
            w, per = counted[b]
            return items(i + w, per * int.from_bytes(data[i:i + w], "big"))
        raise ValueError("not msgpack at %d" % (i - 1))

    def items(i, n):
        for _ in range(n):
            i = skip(i)
        return i

    out, i = [], 0
    while i < len(data):
        j = skip(i)
        out.append(data[i:j])
        i = j
    return out


def messages_taken(ftiod, status_ep):
    r = subprocess.run([ftiod, "--status", "--json", "--status-endpoint", status_ep],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return -1
    return json.loads(r.stdout)["totals"]["messages"]


def wait_taken(ftiod, status_ep, n, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if messages_taken(ftiod, status_ep) >= n:
            return
        time.sleep(0.02)
    sys.exit("ack_peer: ftiod did not take %d messages within %d s" % (n, timeout))


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            sys.exit("ack_peer: ftiod closed the connection in the handshake")
        b += c
    return b


def frame(data, more):
    flags = 1 if more else 0
    if len(data) < 256:
        return bytes([flags, len(data)]) + data
    return bytes([flags | 2]) + len(data).to_bytes(8, "big") + data


def in_kernel(s):
    buf = array.array("i", [0])
    fcntl.ioctl(s.fileno(), termios.FIONREAD, buf)
    return buf[0]


def gone(pid):
    """The process has exited (a zombie of the test's shell counts; a
    program that never says "stopped (", as relays before 2026-11-29, is seen
    stopped this way)."""
    try:
        return open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def main():
    path, status_ep, ftiod, dpid, errfile, spool = sys.argv[1:7]
    batches_ = batches(spool)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(HELLO)
    recv_exact(s, 64)                          # ftiod's greeting
    head = recv_exact(s, 2)                    # its READY: a short command
    if head[0] != 4:
        sys.exit("ack_peer: no READY from ftiod")
    recv_exact(s, head[1])
    sent = queued = kernel = 0
    while queued < QUEUED_MIN:
        if sent + STEP > len(batches_):
            sys.exit("ack_peer: %d batches sent, %d acknowledgements in the kernel: no queue at ftiod"
                     % (sent, kernel))
        s.sendall(b"".join(frame(b"", True) + frame(m, False) for m in batches_[sent:sent + STEP]))
        sent += STEP
        wait_taken(ftiod, status_ep, sent)
        time.sleep(0.05)                       # its I/O thread writes what the kernel takes
        kernel = in_kernel(s) // ACK_BYTES
        queued = sent - kernel
    if queued > QUEUED_MAX:
        sys.exit("ack_peer: %d acknowledgements queued at once: over the ROUTER's HWM" % queued)
    os.kill(int(dpid), signal.SIGTERM)
    end = time.time() + 10
    while "stopped (" not in open(errfile).read() and not gone(dpid):
        if time.time() > end:
            sys.exit("ack_peer: pid %s did not stop within 10 s" % dpid)
        time.sleep(0.01)
    time.sleep(READ_LATE)
    got = b""
    s.settimeout(3)
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
    except socket.timeout:
        pass
    print("sent=%d\nin_kernel=%d\nqueued=%d\nacks=%d" % (sent, kernel, queued, len(got) // ACK_BYTES))


main()
