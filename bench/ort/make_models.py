#!/usr/bin/python3
"""Writes ONNX models of the conv2d/dense work of conv_bench for ONNX Runtime (ort_bench.mjs).

    make_models.py WORKLOADS.jsonl OUT_DIR

WORKLOADS.jsonl is `conv_bench --list`. For each workload it writes, with random int8 weights:
  conv2d: <i>.qlinearconv.onnx  QLinearConv, uint8 x (zero point 128) x int8 w -> uint8 y
          <i>.convinteger.onnx  ConvInteger, int8 x x int8 w -> int32 y (cvmrt's exact semantics)
  dense:  <i>.matmulinteger.onnx  MatMulInteger, uint8 x (zero point 128) x int8 w -> int32 y
and OUT_DIR/index.jsonl naming each model, its input shape and dtype. Needs Debian's
python3-onnx for /usr/bin/python3 (run_benchmarks.sh installs it when missing).
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7  # readable by every ONNX Runtime release of the last years
    onnx.checker.check_model(model)
    onnx.save(model, path)


def conv_attrs(w):
    k = w["w"][2]
    p = w["pad"]
    return dict(kernel_shape=[k, k], strides=[w["stride"]] * 2, pads=[p, p, p, p],
                group=w["groups"])


def out_shape(w):
    n, _, h, wd = w["x"]
    k, s, p = w["w"][2], w["stride"], w["pad"]
    return [n, w["w"][0], (h + 2 * p - k) // s + 1, (wd + 2 * p - k) // s + 1]


def qlinearconv(w, rng):
    weight = rng.integers(-127, 128, size=w["w"], dtype=np.int8)
    bias = rng.integers(-1000, 1000, size=[w["w"][0]], dtype=np.int32)
    inits = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zero"),
        numpy_helper.from_array(weight, "w"),
        numpy_helper.from_array(np.array(0.01, np.float32), "w_scale"),
        numpy_helper.from_array(np.array(0, np.int8), "w_zero"),
        numpy_helper.from_array(np.array(0.5, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "y_zero"),
        numpy_helper.from_array(bias, "b"),
    ]
    node = helper.make_node("QLinearConv", ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero",
                                            "y_scale", "y_zero", "b"], ["y"], **conv_attrs(w))
    return helper.make_graph(
        [node], "qlinearconv", [helper.make_tensor_value_info("x", TensorProto.UINT8, w["x"])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, out_shape(w))], inits), "uint8"


def convinteger(w, rng):
    weight = rng.integers(-127, 128, size=w["w"], dtype=np.int8)
    node = helper.make_node("ConvInteger", ["x", "w"], ["y"], **conv_attrs(w))
    return helper.make_graph(
        [node], "convinteger", [helper.make_tensor_value_info("x", TensorProto.INT8, w["x"])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, out_shape(w))],
        [numpy_helper.from_array(weight, "w")]), "int8"


def matmulinteger(w, rng):
    m, k = w["x"]
    n = w["w"][0]
    weight = rng.integers(-127, 128, size=[k, n], dtype=np.int8)
    inits = [numpy_helper.from_array(weight, "w"),
             numpy_helper.from_array(np.array(128, np.uint8), "x_zero")]
    node = helper.make_node("MatMulInteger", ["x", "w", "x_zero"], ["y"])
    return helper.make_graph(
        [node], "matmulinteger", [helper.make_tensor_value_info("x", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])], inits), "uint8"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    works = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    with open(os.path.join(out, "index.jsonl"), "w") as index:
        for i, w in enumerate(works):
            makers = ([("QLinearConv", qlinearconv), ("ConvInteger", convinteger)]
                      if w["op"] == "conv2d" else [("MatMulInteger", matmulinteger)])
            for op, make in makers:
                graph, dtype = make(w, rng)
                path = os.path.join(out, "%d.%s.onnx" % (i, op.lower()))
                save(graph, path)
                index.write(json.dumps({"name": w["name"], "op": op, "model": path,
                                        "input": w["x"], "dtype": dtype}) + "\n")


if __name__ == "__main__":
    main()
