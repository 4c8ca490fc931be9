#!/usr/bin/env python3
"""py-tlsh (the reference C++ TLSH) over a JSONL corpus, for the live parity test.

Usage: pytlsh_reference.py OUT.jsonl CORPUS.jsonl [CORPUS.jsonl ...]

One line per document with at least 50 UTF-8 bytes: {"doc", "text", "hash"};
then one line per pair of consecutive hashed documents: {"a", "b", "diff"}.
"hash" is tlsh.hash(utf-8 bytes) ("TNULL" when the reference refuses the
input, e.g. too little variety).
"""
import json
import sys

import tlsh


def main():
    out_path, corpora = sys.argv[1], sys.argv[2:]
    docs = []
    for path in corpora:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f):
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                text = rec.get("text")
                if not isinstance(text, str) or len(text.encode("utf-8")) < 50:
                    continue
                doc = f"{path.rsplit('/', 1)[-1]}:{rec.get('id', n)}"
                docs.append((doc, text, tlsh.hash(text.encode("utf-8"))))
    with open(out_path, "w", encoding="utf-8") as out:
        for doc, text, h in docs:
            out.write(json.dumps({"doc": doc, "text": text, "hash": h}, ensure_ascii=False) + "\n")
        valid = [d for d in docs if d[2] != "TNULL"]
        for (da, _, ha), (db, _, hb) in zip(valid, valid[1:]):
            out.write(json.dumps({"a": da, "b": db, "diff": tlsh.diff(ha, hb)}) + "\n")
    print(f"py-tlsh {getattr(tlsh, '__version__', '?')}: {len(docs)} digests, "
          f"{max(len(valid) - 1, 0)} distances -> {out_path}")


if __name__ == "__main__":
    main()
