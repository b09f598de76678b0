#!/usr/bin/python3
"""Writes one small CVM model per conv2d/dense layer of conv_bench's workloads, for the wasm
layer benchmark (bench/wasm_ort_bench.mjs), which times them against onnxruntime-web running
bench/ort/make_models.py's QLinearConv / MatMulInteger models of the same shapes.

    layer_models.py WORKLOADS.jsonl OUT_DIR

WORKLOADS.jsonl is `conv_bench --list`. Each layer is what an int8 network runs per layer: conv2d
or dense with an int32 bias, then cvm_right_shift back to precision 8 (QLinearConv requantizes
the same way). Weights are seeded random int8 (examples/gen_models.py's generator), the input is
`data` with precision 8. OUT_DIR/index.jsonl lists {name, op, json, params, input, macs}.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from gen_models import Cnn, Graph, Rng, numel, write  # noqa: E402


def layer(w, rng):
    g = Graph()
    x = g.var("data", w["x"], 8)
    out_c = w["w"][0]
    bias = g.var("bias", [out_c], 16, rng.ints(out_c, -2000, 2000))
    if w["op"] == "conv2d":
        n, c, h, wd = w["x"]
        k, s, p, groups = w["w"][2], w["stride"], w["pad"], w["groups"]
        fan_in = c // groups * k * k
        wt = g.var("weight", w["w"], 8, rng.int8_bytes(out_c * fan_in))
        shape = [n, out_c, (h + 2 * p - k) // s + 1, (wd + 2 * p - k) // s + 1]
        attrs = {"channels": out_c, "kernel_size": "(%d, %d)" % (k, k),
                 "strides": "(%d, %d)" % (s, s), "padding": "(%d, %d)" % (p, p)}
        if groups != 1:
            attrs["groups"] = groups
        y = g.op("conv", "conv2d", [x, wt, bias], attrs, [shape])
    else:
        m, fan_in = w["x"]
        wt = g.var("weight", w["w"], 8, rng.int8_bytes(out_c * fan_in))
        shape = [m, out_c]
        y = g.op("dense", "dense", [x, wt, bias], {"units": out_c}, [shape])
    y = g.op("shift", "cvm_right_shift", [y],
             {"precision": 8, "shift_bit": Cnn.shift_for(fan_in)}, [shape])
    return g, y


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    works = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "index.jsonl"), "w") as index:
        for i, w in enumerate(works):
            g, y = layer(w, Rng(1000 + i))
            base = os.path.join(out, "layer%d" % i)
            write(base + ".json", g.to_json([y]))
            write(base + ".params", g.params_bytes())
            index.write(json.dumps({"name": w["name"], "op": w["op"], "json": base + ".json",
                                    "params": base + ".params", "input": w["x"],
                                    "macs": g.macs()}) + "\n")


if __name__ == "__main__":
    main()
