#!/usr/bin/env bash
# txtfp's out-of-core dedup against datatrove's MinHash pipeline on the same
# shards (scripts/bench/vs_datatrove.py says what runs and what is measured).
#
#   scripts/bench/vs_datatrove.sh CORPUS_DIR [vs_datatrove.py options...]
#   e.g. scripts/bench/vs_datatrove.sh /work/scale/gen-2g --glob 'part-0000[01].jsonl.zst'
#
# Makes the venv $VENV (default /work/venv-dt) from PyPI when it is missing:
# datatrove 0.10.1, the JSONL reader's and the MinHash stages' dependencies
# (orjson, zstandard, xxhash < 4 as datatrove 0.10 needs, regex, tokenizers),
# spaCy for datatrove's default English word tokenizer, psutil for the
# measurements. Uses $TXTFP (default $CARGO_TARGET_DIR/release/txtfp, built
# when missing); scratch in $WORK (default /tmp/vs-datatrove); writes
# $WORK/vs_datatrove.json and .md.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,14p' "$0"; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
venv=${VENV:-/work/venv-dt}
work=${WORK:-/tmp/vs-datatrove}
txtfp=${TXTFP:-${CARGO_TARGET_DIR:-$repo/target}/release/txtfp}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q datatrove==0.10.1 'xxhash<4' zstandard orjson regex tokenizers spacy psutil
fi
if [ ! -x "$txtfp" ]; then
  (cd "$repo" && cargo build --release --quiet -p txtfp-cli --features parquet)
fi
corpus=$1; shift
mkdir -p "$work"
exec "$venv/bin/python" "$repo/scripts/bench/vs_datatrove.py" "$corpus" --work "$work" --txtfp "$txtfp" \
  --json "$work/vs_datatrove.json" --md "$work/vs_datatrove.md" "$@"
