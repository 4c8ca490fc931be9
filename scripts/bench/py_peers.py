#!/usr/bin/env python3
"""The Python package against the Python peers, one process, from raw text.

    scripts/bench/py_peers.py CORPUS.jsonl [--min-seconds 2] [--cpu N] [--skip-peers]

Every figure is end to end from the documents' `str` to signatures: the
peers tokenize in Python as their users do (lower-case, `\\W+` split, word
5-shingles, the tokenization of ../shared/tools/peers/bench_peers.py), except
gaoya, whose own native analyzer is measured. txtfp canonicalizes (NFKC, case
folding, control removal) and tokenizes by UAX #29 words itself, which is more
work than the peers' split.

Single-core rows run pinned to one CPU with RAYON_NUM_THREADS=1, in this
process. The two-CPU rows run the same `fingerprint_batch` calls with the
threads=2 on two CPUs, and their ratio to the one-CPU rows is printed. Needs numpy, pyarrow,
txtfp (pip install ./txtfp-py) and, unless --skip-peers, datasketch, rensa and
gaoya from PyPI. Prints one JSON line per measurement, then a Markdown table.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import argparse
import gc
import json
import re
import sys
import time
from importlib import metadata

WORD_SPLIT = re.compile(r"\W+")
NGRAM, NUM_PERM, SEED = 5, 128, 1


def shingles_of(text):
    w = [x for x in WORD_SPLIT.split(text.lower()) if x]
    if len(w) < NGRAM:
        return [" ".join(w)]
    return list(dict.fromkeys(" ".join(w[i:i + NGRAM]) for i in range(len(w) - NGRAM + 1)))


def measure(rows, label, fn, n_docs, n_bytes, min_seconds):
    gc.collect()
    reps, elapsed, best = 0, 0.0, float("inf")
    while elapsed < min_seconds or reps == 0:
        gc.disable()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        gc.enable()
        elapsed += t1 - t0
        best = min(best, t1 - t0)
        reps += 1
    rec = {
        "op": label,
        "docs_per_s": round(n_docs * reps / elapsed, 1),
        "mb_per_s": round(n_bytes * reps / elapsed / 1e6, 2),
        "best_mb_per_s": round(n_bytes / best / 1e6, 2),
        "reps": reps,
    }
    print(json.dumps(rec), flush=True)
    rows.append(rec)
    return rec


def version(pkg):
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--min-seconds", type=float, default=2.0)
    ap.add_argument("--cpu", type=int, default=None)
    ap.add_argument("--skip-peers", action="store_true")
    args = ap.parse_args()

    import numpy as np
    import pyarrow as pa

    import txtfp

    allowed = sorted(os.sched_getaffinity(0))
    cpu = args.cpu if args.cpu is not None else allowed[-1]
    with open(args.corpus, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    n = len(texts)
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    print(json.dumps({"corpus": args.corpus, "docs": n, "bytes": nbytes, "cpu": cpu,
                      "versions": {p: version(p) for p in
                                   ("txtfp", "numpy", "pyarrow", "datasketch", "rensa", "gaoya")}}),
          flush=True)
    rows = []
    T = args.min_seconds

    os.sched_setaffinity(0, {cpu})
    arrow = pa.array(texts)
    mh = txtfp.MinHashFingerprinter(k=NGRAM, num_perm=NUM_PERM)
    fast = txtfp.MinHashFingerprinter(k=NGRAM, num_perm=NUM_PERM, fast=True)
    sim = txtfp.SimHashFingerprinter()
    # fingerprint() raises on a document without words: time only the others.
    empty = mh.fingerprint_batch(texts, errors="empty")[:, 0] == np.iinfo(np.uint64).max
    nonempty = [t for t, e in zip(texts, empty) if not e]
    ours = measure(rows, "txtfp MinHash k=5/128, fingerprint_batch(list of str)", lambda: mh.fingerprint_batch(texts, threads=1, errors="empty"), n, nbytes, T)
    measure(rows, "txtfp MinHash k=5/128, fingerprint_batch(pyarrow array)", lambda: mh.fingerprint_batch(arrow, threads=1, errors="empty"), n, nbytes, T)
    measure(rows, "txtfp MinHash k=5/128, fingerprint() per document", lambda: [mh.fingerprint(t) for t in nonempty], n, nbytes, T)
    fast_one = measure(rows, "txtfp fast MinHash k=5/128, fingerprint_batch(list of str)", lambda: fast.fingerprint_batch(texts, threads=1, errors="empty"), n, nbytes, T)
    measure(rows, "txtfp fast MinHash k=5/128, fingerprint_batch(pyarrow array)", lambda: fast.fingerprint_batch(arrow, threads=1, errors="empty"), n, nbytes, T)
    measure(rows, "txtfp SimHash 64, fingerprint_batch(list of str)", lambda: sim.fingerprint_batch(texts, threads=1, errors="empty"), n, nbytes, T)

    # Two cores: the same calls on two CPUs and two threads (RAYON_NUM_THREADS
    # pins the default pool to one), against the one-CPU figures above.
    if len(allowed) >= 2:
        os.sched_setaffinity(0, set(allowed[-2:]))
        two = measure(rows, "txtfp MinHash k=5/128, fingerprint_batch(list of str), 2 CPUs", lambda: mh.fingerprint_batch(texts, threads=2, errors="empty"), n, nbytes, T)
        fast_two = measure(rows, "txtfp fast MinHash k=5/128, fingerprint_batch(list of str), 2 CPUs", lambda: fast.fingerprint_batch(texts, threads=2, errors="empty"), n, nbytes, T)
        print(json.dumps({"two_cpus_over_one": {"minhash": round(two["mb_per_s"] / ours["mb_per_s"], 2),
                                                "fast": round(fast_two["mb_per_s"] / fast_one["mb_per_s"], 2)}}), flush=True)
        os.sched_setaffinity(0, {cpu})

    peers = {}
    if not args.skip_peers:
        from datasketch import MinHash
        from gaoya.gaoya import minhash as gm
        from rensa import RMinHash

        peers["rensa"] = measure(rows, "rensa 0.5 RMinHash(128): Python shingles + digest_matrix_from_token_sets",
                                 lambda: RMinHash.digest_matrix_from_token_sets([shingles_of(t) for t in texts], NUM_PERM, SEED), n, nbytes, T)
        measure(rows, "rensa 0.5 RMinHash(128): Python shingles + update per document",
                lambda: [RMinHash(NUM_PERM, SEED).update(shingles_of(t)) for t in texts], n, nbytes, T)
        gidx = gm.MinHash32StringIntIndexHashSet(0.8, 16, 8, None, "word", True, (NGRAM, NGRAM))
        peers["gaoya"] = measure(rows, "gaoya 0.2 tokenize_and_minhash (its native analyzer)",
                                 lambda: [gidx.tokenize_and_minhash(t) for t in texts], n, nbytes, T)

        def ds():
            sh = [[s.encode("utf-8") for s in shingles_of(t)] for t in texts]
            return MinHash.bulk(sh, num_perm=NUM_PERM, seed=SEED)
        peers["datasketch"] = measure(rows, "datasketch 2.0 MinHash.bulk: Python shingles", ds, n, nbytes, max(T, 0.1))

    print()
    print(f"corpus: {args.corpus} ({n} documents, {nbytes / 1e6:.1f} MB), one CPU ({cpu})")
    print()
    print("| path | docs/s | MB/s | txtfp MinHash k=5/128 (list) is |")
    print("|---|---:|---:|---:|")
    for r in rows:
        ratio = ours["mb_per_s"] / r["mb_per_s"]
        print(f"| {r['op']} | {r['docs_per_s']:,.0f} | {r['mb_per_s']:,.2f} | {ratio:,.1f}x |")


if __name__ == "__main__":
    sys.exit(main())
