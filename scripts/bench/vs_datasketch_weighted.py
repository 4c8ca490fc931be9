#!/usr/bin/env python3
"""Weighted MinHash and b-bit signatures: txtfp against datasketch 2.0, one run.

    /work/pyv/bin/python scripts/bench/vs_datasketch_weighted.py CORPUS.jsonl [TRUTH.jsonl] [PAIRS] [DS_DOCS]

Runs `examples/weighted_vs_datasketch.rs` (release build), which sketches
every document, writes the TF vectors over word ids, the 5-shingle sets of
the documents in the evaluated pairs and the pairs with their exact
similarities, and prints its own figures. Then times datasketch on the
same data, single-threaded:

- WeightedMinHashGenerator(dim = vocabulary, sample_size = 128): `minhash`
  on DS_DOCS documents' dense TF vectors (built outside the timed region),
  and `minhash_many` on the CSR matrix of all documents, in blocks of 500
  rows (its temporaries are 128 x nnz floats). Estimation error on the
  same pairs from `minhash_many` signatures.
- bBitMinHash(b = 1, 2) from datasketch MinHash(128) of the same 5-shingle
  hashes (each fed as its 16 hex digits): construction and jaccard rates,
  and error against the exact shingle-set Jaccard.

Prints a markdown table of per-core rates, ratios and mean absolute errors.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp
from datasketch import MinHash, WeightedMinHashGenerator, bBitMinHash

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    corpus = sys.argv[1]
    truth = sys.argv[2] if len(sys.argv) > 2 else ""
    n_pairs = sys.argv[3] if len(sys.argv) > 3 else "200"
    ds_docs = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    out = tempfile.mkdtemp(prefix="wmh_")
    env = dict(os.environ)
    subprocess.run(
        ["cargo", "build", "--offline", "--release", "--example", "weighted_vs_datasketch",
         "--features", "weighted-minhash"], cwd=ROOT, check=True, env=env)
    target = env.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "release", "examples", "weighted_vs_datasketch")
    ours = json.loads(subprocess.run([exe, corpus, truth, out, n_pairs], check=True,
                                     capture_output=True, text=True).stdout)

    # TF vectors.
    rows, cols, vals = [], [], []
    with open(os.path.join(out, "wmh_tf.txt")) as f:
        for d, line in enumerate(f):
            for tok in line.split():
                i, w = tok.split(":")
                rows.append(d)
                cols.append(int(i))
                vals.append(float(w))
    n_docs = d + 1
    dim = max(cols) + 1
    X = sp.csr_matrix((np.array(vals, np.float32), (rows, cols)), shape=(n_docs, dim))
    mb_per_doc = ours["mb"] / ours["docs"]

    t = time.perf_counter()
    gen = WeightedMinHashGenerator(dim, sample_size=128, seed=1)
    gen_secs = time.perf_counter() - t

    nonempty = [d for d in range(n_docs) if X.indptr[d + 1] > X.indptr[d]]
    sample = nonempty[: ds_docs]
    dense = [X[d].toarray().ravel() for d in sample]
    t = time.perf_counter()
    for v in dense:
        gen.minhash(v)
    ds_minhash = len(sample) / (time.perf_counter() - t)
    del dense

    t = time.perf_counter()
    for start in range(0, n_docs, 500):
        gen.minhash_many(X[start:start + 500])
    ds_many = n_docs / (time.perf_counter() - t)

    pairs = []
    with open(os.path.join(out, "wmh_pairs.tsv")) as f:
        for line in f:
            kind, a, b, ew, ej = line.split("\t")
            pairs.append((kind, int(a), int(b), float(ew), float(ej)))
    # Signatures of the pairs' documents through `minhash_many` (one call:
    # `minhash` costs a pass over the whole vocabulary per slot).
    docs = sorted({d for _, a, b, _, _ in pairs for d in (a, b)})
    cache = dict(zip(docs, gen.minhash_many(X[docs])))

    def wsig(d):
        return cache[d]

    err = {}
    for kind in ("near", "random"):
        e = [abs(wsig(a).jaccard(wsig(b)) - ew) for k, a, b, ew, _ in pairs if k == kind]
        err[kind] = sum(e) / max(len(e), 1)

    # b-bit.
    shingles = {}
    with open(os.path.join(out, "wmh_shingles.txt")) as f:
        for line in f:
            d, _, hs = line.rstrip("\n").partition("\t")
            shingles[int(d)] = [h.encode() for h in hs.split()]
    mhs = {}
    for d, hs in shingles.items():
        m = MinHash(num_perm=128)
        m.update_batch(hs)
        mhs[d] = m
    ds_bbit = {}
    for b in (1, 2):
        ms = list(mhs.values())
        reps = max(1, 20000 // len(ms))
        t = time.perf_counter()
        for _ in range(reps):
            bb = [bBitMinHash(m, b=b) for m in ms]
        build = reps * len(ms) / (time.perf_counter() - t)
        t = time.perf_counter()
        cnt = 0
        for _ in range(reps):
            for x, y in zip(bb, bb[1:]):
                x.jaccard(y)
                cnt += 1
        cmp_rate = cnt / (time.perf_counter() - t)
        bmap = dict(zip(mhs.keys(), bb))
        e = {}
        for kind in ("near", "random"):
            v = [abs(bmap[a].jaccard(bmap[b]) - ej) for k, a, b, _, ej in pairs
                 if k == kind and a in bmap and b in bmap]
            e[kind] = sum(v) / max(len(v), 1)
        ds_bbit[b] = (build, cmp_rate, e)

    o_sketch = ours["wmh_words_sketch_docs_per_sec"]
    o_full = ours["wmh_words_full_docs_per_sec"]
    oe = ours["errors"]
    ob = ours["bbit"]
    print(f"corpus: {ours['docs']} docs, {ours['mb']:.1f} MB; vocabulary {dim} words, "
          f"{ours['nnz_words']} nonzeros; datasketch generator built in {gen_secs:.1f} s; "
          f"`minhash` timed on {len(sample)} docs\n")
    print("| weighted MinHash, 128 slots, TF over words | txtfp | datasketch | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| sketch from the weight vector, docs/s | {o_sketch:,.0f} | {ds_minhash:,.1f} (`minhash`) | {o_sketch / ds_minhash:,.0f}x |")
    print(f"| same, MB/s of source text | {o_sketch * mb_per_doc:.2f} | {ds_minhash * mb_per_doc:.4f} | |")
    print(f"| sketch, datasketch `minhash_many` (sparse, blocks of 500), docs/s | {o_sketch:,.0f} | {ds_many:,.0f} | {o_sketch / ds_many:,.1f}x |")
    print(f"| text to signature (canonicalize, tokenize, count, sketch), docs/s | {o_full:,.0f} | - | |")
    print(f"| same, MB/s | {ours['wmh_words_full_mb_per_sec']:.2f} | - | |")
    print(f"| mean abs error, near-duplicate pairs ({oe['near_pairs']}) | {oe['near_weighted_mae']:.4f} | {err['near']:.4f} | |")
    print(f"| mean abs error, random pairs ({oe['random_pairs']}) | {oe['random_weighted_mae']:.4f} | {err['random']:.4f} | |")
    print()
    print("| b-bit MinHash, 128 slots, 5-word shingles | txtfp | datasketch | ratio |")
    print("|---|---:|---:|---:|")
    for b in (1, 2):
        build, cmp_rate, e = ds_bbit[b]
        ob_build = ob[f"bbit{b}_build_per_sec"]
        ob_cmp = ob[f"bbit{b}_jaccard_per_sec"]
        print(f"| b={b}: build from a MinHash, sigs/s | {ob_build:,.0f} | {build:,.0f} | {ob_build / build:,.0f}x |")
        print(f"| b={b}: jaccard, pairs/s | {ob_cmp:,.0f} | {cmp_rate:,.0f} | {ob_cmp / cmp_rate:,.0f}x |")
        print(f"| b={b}: mean abs error, near pairs (uncorrected) | {oe[f'near_bbit{b}_mae']:.4f} ({oe[f'near_bbit{b}_uncorrected_mae']:.4f}) | {e['near']:.4f} | |")
        print(f"| b={b}: mean abs error, random pairs (uncorrected) | {oe[f'random_bbit{b}_mae']:.4f} ({oe[f'random_bbit{b}_uncorrected_mae']:.4f}) | {e['random']:.4f} | |")
    print(f"\nfull 64-bit MinHash error for reference: near {oe['near_minhash_mae']:.4f}, random {oe['random_minhash_mae']:.4f}; "
          f"txtfp weighted on 5-word shingles: {ours['wmh_shingle5_full_docs_per_sec']:,.0f} docs/s "
          f"({ours['wmh_shingle5_full_mb_per_sec']:.2f} MB/s); reference sampler "
          f"{ours['wmh_reference_per_doc_ms']:.3f} ms/doc vs fast {ours['wmh_fast_sample_per_doc_ms']:.3f} ms/doc")
    print("\n<details><summary>raw txtfp figures</summary>\n\n```json\n" + json.dumps(ours, indent=1) + "\n```\n</details>")


if __name__ == "__main__":
    main()
