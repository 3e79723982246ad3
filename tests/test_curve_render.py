#!/usr/bin/env python3
"""The SVG chart of `scalemeter curve` as a person sees it: rendered by headless Chromium to a
PNG, decoded here (zlib and struct only) and checked to show a chart, not a blank page: enough
ink, and the two curves' colours drawn as lines.

usage: test_curve_render.py SCALEMETER   (exit 77, a skip, where Chromium is not installed)
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 960, 640  # the chart's size (cli/curve_svg.c)
BLUE, VERMILION = (0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00)  # the first two series colours


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """(width, height, channels, rows of bytes) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                cur[i] = (cur[i] + a) & 255
            elif kind == 2:
                cur[i] = (cur[i] + b) & 255
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif kind == 4:
                cur[i] = (cur[i] + paeth(a, b, c)) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, channels, rows


def main():
    scalemeter = sys.argv[1]
    chromium = find_chromium()
    if not chromium:
        print("SKIP: Chromium is not installed (apt-get install -y chromium); the SVG chart is "
              "not rendered")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        svg, png = os.path.join(tmp, "curve.svg"), os.path.join(tmp, "curve.png")
        subprocess.run([scalemeter, "curve", "resnet50,vgg16", "--device", "h100",
                        "--global-batch", "4096", "--nodes", "1:64", "--format", "svg",
                        "-o", svg], check=True)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={tmp}/profile",
                        f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}",
                        "file://" + svg], check=True, capture_output=True, timeout=120)
        width, height, channels, rows = read_png(png)
    failures = []
    if (width, height) != (WIDTH, HEIGHT):
        failures.append(f"screenshot {width}x{height}, expected {WIDTH}x{HEIGHT}")
    ink = blue = vermilion = 0
    for row in rows:
        for x in range(0, len(row), channels):
            px = row[x:x + 3]
            if min(px) < 240:
                ink += 1
            if all(abs(p - q) <= 24 for p, q in zip(px, BLUE)):
                blue += 1
            if all(abs(p - q) <= 24 for p, q in zip(px, VERMILION)):
                vermilion += 1
    share = ink / (width * height)
    print(f"{width}x{height}: {share:.1%} of pixels inked, {blue} blue, {vermilion} vermilion")
    # Text, grid, frames and lines ink a few percent of the page; a blank page inks none and a
    # failed render (an error page, a black box) far more or in other colours.
    if not 0.02 <= share <= 0.5:
        failures.append(f"{share:.1%} of the pixels inked, expected 2% to 50%")
    # two lines across 7 node counts, 2.5 px wide, in two panels: well over 1000 pixels each
    if blue < 1000 or vermilion < 1000:
        failures.append(f"series colours: {blue} blue and {vermilion} vermilion pixels, "
                        "expected at least 1000 each")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
