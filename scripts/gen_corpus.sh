#!/usr/bin/env bash
# Scale corpora for the out-of-core dedup benchmarks: builds the generator
# (txtfp-cli/examples/gen_corpus) in release and runs it with the arguments
# given. BENCHMARKS.md ("Scale corpora") says what is planted and what the
# output folder holds.
#
#   scripts/gen_corpus.sh --source corpus-large.jsonl --out DIR --size 5GB [--seed S]
#       [--shards K | --shard-size 256MB] [--dup-frac 0.10] [--threads N] [--force]
#   scripts/gen_corpus.sh --help            # every option
#
# The source is a JSONL corpus of real text with a "text" field, such as
# ../shared/tools/corpus/make_corpus.py's corpus-large.jsonl (its "lang" and
# "src" fields, when present, keep each document in one language and
# source). The same source, seed and options give the same bytes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The generator needs none of the command-line tool's features: without them
# the build skips Parquet and the store.
cargo build --release --quiet -p txtfp-cli --no-default-features --example gen_corpus
exec "${CARGO_TARGET_DIR:-target}/release/examples/gen_corpus" "$@"
