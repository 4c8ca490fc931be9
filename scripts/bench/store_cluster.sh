#!/usr/bin/env bash
# The Redis Cluster store under several `txtfp store ingest` processes at
# once: documents per second in all, and each master's commands per second
# and CPU seconds (from INFO), the figures the shard projections use.
#
#   eval "$(scripts/setup-redis-cluster.sh)"
#   cargo build --release -p txtfp-cli --features store,store-redis
#   scripts/bench/store_cluster.sh INPUT.jsonl [WORKERS=4] [BATCH=1024]
#
# The input is cut into WORKERS slices; worker w ingests slices w and w+1,
# so every document is ingested by two workers at once (overlapping
# datasets: one decides it, the other replays the decision). With
# OVERLAP=0, worker w ingests slice w only.
set -euo pipefail
input=$1 workers=${2:-4} batch=${3:-1024}
bin=${TXTFP_BIN:-target/release/txtfp}
[[ -n ${TXTFP_REDIS_CLUSTER:-} ]] || { echo "run: eval \"\$(scripts/setup-redis-cluster.sh)\"" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/txtfp-cluster-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=bench-$$-$(date +%s)
nodes=$(sed 's/,/", "/g' <<<"$TXTFP_REDIS_CLUSTER")
cat > "$work/store.toml" <<TOML
[global_fingerprints]
backend = "redis-cluster"
redis_nodes = ["$nodes"]
redis_prefix = "$prefix"
TOML
split -n "l/$workers" -d -a 3 "$input" "$work/slice."
for w in $(seq 0 $((workers - 1))); do
  if [[ ${OVERLAP:-1} == 1 ]]; then
    cat "$work/slice.$(printf %03d "$w")" "$work/slice.$(printf %03d $(((w + 1) % workers)))" > "$work/w$w.jsonl"
  else
    cp "$work/slice.$(printf %03d "$w")" "$work/w$w.jsonl"
  fi
done
ports=$(tr ',' '\n' <<<"$TXTFP_REDIS_CLUSTER" | sed 's#redis://[^:]*:\([0-9]*\)/*#\1#')
snapshot() {
  for p in $ports; do
    printf '%s ' "$p"
    redis-cli -p "$p" info everything | tr -d '\r' | awk -F'[:=,]' '
      /^total_commands_processed:/ {c=$2} /^used_cpu_sys:/ {s=$2} /^used_cpu_user:/ {u=$2}
      /^cmdstat_fcall:/ {f=$3} /^used_memory:/ {m=$2}
      END {printf "%s %s %s %s\n", c, s+u, f+0, m}'
  done
}
# Open the store once (loads the functions, writes the parameters).
"$bin" store ingest /dev/null --config "$work/store.toml" --decisions /dev/null -q
before=$(snapshot)
start=$(date +%s.%N)
pids=()
for w in $(seq 0 $((workers - 1))); do
  "$bin" store ingest "$work/w$w.jsonl" --config "$work/store.toml" --batch "$batch" \
    --decisions "$work/d$w.jsonl" -q & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
end=$(date +%s.%N)
after=$(snapshot)
python3 - "$start" "$end" "$work" "$workers" "$(wc -l < "$input")" "$before" "$after" <<'PY'
import json, sys
start, end, work, workers, distinct = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
parse = lambda s: {l.split()[0]: [float(x) for x in l.split()[1:]] for l in s.strip().splitlines()}
b, a = parse(sys.argv[6]), parse(sys.argv[7])
wall = end - start
done = 0
actions = {}
for w in range(workers):
    for line in open(f"{work}/d{w}.jsonl"):
        d = json.loads(line); done += 1
        k = "replayed" if d.get("replayed") else d.get("action", "?")
        actions[k] = actions.get(k, 0) + 1
print(f"workers {workers}, wall {wall:.2f} s")
print(f"documents processed {done} ({done / wall:,.0f}/s), distinct {distinct} ({distinct / wall:,.0f}/s)")
print("decisions:", ", ".join(f"{k} {v}" for k, v in sorted(actions.items())))
print("master  commands/s  FCALL/s  CPU s  CPU share  memory MB  bytes/doc")
for p in sorted(a):
    c, cpu, f, mem = (a[p][i] - b[p][i] for i in range(4))
    print(f"{p}  {c / wall:10,.0f}  {f / wall:7,.0f}  {cpu:5.2f}  {cpu / wall:8.0%}  {a[p][3] / 1e6:9.1f}  {mem / max(distinct, 1):9,.0f}")
PY
