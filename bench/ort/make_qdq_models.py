#!/usr/bin/python3
# Writes QDQ int8 ONNX models of cvmrt's whole-model benchmarks for ONNX Runtime (model_bench.mjs).
"""Writes QDQ int8 ONNX models of the whole-model benchmarks for ONNX Runtime.

    make_qdq_models.py OUT_DIR [--fashion ONNX [--fashion-calib NPY]]
                               [--blazeface ONNX [--blazeface-calib NPY]] [--no-synthetic]

Models (each OUT_DIR/<name>.qdq.onnx, with OUT_DIR/<name>.input.npy, a float32 input, and a line
in OUT_DIR/index.jsonl: {name, model, input, shape, npy}):
  fashion       examples/fashion_mnist/fashion_cnn.onnx (BatchNormalization folded into the convs)
  blazeface     BlazeFace front 128x128 (examples/blazeface/fetch_model.sh); its constant
                Concat operands (ConstantOfShape zeros) are folded into initializers
  resnet18      ResNet-18 shaped, mobilenet_v1  MobileNet-v1 shaped: the layer shapes and the
                topology of examples/gen_models.py --bench (convs, relu, residual adds, max pool,
                global average pool, dense to 1000), random float weights (He init, seeded)

The quantization is what ONNX Runtime's static QDQ quantizer writes for x86 and what its graph
optimizer fuses into QLinearConv / QGemm / QLinearAdd / QLinearConcat /
QLinearGlobalAveragePool (model_bench.mjs --check prints the fused op counts): QuantizeLinear +
DequantizeLinear after the graph input and after every node output; activations uint8 with a
zero point (asymmetric, from the calibrated min/max; ORT's U8S8 default on x86), weights int8
per-tensor symmetric (zero point 0), biases int32 at x_scale * w_scale. A Relu after a conv,
gemm or add that is its input's only consumer is removed and expressed by the uint8 zero point
0 of the output (as ORT's quantizer does); Transpose, Reshape, Flatten and MaxPool outputs keep
their input's scale so that ORT drops their Q/DQ pairs. The final Softmax of the Fashion CNN
stays float.

Activation ranges come from a plain numpy float forward of the float network: on the first 32
images of --fashion-calib (examples/fashion_mnist/make_calib.py's calib.npy; seeded uniform
[0, 1] images without it), on the first 8 samples of --blazeface-calib (run.sh's
inputs/calib.npy; seeded uniform [-1, 1] without it), on one seeded uniform [-1, 1] input for the
synthetic models.

The scales need not and do not match cvmrt's quantization (cvmrt quantize: power-of-two shifts,
per-channel weights; gen_models.py: random int8 weights with fixed shifts): this is a timing
comparison of the same network shape and int8 arithmetic, not of the same numbers.
Needs only Debian's python3-onnx and numpy (/usr/bin/python3).
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


# ---- a float graph and its numpy forward ----

class Node:
    def __init__(self, op, inputs, outputs, attrs=None):
        self.op, self.inputs, self.outputs, self.attrs = op, list(inputs), list(outputs), attrs or {}


class FGraph:
    """A float network: nodes in topological order, initializers, one input, outputs."""

    def __init__(self, nodes, inits, input_name, input_shape, outputs):
        self.nodes, self.inits = nodes, inits
        self.input_name, self.input_shape, self.outputs = input_name, list(input_shape), outputs


def from_onnx(path):
    m = onnx.load(path)
    g = m.graph
    inits = {i.name: numpy_helper.to_array(i).copy() for i in g.initializer}
    nodes = []
    for n in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Constant":
            inits[n.output[0]] = numpy_helper.to_array(attrs["value"]).copy()
            continue
        nodes.append(Node(n.op_type, n.input, n.output, attrs))
    inp = [v for v in g.input if v.name not in inits][0]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    return FGraph(nodes, inits, inp.name, shape, [o.name for o in g.output])


def pads_of(n, nd=2):
    p = list(n.attrs.get("pads", [0] * (2 * nd)))
    if n.attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ValueError("auto_pad is not supported")
    return p


def conv(x, w, b, n):
    s = list(n.attrs.get("strides", [1, 1]))
    p = pads_of(n)
    groups = n.attrs.get("group", 1)
    if list(n.attrs.get("dilations", [1, 1])) != [1, 1]:
        raise ValueError("dilated conv is not supported")
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    nb, c, h, wd = xp.shape
    oc, icg, kh, kw = w.shape
    oh, ow = (h - kh) // s[0] + 1, (wd - kw) // s[1] + 1
    if groups == c and icg == 1 and oc == c:          # depthwise: a sum of shifted slices
        y = np.zeros((nb, oc, oh, ow), np.float32)
        for i in range(kh):
            for j in range(kw):
                y += xp[:, :, i:i + s[0] * oh:s[0], j:j + s[1] * ow:s[1]] * \
                    w[:, 0, i, j][None, :, None, None]
    else:
        if groups != 1:
            raise ValueError("grouped conv other than depthwise is not supported")
        st = xp.strides
        cols = np.lib.stride_tricks.as_strided(
            xp, (nb, c, kh, kw, oh, ow), (st[0], st[1], st[2], st[3], st[2] * s[0], st[3] * s[1]))
        cols = cols.reshape(nb, c * kh * kw, oh * ow)
        y = np.einsum("ok,nkp->nop", w.reshape(oc, -1), cols, optimize=True).reshape(nb, oc, oh, ow)
    if b is not None:
        y = y + b[None, :, None, None]
    return y.astype(np.float32)


def maxpool(x, n):
    k = list(n.attrs["kernel_shape"])
    s = list(n.attrs.get("strides", [1, 1]))
    p = pads_of(n)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])), constant_values=-np.inf)
    oh, ow = (xp.shape[2] - k[0]) // s[0] + 1, (xp.shape[3] - k[1]) // s[1] + 1
    y = None
    for i in range(k[0]):
        for j in range(k[1]):
            v = xp[:, :, i:i + s[0] * oh:s[0], j:j + s[1] * ow:s[1]]
            y = v if y is None else np.maximum(y, v)
    return y


def run_node(n, v):
    a = [v[i] if i else None for i in n.inputs]
    op = n.op
    if op == "Conv":
        return [conv(a[0], a[1], a[2] if len(a) > 2 else None, n)]
    if op == "Relu":
        return [np.maximum(a[0], 0)]
    if op == "Add":
        return [a[0] + a[1]]
    if op == "MaxPool":
        return [maxpool(a[0], n)]
    if op == "GlobalAveragePool":
        return [a[0].mean(axis=(2, 3), keepdims=True)]
    if op == "Flatten":
        ax = n.attrs.get("axis", 1)
        return [a[0].reshape(int(np.prod(a[0].shape[:ax])), -1)]
    if op == "Gemm":
        x, w = a[0], a[1]
        if n.attrs.get("transA", 0):
            x = x.T
        if n.attrs.get("transB", 0):
            w = w.T
        y = n.attrs.get("alpha", 1.0) * (x @ w)
        if len(a) > 2 and a[2] is not None:
            y = y + n.attrs.get("beta", 1.0) * a[2]
        return [y.astype(np.float32)]
    if op == "MatMul":
        return [a[0] @ a[1]]
    if op == "BatchNormalization":
        x, sc, bi, mean, var = a[:5]
        eps = n.attrs.get("epsilon", 1e-5)
        r = (1, -1, 1, 1)
        return [((x - mean.reshape(r)) / np.sqrt(var.reshape(r) + eps) * sc.reshape(r)
                 + bi.reshape(r)).astype(np.float32)]
    if op == "Softmax":
        e = np.exp(a[0] - a[0].max(axis=n.attrs.get("axis", -1), keepdims=True))
        return [e / e.sum(axis=n.attrs.get("axis", -1), keepdims=True)]
    if op == "Transpose":
        return [np.transpose(a[0], n.attrs.get("perm"))]
    if op == "Reshape":
        shape = [int(d) for d in a[1]]
        shape = [a[0].shape[i] if d == 0 else d for i, d in enumerate(shape)]
        return [a[0].reshape(shape)]
    if op == "Concat":
        return [np.concatenate([x for x in a if x is not None], axis=n.attrs["axis"])]
    if op == "ConstantOfShape":
        val = n.attrs.get("value")
        val = numpy_helper.to_array(val) if val is not None else np.zeros(1, np.float32)
        return [np.full([int(d) for d in a[0]], val.reshape(-1)[0], val.dtype)]
    if op == "Identity":
        return [a[0]]
    raise ValueError("make_qdq_models: no numpy forward for %s" % op)


def fold_constants(g):
    """Evaluates nodes whose inputs are all initializers into initializers."""
    keep = []
    for n in g.nodes:
        if all((not i) or i in g.inits for i in n.inputs):
            for name, val in zip(n.outputs, run_node(n, g.inits)):
                g.inits[name] = val
        else:
            keep.append(n)
    g.nodes = keep


def consumers(g):
    c = {}
    for n in g.nodes:
        for i in n.inputs:
            c.setdefault(i, []).append(n)
    return c


def fold_batchnorm(g):
    """Conv -> BatchNormalization (the conv's only consumer) becomes one Conv."""
    cons = consumers(g)
    producer = {o: n for n in g.nodes for o in n.outputs}
    drop = set()
    for n in g.nodes:
        if n.op != "BatchNormalization":
            continue
        p = producer.get(n.inputs[0])
        if p is None or p.op != "Conv" or len(cons[n.inputs[0]]) != 1:
            raise ValueError("BatchNormalization that does not follow a Conv")
        sc, bi, mean, var = (g.inits[i] for i in n.inputs[1:5])
        f = sc / np.sqrt(var + n.attrs.get("epsilon", 1e-5))
        w = g.inits[p.inputs[1]] * f[:, None, None, None]
        b = g.inits[p.inputs[2]] if len(p.inputs) > 2 and p.inputs[2] else np.zeros_like(f)
        wn, bn = p.outputs[0] + "_bnw", p.outputs[0] + "_bnb"
        g.inits[wn], g.inits[bn] = w.astype(np.float32), ((b - mean) * f + bi).astype(np.float32)
        p.inputs = [p.inputs[0], wn, bn]
        p.outputs = [n.outputs[0]]
        drop.add(id(n))
    g.nodes = [n for n in g.nodes if id(n) not in drop]


def calibrate(g, batch):
    """min and max of every tensor over the samples of `batch` (each run alone, batch 1)."""
    rng = {}
    g.shapes = {}
    for x in batch:
        v = dict(g.inits)
        v[g.input_name] = x.reshape(g.input_shape).astype(np.float32)
        for n in g.nodes:
            for name, val in zip(n.outputs, run_node(n, v)):
                v[name] = val
        for name, val in v.items():
            if name in g.inits or not np.issubdtype(val.dtype, np.floating):
                continue
            g.shapes[name] = list(val.shape)
            lo, hi = float(val.min()), float(val.max())
            if name in rng:
                lo, hi = min(lo, rng[name][0]), max(hi, rng[name][1])
            rng[name] = (lo, hi)
    return rng


# ---- the QDQ rewrite ----

PASS_THROUGH = {"Transpose", "Reshape", "Flatten", "MaxPool", "Relu", "Identity"}
WEIGHTED = {"Conv", "Gemm", "MatMul"}


ACT = {"dtype": np.uint8, "lo": 0, "hi": 255}     # --activations int8: np.int8, -128, 127


def uint8_params(lo, hi):
    """Asymmetric activation params (scale, zero point) of ACT's type covering [lo, hi] and 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    zp = int(np.clip(round(ACT["lo"] - lo / scale), ACT["lo"], ACT["hi"]))
    return np.float32(scale), zp


def to_qdq(g, ranges, name):
    cons = consumers(g)
    producer = {o: n for n in g.nodes for o in n.outputs}
    # Relu folded into its producer's output range (uint8 zero point 0).
    drop = set()
    for n in g.nodes:
        if n.op != "Relu":
            continue
        p = producer.get(n.inputs[0])
        if p is not None and p.op in ("Conv", "Gemm", "Add") and len(cons[n.inputs[0]]) == 1 \
                and n.inputs[0] not in g.outputs:
            p.outputs = [n.outputs[0]]
            drop.add(id(n))
    g.nodes = [n for n in g.nodes if id(n) not in drop]

    params = {g.input_name: uint8_params(*ranges[g.input_name])}
    for n in g.nodes:
        for o in n.outputs:
            if n.op in PASS_THROUGH and n.inputs[0] in params:
                params[o] = params[n.inputs[0]]
            elif o in ranges:
                params[o] = uint8_params(*ranges[o])

    nodes, inits = [], []
    consts = {}

    def const(arr, cname):
        if cname not in consts:
            inits.append(numpy_helper.from_array(arr, cname))
            consts[cname] = True
        return cname

    def qdq(t):
        """Q and DQ after float tensor t; returns the DQ output's name."""
        s, zp = params[t]
        sn = const(np.array(s, np.float32), t + "_scale")
        zn = const(np.array(zp, ACT["dtype"]), t + "_zp")
        nodes.append(helper.make_node("QuantizeLinear", [t, sn, zn], [t + "_q"], name=t + "_Q"))
        nodes.append(helper.make_node("DequantizeLinear", [t + "_q", sn, zn], [t + "_dq"],
                                      name=t + "_DQ"))
        return t + "_dq"

    dq = {g.input_name: qdq(g.input_name)}

    def act(t):
        if t in dq:
            return dq[t]
        if t in g.inits:              # a constant activation operand (Concat zeros): quantized
            s, zp = params[t] if t in params else uint8_params(float(g.inits[t].min()),
                                                               float(g.inits[t].max()))
            q = np.clip(np.round(g.inits[t] / s) + zp, ACT["lo"], ACT["hi"]).astype(ACT["dtype"])
            qn = const(q, t + "_q")
            sn = const(np.array(s, np.float32), t + "_scale")
            zn = const(np.array(zp, ACT["dtype"]), t + "_zp")
            nodes.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [t + "_dq"],
                                          name=t + "_DQ"))
            dq[t] = t + "_dq"
            return dq[t]
        raise ValueError("unquantized activation %s" % t)

    for i, n in enumerate(g.nodes):
        ins = list(n.inputs)
        if n.op in WEIGHTED:
            x = act(ins[0])
            w = g.inits[ins[1]]
            ws = np.float32(np.abs(w).max() / 127.0 or 1.0)
            wq = np.clip(np.round(w / ws), -127, 127).astype(np.int8)
            wn = const(wq, ins[1] + "_q")
            wsn = const(np.array(ws, np.float32), ins[1] + "_scale")
            wzn = const(np.array(0, np.int8), ins[1] + "_zp")
            nodes.append(helper.make_node("DequantizeLinear", [wn, wsn, wzn], [ins[1] + "_dq"],
                                          name=ins[1] + "_DQ"))
            new = [x, ins[1] + "_dq"]
            if len(ins) > 2 and ins[2]:
                bs = np.float32(params[ins[0]][0] * ws)
                bq = np.round(g.inits[ins[2]] / bs).astype(np.int32)
                bn = const(bq, ins[2] + "_q")
                bsn = const(np.array(bs, np.float32), ins[2] + "_scale")
                bzn = const(np.array(0, np.int32), ins[2] + "_zp")
                nodes.append(helper.make_node("DequantizeLinear", [bn, bsn, bzn],
                                              [ins[2] + "_dq"], name=ins[2] + "_DQ"))
                new.append(ins[2] + "_dq")
        elif n.op in ("Reshape",):
            new = [act(ins[0]), const(g.inits[ins[1]].astype(np.int64), ins[1])]
        elif n.op == "Softmax":
            new = [act(ins[0])]
        else:
            new = [act(t) for t in ins if t]
        nodes.append(helper.make_node(n.op, new, n.outputs, name="%s_%d" % (n.op, i), **n.attrs))
        for o in n.outputs:
            if n.op != "Softmax" and o in params:
                dq[o] = qdq(o)

    outputs = []
    for o in g.outputs:
        oname = dq.get(o, o)
        outputs.append(helper.make_tensor_value_info(oname, TensorProto.FLOAT, g.shapes[o]))
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(g.input_name, TensorProto.FLOAT,
                                                    g.input_shape)], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cvmrt bench/ort/make_qdq_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


# ---- the synthetic ResNet-18 / MobileNet-v1 of gen_models.py --bench, in float ----

class Builder:
    def __init__(self, seed, shape):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], {}, 0
        self.shapes = {"data": shape}

    def name(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def conv(self, x, out_c, k, stride, pad, relu, groups=1):
        c = self.shapes[x][1]
        fan_in = c // groups * k * k
        w = (self.rng.standard_normal((out_c, c // groups, k, k)) *
             np.sqrt(2.0 / fan_in)).astype(np.float32)
        b = (self.rng.standard_normal(out_c) * 0.1).astype(np.float32)
        nm = self.name("conv")
        self.inits[nm + "_w"], self.inits[nm + "_b"] = w, b
        attrs = dict(kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4)
        if groups != 1:
            attrs["group"] = groups
        self.nodes.append(Node("Conv", [x, nm + "_w", nm + "_b"], [nm], attrs))
        h, wd = self.shapes[x][2:]
        self.shapes[nm] = [1, out_c, (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1]
        return self.relu(nm) if relu else nm

    def relu(self, x):
        nm = self.name("relu")
        self.nodes.append(Node("Relu", [x], [nm]))
        self.shapes[nm] = self.shapes[x]
        return nm

    def add_relu(self, a, b):
        nm = self.name("add")
        self.nodes.append(Node("Add", [a, b], [nm]))
        self.shapes[nm] = self.shapes[a]
        return self.relu(nm)

    def max_pool(self, x, k, stride, pad):
        nm = self.name("maxpool")
        self.nodes.append(Node("MaxPool", [x], [nm], dict(kernel_shape=[k, k],
                                                          strides=[stride] * 2, pads=[pad] * 4)))
        _, c, h, w = self.shapes[x]
        self.shapes[nm] = [1, c, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1]
        return nm

    def head(self, x, units):
        c = self.shapes[x][1]
        gp, fl, fc = self.name("gap"), self.name("flatten"), "logits"
        self.nodes.append(Node("GlobalAveragePool", [x], [gp]))
        self.nodes.append(Node("Flatten", [gp], [fl], dict(axis=1)))
        self.inits["fc_w"] = (self.rng.standard_normal((units, c)) *
                              np.sqrt(1.0 / c)).astype(np.float32)
        self.inits["fc_b"] = (self.rng.standard_normal(units) * 0.1).astype(np.float32)
        self.nodes.append(Node("Gemm", [fl, "fc_w", "fc_b"], [fc], dict(transB=1)))
        return FGraph(self.nodes, self.inits, "data", self.shapes["data"], [fc])


def resnet18():
    b = Builder(8, [1, 3, 224, 224])
    x = b.conv("data", 64, 7, 2, 3, True)
    x = b.max_pool(x, 3, 2, 1)
    for c, first_stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            stride = first_stride if block == 0 else 1
            y = b.conv(x, c, 3, stride, 1, True)
            y = b.conv(y, c, 3, 1, 1, False)
            if stride != 1 or b.shapes[x][1] != c:
                x = b.conv(x, c, 1, stride, 0, False)
            x = b.add_relu(y, x)
    return b.head(x, 1000)


MOBILENET_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
    [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


def mobilenet_v1():
    b = Builder(9, [1, 3, 224, 224])
    x = b.conv("data", 32, 3, 2, 1, True)
    for c, stride in MOBILENET_BLOCKS:
        in_c = b.shapes[x][1]
        x = b.conv(x, in_c, 3, stride, 1, True, groups=in_c)
        x = b.conv(x, c, 1, 1, 0, True)
    return b.head(x, 1000)


# ---- main ----

def write(out, name, g, batch, index, seed):
    ranges = calibrate(g, batch)
    model = to_qdq(g, ranges, name)
    path = os.path.join(out, name + ".qdq.onnx")
    onnx.save(model, path)
    x = np.random.default_rng(seed).uniform(-1, 1, g.input_shape).astype(np.float32)
    if name == "fashion":
        x = (x + 1) / 2
    if batch is not None and len(batch) and name in ("fashion", "blazeface"):
        x = batch[0].reshape(g.input_shape).astype(np.float32)
    npy = os.path.join(out, name + ".input.npy")
    np.save(npy, x)
    counts = {}
    for n in model.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    index.write(json.dumps({"name": name, "model": path, "input": g.input_name,
                            "shape": g.input_shape, "npy": npy}) + "\n")
    print("  %-13s %s: %d nodes (%s)" % (name, path, len(model.graph.node),
                                         ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--fashion")
    ap.add_argument("--fashion-calib")
    ap.add_argument("--blazeface")
    ap.add_argument("--blazeface-calib")
    ap.add_argument("--no-synthetic", action="store_true")
    ap.add_argument("--activations", choices=("uint8", "int8"), default="uint8",
                    help="activation type (default uint8: what ORT prefers on x86)")
    args = ap.parse_args()
    if args.activations == "int8":
        ACT.update(dtype=np.int8, lo=-128, hi=127)
    out = args.out_dir
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "index.jsonl"), "w") as index:
        if args.fashion:
            g = from_onnx(args.fashion)
            fold_constants(g)
            fold_batchnorm(g)
            batch = (np.load(args.fashion_calib)[:32] if args.fashion_calib else
                     np.random.default_rng(1).uniform(0, 1, [8] + g.input_shape))
            write(out, "fashion", g, batch, index, 1)
        if args.blazeface:
            g = from_onnx(args.blazeface)
            fold_constants(g)
            batch = (np.load(args.blazeface_calib)[:8] if args.blazeface_calib else
                     np.random.default_rng(2).uniform(-1, 1, [4] + g.input_shape))
            write(out, "blazeface", g, batch, index, 2)
        if not args.no_synthetic:
            for name, make, seed in (("resnet18", resnet18, 8), ("mobilenet_v1", mobilenet_v1, 9)):
                g = make()
                batch = np.random.default_rng(100 + seed).uniform(-1, 1, [1] + g.input_shape)
                write(out, name, g, batch, index, 100 + seed)


if __name__ == "__main__":
    sys.exit(main())
