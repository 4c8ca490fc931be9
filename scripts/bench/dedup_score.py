#!/usr/bin/env python3
"""Score a dedup run against the planted truth of a generated corpus.

Standard library only (zstandard is used when installed, else `zstd -dc`).
Used by vs_datatrove.py and scale_runs.sh; also a command of its own for a
`txtfp dedup` output folder:

    dedup_score.py CORPUS_DIR TXTFP_OUT [--threshold 0.8] [--sample 2000] [--json FILE]

CORPUS_DIR is a folder written by scripts/gen_corpus.sh: its shards and its
truth.jsonl (one planted pair a line: "a" the base document, "b" the planted
duplicate, "jaccard" their exact Jaccard of txtfp's word 5-shingles).

What is measured, for a run that grouped documents into clusters and kept one
document per cluster:

* recall: of the planted pairs with Jaccard >= threshold, the share whose two
  documents end in one cluster (so that one of them is dropped as a duplicate
  of the cluster's kept document);
* planted pairs below the threshold put together, split at 0.5: merges the
  threshold says should not happen (between 0.5 and the threshold: near
  misses; below 0.5: false merges);
* dropped documents: each dropped document is paired with the kept document
  of its cluster; a seeded sample of these pairs (--sample) is read back from
  the corpus and its exact Jaccard of word 5-shingles computed here, giving
  the share of drops at or above the threshold (drop precision) and below 0.5
  (false merges). The tokens here approximate txtfp's (NFKC, lower case,
  UAX #29-like words, each Han ideograph and kana a token); the calibration
  block reports how well they reproduce truth.jsonl's exact values on a
  sample of planted pairs.
"""

import argparse
import glob
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
import unicodedata

# ---------------------------------------------------------------- reading


def open_lines(path):
    """Text lines of a .jsonl, .jsonl.gz or .jsonl.zst file."""
    if path.endswith(".zst"):
        try:
            import zstandard

            fh = open(path, "rb")
            reader = zstandard.ZstdDecompressor().stream_reader(fh, read_size=1 << 20)
            return io.TextIOWrapper(io.BufferedReader(reader, 1 << 20), encoding="utf-8")
        except ImportError:
            proc = subprocess.Popen(["zstd", "-dcq", path], stdout=subprocess.PIPE)
            return io.TextIOWrapper(proc.stdout, encoding="utf-8")
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def corpus_shards(corpus):
    """The corpus's shards, sorted (a folder, or a glob pattern)."""
    if os.path.isdir(corpus):
        files = []
        for ext in ("jsonl", "jsonl.gz", "jsonl.zst"):
            files += glob.glob(os.path.join(corpus, "*." + ext))
        files = [f for f in files if os.path.basename(f) != "truth.jsonl"]
    else:
        files = glob.glob(corpus)
    return sorted(files)


ID_RE = re.compile(r'"id"\s*:\s*"((?:[^"\\]|\\.)*)"')


def line_id(line, id_key="id"):
    if id_key == "id":
        m = ID_RE.search(line, 0, 200)
        if m and "\\" not in m.group(1):
            return m.group(1)
    return str(json.loads(line)[id_key])


def scan_ids(files):
    """Ids of every record of each file, in order: {file: [id, ...]}."""
    out = {}
    for f in files:
        with open_lines(f) as lines:
            out[f] = [line_id(line) for line in lines if line.strip()]
    return out


def fetch_texts(files, wanted, text_key="text"):
    """{id: text} for the ids in `wanted`, one pass over the corpus."""
    texts = {}
    for f in files:
        with open_lines(f) as lines:
            for line in lines:
                if not line.strip():
                    continue
                i = line_id(line)
                if i in wanted:
                    texts[i] = json.loads(line)[text_key]
        if len(texts) == len(wanted):
            break
    return texts


def load_truth(path):
    with open(path) as fh:
        return [(r["a"], r["b"], float(r["jaccard"])) for r in map(json.loads, fh)]


# ---------------------------------------------------------------- Jaccard

_FORMAT = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
# A Han ideograph or a hiragana is a token of its own.
_SINGLE = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_WORDCH = rf"[^\W{_SINGLE}{_KATAKANA}]"
_TOKEN = re.compile(
    rf"[{_SINGLE}]|[{_KATAKANA}]+|{_WORDCH}+(?:['\u2019.,:\u00b7]{_WORDCH}+)*"
)


def tokens(text):
    """An approximation of txtfp's default canonicalizer + UAX #29 words."""
    text = _FORMAT.sub("", unicodedata.normalize("NFKC", text)).lower()
    return [t for t in _TOKEN.findall(text) if t.strip("_")]


def shingles(text, k=5):
    toks = tokens(text)
    if len(toks) < k:
        return {tuple(toks)} if toks else set()
    return {tuple(toks[i : i + k]) for i in range(len(toks) - k + 1)}


def jaccard(a, b):
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


# ---------------------------------------------------------------- runs


def txtfp_clusters(out_dir):
    """cluster_of {id: cluster}, drops [(dropped, kept)] of a txtfp output folder."""
    cluster_of, drops = {}, []
    with open(os.path.join(out_dir, "clusters.jsonl")) as fh:
        for c in map(json.loads, fh):
            for m in c["members"]:
                cluster_of[m] = c["cluster"]
                if m != c["kept"]:
                    drops.append((m, c["kept"]))
    return cluster_of, drops


def score(truth, cluster_of, drops, sampled, texts, threshold=0.8, low=0.5, k=5):
    """Quality figures of one run: cluster_of {id: cluster} for the documents
    of clusters of two or more, drops [(dropped, kept)], sampled a sample of
    drops and texts {id: text} holding their documents."""
    res = {"threshold": threshold, "low": low}
    bands = {"above": [0, 0], "near": [0, 0], "low": [0, 0]}
    for a, b, j in truth:
        band = "above" if j >= threshold else ("near" if j >= low else "low")
        ca = cluster_of.get(a)
        together = ca is not None and ca == cluster_of.get(b)
        bands[band][0] += 1
        bands[band][1] += together
    res["planted_pairs_above"], res["planted_found_above"] = bands["above"]
    res["recall"] = bands["above"][1] / bands["above"][0] if bands["above"][0] else None
    res["planted_pairs_near"], res["planted_merged_near"] = bands["near"]
    res["planted_pairs_low"], res["planted_merged_low"] = bands["low"]
    res["dropped"] = len(drops)
    res["clusters"] = len(set(cluster_of.values()))
    js = []
    for d, kept in sampled:
        if d in texts and kept in texts:
            js.append(jaccard(shingles(texts[d], k), shingles(texts[kept], k)))
    res["drop_sample"] = len(js)
    if js:
        res["drop_precision"] = sum(j >= threshold for j in js) / len(js)
        res["drop_false_merge"] = sum(j < low for j in js) / len(js)
        res["drop_jaccard_min"] = min(js)
        hist = [0] * 10
        for j in js:
            hist[min(int(j * 10), 9)] += 1
        res["drop_jaccard_hist"] = hist
    return res


def sample_drops(drops, n, seed=1):
    if len(drops) <= n:
        return list(drops)
    return random.Random(seed).sample(drops, n)


def calibration(truth, texts, threshold=0.8, k=5):
    """How this script's Jaccard matches truth.jsonl's exact values."""
    diffs, agree, n = [], 0, 0
    for a, b, j in truth:
        if a in texts and b in texts:
            mine = jaccard(shingles(texts[a], k), shingles(texts[b], k))
            diffs.append(abs(mine - j))
            agree += (mine >= threshold) == (j >= threshold)
            n += 1
    if not n:
        return {"pairs": 0}
    diffs.sort()
    return {
        "pairs": n,
        "mean_abs_diff": sum(diffs) / n,
        "p99_abs_diff": diffs[min(n - 1, int(n * 0.99))],
        "same_side_of_threshold": agree / n,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("txtfp_out")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--sample", type=int, default=2000, help="dropped pairs whose Jaccard is computed (0: none)")
    ap.add_argument("--calibrate", type=int, default=300, help="planted pairs to check this script's Jaccard on")
    ap.add_argument("--json", help="write the result here too")
    a = ap.parse_args()
    truth = load_truth(os.path.join(a.corpus, "truth.jsonl"))
    cluster_of, drops = txtfp_clusters(a.txtfp_out)
    sampled = sample_drops(drops, a.sample)
    cal = random.Random(2).sample(truth, min(a.calibrate, len(truth)))
    wanted = {x for p in sampled for x in p} | {x for p in cal for x in p[:2]}
    texts = fetch_texts(corpus_shards(a.corpus), wanted) if wanted else {}
    res = score(truth, cluster_of, drops, sampled, texts, a.threshold)
    res["calibration"] = calibration(cal, texts, a.threshold)
    out = json.dumps(res, indent=1)
    print(out)
    if a.json:
        with open(a.json, "w") as fh:
            fh.write(out + "\n")


if __name__ == "__main__":
    sys.exit(main())
