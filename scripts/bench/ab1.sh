#!/bin/bash
# Minimum time over N interleaved short runs (--min-seconds 0.3), core 1,
# as MB/s: steadier than ab.sh on a noisy machine.
#   C=corpus-large.jsonl scripts/bench/ab1.sh minhash-fast all 9 old new
set -eu
a=$1; s=$2; N=$3; shift 3
BIN_DIR=${BIN_DIR:-/tmp}; DIR=${DIR:-/tmp}
if [ "$s" = all ]; then f=${C:?corpus-large.jsonl}; else f=$DIR/cl-$s.jsonl; fi
declare -A best=()
for r in $(seq "$N"); do for v in "$@"; do
  m=$(taskset -c 1 "$BIN_DIR/bench-$v" --input "$f" --algo "$a" --threads 1 --min-seconds 0.3 |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["bytes"]*d["passes"]/d["seconds"]/1e6)')
  best[$v]=$(python3 -c "print(round(max(${best[$v]:-0},$m),1))")
done; done
line="$a $s:"; for v in "$@"; do line="$line $v=${best[$v]}"; done; echo "$line"
