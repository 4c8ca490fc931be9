#!/usr/bin/env bash
# The Python package's tests, run by scripts/test.sh: installs the package the
# way a user does (`pip install ./txtfp-py`: pip fetches maturin from PyPI and
# builds an abi3 wheel, here of the wheel-test profile) into a virtual environment with pytest, NumPy
# and pyarrow, then runs txtfp-py/tests. The comparisons with the command-line
# tool use target/{release,debug}/txtfp (or TXTFP_CLI).
#
#   scripts/python_tests.sh [PYTEST ARGS...]
#   TXTFP_PY_VENV=DIR   where the venv lives (default target/py-venv-txtfp)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=${TXTFP_PY_VENV:-target/py-venv-txtfp}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv" >&2
fi
"$venv/bin/pip" install --quiet --upgrade pip >&2
"$venv/bin/pip" install --quiet pytest numpy pyarrow >&2
# The wheel-test profile: release code without LTO (minutes less to build;
# a plain `pip install ./txtfp-py` builds the release profile). The target
# folder is kept, so a second run rebuilds only what changed.
MATURIN_PEP517_ARGS=${MATURIN_PEP517_ARGS---profile wheel-test} CARGO_TARGET_DIR=${TXTFP_WHEEL_TARGET:-$PWD/target/wheel} \
  "$venv/bin/pip" install --quiet --force-reinstall --no-deps ./txtfp-py >&2
"$venv/bin/python" -c 'import txtfp; print("txtfp", txtfp.__version__, "from", txtfp.__file__)'
"$venv/bin/python" -m pytest -q txtfp-py/tests "$@"
