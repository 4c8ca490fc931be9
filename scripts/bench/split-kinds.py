#!/usr/bin/env python3
"""Splits corpus-large by each document's share of non-ASCII bytes:
cl-ascii (none), cl-sparse (< 1 %), cl-latin (< 30 %), cl-heavy (the rest),
plus cl-small (documents under 500 bytes), into OUT_DIR.
    python3 scripts/bench/split-kinds.py corpus-large.jsonl /tmp
"""
import json
import os
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
names = ["ascii", "sparse", "latin", "heavy", "small"]
files = {n: open(f"{out}/cl-{n}.jsonl", "w") for n in names}
for line in open(src):
    b = json.loads(line)["text"].encode()
    high = sum(1 for x in b if x >= 0x80) / max(len(b), 1)
    kind = "ascii" if high == 0 else "sparse" if high < 0.01 else "latin" if high < 0.3 else "heavy"
    files[kind].write(line)
    if len(b) < 500:
        files["small"].write(line)
