#!/usr/bin/env python3
"""Regenerates tests/data/cjk-golden.jsonl from ../shared (the published crate's goldens).

Run from the project root: python3 tests/data/cjk-golden-make.py
Picks (a) every edge case of at most 4 KB, with txtfp 0.3.2's full `cjk` token array,
(b) every corpus-small document with a Han ideograph of at most 8 KB, and (c) up to two
short non-Han, non-ASCII documents per language (legacy jieba shreds those per code point),
with `cjk_count` / `cjk_digest` from golden-small.digest.jsonl.
"""
import json, re, sys, pathlib

shared = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "../shared")
han = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
out = []

edge_text = {}
for n, line in enumerate(open(shared / "corpus/edge-cases.jsonl", encoding="utf-8")):
    r = json.loads(line)
    edge_text[r.get("id", n)] = r["text"]
for line in open(shared / "golden/golden-edge.jsonl", encoding="utf-8"):
    g = json.loads(line)
    t = edge_text[g["id"]]
    if len(t.encode()) <= 4096:
        out.append({"id": g["id"], "text": t, "cjk_count": g["cjk_count"],
                    "cjk_digest": g["cjk_digest"], "cjk": g["cjk"]})

gold = {}
for line in open(shared / "golden/golden-small.digest.jsonl", encoding="utf-8"):
    g = json.loads(line)
    gold[g["id"]] = g
per_lang = {}
for line in open(shared / "corpus/corpus-small.jsonl", encoding="utf-8"):
    r = json.loads(line)
    t, size = r["text"], len(r["text"].encode())
    if han.search(t):
        keep = size <= 8192
    else:
        lang = r.get("lang")
        keep = (size <= 3072 and any(ord(c) > 127 for c in t)
                and per_lang.get(lang, 0) < 2)
        if keep:
            per_lang[lang] = per_lang.get(lang, 0) + 1
    if keep:
        g = gold[r["id"]]
        out.append({"id": r["id"], "text": t, "cjk_count": g["cjk_count"],
                    "cjk_digest": g["cjk_digest"]})

with open("tests/data/cjk-golden.jsonl", "w", encoding="utf-8") as f:
    for r in out:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(out), "records")
