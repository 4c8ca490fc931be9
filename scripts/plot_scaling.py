#!/usr/bin/env python3
"""Plot examples/scaling.rs output (CSV) as an SVG with two panels:
MinHash MB/s against the number of slots H, and against the document size.
No dependencies: the SVG is written directly.

    python3 scripts/plot_scaling.py scaling.csv docs/scaling.svg
"""
import csv
import math
import sys

W, H, PAD = 420, 300, 55


def panel(ox, title, xlabel, pts, xfmt):
    xs = [math.log2(x) for x, _ in pts]
    ymax = max(y for _, y in pts) * 1.15
    x0, x1 = min(xs), max(xs)
    sx = lambda x: ox + PAD + (x - x0) / (x1 - x0) * (W - 2 * PAD)
    sy = lambda y: H - PAD + 10 - y / ymax * (H - 2 * PAD)
    out = [f'<text x="{ox + W / 2}" y="22" text-anchor="middle" font-weight="bold">{title}</text>']
    out.append(f'<line x1="{sx(x0)}" y1="{sy(0)}" x2="{sx(x1)}" y2="{sy(0)}" stroke="black"/>')
    out.append(f'<line x1="{sx(x0)}" y1="{sy(0)}" x2="{sx(x0)}" y2="{sy(ymax)}" stroke="black"/>')
    step = 50 if ymax > 150 else 25
    for t in range(0, int(ymax) + 1, step):
        out.append(f'<line x1="{sx(x0) - 4}" y1="{sy(t)}" x2="{sx(x1)}" y2="{sy(t)}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(x0) - 8}" y="{sy(t) + 4}" text-anchor="end">{t}</text>')
    for (x, _), lx in zip(pts, xs):
        out.append(f'<text x="{sx(lx)}" y="{sy(0) + 18}" text-anchor="middle">{xfmt(x)}</text>')
    path = " ".join(f"{sx(lx):.1f},{sy(y):.1f}" for (_, y), lx in zip(pts, xs))
    out.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    for (_, y), lx in zip(pts, xs):
        out.append(f'<circle cx="{sx(lx):.1f}" cy="{sy(y):.1f}" r="3" fill="#1f77b4"/>')
    out.append(f'<text x="{ox + W / 2}" y="{H - 8}" text-anchor="middle">{xlabel}</text>')
    out.append(f'<text x="{ox + 14}" y="{H / 2}" transform="rotate(-90 {ox + 14} {H / 2})" text-anchor="middle">MB/s, one core</text>')
    return out


def size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} B"


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    get = lambda s: [(int(r["x"]), float(r["mb_per_s"])) for r in rows if r["series"] == s]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W}" height="{H}" font-family="sans-serif" font-size="11">',
             f'<rect width="{2 * W}" height="{H}" fill="white"/>']
    parts += panel(0, "MinHash k=5 vs slots H (4 KiB docs)", "H (slots)", get("slots"), str)
    parts += panel(W, "MinHash k=5, H=128 vs document size", "document size", get("doc_bytes"), size)
    parts.append("</svg>")
    open(sys.argv[2], "w").write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
