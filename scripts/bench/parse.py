#!/usr/bin/env python3
"""Prints the concatenated JSON objects of final-measure.sh one per line:
REF (the reference harness) or OURS, algo, threads, MB/s, checksum."""
import json
import sys

s = open(sys.argv[1]).read()
dec, i = json.JSONDecoder(), 0
while True:
    j = s.find("{", i)
    if j < 0:
        break
    d, i = dec.raw_decode(s, j)
    who = "OURS" if "crate" in d else "REF "
    print(who, d["algo"], d["threads"], d["mb_per_s"], d.get("checksum"))
