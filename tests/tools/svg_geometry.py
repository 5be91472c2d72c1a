#!/usr/bin/env python3
"""Geometry of fak's charts (tests/cli/scripts/chart-geometry.sh): no label overlaps another
label, a plotted point or a floor or comparison line, and every label lies inside the chart.

    svg_geometry.py FILE.svg...

A label's box comes from its font size and its number of characters, the advances the
renderer itself plans with (src/render/svg.c's style, chart_climb.c's MONO_PX and SANS_PX):
0.575 em a character of DejaVu Sans, 0.63 em bold, 0.602 em DejaVu Sans Mono; from 0.8 em
above the baseline to 0.2 em below it. A text cut by the renderer shows what follows its
<title>. Prints one line per problem; exits 1 when there is any.
"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
SIZE = {"title": 18, "head": 14, "verdict": 14, "small": 11}
BOLD = {"title", "head", "verdict", "wit"}
MARKS = {"base", "cand", "witness"}     # the plotted points (and the legend's marks)
LINES = {"floor", "cmp"}                # the lines a label must not cross
SLACK = 0.5                             # boxes that touch by less do not overlap


def shown(t):
    title = t.find(NS + "title")
    return (title.tail if title is not None else t.text) or ""


def text_box(t):
    cls = set((t.get("class") or "").split())
    size = max([SIZE.get(c, 12) for c in cls] or [12])
    per = 0.602 if "id" in cls else 0.63 if cls & BOLD else 0.575
    w = len(shown(t)) * size * per
    x, y = float(t.get("x")), float(t.get("y"))
    anchor = t.get("text-anchor", "start")
    x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return (x0, y - 0.8 * size, x0 + w, y + 0.2 * size)


def mark_box(n):
    tag = n.tag[len(NS):]
    if tag == "circle":
        cx, cy, r = (float(n.get(k)) for k in ("cx", "cy", "r"))
        return (cx - r, cy - r, cx + r, cy + r)
    if tag == "rect":
        x, y, w, h = (float(n.get(k)) for k in ("x", "y", "width", "height"))
        return (x, y, x + w, y + h)
    if tag == "polygon":
        xy = [tuple(map(float, p.split(","))) for p in n.get("points").split()]
        return (min(p[0] for p in xy), min(p[1] for p in xy), max(p[0] for p in xy),
                max(p[1] for p in xy))
    return None


def overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def check(path):
    root = ET.parse(path).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    texts, marks, lines, bad = [], [], [], []
    for n in root.iter():
        cls = set((n.get("class") or "").split())
        if n.tag == NS + "text":
            texts.append((shown(n), text_box(n)))
        elif cls & MARKS and mark_box(n):
            marks.append(("point " + " ".join(sorted(cls)), mark_box(n)))
        elif n.tag == NS + "line" and cls & LINES:
            x1, y1, x2, y2 = (float(n.get(k)) for k in ("x1", "y1", "x2", "y2"))
            lines.append(("%s line" % " ".join(sorted(cls)),
                          (min(x1, x2) - 0.75, min(y1, y2), max(x1, x2) + 0.75, max(y1, y2))))
    for i, (s, b) in enumerate(texts):
        if b[0] < -SLACK or b[2] > width + SLACK or b[1] < -SLACK or b[3] > height + SLACK:
            bad.append("label %r (%.1f,%.1f..%.1f,%.1f) leaves the chart" % ((s,) + b))
        for s2, b2 in texts[i + 1:]:
            if overlap(b, b2):
                bad.append("label %r overlaps label %r" % (s, s2))
        for what, b2 in marks + lines:
            if overlap(b, b2):
                bad.append("label %r overlaps a %s at %.1f,%.1f" % (s, what, b2[0], b2[1]))
    return bad


def main():
    problems = 0
    for path in sys.argv[1:]:
        for line in check(path):
            print("%s: %s" % (path, line))
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
