#!/usr/bin/env bash
# The Python package's tests, run by scripts/test.sh: installs the package the
# way a user does (`pip install ./txtfp-py`: pip fetches maturin from PyPI and
# builds a release abi3 wheel) into a virtual environment with pytest, NumPy
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
"$venv/bin/pip" install --quiet --force-reinstall --no-deps ./txtfp-py >&2
"$venv/bin/python" -c 'import txtfp; print("txtfp", txtfp.__version__, "from", txtfp.__file__)'
"$venv/bin/python" -m pytest -q txtfp-py/tests "$@"
