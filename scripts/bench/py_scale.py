#!/usr/bin/env python3
"""The Python package's out-of-core dedup and global store client against
the command-line tool doing the same work, in one run:

    $VENV/bin/python scripts/bench/py_scale.py corpus-large.jsonl WORK [--cli target/release/txtfp]

1. ``MinHashDedup.run_external`` on the JSONL file (shards read in Rust),
   next to ``txtfp dedup --memory`` on the same file (decisions compared);
2. ``run_external`` from a Python callable over the texts in a list;
3. ``GlobalFingerprintStore.ingest_batch`` in batches of 1,024 into a new
   embedded store, next to ``txtfp store ingest`` into another (actions
   compared).

Each figure is the best of ``--repeat`` runs (fresh work directories).
Prints JSON lines, then a Markdown table.
"""

import argparse
import json
import os
import shutil
import subprocess
import time

import txtfp


def best(repeat, fn):
    out, secs = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        secs = min(secs, time.perf_counter() - t0)
    return out, secs


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("work")
    ap.add_argument("--cli", default="target/release/txtfp")
    ap.add_argument("--memory", type=int, default=256 << 20)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    with open(args.corpus, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    texts = [r["text"] for r in records]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    rows = []

    def row(name, secs, **extra):
        rows.append((name, secs))
        print(json.dumps({"what": name, "seconds": round(secs, 3), "mb_per_s": round(mb / secs, 1),
                          "docs_per_s": round(len(texts) / secs), **extra}), flush=True)

    dedup = txtfp.MinHashDedup()
    work = os.path.join(args.work, "ext")
    report, secs = best(args.repeat, lambda: dedup.run_external(args.corpus, fresh(work), memory=args.memory))
    py_keep = report.keep.tolist()
    row("run_external, JSONL read in Rust", secs)

    out = os.path.join(args.work, "cli-dedup")
    _, secs = best(args.repeat, lambda: subprocess.run(
        [args.cli, "dedup", args.corpus, "-o", fresh(out), "--memory", str(args.memory), "-q"],
        check=True, capture_output=True))
    with open(os.path.join(out, "duplicates.jsonl")) as f:
        cli_dropped = {json.loads(line)["id"] for line in f}
    same = [not (r["id"] in cli_dropped) for r in records] == py_keep
    row("txtfp dedup --memory (CLI)", secs, same_decisions=same)

    _, secs = best(args.repeat, lambda: dedup.run_external(lambda: iter(texts), fresh(work), memory=args.memory))
    row("run_external, Python callable over a list", secs)

    store_dir = os.path.join(args.work, "store")

    def ingest():
        with txtfp.GlobalFingerprintStore(fresh(store_dir)) as store:
            out = []
            for i in range(0, len(records), 1024):
                out += store.ingest_batch([(str(r["id"]), r["text"]) for r in records[i:i + 1024]],
                                          source="bench")
            # A refused document (no words) has an error in its place; the
            # CLI writes no decision for it.
            return [(d.doc_id, d.action) for d in out if isinstance(d, txtfp.DecisionRecord)]

    actions, secs = best(args.repeat, ingest)
    row("GlobalFingerprintStore.ingest_batch (1,024 a batch)", secs)

    cli_store = os.path.join(args.work, "cli-store")
    decisions = os.path.join(args.work, "decisions.jsonl")
    _, secs = best(args.repeat, lambda: subprocess.run(
        [args.cli, "store", "ingest", args.corpus, "--root", fresh(cli_store), "--source", "bench",
         "--decisions", decisions, "-q"], check=True, capture_output=True))
    with open(decisions) as f:
        cli_actions = [(d["doc_id"], d["action"]) for d in map(json.loads, f)]
    row("txtfp store ingest (CLI)", secs, same_actions=cli_actions == actions)

    print()
    print(f"{len(texts):,} documents, {mb:.1f} MB")
    print()
    print("| path | s | MB/s | docs/s |")
    print("|---|---:|---:|---:|")
    for name, secs in rows:
        print(f"| {name} | {secs:.2f} | {mb / secs:.1f} | {len(texts) / secs:,.0f} |")


if __name__ == "__main__":
    main()
