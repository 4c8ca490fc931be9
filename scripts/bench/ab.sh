#!/bin/bash
# Best of three, interleaved, core 1: MB/s of several bench binaries.
#   DIR=/tmp/kinds scripts/bench/ab.sh "minhash-fast minhash" "all ascii latin" old new
# runs $BIN_DIR/bench-old and $BIN_DIR/bench-new (default BIN_DIR=/tmp) on
# $DIR/cl-<set>.jsonl (from split-kinds.py), or on $C for the set `all`.
set -eu
algos=$1; sets=$2; shift 2
BIN_DIR=${BIN_DIR:-/tmp}; DIR=${DIR:-/tmp}
for a in $algos; do for s in $sets; do
  if [ "$s" = all ]; then f=${C:?corpus-large.jsonl}; else f=$DIR/cl-$s.jsonl; fi
  declare -A best=()
  for r in 1 2 3; do for v in "$@"; do
    m=$(taskset -c 1 "$BIN_DIR/bench-$v" --input "$f" --algo "$a" --threads 1 --min-seconds 1 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["mb_per_s"])')
    best[$v]=$(python3 -c "print(max(${best[$v]:-0},$m))")
  done; done
  line="$a $s:"; for v in "$@"; do line="$line $v=${best[$v]}"; done; echo "$line"
  unset best
done; done
