# Simulates cvmrt's int8 scheme and variants on BlazeFace as fake-quant ONNX under ORT.
"""int8_study.py WORK_DIR [--inputs IN_DIR] [--model M.onnx] [--report R.txt]

Needs what run.sh leaves in WORK_DIR: the float reference outputs (raw/<input>.ort*.npy), the
inputs (inputs/), the model the quantizer read (blazeface_pad.onnx, else blazeface.onnx) and the
per-channel `cvmrt quantize --report` output (quantize_report.txt).

Each variant is the float model with its weights rounded in numpy and QuantizeLinear /
DequantizeLinear pairs (int8, zero point 0) after the input and after every Conv and Add, with
the exponents that cvmrt's report gives for those tensors, run by onnxruntime-node. It is the
scheme computed exactly, without cvmrt's integer pipeline, so

    cvmrt int8  vs  "pow2"            = what cvmrt's implementation adds to its own scheme
    "pow2"      vs  the other rows    = what the scheme itself costs, and where

Variants:
  pow2            cvmrt's scheme: per-channel power-of-two int8 weights (exponent clamped to the
                  tensor exponent + 11), int32 biases, 8-bit power-of-two activations, 8-bit heads
  pow2-wide-heads the same with the four head convolutions left in float (what 16-bit heads give)
  pow2-weights    only the weights quantized (activations float)
  pow2-acts       only the activations quantized (weights float), heads in float
  scaled          ordinary int8: per-channel weight scale max|w| / 127, activation scale
                  max|x| / 127 (calibrated ranges from the report), heads in float
Prints compare.py's summary line for each (write them next to compare.py's lines for the real
int8 models). The fake-quant models go to WORK_DIR/study/.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import decode  # noqa: E402

HEADS = ("conv2d_17/", "conv2d_18/", "conv2d_19/", "conv2d_20/")


def read_report(path):
    """node name -> (exponent, bits, max|x|) from `cvmrt quantize --report`."""
    rep = {}
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            p = line.split()
            if len(p) == 5 and p[3].lstrip("-").isdigit():
                rep[p[0]] = (int(p[3]), int(p[4]), float(p[2]))
    return rep


def exponent_for(max_abs, bound=127):
    if max_abs <= 0:
        return 0
    k = int(np.floor(np.log2(bound / max_abs)))
    while max_abs * 2.0 ** k > bound:
        k -= 1
    return k


def round_away(x):
    return np.where(x < 0, -np.floor(-x + 0.5), np.floor(x + 0.5))


def fake_quant_model(src, rep, weights, acts, scaled, wide_heads):
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}

    def input_exponent(tensor):
        if tensor not in producer:
            return rep["data"][0]
        n = producer[tensor]
        return rep[n.name][0] if n.name in rep else input_exponent(n.input[0])

    def is_head(n):
        return any(h in n.name for h in HEADS)

    if weights:
        for n in g.node:
            if n.op_type != "Conv":
                continue
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float64)
            ch = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
            if scaled:
                s = 127.0 / np.where(ch > 0, ch, 1.0)
            else:
                kt = exponent_for(ch.max())
                s = 2.0 ** np.array([min(exponent_for(c), kt + 11) if c > 0 else kt for c in ch])
            wq = np.clip(round_away(w * s[:, None, None, None]), -127, 127) / s[:, None, None, None]
            inits[n.input[1]].CopyFrom(numpy_helper.from_array(wq.astype(np.float32), n.input[1]))
            if len(n.input) > 2:
                b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float64)
                sb = 2.0 ** input_exponent(n.input[0]) * s
                inits[n.input[2]].CopyFrom(
                    numpy_helper.from_array((round_away(b * sb) / sb).astype(np.float32), n.input[2]))
    if not acts:
        return m
    new, rename = [], {}

    def qdq(tensor, key, tag):
        k, bits, mx = rep[key]
        scale = mx / 127.0 if scaled else 2.0 ** -k
        g.initializer.extend([
            numpy_helper.from_array(np.array(scale, dtype=np.float32), tag + "_scale"),
            numpy_helper.from_array(np.array(0, dtype=np.int8), tag + "_zero")])
        new.append(helper.make_node("QuantizeLinear", [tensor, tag + "_scale", tag + "_zero"], [tag + "_q"]))
        new.append(helper.make_node("DequantizeLinear", [tag + "_q", tag + "_scale", tag + "_zero"],
                                    [tag + "_dq"]))
        rename[tensor] = tag + "_dq"

    qdq(g.input[0].name, "data", "fq_input")
    for idx, n in enumerate(g.node):
        for i, x in enumerate(n.input):
            if x in rename:
                n.input[i] = rename[x]
        new.append(n)
        if n.op_type in ("Conv", "Add") and n.name in rep and not (wide_heads and is_head(n)):
            qdq(n.output[0], n.name, "fq%d" % idx)
    for o in g.output:
        if o.name in rename:
            o.name = rename[o.name]
    del g.node[:]
    g.node.extend(new)
    return m


VARIANTS = [
    ("pow2", dict(weights=True, acts=True, scaled=False, wide_heads=False)),
    ("pow2-wide-heads", dict(weights=True, acts=True, scaled=False, wide_heads=True)),
    ("pow2-weights", dict(weights=True, acts=False, scaled=False, wide_heads=True)),
    ("pow2-acts", dict(weights=False, acts=True, scaled=False, wide_heads=True)),
    ("scaled", dict(weights=True, acts=True, scaled=True, wide_heads=True)),
]


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    work = argv[0]
    opts = dict(zip(argv[1::2], argv[2::2]))
    in_dir = opts.get("--inputs", os.path.join(work, "inputs"))
    model = opts.get("--model") or next(p for p in (os.path.join(work, "blazeface_pad.onnx"),
                                                    os.path.join(work, "blazeface.onnx"))
                                        if os.path.exists(p))
    rep = read_report(opts.get("--report", os.path.join(work, "quantize_report.txt")))
    with open(os.path.join(in_dir, "inputs.txt")) as f:
        names = [line.strip() for line in f if line.strip()]
    raw_dir = os.path.join(work, "raw")
    study = os.path.join(work, "study")
    os.makedirs(study, exist_ok=True)
    ort_dets = {n: decode.detect(*decode.join_outputs(compare.load_outputs(raw_dir, n, "ort")))
                for n in names}
    for tag, kw in VARIANTS:
        path = os.path.join(study, tag + ".onnx")
        onnx.save(fake_quant_model(model, rep, **kw), path)
        out = os.path.join(study, tag)
        subprocess.run(["node", os.path.join(HERE, "ort_run.mjs"), path, out]
                       + [os.path.join(in_dir, n + ".npy") for n in names],
                       check=True, stdout=subprocess.DEVNULL)
        rows = {}
        for n in names:
            raw = [np.load(os.path.join(out, "%s.ort%s.npy" % (n, "" if k == 0 else "_%d" % k)))
                   for k in range(4)]
            rows[n] = compare.measure(compare.load_outputs(raw_dir, n, "ort"), raw, ort_dets[n],
                                      decode.detect(*decode.join_outputs(raw)))
        print(compare.summary_line(tag, names, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
