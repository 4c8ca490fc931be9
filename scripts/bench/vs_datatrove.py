#!/usr/bin/env python3
"""txtfp's out-of-core dedup and datatrove's MinHash pipeline on the same shards.

    vs_datatrove.py CORPUS_DIR --work DIR [--txtfp BIN] [--tasks 2] [--glob 'part-*.jsonl.zst']
        [--bands 32 --rows 4] [--only txtfp|datatrove] [--json FILE] [--md FILE]

Run it with a Python that has datatrove, its JSONL reader's and MinHash
stage's dependencies and psutil (scripts/bench/vs_datatrove.sh makes such a
venv and calls this). CORPUS_DIR is a folder written by scripts/gen_corpus.sh
(shards, truth.jsonl, manifest.json).

datatrove (its four local stages, each a LocalPipelineExecutor in a process
of its own):
  1. signatures: JsonlReader over the shards -> MinhashDedupSignature,
     --tasks tasks on --tasks workers;
  2. buckets: MinhashDedupBuckets, one task per band (datatrove needs the
     task count to be a multiple of the band count), --tasks workers;
  3. clusters: MinhashDedupCluster (one task, as datatrove requires),
     with save_cluster_id so the clusters can be scored;
  4. filter: JsonlReader -> MinhashDedupFilter -> JsonlWriter (zstd, like
     txtfp's kept shards of zstd input), --tasks tasks and workers.
txtfp: `txtfp dedup 'CORPUS/GLOB' --output OUT --memory 1GiB --threads TASKS -q`.

Each stage runs under a poller (psutil, RSS every 0.25 s, PSS every 1.25 s)
that sums the RSS and the PSS of the stage's whole process tree; CPU time is the stage's children
rusage (user + system of every process it waited for). MB/s counts the
uncompressed JSONL bytes of the input (manifest.json), MB/s per core divides
them by the CPU seconds. Quality: scripts/bench/dedup_score.py (recall on
the planted pairs at the threshold, planted pairs below it put together,
exact Jaccard of a sample of (dropped, kept) pairs).
"""

import argparse
import glob as globmod
import json
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # importing the scorer leaves no __pycache__ here
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dedup_score as ds  # noqa: E402

# ------------------------------------------------------------ measuring


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_measured(cmd, log_path, env=None, interval=0.25):
    """Run cmd; wall, CPU (children rusage) and the peak summed RSS / PSS of its tree."""
    import psutil

    cpu0, t0 = children_cpu(), time.monotonic()
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        peak = {"rss": 0, "pss": 0, "procs": 0}
        stop = threading.Event()

        def poll():
            try:
                root = psutil.Process(proc.pid)
            except psutil.NoSuchProcess:
                return
            n = 0
            while not stop.is_set():
                try:
                    procs = [root] + root.children(recursive=True)
                except psutil.NoSuchProcess:
                    break
                rss = pss = 0
                full = n % 5 == 0  # PSS reads smaps: every fifth poll only
                for p in procs:
                    try:
                        m = p.memory_full_info() if full else p.memory_info()
                        rss += m.rss
                        pss += getattr(m, "pss", m.rss) if full else 0
                    except (psutil.NoSuchProcess, psutil.AccessDenied):
                        pass
                peak["rss"] = max(peak["rss"], rss)
                peak["pss"] = max(peak["pss"], pss)
                peak["procs"] = max(peak["procs"], len(procs))
                n += 1
                stop.wait(interval)

        th = threading.Thread(target=poll, daemon=True)
        th.start()
        rc = proc.wait()
        stop.set()
        th.join()
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    if rc != 0:
        sys.exit(f"{cmd[:3]}... failed with exit code {rc}; see {log_path}")
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_tree": peak["rss"], "peak_pss_tree": peak["pss"], "processes": peak["procs"]}


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


# ------------------------------------------------------------ datatrove stages (child processes)


def dt_stage(name, p):
    """One datatrove stage, run inside its own process (`_dt-stage NAME JSON`)."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    cfg = MinhashConfig(n_grams=p["ngram"], num_buckets=p["bands"], hashes_per_bucket=p["rows"], seed=1)
    w, tasks = p["work"], p["tasks"]

    def reader():
        return JsonlReader(p["corpus"], glob_pattern=p["glob"], text_key="text", id_key="id")

    if name == "signatures":
        pipe, t, wk = [reader(), MinhashDedupSignature(f"{w}/signatures", config=cfg)], tasks, tasks
    elif name == "buckets":
        pipe, t, wk = [MinhashDedupBuckets(f"{w}/signatures", f"{w}/buckets", config=cfg)], cfg.num_buckets, tasks
    elif name == "clusters":
        pipe, t, wk = [MinhashDedupCluster(f"{w}/buckets", f"{w}/remove_ids", config=cfg, save_cluster_id=True)], 1, 1
    elif name == "filter":
        pipe = [
            reader(),
            MinhashDedupFilter(f"{w}/remove_ids"),
            JsonlWriter(f"{w}/kept", output_filename="${rank}.jsonl.zst", compression="zstd"),
        ]
        t, wk = tasks, tasks
    else:
        raise SystemExit(f"unknown stage {name}")
    LocalPipelineExecutor(
        pipeline=pipe, tasks=t, workers=wk, logging_dir=f"{w}/logs/{name}", start_method="fork"
    ).run()


DT_STAGES = ["signatures", "buckets", "clusters", "filter"]


def run_datatrove(a, corpus, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    params = dict(corpus=corpus, glob=a.glob, work=work, tasks=a.tasks, ngram=a.ngram, bands=a.bands, rows=a.rows)
    stages, work_peak = [], 0
    for name in DT_STAGES:
        cmd = [sys.executable, os.path.abspath(__file__), "_dt-stage", name, json.dumps(params)]
        m = run_measured(cmd, os.path.join(work, "datatrove.log"))
        m["stage"] = name
        m["work_dir_bytes"] = dir_bytes(work) - dir_bytes(os.path.join(work, "kept"))
        work_peak = max(work_peak, m["work_dir_bytes"])
        stages.append(m)
        print(f"  datatrove {name}: {m['wall_s']:.1f} s wall, {m['cpu_s']:.1f} s CPU", file=sys.stderr, flush=True)
    return {"stages": stages, "work_dir_bytes": work_peak, "kept_bytes": dir_bytes(os.path.join(work, "kept"))}


def datatrove_clusters(work, files, tasks):
    """cluster_of, drops of a datatrove run: its doc indices mapped back to ids
    by reading the shards the way its reader shards them (task r reads the
    sorted files r, r + tasks, ...; indices count across a task's files)."""
    ids_by_file = ds.scan_ids(files)
    rank_ids = {r: [i for f in files[r::tasks] for i in ids_by_file[f]] for r in range(tasks)}
    rid = os.path.join(work, "remove_ids")
    cluster_of, removed = {}, set()
    for r in range(tasks):
        ids = rank_ids[r]
        path = os.path.join(rid, f"{r:06d}.clusters")
        if os.path.exists(path):
            data = open(path, "rb").read()
            for doc, cid in struct.iter_unpack("<II", data):
                cluster_of[ids[doc]] = cid
        path = os.path.join(rid, f"{r:06d}.remove")
        if os.path.exists(path):
            removed.update(ids[d] for (d,) in struct.iter_unpack("<I", open(path, "rb").read()))
    kept_of = {}
    for i, c in cluster_of.items():
        if i not in removed:
            kept_of[c] = i
    drops = [(i, kept_of[cluster_of[i]]) for i in removed if cluster_of.get(i) in kept_of]
    docs = sum(len(v) for v in ids_by_file.values())
    return cluster_of, drops, docs, {i for v in ids_by_file.values() for i in v}


# ------------------------------------------------------------ txtfp


def run_txtfp(a, corpus, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [a.txtfp, "dedup", os.path.join(corpus, a.glob), "--output", out, "--memory", a.memory,
           "--threads", str(a.tasks), "-q"]
    m = run_measured(cmd, os.path.join(out, "..", "txtfp.log"))
    with open(os.path.join(out, "report.json")) as fh:
        rep = json.load(fh)
    stages = [{"stage": s["stage"], "wall_s": s["seconds"], "peak_rss": s["peak_rss_bytes"],
               "work_dir_bytes": s["work_dir_bytes"]} for s in rep["stages"]]
    stages.append({"stage": "write", "wall_s": rep["write_seconds"]})
    m.update({"stages": stages, "work_dir_bytes": rep["work_dir_bytes"], "kept_bytes": rep["written_bytes"],
              "report": {k: rep[k] for k in ("documents", "kept", "dropped", "clusters", "candidate_pairs",
                                             "verified_pairs", "method", "threads", "seconds")}})
    return m


# ------------------------------------------------------------ report


def mib(b):
    return f"{b / 2**20:,.0f} MiB"


def markdown(res):
    inp = res["input"]
    lines = []
    part = f", the first {inp['head']:,} records of each shard" if inp["head"] else ""
    lines.append(f"Input: {inp['jsonl_bytes'] / 1e6:,.1f} MB of JSONL in {inp['files']} zstd shards{part} "
                 f"(whole corpus: {inp['whole_jsonl_bytes'] / 1e6:,.1f} MB in {inp['whole_files']}); "
                 f"{res['tasks']} tasks/workers on {res['cores']} cores; load average "
                 f"{res['load_before'][0]:.1f} before, {res['load_after'][0]:.1f} after.\n")
    tools = res["tools"]
    lines.append("| | " + " | ".join(tools) + " |")
    lines.append("|---|" + "---:|" * len(tools))
    dash = "—"

    def row(label, f):
        cells = []
        for t in tools.values():
            try:
                cells.append(f(t))
            except (KeyError, TypeError):
                cells.append(dash)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    def stage_row(label, names):
        def f(t):
            s = [x for x in t["stages"] if x["stage"] in names]
            return " + ".join(f"{x['wall_s']:.1f}" for x in s) if s else dash
        row(label, f)

    mb = lambda t: t["jsonl_bytes"] / 1e6  # noqa: E731
    row("documents", lambda t: f"{t['docs']:,}")
    row("MB of JSONL", lambda t: f"{mb(t):,.1f}")
    stage_row("stage 1 s: signatures / sketch", {"signatures", "sketch"})
    stage_row("stage 2 s: buckets / pairs", {"buckets", "pairs"})
    stage_row("stage 3 s: clusters / verify + cluster", {"clusters", "verify", "cluster"})
    stage_row("stage 4 s: filter / write", {"filter", "write"})
    row("total wall s", lambda t: f"{t['wall_s']:.1f}")
    row("total CPU s", lambda t: f"{t['cpu_s']:.1f}")
    row("MB/s (wall)", lambda t: f"{mb(t) / t['wall_s']:.2f}")
    row("MB/s per core (CPU s)", lambda t: f"{mb(t) / t['cpu_s']:.2f}")
    row("peak RSS, process tree (sum)", lambda t: mib(t["peak_rss_tree"]))
    row("peak PSS, process tree (sum)", lambda t: mib(t["peak_pss_tree"]))
    row("work dir, peak", lambda t: f"{t['work_dir_bytes'] / 1e6:,.1f} MB")
    q = lambda t: t["quality"]  # noqa: E731
    row(f"recall: planted pairs J ≥ {res['threshold']} in one cluster",
        lambda t: f"{q(t)['recall']:.5f} ({q(t)['planted_found_above']:,}/{q(t)['planted_pairs_above']:,})")
    row(f"planted pairs 0.5 ≤ J < {res['threshold']} put together",
        lambda t: f"{q(t)['planted_merged_near']:,}/{q(t)['planted_pairs_near']:,}")
    row("planted pairs J < 0.5 put together",
        lambda t: f"{q(t)['planted_merged_low']:,}/{q(t)['planted_pairs_low']:,}")
    row("documents dropped", lambda t: f"{q(t)['dropped']:,}")
    row(f"(dropped, kept) pairs with J ≥ {res['threshold']}, sampled",
        lambda t: f"{q(t)['drop_precision']:.4f} of {q(t)['drop_sample']:,}")
    row("(dropped, kept) pairs with J < 0.5 (false merges), sampled",
        lambda t: f"{q(t)['drop_false_merge']:.4f}")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_dt-stage":
        return dt_stage(sys.argv[2], json.loads(sys.argv[3]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--work", required=True, help="scratch folder (emptied)")
    ap.add_argument("--txtfp", default=os.environ.get("TXTFP", "target/release/txtfp"))
    ap.add_argument("--glob", default="part-*.jsonl.zst", help="shards, relative to CORPUS_DIR")
    ap.add_argument("--tasks", type=int, default=os.cpu_count())
    ap.add_argument("--memory", default="1GiB")
    ap.add_argument("--ngram", type=int, default=5)
    ap.add_argument("--bands", type=int, default=32)
    ap.add_argument("--rows", type=int, default=4)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--sample", type=int, default=3000, help="(dropped, kept) pairs per tool whose Jaccard is computed")
    ap.add_argument("--only", choices=["txtfp", "datatrove"])
    ap.add_argument("--head", type=int, help="run both tools on the first N records of each shard (a measured "
                    "part of the corpus); datatrove's times are then also scaled to the whole corpus")
    ap.add_argument("--full-txtfp", action="store_true", help="with --head, run txtfp on the whole corpus too")
    ap.add_argument("--keep-output", action="store_true", help="keep the kept shards and work files")
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    full = os.path.abspath(a.corpus)
    full_files = sorted(globmod.glob(os.path.join(full, a.glob)))
    if not full_files:
        sys.exit(f"no shard matches {os.path.join(full, a.glob)}")
    full_bytes = jsonl_bytes(full, full_files, a.glob)
    corpus, files = full, full_files
    if a.head:
        corpus = os.path.join(work, "input")
        files = make_head(full_files, corpus, a.head)
    in_bytes = jsonl_bytes(corpus, files, a.glob) if a.head else full_bytes

    res = {"corpus": full, "glob": a.glob, "head": a.head, "tasks": a.tasks, "cores": os.cpu_count(),
           "threshold": a.threshold, "load_before": os.getloadavg(), "tools": {}}
    runs = []  # (label, kind, measurements, corpus, files, output)
    if a.only != "txtfp":
        from importlib.metadata import version

        print("datatrove ...", file=sys.stderr, flush=True)
        m = run_datatrove(a, corpus, os.path.join(work, "datatrove"))
        for k in ("wall_s", "cpu_s"):
            m[k] = sum(s[k] for s in m["stages"])
        for k in ("peak_rss_tree", "peak_pss_tree"):
            m[k] = max(s[k] for s in m["stages"])
        m["version"] = version("datatrove")
        m["settings"] = (f"{a.ngram}-grams of spaCy-en words after simplify_text, {a.bands}x{a.rows}, "
                         "64-bit hashes, no verification")
        runs.append((f"datatrove {m['version']}", "datatrove", m, corpus, files, os.path.join(work, "datatrove")))
    if a.only != "datatrove":
        print("txtfp ...", file=sys.stderr, flush=True)
        m = run_txtfp(a, corpus, os.path.join(work, "txtfp"))
        runs.append(("txtfp", "txtfp", m, corpus, files, os.path.join(work, "txtfp")))
        if a.head and a.full_txtfp:
            print("txtfp on the whole corpus ...", file=sys.stderr, flush=True)
            m = run_txtfp(a, full, os.path.join(work, "txtfp-full"))
            runs.append(("txtfp, whole corpus", "txtfp", m, full, full_files, os.path.join(work, "txtfp-full")))
    res["load_after"] = os.getloadavg()

    print("scoring ...", file=sys.stderr, flush=True)
    truth_all = ds.load_truth(os.path.join(full, "truth.jsonl"))
    by_corpus = {}
    for label, kind, m, c, fs, out in runs:
        if kind == "datatrove":
            cluster_of, drops, docs, present = datatrove_clusters(out, fs, a.tasks)
        else:
            cluster_of, drops = ds.txtfp_clusters(out)
            docs, present = m["report"]["documents"], None
        m["settings"] = m.get("settings") or "defaults: word 5-shingles, 128 slots, 32x4, exact verification at 0.8"
        m["jsonl_bytes"] = full_bytes if c == full else in_bytes
        m["docs"] = docs
        by_corpus.setdefault(c, {"files": fs, "present": None, "runs": []})
        if present is not None:
            by_corpus[c]["present"] = present
        by_corpus[c]["runs"].append((label, m, cluster_of, drops, ds.sample_drops(drops, a.sample)))
    for c, g in by_corpus.items():
        truth = truth_all
        if c != full:
            present = g["present"] or {i for v in ds.scan_ids(g["files"]).values() for i in v}
            truth = [t for t in truth_all if t[0] in present and t[1] in present]
        cal = random.Random(2).sample(truth, min(300, len(truth)))
        wanted = {x for r in g["runs"] for p in r[4] for x in p} | {x for p in cal for x in p[:2]}
        texts = ds.fetch_texts(g["files"], wanted)
        for label, m, cluster_of, drops, sampled in g["runs"]:
            m["quality"] = ds.score(truth, cluster_of, drops, sampled, texts, a.threshold)
            m["calibration"] = ds.calibration(cal, texts, a.threshold)
            res["tools"][label] = m
    # datatrove's time, scaled linearly from the part to the whole corpus
    dt = [label for label, kind, *_ in runs if kind == "datatrove"]
    if a.head and dt:
        m = res["tools"][dt[0]]
        f = full_bytes / in_bytes
        res["tools"][f"{dt[0]}, whole corpus (extrapolated x{f:.1f})"] = {
            "extrapolated": True, "jsonl_bytes": full_bytes, "docs": None,
            "stages": [{"stage": s["stage"], "wall_s": s["wall_s"] * f, "cpu_s": s["cpu_s"] * f} for s in m["stages"]],
            "wall_s": m["wall_s"] * f, "cpu_s": m["cpu_s"] * f,
        }
    res["input"] = {"jsonl_bytes": in_bytes, "files": len(files), "head": a.head,
                    "compressed_bytes": sum(os.path.getsize(f) for f in files),
                    "whole_jsonl_bytes": full_bytes, "whole_files": len(full_files)}
    md = markdown(res)
    print(md)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    if a.md:
        with open(a.md, "w") as fh:
            fh.write(md)
    if not a.keep_output:
        for d in ("datatrove", "txtfp", "txtfp-full", "input"):
            shutil.rmtree(os.path.join(work, d), ignore_errors=True)


def jsonl_bytes(corpus, files, glob):
    manifest = os.path.join(corpus, "manifest.json")
    if os.path.exists(manifest) and glob == "part-*.jsonl.zst":
        return json.load(open(manifest))["bytes"]["jsonl"]
    return sum(len(line.encode()) for f in files for line in ds.open_lines(f))


def make_head(files, dest, n):
    """The first n records of each shard, as zstd shards of the same names in dest."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    out = []
    for f in files:
        o = os.path.join(dest, os.path.basename(f))
        subprocess.run(f"zstd -dcq '{f}' | head -n {n} | zstd -3 -q -o '{o}'", shell=True, check=True)
        out.append(o)
    return out

if __name__ == "__main__":
    sys.exit(main())
