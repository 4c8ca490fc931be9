#!/usr/bin/env python3
"""Build the compact golden subset committed in tests/data/ from ../shared.

Every field of the reference goldens that the crate must reproduce is kept,
but long values are replaced by 64-bit FNV-1a digests (the same digest the
reference harness uses for token lists), so a fresh clone can test itself
without ../shared. Re-run after the shared goldens change:

    python3 scripts/make_test_data.py ../shared tests/data
"""
import json, os, sys

def fnv(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"

def sig(v):
    if v is None:
        return None
    if "error" in v:
        return {"error": v["error"], "error_debug": v["error_debug"]}
    out = {"bytes_digest": fnv(bytes.fromhex(v["bytes_hex"])), "config_hash": v["config_hash"]}
    if "name" in v:
        out["name"] = v["name"]
    if "hashes" in v:
        out["slot0"] = v["hashes"][0]
    if "hex" in v:
        out["hex"] = v["hex"]
    return out

def compact(rec, text):
    out = {"id": rec["id"], "text": text}
    for k in ("bytes", "chars", "canonical_bytes", "grapheme_count", "grapheme_count_raw",
              "words_count", "words_digest", "shingles_k3_count", "shingles_k3_digest",
              "cjk_count", "cjk_digest", "paths_agree"):
        out[k] = rec[k]
    out["canonical_digest"] = fnv(rec["canonical"].encode())
    out["canonical_security_digest"] = fnv(rec["canonical_security"].encode())
    for k in ("minhash_xxh3_k5", "minhash_murmur_k5", "minhash_xxh3_k1_h64", "simhash_tf", "simhash_uniform"):
        out[k] = sig(rec[k])
    t = rec.get("tlsh")
    out["tlsh"] = t if t is None or "error" in t else {"hex": t["hex"], "config_hash": t["config_hash"]}
    for k in ("markdown_text", "html_text"):
        v = rec.get(k)
        out[k + "_digest"] = None if v is None else fnv(v.encode())
    return out

def main(shared, dest):
    os.makedirs(dest, exist_ok=True)
    plan = [
        ("corpus/edge-cases.jsonl", "golden/golden-edge.jsonl", "golden-edge.compact.jsonl", None, 300_000),
        ("corpus/corpus-small.jsonl", "golden/golden-small.digest.jsonl", "golden-small.compact.jsonl", 5, None),
    ]
    for src, gold, out_name, every, max_bytes in plan:
        texts = {}
        for n, line in enumerate(open(os.path.join(shared, src), encoding="utf-8")):
            d = json.loads(line)
            texts[d.get("id", n)] = d["text"]
        kept = 0
        with open(os.path.join(dest, out_name), "w", encoding="utf-8") as f:
            for n, line in enumerate(open(os.path.join(shared, gold), encoding="utf-8")):
                if every and n % every:
                    continue
                rec = json.loads(line)
                text = texts[rec["id"]]
                if max_bytes and len(text.encode()) > max_bytes:
                    continue
                f.write(json.dumps(compact(rec, text), ensure_ascii=False) + "\n")
                kept += 1
        print(f"{out_name}: {kept} records")
    # py-tlsh digests of the raw UTF-8 (tests/tlsh/golden.rs), for the ids kept above.
    kept_ids = set()
    for out_name in ("golden-edge.compact.jsonl", "golden-small.compact.jsonl"):
        for line in open(os.path.join(dest, out_name), encoding="utf-8"):
            kept_ids.add(json.loads(line)["id"])
    with open(os.path.join(dest, "tlsh-peers.compact.jsonl"), "w", encoding="utf-8") as f:
        kept = 0
        for peers in ("golden-datasketch-tlsh-edge-cases.jsonl", "golden-datasketch-tlsh-corpus-small.jsonl"):
            for line in open(os.path.join(shared, "golden/peers", peers), encoding="utf-8"):
                rec = json.loads(line)
                if rec.get("id") in kept_ids:
                    f.write(json.dumps({"id": rec["id"], "tlsh": rec["tlsh"]}) + "\n")
                    kept += 1
        print(f"tlsh-peers.compact.jsonl: {kept} records")
    meta = json.load(open(os.path.join(shared, "golden/golden-edge.jsonl.meta.json")))
    json.dump(meta, open(os.path.join(dest, "golden.meta.json"), "w"), indent=1)

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared", sys.argv[2] if len(sys.argv) > 2 else "tests/data")
