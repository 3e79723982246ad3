#!/usr/bin/env python3
"""The SVG chart of `scalemeter curve` stays legible with many curves (issue 35, item 5): 12
curves (3 networks x 4 global batches, all 12 turning within 128 nodes on the ring) are told
apart by (colour, marker, dash), in the chart and in the legend; the ideal-scaling lines lie over
the series on a white halo; no turning-point label crosses a series' line or another label.

usage: test_curve_svg_legible.py SCALEMETER        (run from the source root)
       test_curve_svg_legible.py --file CHART.svg  (checks a chart written before)
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ARGS = ["resnet50,vgg16,alexnet", "--device", "h100", "--global-batch", "1024,2048,4096,8192",
        "--nodes", "1:128", "--collective", "ring", "--format", "svg"]
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def points(el):
    return [tuple(map(float, p.split(","))) for p in el.get("points").split()]


def marker_shape(el):
    """A marker's shape apart from where it stands: the circle's radius, or the path's
    vertices relative to its first."""
    if el.tag == NS + "circle":
        return ("circle", el.get("r"))
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", el.get("d"))]
    xy = list(zip(nums[0::2], nums[1::2]))
    return ("path",) + tuple((round(x - xy[0][0], 1), round(y - xy[0][1], 1)) for x, y in xy)


def crosses(seg, box):
    """Whether a segment has a point inside an axis-aligned box: by sampling it every 0.25 px
    (the boxes are 13 px tall, so a crossing cannot slip between samples)."""
    (x0, y0), (x1, y1) = seg
    bx0, by0, bx1, by1 = box
    n = max(1, int(max(abs(x1 - x0), abs(y1 - y0)) * 4))
    for k in range(n + 1):
        t = k / n
        x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        if bx0 <= x <= bx1 and by0 <= y <= by1:
            return True
    return False


def check_chart(path):
    root = ET.parse(path).getroot()
    top = list(root)  # the chart's groups in document order

    # 1. every curve's (colour, marker, dash) differs from every other's
    styles = []
    for i, g in enumerate(top):
        line = g.find(NS + "polyline[@class='series']")
        if g.tag != NS + "g" or line is None:
            continue
        marks = top[i + 1]  # the curve's markers follow its lines
        styles.append((g.get("stroke"), marker_shape(marks[0]),
                       line.get("stroke-dasharray", "solid")))
    check(len(styles) == 12, f"12 series lines, found {len(styles)}")
    check(len(set(styles)) == 12,
          f"12 distinct (colour, marker, dash), found {len(set(styles))}: {styles}")
    legend = [(e.find(NS + "line").get("stroke"), marker_shape(e.find(NS + "g")[0]),
               e.find(NS + "line").get("stroke-dasharray", "solid"))
              for e in root.iter(NS + "g") if e.get("class") == "legend-entry"]
    check(legend == styles, f"the legend shows the series' styles: {legend}")

    # 2. the ideal lines come after every series, each on a wider white halo
    order = [e for e in root.iter() if e.tag == NS + "polyline"]
    last_series = max(i for i, e in enumerate(order) if e.get("class") == "series")
    ideals = [i for i, e in enumerate(order) if e.get("class") == "ideal"]
    check(len(ideals) == 12, f"12 ideal lines, found {len(ideals)}")
    check(ideals and min(ideals) > last_series, "ideal lines drawn after (over) the series")
    for i in ideals:
        ideal, halo = order[i], order[i - 1]
        check(halo.get("class") == "ideal-halo" and halo.get("stroke") == "#ffffff"
              and points(halo) == points(ideal)
              and float(halo.get("stroke-width")) > float(ideal.get("stroke-width")),
              f"ideal line {i} lies on a wider white halo of the same points")
        check(float(ideal.get("stroke-width")) < 2.5, "ideal line thinner than the series")

    # 3. turning-point labels: off every series line and every other label. A label's box is
    # taken as 7 px a character wide, from 10 px above its baseline to 3 px below (font-size 12).
    segs = []
    for e in order:
        if e.get("class") == "series":
            p = points(e)
            segs += list(zip(p, p[1:]))
    boxes, texts = [], []
    for t in root.iter(NS + "text"):
        s = "".join(t.itertext())
        if not s.startswith("turns at"):
            continue
        texts.append(s)
        x, y, w = float(t.get("x")), float(t.get("y")), 7 * len(s)
        if x >= 720:  # in the legend, beside the plot
            continue
        x0 = x - w if t.get("text-anchor") == "end" else x
        boxes.append((s, (x0, y - 10, x0 + w, y + 3)))
    check(len(texts) == 12, f"12 turning points labelled, found {len(texts)}")
    for s, b in boxes:
        hit = [seg for seg in segs if crosses(seg, b)]
        check(not hit, f"label '{s}' at {b} crosses the series segment(s) {hit[:2]}")
    for i, (s, a) in enumerate(boxes):
        for t, b in boxes[i + 1:]:
            overlap = a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
            check(not overlap, f"labels '{s}' {a} and '{t}' {b} overlap")


def main():
    if sys.argv[1] == "--file":
        check_chart(sys.argv[2])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            svg = os.path.join(tmp, "c.svg")
            p = subprocess.run([sys.argv[1], "curve", *ARGS, "-o", svg], capture_output=True,
                               text=True)
            check(p.returncode == 0, f"curve: {p.stderr}")
            check_chart(svg)
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
