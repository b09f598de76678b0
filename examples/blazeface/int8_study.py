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
  a-*, b-*, c-*, a+b, ... the schemes that stay inside CVM's operators, heads at 16 bits:
                  (a) non-power-of-two scales (requantization multipliers), (b) 15-bit weights
                  and (c) 15-bit activations (split into int8 halves), -in15 a 15-bit input;
                  b+c-in15 is `cvmrt quantize --split` (see VARIANTS)
`--only NAME,NAME` runs only those. Prints compare.py's summary line for each (write them next to compare.py's lines for the real
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


def weight_scales(w, bits, scaled, per_channel, spread):
    """Per output channel: the factor s with w * s the integer weight (|.| <= 2^(bits-1) - 1)."""
    lim = 2.0 ** (bits - 1) - 1
    ch = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    if not per_channel:
        ch = np.full_like(ch, ch.max())
    if scaled:
        return lim / np.where(ch > 0, ch, 1.0)
    kt = exponent_for(ch.max(), lim)
    return 2.0 ** np.array([min(exponent_for(c, lim), kt + spread) if c > 0 else kt for c in ch])


def fake_quant_model(src, rep, weights, acts, scaled, wide_heads, wbits=8, abits=8, inbits=8,
                     ascaled=None, heads16=False, per_channel=True, spread=None, abits_of=None):
    """weights/acts: quantize them; scaled: non-power-of-two weight scales (and activation
    scales unless ascaled says otherwise); wbits/abits/inbits: bits of the weights, the
    activations (Conv/Add outputs) and the input; heads16: the head convolutions at 16 bits
    (power of two) instead of float or 8 bits; abits_of(node name) -> bits overrides abits."""
    ascaled = scaled if ascaled is None else ascaled
    if spread is None:
        spread = 11 if wbits == 8 else 5
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}

    def act_step(key, bits, is_scaled):
        k, _, mx = rep[key]
        lim = 2.0 ** (bits - 1) - 1
        if is_scaled:
            return (mx if mx > 0 else 1.0) / lim
        return 2.0 ** -exponent_for(mx, lim)

    def input_step(tensor):
        if tensor not in producer:
            return act_step("data", inbits, False) if acts else 2.0 ** -rep["data"][0]
        n = producer[tensor]
        if n.name in rep and n.op_type in ("Conv", "Add") and acts:
            return step_of(n)
        if n.name in rep and not acts:
            return 2.0 ** -rep[n.name][0]
        return input_step(n.input[0])

    def is_head(n):
        return any(h in n.name for h in HEADS)

    def step_of(n):
        if is_head(n):
            return act_step(n.name, 16, False)
        bits = abits_of(n.name) if abits_of else abits
        return act_step(n.name, bits, ascaled)

    if weights:
        for n in g.node:
            if n.op_type != "Conv":
                continue
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float64)
            s = weight_scales(w, wbits, scaled, per_channel, spread)
            lim = 2.0 ** (wbits - 1) - 1
            wq = np.clip(round_away(w * s[:, None, None, None]), -lim, lim) / s[:, None, None, None]
            inits[n.input[1]].CopyFrom(numpy_helper.from_array(wq.astype(np.float32), n.input[1]))
            if len(n.input) > 2:
                b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float64)
                sb = s / input_step(n.input[0])
                inits[n.input[2]].CopyFrom(
                    numpy_helper.from_array((round_away(b * sb) / sb).astype(np.float32), n.input[2]))
    if not acts:
        return m
    new, rename = [], {}

    def fq(tensor, step, bits, tag):
        lim = 2.0 ** (bits - 1) - 1
        g.initializer.extend([
            numpy_helper.from_array(np.array(1.0 / step, dtype=np.float32), tag + "_inv"),
            numpy_helper.from_array(np.array(step, dtype=np.float32), tag + "_step"),
            numpy_helper.from_array(np.array(-lim, dtype=np.float32), tag + "_lo"),
            numpy_helper.from_array(np.array(lim, dtype=np.float32), tag + "_hi")])
        new.append(helper.make_node("Mul", [tensor, tag + "_inv"], [tag + "_a"]))
        new.append(helper.make_node("Round", [tag + "_a"], [tag + "_r"]))
        new.append(helper.make_node("Clip", [tag + "_r", tag + "_lo", tag + "_hi"], [tag + "_c"]))
        new.append(helper.make_node("Mul", [tag + "_c", tag + "_step"], [tag + "_dq"]))
        rename[tensor] = tag + "_dq"

    in_bits = inbits
    fq(g.input[0].name, act_step("data", in_bits, False), in_bits, "fq_input")
    for idx, n in enumerate(g.node):
        for i, x in enumerate(n.input):
            if x in rename:
                n.input[i] = rename[x]
        new.append(n)
        if n.op_type in ("Conv", "Add") and n.name in rep:
            if is_head(n):
                if wide_heads:
                    continue
                if heads16:
                    fq(n.output[0], act_step(n.name, 16, False), 16, "fq%d" % idx)
                    continue
            bits = abits_of(n.name) if abits_of else abits
            fq(n.output[0], act_step(n.name, bits, ascaled), bits, "fq%d" % idx)
    for o in g.output:
        if o.name in rename:
            o.name = rename[o.name]
    del g.node[:]
    g.node.extend(new)
    return m


A = dict(weights=True, acts=True, wide_heads=False, heads16=True)
VARIANTS = [
    ("pow2", dict(weights=True, acts=True, scaled=False, wide_heads=False)),
    ("pow2-wide-heads", dict(weights=True, acts=True, scaled=False, wide_heads=True)),
    ("pow2-weights", dict(weights=True, acts=False, scaled=False, wide_heads=True)),
    ("pow2-acts", dict(weights=False, acts=True, scaled=False, wide_heads=True)),
    ("scaled", dict(weights=True, acts=True, scaled=True, wide_heads=True)),
    # The schemes that stay inside CVM's operators (heads at 16 bits, as cvmrt makes them):
    # (a) requantization multipliers: non-power-of-two per-channel weight and activation scales
    ("a-mult", dict(A, scaled=True)),
    # (b) split weights: 15-bit weights (two int8 halves), power-of-two scales
    ("b-wsplit", dict(A, scaled=False, wbits=15)),
    ("a+b", dict(A, scaled=True, wbits=15)),
    # (c) split activations: 15-bit activations (two int8 halves), power-of-two scales
    ("c-asplit", dict(A, scaled=False, abits=15)),
    ("c-asplit-in15", dict(A, scaled=False, abits=15, inbits=15)),
    ("a+c", dict(A, scaled=True, ascaled=False, abits=15)),
    ("b+c", dict(A, scaled=False, wbits=15, abits=15)),
    ("b+c-in15", dict(A, scaled=False, wbits=15, abits=15, inbits=15)),
    ("b+c-per-tensor", dict(A, scaled=False, wbits=15, abits=15, per_channel=False)),
    ("a+b+c", dict(A, scaled=True, ascaled=False, wbits=15, abits=15)),
    ("a+c-in15", dict(A, scaled=True, ascaled=False, abits=15, inbits=15)),
    ("b+c-in15-per-tensor", dict(A, scaled=False, wbits=15, abits=15, inbits=15,
                                 per_channel=False)),
    ("b12+c-in15", dict(A, scaled=False, wbits=12, abits=15, inbits=15)),
    ("b+c12-in15", dict(A, scaled=False, wbits=15, abits=12, inbits=12)),
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
    only = opts.get("--only")
    for tag, kw in VARIANTS:
        if only and tag not in only.split(","):
            continue
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
