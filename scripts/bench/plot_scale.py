#!/usr/bin/env python3
"""Plot scripts/bench/scale_runs.sh's CSV as an SVG: wall time against corpus
size, the least-squares line through the runs, and the ideal linear
reference (the smallest run's seconds per GB, scaled); x is the corpus's
measured GB of JSONL. No dependencies: the
SVG is written directly.

    python3 scripts/bench/plot_scale.py scale.csv scale.svg

Several rows of one size (repeated runs) are all drawn; the fit uses them all.
"""
import csv
import sys

W, H, PAD = 560, 360, 60


def nice_step(span):
    for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        if span / s <= 8:
            return s
    return 10 ** len(str(int(span)))


def fit(pts):
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return 0.0, my / mx if mx else 0.0
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return my - slope * mx, slope


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    # x: the corpus's measured JSONL size (the generator lands near --size)
    pts = sorted((float(r["jsonl_bytes"]) / 1e9 if r.get("jsonl_bytes") else float(r["size_gb"]),
                  float(r["wall_s"])) for r in rows)
    if not pts:
        sys.exit("no rows")
    a, b = fit(pts)
    x0, y0 = pts[0]
    per_gb = y0 / x0
    xmax = max(x for x, _ in pts) * 1.05
    ymax = max(max(y for _, y in pts), a + b * xmax, per_gb * xmax) * 1.1
    sx = lambda x: PAD + x / xmax * (W - 2 * PAD)
    sy = lambda y: H - PAD - y / ymax * (H - 2 * PAD)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-weight="bold">txtfp dedup out of core: wall time vs corpus size</text>']
    out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(xmax)}" y2="{sy(0)}" stroke="black"/>')
    out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(0)}" y2="{sy(ymax)}" stroke="black"/>')
    ys = nice_step(ymax)
    t = 0
    while t <= ymax:
        out.append(f'<line x1="{sx(0) - 4}" y1="{sy(t):.1f}" x2="{sx(xmax)}" y2="{sy(t):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(0) - 8}" y="{sy(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
        t += ys
    xs = nice_step(xmax) if xmax > 2 else (0.1 if xmax <= 1 else 0.25)
    t = 0
    while t <= xmax + 1e-9:
        out.append(f'<line x1="{sx(t):.1f}" y1="{sy(0)}" x2="{sx(t):.1f}" y2="{sy(0) + 4}" stroke="black"/>')
        out.append(f'<text x="{sx(t):.1f}" y="{sy(0) + 18}" text-anchor="middle">{round(t, 3):g}</text>')
        t += xs
    # ideal linear reference and the fitted line
    out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(xmax):.1f}" y2="{sy(per_gb * xmax):.1f}" '
               'stroke="#999" stroke-dasharray="5,4"/>')
    out.append(f'<line x1="{sx(0)}" y1="{sy(max(a, 0)):.1f}" x2="{sx(xmax):.1f}" y2="{sy(a + b * xmax):.1f}" '
               'stroke="#d62728" stroke-width="1.5"/>')
    for x, y in pts:
        out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="#1f77b4"/>')
        out.append(f'<text x="{sx(x) + 6:.1f}" y="{sy(y) - 6:.1f}">{y:.0f} s</text>')
    lx, ly = PAD + 15, PAD + 5
    out.append(f'<rect x="{lx - 8}" y="{ly - 12}" width="300" height="54" fill="white" stroke="#ccc"/>')
    out.append(f'<circle cx="{lx + 12}" cy="{ly}" r="3.5" fill="#1f77b4"/><text x="{lx + 32}" y="{ly + 4}">runs</text>')
    out.append(f'<line x1="{lx}" y1="{ly + 15}" x2="{lx + 25}" y2="{ly + 15}" stroke="#d62728" stroke-width="1.5"/>'
               f'<text x="{lx + 32}" y="{ly + 19}">least squares: {a:.1f} s + {b:.1f} s/GB</text>')
    out.append(f'<line x1="{lx}" y1="{ly + 30}" x2="{lx + 25}" y2="{ly + 30}" stroke="#999" stroke-dasharray="5,4"/>'
               f'<text x="{lx + 32}" y="{ly + 34}">ideal linear: {per_gb:.1f} s/GB (smallest run)</text>')
    out.append(f'<text x="{W / 2}" y="{H - 18}" text-anchor="middle">corpus size, GB of JSONL</text>')
    out.append(f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" text-anchor="middle">wall seconds</text>')
    out.append("</svg>")
    open(sys.argv[2], "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
