#!/usr/bin/env python3
"""Top-k search: txtfp's LshForest against datasketch's MinHashLSHForest, in one run.

    /work/pyv/bin/python scripts/bench/vs_datasketch_forest.py CORPUS.jsonl [TRUTH.jsonl] [QUERIES]

Runs `examples/forest_vs_datasketch.rs` (release), which computes every document's
5-word-shingle set with txtfp's pipeline, the exact top 10 by Jaccard for the
queries, and txtfp's figures; then builds datasketch's forest (num_perm=128, l=8)
over MinHashes of the same sets (each shingle given to datasketch as the 8 bytes of
its XXH3-64, as txtfp names it) and queries it the same way (k=11, the query itself
dropped). Build time is `add` for every document plus `index()`, MinHashes made
beforehand (txtfp's: `insert_all`, which sorts once, and the `insert` loop plus
`index()`; signatures made beforehand). Single-threaded on both
sides, so the rates are per core. Prints a markdown table.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
from datasketch import MinHash, MinHashLSHForest

NUM_PERM = 128
TREES = 8
K = 10


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    corpus = sys.argv[1]
    truth = sys.argv[2] if len(sys.argv) > 2 else ""
    queries = sys.argv[3] if len(sys.argv) > 3 else "500"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["cargo", "run", "--offline", "--release", "-q", "--features", "lsh",
               "--example", "forest_vs_datasketch", "--", corpus, truth, tmp, queries]
        out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout
        ours = json.loads(out.strip().splitlines()[-1])
        with open(os.path.join(tmp, "forest_truth.json")) as f:
            truth_rows = json.load(f)
        sets = read_sets(os.path.join(tmp, "forest_sets.bin"))

    minhashes = {}
    for d, hashes in enumerate(sets):
        if len(hashes) == 0:
            continue
        m = MinHash(num_perm=NUM_PERM)
        m.update_batch([hashes[i:i + 8] for i in range(0, len(hashes), 8)])
        minhashes[d] = m

    forest = MinHashLSHForest(num_perm=NUM_PERM, l=TREES)
    t = time.perf_counter()
    for d, m in minhashes.items():
        forest.add(d, m)
    forest.index()
    build_s = time.perf_counter() - t

    t = time.perf_counter()
    answers = []
    for row in truth_rows:
        q = row["q"]
        got = [d for d in forest.query(minhashes[q], K + 1) if d != q][:K]
        answers.append(got)
    query_s = time.perf_counter() - t

    # The ceiling of datasketch's signatures: the exact top 10 by estimated
    # Jaccard over all of them (not timed).
    keys = np.array(list(minhashes.keys()))
    matrix = np.stack([minhashes[d].hashvalues for d in keys])
    exact = []
    for row in truth_rows:
        q = row["q"]
        eq = (matrix == minhashes[q].hashvalues).sum(axis=1)
        order = np.lexsort((keys, -eq))
        exact.append([int(d) for d in keys[order[:K + 1]] if d != q][:K])

    theirs = {
        "build_per_s": len(minhashes) / build_s,
        "query_per_s": len(truth_rows) / query_s,
        "recall_at_10": recall(answers, truth_rows),
        "exact_scan_recall_at_10": recall(exact, truth_rows),
    }
    classic, fast = ours["classic"], ours["fast"]

    print(f"corpus: {corpus} ({ours['docs']} documents with a shingle, "
          f"{ours['queries']} queries, num_perm={NUM_PERM}, l={TREES}, k={K})\n")
    print("| | txtfp LshForest, fast scheme | txtfp LshForest, default scheme "
          "| datasketch MinHashLSHForest | ratio (fast / default) |")
    print("|---|---|---|---|---|")
    for name, key, fmt in (("build (docs/s per core)", "build_per_s", ",.0f"),
                           ("query (queries/s per core)", "query_per_s", ",.0f")):
        print(f"| {name} | {fast[key]:{fmt}} | {classic[key]:{fmt}} | {theirs[key]:{fmt}} | "
              f"{fast[key] / theirs[key]:.0f}x / {classic[key] / theirs[key]:.0f}x |")
    print(f"| recall@10 vs exact Jaccard | {fast['recall_at_10']:.3f} | "
          f"{classic['recall_at_10']:.3f} | {theirs['recall_at_10']:.3f} | |")
    print(f"| recall@10 of an exact scan over the signatures | "
          f"{fast['exact_scan_recall_at_10']:.3f} | {classic['exact_scan_recall_at_10']:.3f} | "
          f"{theirs['exact_scan_recall_at_10']:.3f} | |")
    print(f"\nBuild above: `insert_all` (one sort). The `insert` loop plus `index()`: "
          f"{fast['build_insert_loop_per_s']:,.0f} (fast) / "
          f"{classic['build_insert_loop_per_s']:,.0f} (default) docs/s.")
    for name in ("classic_strided", "fast_strided"):
        print(f"\n{name} bands (tree t over slots t, t+l, ...): recall@10 "
              f"{ours[name]['recall_at_10']:.3f}")
    print(f"\ntxtfp exact scan (query_exact, default scheme): "
          f"{classic['exact_scan_query_per_s']:,.0f} queries/s; forest memory "
          f"{classic['memory_bytes'] / ours['docs']:.0f} bytes/doc")
    print("\n" + json.dumps({"txtfp": ours, "datasketch": theirs}))


def recall(answers, truth_rows):
    """Hits among the relevant ids, capped per query at its positive count."""
    hits = wanted = 0
    for got, row in zip(answers, truth_rows):
        rel = set(row["relevant"])
        hits += min(sum(1 for d in got if d in rel), row["positive"])
        wanted += row["positive"]
    return hits / max(wanted, 1)


def read_sets(path):
    """Each document's shingle hashes as one bytes object of 8-byte names."""
    sets = []
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        at += 4
        sets.append(data[at:at + 8 * n])
        at += 8 * n
    return sets


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
