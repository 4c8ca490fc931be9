#!/usr/bin/env python3
"""Distinct-shingle counting: txtfp's HyperLogLog / HyperLogLog++ against datasketch's, in one run.

    /work/pyv/bin/python scripts/bench/vs_datasketch_hll.py CORPUS.jsonl [PRECISIONS] [MAX_DOCS]

PRECISIONS defaults to 8,12,14; MAX_DOCS (0 = all, the default) keeps the first documents.

Runs `examples/hll_vs_datasketch.rs` (release), which cuts every document into 5-word
shingles with txtfp's pipeline (default Canonicalizer, ShingleTokenizer(5, WordTokenizer)),
writes them to a temporary file and times txtfp on them; then gives datasketch the very same
shingle strings. Both sides are timed from the prepared strings: datasketch's `update(b)`
with `b` already UTF-8 bytes (its default SHA-1 hashing included, as ours includes XXH3), ours
`insert_str(s)`. Two uses: one sketch over the whole corpus ("overall"), and one new sketch per
document ("per document", the distinct shingles of each source). Single-threaded on both
sides, so the rates are per core; each figure is the best of three runs (datasketch: one run
when a pass takes over 20 s). Relative error is against the exact distinct count; per document
it is the mean absolute relative error over documents with at least one shingle.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

from datasketch import HyperLogLog, HyperLogLogPlusPlus

PEERS = {"HyperLogLog": HyperLogLog, "HyperLogLog++": HyperLogLogPlusPlus}


def read_docs(path):
    docs, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                cur.append(line.encode("utf-8"))
            else:
                docs.append(cur)
                cur = []
    return docs


def timed(fn):
    best, out = float("inf"), None
    for _ in range(3):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = min(best, dt)
        if dt > 20:
            break
    return best, out


def peer_overall(cls, p, docs):
    def run():
        h = cls(p=p)
        for d in docs:
            for b in d:
                h.update(b)
        return h.count()
    return timed(run)


def peer_per_doc(cls, p, docs):
    def run():
        out = []
        for d in docs:
            h = cls(p=p)
            for b in d:
                h.update(b)
            out.append(h.count())
        return out
    return timed(run)


def main() -> None:
    # datasketch warns on every small per-document count near its switch of
    # estimators; the error columns show the effect.
    warnings.filterwarnings("ignore", message=".*error correction threshold.*")
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    corpus = os.path.abspath(sys.argv[1])
    precisions = sys.argv[2] if len(sys.argv) > 2 else "8,12,14"
    max_docs = sys.argv[3] if len(sys.argv) > 3 else "0"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        shingles = os.path.join(tmp, "shingles.txt")
        cmd = ["cargo", "run", "--offline", "--release", "-q", "--features", "hll",
               "--example", "hll_vs_datasketch", "--", corpus, shingles, precisions, max_docs]
        out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout
        ours = json.loads(out.strip().splitlines()[-1])
        docs = read_docs(shingles)

    exact_all = len({b for d in docs for b in d})
    exact_doc = [len(set(d)) for d in docs]
    items = sum(len(d) for d in docs)
    nbytes = sum(len(b) for d in docs for b in d)
    assert exact_all == ours["exact_distinct"], (exact_all, ours["exact_distinct"])
    assert items == ours["shingles"], (items, ours["shingles"])

    print(f"corpus: {corpus}: {ours['docs']} documents, {ours['text_bytes'] / 1e6:.1f} MB of text, "
          f"{items} 5-word shingles ({nbytes / 1e6:.1f} MB), {exact_all} distinct")
    print(f"txtfp end to end (canonicalize + shingle + HyperLogLog++ p=12 per document): "
          f"{ours['end_to_end_mb_per_sec']:.1f} MB/s of text")
    print()
    print("| sketch | p | use | txtfp items/s | datasketch items/s | ratio | txtfp MB/s | "
          "txtfp rel. error | datasketch rel. error | 1.04/sqrt(m) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in ours["results"]:
        cls, p = PEERS[r["variant"]], r["p"]
        t_all, est_all = peer_overall(cls, p, docs)
        t_doc, ests = peer_per_doc(cls, p, docs)
        errs = [abs(e - x) / x for e, x in zip(ests, exact_doc) if x > 0]
        peer_doc_err = sum(errs) / max(len(errs), 1)
        peer_all_err = (est_all - exact_all) / exact_all
        rows = [
            ("overall", r["overall_items_per_sec"], items / t_all, r["overall_mb_per_sec"],
             f"{r['overall_rel_error']:+.4f}", f"{peer_all_err:+.4f}"),
            ("per document", r["per_doc_items_per_sec"], items / t_doc,
             r["per_doc_items_per_sec"] * nbytes / items / 1e6,
             f"{r['per_doc_mean_abs_rel_error']:.4f} (mean abs)", f"{peer_doc_err:.4f} (mean abs)"),
        ]
        for use, ours_rate, peer_rate, mbs, our_err, peer_err in rows:
            print(f"| {r['variant']} | {p} | {use} | {ours_rate:,.0f} | {peer_rate:,.0f} | "
                  f"{ours_rate / peer_rate:,.0f}x | {mbs:.0f} | {our_err} | {peer_err} | "
                  f"{r['relative_error_bound']:.4f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
