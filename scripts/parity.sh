#!/usr/bin/env bash
# Build the reference harness (../shared/tools/txtfp-ref) unchanged against this
# crate's core and diff its golden output with the published crate's goldens.
#
#   scripts/parity.sh [edge|small|all]     (default: edge)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shared=${TXTFP_SHARED:-../shared}
ref=$shared/tools/txtfp-ref
if [[ ! -x $ref/against.sh ]]; then
  echo "*** SKIPPED: $ref/against.sh not found: reference-harness parity not checked ***"
  exit 0
fi
which=${1:-edge}
out=${PARITY_OUT:-target/parity}
mkdir -p "$out"
bin=$(CAND_TARGET_DIR=${CAND_TARGET_DIR:-$PWD/target/against} "$ref/against.sh" . --no-default-features | tail -n 1)
ignore='canonical_security,cjk*,tlsh,*_text'
run() {  # corpus golden mode
  local corpus=$1 golden=$2 mode=$3 name
  name=$(basename "$golden" .jsonl)
  "$bin" golden --input "$shared/corpus/$corpus" --output "$out/$name.ours.jsonl" --tokens "$mode" --no-markup
  python3 "$ref/compare.py" "$shared/golden/$golden" "$out/$name.ours.jsonl" --ignore "$ignore"
}
case $which in
  edge) run edge-cases.jsonl golden-edge.jsonl full ;;
  small) run corpus-small.jsonl golden-small.digest.jsonl digest ;;
  all) run edge-cases.jsonl golden-edge.jsonl full; run corpus-small.jsonl golden-small.digest.jsonl digest ;;
  *) echo "usage: $0 [edge|small|all]" >&2; exit 2 ;;
esac
