#!/usr/bin/env bash
# Build the reference harness (../shared/tools/txtfp-ref) unchanged against this
# crate (its core, and the harness's default features) and diff its golden
# output with the published crate's goldens.
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
target=${CAND_TARGET_DIR:-$PWD/target/against}
# Only the harness's output is compared, and it does not depend on how the
# release build is optimised: without cross-crate LTO and with parallel code
# generation the two builds take a fraction of the time. (Speed comparisons
# build the harness with its own profile: scripts/bench/.)
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
# The harness source, unchanged, built twice against this crate: on the core
# (txtfp's default features + serde) and with the harness's own default
# features (tlsh, cjk, markup, security, parallel): code written for 0.3.2
# must compile against both.
core=$(CAND_TARGET_DIR=$target "$ref/against.sh" . --no-default-features | tail -n 1)
full=$(CAND_TARGET_DIR=$target "$ref/against.sh" . | tail -n 1)
run() {  # binary label corpus golden mode ignore [harness options]
  local bin=$1 label=$2 corpus=$3 golden=$4 mode=$5 ignore=$6 name
  shift 6
  name=$(basename "$golden" .jsonl).$label
  echo "--- $label build, $corpus"
  "$bin" golden --input "$shared/corpus/$corpus" --output "$out/$name.ours.jsonl" --tokens "$mode" "$@"
  python3 "$ref/compare.py" "$shared/golden/$golden" "$out/$name.ours.jsonl" ${ignore:+--ignore "$ignore"}
}
# Core build: fields of the features it lacks are absent from its output.
core_ignore='canonical_security,cjk*,tlsh,*_text'
edge() {
  run "$core" core edge-cases.jsonl golden-edge.jsonl full "$core_ignore" --no-markup
  run "$full" full edge-cases.jsonl golden-edge.jsonl full ''
}
small() {
  run "$core" core corpus-small.jsonl golden-small.digest.jsonl digest "$core_ignore" --no-markup
  # Markdown is parsed with GitHub's extensions by default (COMPAT.md W18):
  # `~a~` pairs are strikethrough there, which changes two of these pages.
  run "$full" full corpus-small.jsonl golden-small.digest.jsonl digest markdown_text
}
case $which in
  edge) edge ;;
  small) small ;;
  all) edge; small ;;
  *) echo "usage: $0 [edge|small|all]" >&2; exit 2 ;;
esac
