#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""recompress.py -- rewrite a zlib-compressed Darshan log with bzip2-compressed
(or uncompressed) regions, so that the reader's bzip2 and raw paths are tested
on real record data (Darshan's own test logs are all zlib).  Our own writer:
decompress every region the header maps, compress it again, and rewrite the
region map and the compression byte.  Formats 3.00-3.21 (16 module slots,
360-byte header) and 3.41 (64 slots, 1328 bytes), either byte order.

usage: recompress.py bzip2|none IN.darshan OUT.darshan
"""
import bz2, struct, sys, zlib

def inflate_all(data):
    out = b""
    while data:
        d = zlib.decompressobj()
        out += d.decompress(data)
        data = d.unused_data
    return out

def main():
    method, src, dst = sys.argv[1:4]
    b = open(src, "rb").read()
    minor = int(b[2:4].decode())
    e = "<" if struct.unpack("<q", b[8:16])[0] == 6567223 else ">"
    if b[16] != 0:
        sys.exit("%s: not zlib-compressed" % src)
    nmods, maps, hsize = (16, 24, 360) if minor < 41 else (64, 32, 1328)
    regions = [struct.unpack(e + "QQ", b[maps + 16 * i: maps + 16 * i + 16]) for i in range(1 + nmods)]
    # the job region runs from the header to the first mapped region
    first = min([o for o, n in regions if n] + [len(b)])
    order = [(hsize, first - hsize, None)] + sorted(
        (o, n, i) for i, (o, n) in enumerate(regions) if n)
    pack = (lambda x: bz2.compress(x)) if method == "bzip2" else (lambda x: x)
    out = bytearray(b[:hsize])
    out[16] = 1 if method == "bzip2" else 2
    for off, n, i in order:
        data = pack(inflate_all(b[off:off + n]))
        if i is not None:
            struct.pack_into(e + "QQ", out, maps + 16 * i, len(out), len(data))
        out += data
    open(dst, "wb").write(out)

main()
