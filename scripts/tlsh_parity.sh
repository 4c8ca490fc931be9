#!/usr/bin/env bash
# Live TLSH parity against the reference C++ TLSH (PyPI py-tlsh), run by
# scripts/test.sh: installs py-tlsh 5.0.0 in a virtual environment (once),
# has it hash the shared corpora (../shared/corpus) and the committed edge
# cases, then runs tests/tlsh/pytlsh_live.rs, which compares every digest and
# the distance of every consecutive pair with ours.
#
#   scripts/tlsh_parity.sh              # reference digests, then the test
#   scripts/tlsh_parity.sh --reference  # only the reference digests; prints
#                                       # `export TXTFP_PYTLSH_REFERENCE=...`
#                                       # for a later `cargo test` (test.sh)
#   TXTFP_PY_VENV=DIR   where the venv lives (default target/py-venv)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=${TXTFP_PY_VENV:-target/py-venv}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c 'import tlsh' 2>/dev/null; then
  "$venv/bin/pip" install --quiet 'py-tlsh==5.0.0' >&2
fi

corpora=(tests/data/tlsh-live-inputs.jsonl)
for c in ../shared/corpus/corpus-small.jsonl ../shared/corpus/edge-cases.jsonl; do
  if [[ -f $c ]]; then
    corpora+=("$c")
  else
    echo "tlsh_parity: $c not found; only the committed inputs are compared" >&2
  fi
done
out=target/pytlsh-reference.jsonl
mkdir -p target
"$venv/bin/python" scripts/pytlsh_reference.py "$out" "${corpora[@]}" >&2
if [[ ${1:-} == --reference ]]; then
  printf 'export TXTFP_PYTLSH_REFERENCE=%q\n' "$PWD/$out"
  exit 0
fi
TXTFP_PYTLSH_REFERENCE=$out cargo test -p txtfp --features tlsh --test tlsh -- pytlsh_live --nocapture
