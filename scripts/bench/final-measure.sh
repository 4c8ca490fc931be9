#!/bin/bash
# The headline speed figures in one run: the reference harness (txtfp 0.3.2) and this
# crate alternating on core 1 for minhash, simhash and canonical, then this
# crate's minhash-fast; two rounds; then minhash and minhash-fast on 2 threads.
#   B=target/release/examples/bench R=/path/to/txtfp-ref C=corpus-large.jsonl \
#     scripts/bench/final-measure.sh
# B: `cargo build --release --example bench --features parallel`;
# R: ../shared/tools/txtfp-ref built with `cargo build --release`;
# C: ../shared/tools/corpus/make_corpus.py --only large.
# Prints one JSON object per run (no newline between them: parse with
# scripts/bench/parse.py).
set -eu
: "${B:?bench binary}" "${R:?reference harness binary}" "${C:?corpus-large.jsonl}"
for round in 1 2; do
  for a in minhash simhash canonical; do
    taskset -c 1 "$R" bench --input "$C" --algo $a --threads 1 --min-seconds 2
    taskset -c 1 "$B" --input "$C" --algo $a --threads 1 --min-seconds 2
  done
  taskset -c 1 "$B" --input "$C" --algo minhash-fast --threads 1 --min-seconds 2
done
"$B" --input "$C" --algo minhash --threads 2 --min-seconds 2
"$B" --input "$C" --algo minhash-fast --threads 2 --min-seconds 2
