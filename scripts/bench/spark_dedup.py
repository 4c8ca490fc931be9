#!/usr/bin/env python3
"""txtfp.spark end to end on a standalone cluster, against the command-line
tool on the same documents.

    eval "$(scripts/setup-spark.sh)"          # master + 2 one-core workers
    scripts/gen_corpus.sh --source corpus-large.jsonl --out GEN --size 300MB
    $VENV/bin/python scripts/bench/spark_dedup.py GEN WORK [--cli target/release/txtfp]

GEN is a folder of scripts/gen_corpus.sh (JSONL shards and truth.jsonl).
The documents get integer ids from theirs (`d000000123` -> 123) and are
written, in id order, as Parquet (8 files) for Spark and as JSONL for the
tool, so that both runs see the same order. Then:

1. Spark reading the Parquet alone, then the signature stage alone (read
   Parquet, `mapInArrow` signatures, a noop sink; best of two runs): MB/s
   per core;
2. `txtfp.spark.dedup_parquet` end to end (read Parquet, dedup, write the
   kept rows and the clusters as Parquet), with the wall seconds of each
   stage; MB/s and MB/s per core (the workers' cores);
3. `txtfp dedup` on the JSONL with the same settings, and whether the two
   runs' clusters are equal;
4. recall of the planted pairs at or above the threshold (both documents
   in one cluster), precision of the planted pairs put together (the share
   at or above the threshold), and drop precision: the share of dropped
   documents whose similarity to the kept one is at least the threshold
   (clusters chain, so a few fall below it).

With ``--index``, then: the first half of the documents with
``update_index=True`` (a new band index), the second half against it, and
the second half alone, timed; the second half's decisions are compared
with `txtfp dedup --against` doing the same.

Prints JSON lines, then a Markdown summary.
"""

import argparse
import glob
import json
import os
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq


def load(gen):
    ids, texts = [], []
    for shard in sorted(glob.glob(os.path.join(gen, "*.jsonl*"))):
        if shard.endswith("truth.jsonl"):
            continue
        cmd = ["zstd", "-dc", shard] if shard.endswith(".zst") else ["cat", shard]
        out = subprocess.run(cmd, check=True, capture_output=True).stdout
        for line in out.splitlines():
            rec = json.loads(line)
            ids.append(int("".join(ch for ch in str(rec["id"]) if ch.isdigit())))
            texts.append(rec["text"])
    table = pa.table({"id": pa.array(ids, pa.int64()), "text": pa.array(texts, pa.large_string())})
    return table.sort_by("id")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gen")
    ap.add_argument("work")
    ap.add_argument("--cli", default="target/release/txtfp")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--cores", type=int, default=2, help="executor cores in the cluster")
    ap.add_argument("--index", action="store_true",
                    help="also: the first half with update_index=True, the second half against it")
    ap.add_argument("--index-only", action="store_true", help="only the --index runs")
    ap.add_argument("--executor-memory", default="768m",
                    help="per executor; gigabytes of text want TXTFP_SPARK_WORKER_MEMORY=3g and 2500m")
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    import txtfp.spark as ts

    os.makedirs(args.work, exist_ok=True)
    table = load(args.gen)
    nbytes = sum(len(t.as_py().encode()) for t in table.column("text"))
    n = table.num_rows
    src = os.path.join(args.work, "in")
    os.makedirs(src, exist_ok=True)
    per = (n + 7) // 8
    for i in range(8):
        pq.write_table(table.slice(i * per, per), os.path.join(src, f"part-{i}.parquet"))
    jsonl = os.path.join(args.work, "docs.jsonl")
    with open(jsonl, "w", encoding="utf-8") as f:
        for i, t in zip(table.column("id").to_pylist(), table.column("text").to_pylist()):
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    print(json.dumps({"docs": n, "text_bytes": nbytes}), flush=True)

    spark = (SparkSession.builder.master(os.environ["TXTFP_SPARK_MASTER"]).appName("txtfp-bench")
             .config("spark.sql.shuffle.partitions", "16").config("spark.ui.enabled", "false")
             .config("spark.executor.memory", args.executor_memory).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # Warm the executors' Python workers and the JVM.
    spark.read.parquet(src).limit(1000).count()

    if args.index_only:
        index_runs(spark, ts, args, table)
        spark.stop()
        return
    df = spark.read.parquet(src)
    settings = ts._settings(args.threshold, 5, 128, False, "exact", ts.DEFAULT_SEED)
    schema = "id long, ck_lo long, ck_hi long, has_tokens boolean, signature binary, band_keys array<long>"
    t0 = time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    read_s = time.perf_counter() - t0
    sig_s = float("inf")
    for _ in range(2):  # the first run also starts the executors' Python workers
        t0 = time.perf_counter()
        df.mapInArrow(ts._signature_stage(settings), schema).write.format("noop").mode("overwrite").save()
        sig_s = min(sig_s, time.perf_counter() - t0)
    sig = {"stage": "signatures alone", "seconds": round(sig_s, 2), "read_alone_seconds": round(read_s, 2),
           "mb_per_s_per_core": round(nbytes / sig_s / 1e6 / args.cores, 1)}
    print(json.dumps(sig), flush=True)

    timings = {}
    t0 = time.perf_counter()
    kept, clusters = ts.dedup(spark.read.parquet(src), threshold=args.threshold, timings=timings)
    kept.write.mode("overwrite").parquet(os.path.join(args.work, "kept"))
    clusters.write.mode("overwrite").parquet(os.path.join(args.work, "clusters"))
    timings["write"] = round(time.perf_counter() - t0 - sum(timings.values()), 3)
    total = time.perf_counter() - t0
    e2e = {"stage": "end to end", "seconds": round(total, 2), "mb_per_s": round(nbytes / total / 1e6, 1),
           "mb_per_s_per_core": round(nbytes / total / 1e6 / args.cores, 1), "timings": timings}
    print(json.dumps(e2e), flush=True)

    rows = spark.read.parquet(os.path.join(args.work, "clusters")).collect()
    spark_clusters = {}
    for r in rows:
        spark_clusters.setdefault(r["kept_id"], []).append(r["id"])
    spark_set = sorted((k, sorted(v)) for k, v in spark_clusters.items())

    out = os.path.join(args.work, "cli")
    t0 = time.perf_counter()
    subprocess.run([args.cli, "dedup", jsonl, "-o", out, "--threshold", str(args.threshold)],
                   check=True, capture_output=True)
    cli_s = time.perf_counter() - t0
    with open(os.path.join(out, "clusters.jsonl")) as f:
        cli_set = sorted((c["kept"], sorted(c["members"])) for c in map(json.loads, f))
    same = spark_set == cli_set
    print(json.dumps({"cli_seconds": round(cli_s, 2), "cli_clusters": len(cli_set),
                      "spark_clusters": len(spark_set), "same_clusters": same}), flush=True)

    label = {}
    for k, members in spark_set:
        for m in members:
            label[m] = k
    planted = found = merged_below = 0
    with open(os.path.join(args.gen, "truth.jsonl")) as f:
        for rec in map(json.loads, f):
            a, b = (int("".join(c for c in rec[x] if c.isdigit())) for x in ("a", "b"))
            together = a in label and label.get(a) == label.get(b)
            if rec["jaccard"] < args.threshold:
                merged_below += together
                continue
            planted += 1
            found += together
    dropped = [r for r in rows if not r["keep"]]
    precise = sum(1 for r in dropped if r["similarity"] is not None and r["similarity"] >= args.threshold)
    quality = {"planted_pairs": planted, "recall": round(found / max(planted, 1), 4),
               "planted_precision": round(found / max(found + merged_below, 1), 4),
               "dropped": len(dropped), "drop_precision": round(precise / max(len(dropped), 1), 4)}
    print(json.dumps(quality), flush=True)

    print()
    print(f"{n:,} documents, {nbytes / 1e6:.1f} MB of text, {args.cores} executor cores")
    print()
    print("| measure | value |")
    print("|---|---:|")
    print(f"| Spark reading the Parquet alone (noop sink), s | {sig['read_alone_seconds']} |")
    print(f"| signature stage alone (read + signatures, noop sink), s | {sig['seconds']} |")
    print(f"| signature stage alone, MB/s per core | {sig['mb_per_s_per_core']} |")
    print(f"| end to end (Parquet in, dedup, Parquet out), s | {e2e['seconds']} |")
    print(f"| end to end, MB/s per core | {e2e['mb_per_s_per_core']} |")
    for k, v in timings.items():
        print(f"| stage {k}, s | {v} |")
    print(f"| `txtfp dedup` on the same JSONL, s | {round(cli_s, 2)} |")
    print(f"| same clusters as `txtfp dedup` | {same} ({len(spark_set):,} clusters) |")
    print(f"| recall of planted pairs >= {args.threshold} | {quality['recall']} of {planted:,} |")
    print(f"| precision of planted pairs (together and >= {args.threshold}) | {quality['planted_precision']} |")
    print(f"| drop precision (dropped at >= {args.threshold} to the kept) | {quality['drop_precision']} of {len(dropped):,} |")
    if args.index:
        index_runs(spark, ts, args, table)
    spark.stop()


def index_runs(spark, ts, args, table):
    """The band index: the first half of the documents deduplicated with
    ``update_index=True``, then the second half ``against`` the index, next
    to the second half alone; the decisions are compared with `txtfp dedup
    --against` doing the same."""
    half = table.num_rows // 2
    parts = {"a": table.slice(0, half), "b": table.slice(half)}
    for name, part in parts.items():
        os.makedirs(os.path.join(args.work, f"in-{name}"), exist_ok=True)
        pq.write_table(part, os.path.join(args.work, f"in-{name}", "part-0.parquet"))
        with open(os.path.join(args.work, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            for i, t in zip(part.column("id").to_pylist(), part.column("text").to_pylist()):
                f.write(json.dumps({"id": i, "text": t}) + "\n")
    index = os.path.join(args.work, "band-index")
    subprocess.run(["rm", "-rf", index, os.path.join(args.work, "cli-index")], check=True)

    def run(name, **options):
        t0 = time.perf_counter()
        ts.dedup_parquet(spark, os.path.join(args.work, f"in-{name}"), os.path.join(args.work, f"kept-{name}"),
                         os.path.join(args.work, f"clusters-{name}"), threshold=args.threshold, **options)
        return round(time.perf_counter() - t0, 2)

    alone_b = run("b")
    build_a = run("a", against=index, update_index=True)
    after_a = subprocess.run(["du", "-sb", index], check=True, capture_output=True, text=True).stdout.split()[0]
    against_b = run("b", against=index, update_index=True)
    size = subprocess.run(["du", "-sb", index], check=True, capture_output=True, text=True).stdout.split()[0]
    got = {r["id"]: r["kept_id"] for r in spark.read.parquet(os.path.join(args.work, "clusters-b")).collect()
           if not r["keep"]}
    want = {}
    for name in ("a", "b"):
        out = os.path.join(args.work, f"cli-{name}")
        subprocess.run([args.cli, "dedup", os.path.join(args.work, f"{name}.jsonl"), "-o", out, "--threshold",
                        str(args.threshold), "--against", os.path.join(args.work, "cli-index"), "--update-index"],
                       check=True, capture_output=True)
    with open(os.path.join(args.work, "cli-b", "duplicates.jsonl")) as f:
        for d in map(json.loads, f):
            want[d["id"]] = d["duplicate_of"]
    res = {"stage": "band index", "second_half_alone_seconds": alone_b, "first_half_update_seconds": build_a,
           "second_half_against_seconds": against_b, "index_bytes_after_first": int(after_a),
           "index_bytes": int(size), "second_half_dropped": len(got),
           "dropped_as_indexed": sum(1 for i in got if i in want and want[i] < table.column("id")[half].as_py()),
           "same_decisions_as_cli": got == want}
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
