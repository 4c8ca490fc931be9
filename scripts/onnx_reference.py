#!/usr/bin/env python3
"""Reference sentence embeddings with Python onnxruntime, for txtfp's parity test.

    onnx_reference.py MODEL_DIR SENTENCES.txt OUT.json [--pooling mean|cls|max|mean-no-norm]

MODEL_DIR holds model.onnx and tokenizer.json; SENTENCES.txt has one sentence
per line (`\\n` inside a line stands for a newline). Each sentence is
tokenized by the Hugging Face `tokenizers` package with the file's own
truncation (no padding), run alone through onnxruntime, pooled over the
attention mask in numpy (float64) and L2-normalised. Output: JSON
{"onnxruntime": version, "pooling": ..., "vectors": [[...], ...]}.

tests/semantic/parity.rs runs this with the venv of scripts/setup-onnx.sh and
compares txtfp's LocalProvider with it.
"""

import argparse
import json
import os

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def pool(hidden, mask, how):
    kept = hidden[mask.astype(bool)]
    if how == "cls":
        v = hidden[0]
    elif how == "max":
        v = kept.max(axis=0)
    else:
        v = kept.mean(axis=0)
    if how != "mean-no-norm":
        n = np.linalg.norm(v)
        if n > 0:
            v = v / n
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("sentences")
    ap.add_argument("out")
    ap.add_argument("--pooling", default="mean", choices=["mean", "cls", "max", "mean-no-norm"])
    a = ap.parse_args()

    tok = Tokenizer.from_file(os.path.join(a.model_dir, "tokenizer.json"))
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # plain graph: an independent path
    sess = ort.InferenceSession(os.path.join(a.model_dir, "model.onnx"), opts, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in sess.get_inputs()}

    with open(a.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n").replace("\\n", "\n") for line in f]
    vectors = []
    for s in sentences:
        enc = tok.encode(s)
        feed = {
            "input_ids": np.array([enc.ids], dtype=np.int64),
            "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
        }
        (hidden,) = sess.run(["last_hidden_state"], {k: v for k, v in feed.items() if k in wanted})
        v = pool(hidden[0].astype(np.float64), feed["attention_mask"][0], a.pooling)
        vectors.append([float(x) for x in v])
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump({"onnxruntime": ort.__version__, "pooling": a.pooling, "vectors": vectors}, f)
    print(f"{len(vectors)} vectors -> {a.out}")


if __name__ == "__main__":
    main()
