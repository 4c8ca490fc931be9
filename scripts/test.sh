#!/usr/bin/env bash
# The project's test command (README "Test"): everything CI checks, from a
# fresh clone. Installs what the tests need from the package registries:
# crates from crates.io, py-tlsh from PyPI (in a venv under target/).
#
#   scripts/test.sh            # fmt, clippy -D warnings, tests (default + all features),
#                              # no_std core build, docs, reference-harness parity
#   SKIP_PARITY=1 scripts/test.sh   # without the reference-harness parity step
#
# Tests that need ../shared (the full golden sets, the upstream fixtures, the
# reference harness) say loudly when they skip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n=== %s ===\n' "$*"; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step "rustfmt"
cargo fmt --all -- --check

step "clippy (all targets, all features, -D warnings)"
cargo clippy --all-targets --all-features -- -D warnings

step "no_std + alloc core (--no-default-features --features minhash,simhash)"
cargo build --lib --no-default-features --features minhash,simhash

step "tests, default features"
cargo test 2>&1 | tee -a "$log"

step "tests, all features"
cargo test --all-features 2>&1 | tee -a "$log"

step "rustdoc (deny warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --all-features

step "TLSH parity with the reference C++ TLSH (py-tlsh in a venv)"
scripts/tlsh_parity.sh 2>&1 | tee -a "$log"

if [[ ${SKIP_PARITY:-0} != 1 ]]; then
  step "reference-harness parity (../shared/tools/txtfp-ref against this crate)"
  scripts/parity.sh all
fi
echo
echo "all checks passed"
# One summary line over every `cargo test` binary run above.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
