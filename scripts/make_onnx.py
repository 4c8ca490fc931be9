#!/usr/bin/env python3
"""Export a BERT-family sentence encoder (e.g. all-MiniLM-L6-v2) from its
`model.safetensors` + `config.json` to an fp32 ONNX graph, without torch.

    make_onnx.py MODEL_DIR OUT.onnx [--external-data]

The graph takes `input_ids`, `attention_mask`, `token_type_ids` (int64,
[batch, sequence]) and returns `last_hidden_state` (float32,
[batch, sequence, hidden]); pooling is the caller's job (txtfp's
`LocalProvider`, or `onnx_reference.py`). Opset 17, deterministic bytes.

`--external-data` stores the weights beside the graph in `OUT.onnx_data`,
the layout large Hugging Face exports use, so that loading such a model can be
tested with a small one.

Needs the Python packages `onnx`, `numpy` and `safetensors` (see
scripts/setup-onnx.sh).
"""

import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file


class Graph:
    """Accumulates nodes and initializers; every helper returns its output name."""

    def __init__(self, weights):
        self.w = weights
        self.nodes = []
        self.inits = []
        self.consts = {}

    def weight(self, name, array=None):
        arr = self.w[name] if array is None else array
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def const(self, value, dtype):
        # One initializer per distinct constant keeps the graph small and stable.
        key = (repr(value), np.dtype(dtype).str)
        if key not in self.consts:
            name = f"const_{len(self.consts)}"
            self.inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
            self.consts[key] = name
        return self.consts[key]

    def op(self, kind, inputs, output=None, **attrs):
        output = output or f"{kind.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(kind, inputs, [output], **attrs))
        return output

    def dense(self, x, prefix):
        # PyTorch stores Linear weights as [out, in]; MatMul wants [in, out].
        w = self.weight(f"{prefix}.weight.T", self.w[f"{prefix}.weight"].T)
        return self.op("Add", [self.op("MatMul", [x, w]), self.weight(f"{prefix}.bias")])

    def layer_norm(self, x, prefix, eps):
        return self.op(
            "LayerNormalization",
            [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")],
            axis=-1,
            epsilon=eps,
        )


def strip_prefix(weights):
    """Accept both `bert.embeddings...` and bare `embeddings...` key styles."""
    if any(k.startswith("bert.") for k in weights):
        return {k[5:]: v for k, v in weights.items() if k.startswith("bert.")}
    return weights


def build(model_dir):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"unsupported hidden_act {cfg.get('hidden_act')!r} (only exact gelu)")
    g = Graph(strip_prefix(load_file(os.path.join(model_dir, "model.safetensors"))))
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(cfg["layer_norm_eps"])

    # Embeddings: word + position (first S rows) + token type, then LayerNorm.
    words = g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"])
    seq_len = g.op("Shape", ["input_ids"], start=1, end=2)
    positions = g.op(
        "Slice",
        [g.weight("embeddings.position_embeddings.weight"), g.const([0], np.int64), seq_len, g.const([0], np.int64)],
    )
    types = g.op("Gather", [g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids"])
    x = g.layer_norm(g.op("Add", [g.op("Add", [words, positions]), types]), "embeddings.LayerNorm", eps)

    # Additive attention bias [B, 1, 1, S]: 0 where the mask is 1, float32 min where it is 0
    # (the value transformers uses, so padded keys get exactly zero weight).
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const(1.0, np.float32), mask]), g.const(np.finfo(np.float32).min, np.float32)])
    bias = g.op("Unsqueeze", [bias, g.const([1, 2], np.int64)])
    split_heads = g.const([0, 0, heads, head_dim], np.int64)
    merge_heads = g.const([0, 0, hidden], np.int64)
    scale = g.const(1.0 / np.sqrt(head_dim), np.float32)

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"

        def project(name, perm):
            return g.op("Transpose", [g.op("Reshape", [g.dense(x, f"{p}.attention.self.{name}"), split_heads])], perm=perm)

        q = project("query", [0, 2, 1, 3])
        k = project("key", [0, 2, 3, 1])
        v = project("value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_heads])
        x = g.layer_norm(g.op("Add", [g.dense(ctx, f"{p}.attention.output.dense"), x]), f"{p}.attention.output.LayerNorm", eps)
        inner = g.dense(x, f"{p}.intermediate.dense")
        # Exact GELU: 0.5 * h * (1 + erf(h / sqrt 2)).
        erf = g.op("Erf", [g.op("Div", [inner, g.const(np.sqrt(2.0), np.float32)])])
        gelu = g.op("Mul", [g.op("Mul", [inner, g.const(0.5, np.float32)]), g.op("Add", [erf, g.const(1.0, np.float32)])])
        x = g.layer_norm(g.op("Add", [g.dense(gelu, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm", eps)
    g.op("Identity", [x], output="last_hidden_state")

    def ids(name):
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])

    graph = helper.make_graph(
        g.nodes,
        "bert_sentence_encoder",
        [ids("input_ids"), ids("attention_mask"), ids("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="txtfp-make_onnx")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir")
    ap.add_argument("out")
    ap.add_argument("--external-data", action="store_true")
    a = ap.parse_args()
    model = build(a.model_dir)
    tmp = a.out + ".tmp"
    if a.external_data:
        data = os.path.basename(a.out) + "_data"
        onnx.save(model, tmp, save_as_external_data=True, all_tensors_to_one_file=True, location=data)
    else:
        onnx.save(model, tmp)
    os.replace(tmp, a.out)  # atomic: a half-written model never looks finished
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
