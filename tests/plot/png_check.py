#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""png_check.py -- is a browser screenshot a picture?  (tests/plot/browser.sh)

Decodes an 8-bit RGB/RGBA PNG with the standard library only (zlib, struct),
then prints one line of figures and exits 1 when the screenshot looks blank:
    png_check.py FILE.png [--min-colours N] [--min-ink F] [--colour NAME=RRGGBB:MIN ...]
ink = share of pixels that differ from the page background (the most common
colour); --colour counts pixels within a small distance of RRGGBB and wants at
least MIN of them (a signal line, phase shading, the next phase ...).
"""
import collections
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    # Whole rows as integers (one byte per 8 bits, little-endian): a byte-wise
    # sum modulo 256 is a few operations on them (no carry between bytes), so
    # the filters None, Up and Sub cost no Python loop over the pixels.
    mask = (1 << (8 * stride)) - 1
    low7 = int.from_bytes(b"\x7f" * stride, "little")
    high = low7 << 1 & int.from_bytes(b"\x80" * stride, "little")

    def add(a, b):
        return ((a & low7) + (b & low7)) ^ ((a ^ b) & high)

    prev = bytes(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 1:
            # each byte plus the one bpp before it, reconstructed: a prefix
            # sum per channel, in log2(w) doubling steps
            x, k = int.from_bytes(line, "little"), bpp
            while k < stride:
                x = add(x, (x << (8 * k)) & mask)
                k *= 2
            line = x.to_bytes(stride, "little")
        elif f == 2:
            line = add(int.from_bytes(line, "little"), int.from_bytes(prev, "little")).to_bytes(stride, "little")
        elif f == 3:
            line = bytearray(line)
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
            line = bytes(line)
        elif f == 4:
            line = bytearray(line)
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            line = bytes(line)
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    path, min_colours, min_ink, want = args[0], 16, 0.03, []
    i = 1
    while i < len(args):
        if args[i] == "--min-colours":
            min_colours = int(args[i + 1]); i += 2
        elif args[i] == "--min-ink":
            min_ink = float(args[i + 1]); i += 2
        elif args[i] == "--colour":
            name, spec = args[i + 1].split("=")
            rgb, n = spec.split(":")
            want.append((name, tuple(int(rgb[k:k + 2], 16) for k in (0, 2, 4)), int(n))); i += 2
        else:
            print("png_check: unknown argument %s" % args[i]); return 2
    try:
        w, h, bpp, rows = decode(path)
    except (OSError, ValueError, zlib.error, struct.error, TypeError) as e:
        print("png_check: %s: %s" % (path, e))
        return 1
    # the pixels' colours (R, G, B), counted in C (zip of strided slices)
    pixels = b"".join(rows)
    counts = collections.Counter(zip(pixels[0::bpp], pixels[1::bpp], pixels[2::bpp]))
    total = w * h
    bg, nbg = max(counts.items(), key=lambda kv: kv[1])
    ink = 1 - nbg / total
    found = {}
    for name, rgb, _ in want:
        found[name] = sum(n for px, n in counts.items()
                          if abs(px[0] - rgb[0]) + abs(px[1] - rgb[1]) + abs(px[2] - rgb[2]) <= 30)
    print("%s: %dx%d, %d colours, ink %.1f %% (background #%02x%02x%02x)%s" % (
        path, w, h, len(counts), 100 * ink, bg[0], bg[1], bg[2],
        "".join(", %s %d px" % (k, v) for k, v in found.items())))
    bad = []
    if len(counts) < min_colours:
        bad.append("only %d colours (want %d)" % (len(counts), min_colours))
    if ink < min_ink:
        bad.append("ink %.2f %% (want %.2f %%)" % (100 * ink, 100 * min_ink))
    for name, _, n in want:
        if found[name] < n:
            bad.append("%s: %d px (want %d)" % (name, found[name], n))
    if bad:
        print("png_check: looks blank or incomplete: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
