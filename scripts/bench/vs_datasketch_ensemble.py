#!/usr/bin/env python3
"""Containment search: txtfp's LshEnsemble and datasketch's MinHashLSHEnsemble
on the same sets, in one run.

    vs_datasketch_ensemble.py CORPUS.jsonl [--bin PATH] [--queries 300]
        [--work DIR] [--json FILE]

Run it with a Python that has datasketch 2.0 and numpy. It first runs the
Rust example `ensemble_vs_datasketch` (built with
`cargo build --release --features lsh --example ensemble_vs_datasketch`;
--bin names the binary, default target/release/examples/ under
$CARGO_TARGET_DIR or ./target), which

  * turns every document into the set of its 5-word shingles (txtfp's
    canonicalizer and ShingleTokenizer, each shingle's XXH3-64) and a
    128-slot MinHash of them, holding every 20th document out;
  * builds queries from contiguous runs of a quarter to a half of a
    document's lines, 4 in 5 from indexed documents, 1 in 5 from held-out
    ones, and computes the exact containment of each in every indexed set;
  * times txtfp's build and queries and scores them;
  * writes the sets to a file, which this script reads, so datasketch indexes
    the very same shingle sets (its MinHash hashes the low 32 bits of each
    shingle's XXH3-64: datasketch needs 32-bit values).

datasketch: MinHashLSHEnsemble(threshold=t, num_perm=128, num_part=16, m=8),
one index per threshold (its threshold is fixed at construction; txtfp's is
chosen per query, so one txtfp index serves all five). Timed: index() and
the queries, CPU time of this process (one core). MinHash creation is not
timed on either side. Recall and precision are pooled over all queries, for
the raw candidates of both libraries (and txtfp's query_estimated).
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
from datasketch import MinHash, MinHashLSHEnsemble

THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9]


def read_sets(f):
    (n,) = struct.unpack("<I", f.read(4))
    out = []
    for _ in range(n):
        key, length = struct.unpack("<QI", f.read(12))
        hashes = np.frombuffer(f.read(8 * length), dtype="<u8")
        out.append((key, hashes))
    return out


def minhash(hashes):
    m = MinHash(num_perm=128, hashfunc=lambda v: int(v) & 0xFFFFFFFF)
    m.update_batch(hashes)
    return m


def score(found, truth, k):
    tp = n_found = n_true = 0
    for got, want in zip(found, truth):
        want = set(want[k])
        tp += sum(1 for key in got if key in want)
        n_found += len(got)
        n_true += len(want)
    return tp / max(n_true, 1), tp / max(n_found, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--bin")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--work")
    ap.add_argument("--json")
    args = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    binary = args.bin or os.path.join(target, "release", "examples", "ensemble_vs_datasketch")
    work = args.work or tempfile.mkdtemp(prefix="ensemble-")
    sets_path = os.path.join(work, "sets.bin")
    ours = json.loads(
        subprocess.run(
            [binary, args.corpus, sets_path, str(args.queries)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    truth = ours.pop("truth")
    with open(sets_path, "rb") as f:
        docs = read_sets(f)
        queries = read_sets(f)
    print(f"{len(docs)} sets, {len(queries)} queries; making datasketch MinHashes...", file=sys.stderr)
    doc_mh = [(key, minhash(h), len(h)) for key, h in docs]
    q_mh = [(minhash(h), len(h)) for _, h in queries]

    rows = []
    for k, t in enumerate(THRESHOLDS):
        lsh = MinHashLSHEnsemble(threshold=t, num_perm=128, num_part=16, m=8)
        c0 = time.process_time()
        lsh.index(doc_mh)
        build_s = time.process_time() - c0
        c0 = time.process_time()
        found = [list(lsh.query(m, size)) for m, size in q_mh]
        query_s = time.process_time() - c0
        recall, precision = score(found, truth, k)
        rows.append(
            {"threshold": t, "build_s": build_s, "query_s": query_s, "recall": recall, "precision": precision}
        )
        print(f"datasketch t={t}: build {build_s:.1f} s, queries {query_s:.2f} s", file=sys.stderr)

    n_docs, n_q = len(docs), len(queries)
    ds_build = sum(r["build_s"] for r in rows) / len(rows)
    print(f"{n_docs} indexed sets, {n_q} queries ({ours['negative_queries']} from held-out documents), "
          f"mean query size {ours['mean_query_size']:.0f} shingles; 128 slots, 16 partitions, rows <= 8.\n")
    print("| build (sets/s per core) | txtfp | datasketch | ratio |")
    print("|---|---|---|---|")
    print(f"| one index | {n_docs / ours['build_s']:,.0f} | {n_docs / ds_build:,.0f} (mean of 5) "
          f"| {ds_build / ours['build_s']:.0f}× |\n")
    print("| threshold | txtfp recall | txtfp precision | datasketch recall | datasketch precision "
          "| txtfp est. recall | txtfp est. precision | txtfp queries/s | datasketch queries/s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for ds, us in zip(rows, ours["thresholds"]):
        print(f"| {ds['threshold']} | {us['recall']:.3f} | {us['precision']:.3f} | {ds['recall']:.3f} "
              f"| {ds['precision']:.3f} | {us['estimated_recall']:.3f} | {us['estimated_precision']:.3f} "
              f"| {n_q / us['query_s']:,.0f} | {n_q / ds['query_s']:,.0f} | {ds['query_s'] / us['query_s']:.0f}× |")
    print("\nThe same sets in txtfp with `.partitioning(Partitioning::EquiDepth)` (equal-count partitions):\n")
    print("| threshold | recall | precision |")
    print("|---|---|---|")
    for us in ours["thresholds"]:
        e = us["equi_depth"]
        print(f"| {us['threshold']} | {e['recall']:.3f} | {e['precision']:.3f} |")
    print("\nThe same sets in txtfp with `.weights(0.1, 0.9)` (a miss costs nine false candidates):\n")
    print("| threshold | recall | precision | est. recall | est. precision |")
    print("|---|---|---|---|---|")
    for us in ours["thresholds"]:
        w = us["weighted_0.1_0.9"]
        print(f"| {us['threshold']} | {w['recall']:.3f} | {w['precision']:.3f} "
              f"| {w['estimated_recall']:.3f} | {w['estimated_precision']:.3f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"txtfp": ours, "datasketch": rows}, f, indent=1)


if __name__ == "__main__":
    main()
