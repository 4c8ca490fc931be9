#!/usr/bin/env bash
# Scale runs of the out-of-core dedup: for each size in GB, generate the
# corpus when it is missing, run `txtfp dedup` on it out of core, score the
# run against the planted truth and append one row to a CSV.
#
#   scripts/bench/scale_runs.sh SIZE_GB...          # e.g. 1 5 20, or 0.1 0.2
#
# Environment (defaults in brackets):
#   SCALE_DIR   where corpora, outputs and the CSV go [/work/scale]
#   SOURCE      the generator's source corpus [/work/corpus/out/corpus-large.jsonl]
#   TXTFP       the txtfp binary [$CARGO_TARGET_DIR/release/txtfp, built when missing]
#   MEMORY      --memory of the runs [1GiB]
#   THREADS     --threads of the runs [one per core]
#   SEED        generator seed [1]
#   CSV         the CSV appended to [$SCALE_DIR/scale.csv]
#   SAMPLE      (dropped, kept) pairs whose Jaccard the scorer computes [2000]
#   KEEP_OUTPUT 1 keeps each run's output folder [0]
#
# Corpus N GB is $SCALE_DIR/gen-Ng (scripts/gen_corpus.sh --size NGB, 256 MB
# shards, --seed $SEED); an existing one is reused as it is. Each run writes to
# $SCALE_DIR/out-Ng (removed afterwards unless KEEP_OUTPUT=1) with its work
# directory inside, under /usr/bin/time -v. Disk: the corpus (~0.44 of its
# JSONL size), the kept shards (about as much again) and the work directory
# (~450 bytes per document). The CSV names the binary by `txtfp --version`
# and the work tree's commit. Plot the CSV with scripts/bench/plot_scale.py.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,26p' "$0"; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scale=${SCALE_DIR:-/work/scale}
source_corpus=${SOURCE:-/work/corpus/out/corpus-large.jsonl}
memory=${MEMORY:-1GiB}
threads=${THREADS:-$(nproc)}
seed=${SEED:-1}
csv=${CSV:-$scale/scale.csv}
sample=${SAMPLE:-2000}
target=${CARGO_TARGET_DIR:-$repo/target}
txtfp=${TXTFP:-$target/release/txtfp}
mkdir -p "$scale"

if [ ! -x "$txtfp" ]; then
  (cd "$repo" && cargo build --release --quiet -p txtfp-cli --features parquet)
fi
version=$("$txtfp" --version | awk '{print $2}')
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)

if [ ! -s "$csv" ]; then
  echo "size_gb,docs,jsonl_bytes,zst_bytes,wall_s,user_s,sys_s,mb_per_s,mb_per_s_per_core,peak_rss_bytes,work_dir_bytes,work_dir_bytes_per_doc,sketch_s,pairs_s,verify_s,cluster_s,write_s,kept,dropped,recall,planted_above,planted_merged_below,drop_precision,drop_false_merge,drop_sample,threads,memory,load1,txtfp,commit,date" > "$csv"
fi

for size in "$@"; do
  corpus=$scale/gen-${size}g
  out=$scale/out-${size}g
  if [ ! -s "$corpus/manifest.json" ]; then
    echo "generating $corpus ($size GB)" >&2
    "$repo/scripts/gen_corpus.sh" --source "$source_corpus" --out "$corpus" --size "${size}GB" --seed "$seed" -q --force
  fi
  rm -rf "$out"
  load1=$(cut -d' ' -f1 /proc/loadavg)
  echo "txtfp dedup on $corpus (load $load1)" >&2
  /usr/bin/time -v -o "$scale/time-${size}g.txt" \
    "$txtfp" dedup "$corpus/part-*.jsonl.zst" --output "$out" --memory "$memory" --threads "$threads" -q
  python3 "$repo/scripts/bench/dedup_score.py" "$corpus" "$out" --sample "$sample" --json "$scale/score-${size}g.json" > /dev/null
  python3 - "$size" "$corpus/manifest.json" "$out/report.json" "$scale/time-${size}g.txt" "$scale/score-${size}g.json" \
      "$threads" "$memory" "$load1" "$version" "$commit" >> "$csv" <<'EOF'
import json, re, sys, time
size, manifest, report, timef, scoref, threads, memory, load1, version, commit = sys.argv[1:]
m, r, s = (json.load(open(p)) for p in (manifest, report, scoref))
t = open(timef).read()
def tv(label):
    return re.search(re.escape(label) + r": (.*)", t).group(1).strip()
h, _, rest = tv("Elapsed (wall clock) time (h:mm:ss or m:ss)").rpartition(":")
wall = float(rest) + sum(float(x) * 60 ** (i + 1) for i, x in enumerate(reversed(h.split(":")))) if h else float(rest)
user, sys_ = float(tv("User time (seconds)")), float(tv("System time (seconds)"))
rss = int(tv("Maximum resident set size (kbytes)")) * 1024
jsonl = m["bytes"]["jsonl"]
stage = {x["stage"]: x["seconds"] for x in r["stages"]}
below = s["planted_merged_near"] + s["planted_merged_low"]
row = [size, r["documents"], jsonl, m["bytes"]["zst"], f"{wall:.2f}", user, sys_,
       f"{jsonl / 1e6 / wall:.2f}", f"{jsonl / 1e6 / (user + sys_):.2f}", rss, r["work_dir_bytes"],
       f"{r['work_dir_bytes_per_document']:.1f}", stage.get("sketch"), stage.get("pairs"), stage.get("verify"),
       stage.get("cluster"), r["write_seconds"], r["kept"], r["dropped"], f"{s['recall']:.6f}",
       s["planted_pairs_above"], below, f"{s.get('drop_precision', float('nan')):.4f}",
       f"{s.get('drop_false_merge', float('nan')):.4f}", s["drop_sample"], threads, memory, load1, version, commit,
       time.strftime("%Y-%m-%dT%H:%M:%S")]
print(",".join(str(x) for x in row))
EOF
  tail -n 1 "$csv" >&2
  [ "${KEEP_OUTPUT:-0}" = 1 ] || rm -rf "$out"
done
echo "appended to $csv" >&2
