#!/usr/bin/env python3
"""Builds tests/data/markup-ref-pages.jsonl: real Debian documentation pages
(HTML and Markdown under /usr/share/doc) with FNV-1a 64 digests of what the
published txtfp 0.3.2 makes of them (html_to_text, markdown_to_text).

    B=/tmp/txtfp-ref-target/release/txtfp-ref tests/data/markup-ref-make.py

Needs the reference harness binary (../shared/tools/txtfp-ref, see its README).
A few permissively licensed pages are copied to tests/data/markup/ so the test
always has real input; the others are read from /usr/share/doc when present.
"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.abspath(__file__))
B = os.environ.get("B", "/tmp/txtfp-ref-target/release/txtfp-ref")
DOC = "/usr/share/doc"
MAX = 300_000
# Copied into the repo (licenses: zlib, MIT, MIT, MIT, MIT, ISC, MIT).
COMMIT = [
    "zlib1g-dev/examples/zlib_how.html",
    "libexpat1-dev/expat.html/index.html",
    "libffi8/html/The-Closure-API.html",
    "libffi8/html/Closure-Example.html",
    "libjs-underscore/README.md",
    "libsodium23/README.markdown",
    "python3-yaml/README.md",
]

def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h ^= x
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h

def pick():
    html, md = [], []
    for dirpath, _, files in os.walk(DOC):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.islink(p) or os.path.getsize(p) > MAX or os.path.getsize(p) < 200:
                continue
            if f.endswith(".html"):
                html.append(p)
            elif f.endswith((".md", ".markdown")):
                md.append(p)
    html.sort(); md.sort()
    # Spread over the packages: every k-th page.
    chosen = html[:: max(1, len(html) // 60)] + md[:: max(1, len(md) // 25)]
    chosen += [os.path.join(DOC, c) for c in COMMIT]
    out = []
    for p in dict.fromkeys(chosen):
        try:
            t = open(p, encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        out.append((p, t))
    return out

def main():
    pages = pick()
    with tempfile.TemporaryDirectory() as d:
        inp, outp = os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl")
        with open(inp, "w") as f:
            for i, (p, t) in enumerate(pages):
                f.write(json.dumps({"id": i, "text": t}) + "\n")
        subprocess.run([B, "golden", "--input", inp, "--output", outp, "--tokens", "digest"], check=True)
        ref = [json.loads(l) for l in open(outp)]
    with open(os.path.join(ROOT, "markup-ref-pages.jsonl"), "w") as f:
        for (p, t), r in zip(pages, ref):
            rel = os.path.relpath(p, DOC)
            rec = {"path": p, "input_digest": fnv(t.encode()),
                   "html_text_digest": fnv(r["html_text"].encode()),
                   "html_text_len": len(r["html_text"].encode()),
                   "markdown_text_digest": fnv(r["markdown_text"].encode())}
            if rel in COMMIT:
                name = "markup/" + rel.replace("/", "__")
                open(os.path.join(ROOT, name), "w").write(t)
                rec["committed"] = name
            f.write(json.dumps(rec) + "\n")
    print(f"{len(pages)} pages", file=sys.stderr)

main()
