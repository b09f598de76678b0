#!/usr/bin/env python3
"""Writes the example CVM models of examples/models/ (graph JSON + legacy binary params + an
input .npy per model). Standard library only; deterministic: rerunning rewrites identical bytes.

    python3 examples/gen_models.py [OUT_DIR]      (default: examples/models next to this file)
    python3 examples/gen_models.py --bench OUT_DIR

--bench writes the ImageNet-sized benchmark models instead (ResNet-18 and MobileNet-v1 shaped,
224x224 int8, random weights; ~16 M weights in all, so never into examples/models), each with
its cost and multiply-accumulate count in OUT_DIR/expected.json.

Formats: spec/cvm-ops.md section 2 (legacy params), section 3 (graph JSON); .npy format 1.0.
"""
import argparse
import json
import math
import os
import struct

PARAM_LIST_MAGIC = 0xF7E58D4F05049CB7
TENSOR_MAGIC = 0xDD5E40F096B4A13F


class Rng:
    """splitmix64: the same numbers on every Python version and platform."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def ints(self, n, lo, hi):
        """n integers uniform in [lo, hi] (modulo bias is irrelevant here)."""
        span = hi - lo + 1
        return [lo + self.next() % span for _ in range(n)]

    def int8_bytes(self, n):
        """n int8 values in [-127, 127] as raw bytes: 8 per number (fast enough for millions)."""
        words = (n + 7) // 8
        nxt = self.next
        data = struct.pack("<%dQ" % words, *[nxt() for _ in range(words)])
        return data[:n].translate(_INT8_OF_BYTE)


# byte b -> the int8 value b % 255 - 127 (as a byte): uniform enough, never -128.
_INT8_OF_BYTE = bytes((b % 255 - 127) & 0xFF for b in range(256))


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def alpha(p):
    return (1 << (p - 1)) - 1


class Graph:
    """Builds a CVM graph JSON; variables (other than data) carry their param values."""

    def __init__(self):
        self.nodes = []         # JSON node dicts
        self.op_attrs = []      # per node
        self.num_outputs = []   # per node
        self.shapes = []        # per entry
        self.precisions = []    # per entry (-1 for op outputs: recomputed at load)
        self.params = []        # (name, shape, precision, values)
        self.ops = []           # (func, input shapes, attrs, output shapes), for the cost

    def var(self, name, shape, precision, values=None):
        nid = len(self.nodes)
        self.nodes.append({"op": "null", "name": name, "inputs": []})
        self.op_attrs.append("{}")
        self.num_outputs.append(1)
        self.shapes.append(list(shape))
        self.precisions.append(precision)
        if name != "data":
            assert len(values) == numel(shape), name
            if isinstance(values, bytes):  # raw int8 from Rng.int8_bytes: in range by design
                assert precision == 8, name
            else:
                assert all(-alpha(precision) <= v <= alpha(precision) for v in values), name
            self.params.append((name, list(shape), precision, values))
        return (nid, 0)

    def op(self, name, func, inputs, attrs, out_shapes):
        """inputs: (node, index) pairs; out_shapes: one shape per output. Returns the outputs."""
        nid = len(self.nodes)
        self.nodes.append({
            "op": "cvm_op",
            "name": name,
            "attrs": {"func_name": func, "num_inputs": str(len(inputs)),
                      "num_outputs": str(len(out_shapes)), "flatten_data": "0"},
            "inputs": [[n, i, 0] for n, i in inputs],
        })
        self.op_attrs.append(json.dumps({k: str(v) for k, v in attrs.items()}))
        self.ops.append((func, [self.shapes[self.entry(n, i)] for n, i in inputs], attrs,
                         out_shapes))
        self.num_outputs.append(len(out_shapes))
        for s in out_shapes:
            self.shapes.append(list(s))
            self.precisions.append(-1)
        outs = [(nid, k) for k in range(len(out_shapes))]
        return outs[0] if len(outs) == 1 else outs

    def entry(self, node, index):
        return sum(self.num_outputs[:node]) + index

    def shape(self, x):
        return self.shapes[self.entry(*x)]

    def macs(self):
        """Multiply-accumulates of the conv2d and dense ops (what a GOPS figure counts twice)."""
        total = 0
        for func, ins, _, outs in self.ops:
            if func in ("conv2d", "dense"):
                total += numel(outs[0]) * numel(ins[1][1:])
        return total

    def cost(self):
        """Spec section 6, computed here independently of cvmrt: ops, mem, total."""
        mem = 5 * sum(numel(s) for s in self.shapes)
        ops = 0
        for func, ins, attrs, outs in self.ops:
            if func == "conv2d":
                groups = int(attrs.get("groups", 1))
                base = ins[1][1] * ins[1][2] * ins[1][3] * 3 + (1 if len(ins) == 3 else 0)
                assert ins[1][1] == ins[0][1] // groups
            elif func == "dense":
                base = ins[1][1] * 3 + (1 if len(ins) == 3 else 0)
            elif func == "max_pool2d":
                base = numel(int(v) for v in attrs["pool_size"].strip("()").split(","))
            elif func == "sum":
                base = numel(ins[0]) // numel(outs[0])
            elif func == "non_max_suppression":
                base = ins[0][0] * 20
            else:
                base = 1
            ops += base * numel(outs[0])
        return {"ops": ops, "mem": mem, "total": ops + mem}

    def to_json(self, heads, postprocess=""):
        row_ptr = [0]
        for n in self.num_outputs:
            row_ptr.append(row_ptr[-1] + n)
        entries = row_ptr[-1]
        graph = {
            "nodes": self.nodes,
            "arg_nodes": [i for i, n in enumerate(self.nodes) if n["op"] == "null"],
            "node_row_ptr": row_ptr,
            "heads": [[n, i, 0] for n, i in heads],
            "attrs": {
                "shape": ["list_shape", self.shapes],
                "precision": ["list_int", self.precisions],
                # One storage id per entry: always valid (no sharing, so no in-place question).
                "storage_id": ["list_int", list(range(entries))],
                "dltype": ["list_str", ["int32"] * entries],
                "op_attrs": ["list_str", self.op_attrs],
            },
            "version": "cvm_1.0.0",
        }
        if postprocess:
            graph["postprocess"] = postprocess
        return json.dumps(graph, indent=1) + "\n"

    def params_bytes(self):
        """Legacy CVM params: int8 for precision <= 8, else int32."""
        out = [struct.pack("<QQQ", PARAM_LIST_MAGIC, 0, len(self.params))]
        for name, _, _, _ in self.params:
            b = name.encode()
            out.append(struct.pack("<Q", len(b)) + b)
        out.append(struct.pack("<Q", len(self.params)))
        for _, shape, precision, values in self.params:
            bits = 8 if precision <= 8 else 32
            out.append(struct.pack("<QQiii", TENSOR_MAGIC, 0, 1, 0, len(shape)))
            out.append(struct.pack("<BBH", 0, bits, 1))
            out.append(struct.pack("<%dq" % len(shape), *shape))
            if isinstance(values, bytes):
                data = values
            else:
                data = struct.pack("<%d%s" % (len(values), "b" if bits == 8 else "i"), *values)
            out.append(struct.pack("<q", len(data)) + data)
        return b"".join(out)


def npy_bytes(shape, values, int8):
    """A .npy file (format 1.0, C order, little-endian int8 or int32)."""
    descr = "|i1" if int8 else "<i4"
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    if isinstance(values, bytes):
        assert int8
        data = values
    else:
        data = struct.pack("<%d%s" % (len(values), "b" if int8 else "i"), *values)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


# ---- the models ----

def elementwise(rng):
    g = Graph()
    data = g.var("data", [1, 16], 8)
    w = g.var("w", [1, 16], 8, rng.ints(16, -127, 127))
    add = g.op("add_0", "elemwise_add", [data, w], {}, [[1, 16]])                     # p9
    ls = g.op("lshift_0", "cvm_left_shift", [add], {"precision": 16, "shift_bit": 2},
              [[1, 16]])                                                               # p16
    rs = g.op("rshift_0", "cvm_right_shift", [ls], {"precision": 8, "shift_bit": 3},
              [[1, 16]])                                                               # p8
    ng = g.op("negative_0", "negative", [rs], {}, [[1, 16]])
    ab = g.op("abs_0", "abs", [ng], {}, [[1, 16]])
    rl = g.op("relu_0", "relu", [rs], {}, [[1, 16]])
    sb = g.op("sub_0", "elemwise_sub", [ab, rl], {}, [[1, 16]])                       # p9
    cl = g.op("clip_0", "clip", [sb], {"a_min": -100, "a_max": 100}, [[1, 16]])       # p8
    cc = g.op("cvm_clip_0", "cvm_clip", [cl], {"precision": 6}, [[1, 16]])            # p6
    pr = g.op("precision_0", "cvm_precision", [add], {}, [[1, 16]])                   # p6
    out = g.op("add_1", "elemwise_add", [cc, pr], {}, [[1, 16]])                      # p7
    return g, [out], "", [1, 16], 8


def broadcast(rng):
    g = Graph()
    data = g.var("data", [2, 3, 4], 8)
    w1 = g.var("w1", [1, 3, 1], 8, rng.ints(3, -127, 127))
    w2 = g.var("w2", [4], 8, rng.ints(4, -127, 127))
    w3 = g.var("w3", [3, 1], 8, [7, 0, -3])  # a zero divisor: x / 0 = 0
    s = [2, 3, 4]
    ba = g.op("badd_0", "broadcast_add", [data, w1], {}, [s])      # p9
    bm = g.op("bmul_0", "broadcast_mul", [ba, w2], {}, [s])        # p17
    bs = g.op("bsub_0", "broadcast_sub", [bm, w1], {}, [s])        # p18
    bx = g.op("bmax_0", "broadcast_max", [bs, w2], {}, [s])        # p18
    bd = g.op("bdiv_0", "broadcast_div", [bx, w3], {}, [s])        # p18
    bg = g.op("bgreater_0", "broadcast_greater", [bd, w2], {}, [s])  # p18 (0 or 1)
    sm = g.op("add_0", "elemwise_add", [bd, bg], {}, [s])          # p19
    out = g.op("rshift_0", "cvm_right_shift", [sm], {"precision": 8, "shift_bit": 6}, [s])
    return g, [out], "", s, 8


def reduce(rng):
    g = Graph()
    data = g.var("data", [2, 3, 4], 8)
    sm = g.op("sum_0", "sum", [data], {"axis": "[2]"}, [[2, 3]])                  # p8+NB(4)=11
    mx = g.op("max_0", "max", [data], {"axis": "[2]"}, [[2, 3]])                  # p8
    # axis () reduces everything; quirk: the accumulator starts at 0 -> max(0, max X)
    al = g.op("max_1", "max", [data], {}, [[1]])
    ad = g.op("badd_0", "broadcast_add", [sm, al], {}, [[2, 3]])                  # p12
    # exclude: reduce every axis but 0, keeping the dims
    ex = g.op("sum_1", "sum", [data], {"axis": "[0]", "exclude": "True", "keepdims": "True"},
              [[2, 1, 1]])                                                         # p8+NB(12)=12
    rs = g.op("reshape_0", "reshape", [ex], {"shape": "(2, 1)"}, [[2, 1]])
    out = g.op("badd_1", "broadcast_add", [ad, rs], {}, [[2, 3]])                 # p13
    # two heads with 2 rows each: the CVMAPI output interleaves them row by row
    return g, [out, mx], "", [2, 3, 4], 8


def nn(rng):
    g = Graph()
    data = g.var("data", [1, 2, 8, 8], 8)
    w1 = g.var("conv1_weight", [4, 2, 3, 3], 8, rng.ints(72, -127, 127))
    b1 = g.var("conv1_bias", [4], 8, rng.ints(4, -127, 127))
    w2 = g.var("conv2_weight", [4, 2, 3, 3], 8, rng.ints(72, -127, 127))
    w3 = g.var("dense_weight", [10, 256], 8, rng.ints(2560, -127, 127))
    c1 = g.op("conv2d_0", "conv2d", [data, w1, b1],
              {"channels": 4, "kernel_size": "(3, 3)", "padding": "(1, 1)"}, [[1, 4, 8, 8]])
    r1 = g.op("rshift_0", "cvm_right_shift", [c1], {"precision": 8, "shift_bit": 8},
              [[1, 4, 8, 8]])
    mp = g.op("max_pool2d_0", "max_pool2d", [r1], {"pool_size": "(2, 2)", "strides": "(2, 2)"},
              [[1, 4, 4, 4]])
    up = g.op("upsampling_0", "upsampling", [mp], {"scale": 2}, [[1, 4, 8, 8]])
    c2 = g.op("conv2d_1", "conv2d", [up, w2],
              {"channels": 4, "kernel_size": "(3, 3)", "padding": "(1, 1)", "groups": 2,
               "use_bias": "False"}, [[1, 4, 8, 8]])
    r2 = g.op("rshift_1", "cvm_right_shift", [c2], {"precision": 8, "shift_bit": 8},
              [[1, 4, 8, 8]])
    fl = g.op("flatten_0", "flatten", [r2], {}, [[1, 256]])
    de = g.op("dense_0", "dense", [fl, w3], {"units": 10, "use_bias": "False"}, [[1, 10]])
    out = g.op("rshift_2", "cvm_right_shift", [de], {"precision": 8, "shift_bit": 12}, [[1, 10]])
    return g, [out], "", [1, 2, 8, 8], 8


def vision(rng):
    del rng
    g = Graph()
    data = g.var("data", [1, 8, 6], 8)
    counts, boxes = g.op("get_valid_counts_0", "get_valid_counts", [data],
                         {"score_threshold": 10}, [[1], [1, 8, 6]])
    nms = g.op("non_max_suppression_0", "non_max_suppression", [boxes, counts],
               {"iou_threshold": 50, "force_suppress": "False", "top_k": -1,
                "max_output_size": -1, "return_indices": "False", "invalid_to_bottom": "True"},
               [[1, 8, 6]])
    ids = g.op("slice_id", "strided_slice", [nms], {"begin": "(0, 0, 0)", "end": "(1, 8, 1)"},
               [[1, 8, 1]])
    scores = g.op("slice_score", "strided_slice", [nms],
                  {"begin": "(0, 0, 1)", "end": "(1, 8, 2)"}, [[1, 8, 1]])
    coords = g.op("slice_box", "strided_slice", [nms], {"begin": "(0, 0, 2)", "end": "(1, 8, 6)"},
                  [[1, 8, 4]])
    return g, [ids, scores, coords], "detection", [1, 8, 6], 8


# rows [class id, score, x1, y1, x2, y2] for the vision model: overlapping boxes of one class,
# a box of another class at the same place, low scores below the threshold and an invalid id.
VISION_INPUT = [
    0, 90, 10, 10, 50, 50,
    0, 80, 12, 12, 52, 52,    # IoU with the first >= 50%: suppressed
    1, 75, 10, 10, 50, 50,    # other class: kept
    0, 70, 60, 60, 90, 90,    # no overlap: kept
    0, 5, 0, 0, 10, 10,       # score 5 <= threshold 10: invalid
    -1, 95, 0, 0, 20, 20,     # id -1: skipped by nms
    1, 60, 14, 14, 54, 54,    # overlaps the class-1 box: suppressed
    2, 40, 100, 100, 120, 120,
]


def transform(rng):
    g = Graph()
    data = g.var("data", [2, 3, 4], 8)
    idx = g.var("indices", [3], 8, [0, 5, 2])
    table = g.var("table", [16], 8, rng.ints(16, -127, 127))
    r = g.op("reshape_0", "reshape", [data], {"shape": "(4, 6)"}, [[4, 6]])
    t = g.op("transpose_0", "transpose", [r], {"axes": "(1, 0)"}, [[6, 4]])
    e = g.op("expand_dims_0", "expand_dims", [t], {"axis": 0}, [[1, 6, 4]])
    s = g.op("squeeze_0", "squeeze", [e], {"axis": "[0]"}, [[6, 4]])
    ss = g.op("strided_slice_0", "strided_slice", [s],
              {"begin": "(1, 0)", "end": "(5, 4)", "stride": "(2, 1)"}, [[2, 4]])
    tk = g.op("take_0", "take", [s, idx], {"axis": 0}, [[3, 4]])
    cc = g.op("concatenate_0", "concatenate", [ss, tk], {"axis": 0}, [[5, 4]])
    rp = g.op("repeat_0", "repeat", [cc], {"repeats": 2, "axis": 1}, [[5, 8]])
    tl = g.op("tile_0", "tile", [cc], {"reps": "(1, 2)"}, [[5, 8]])
    wh = g.op("where_0", "where", [rp, tl, rp], {}, [[5, 8]])
    lu = g.op("cvm_lut_0", "cvm_lut", [wh, table], {"in_dim": 16}, [[5, 8]])
    sl = g.op("slice_like_0", "slice_like", [lu, ss], {}, [[2, 4]])
    out = g.op("flatten_0", "flatten", [sl], {}, [[2, 4]])
    return g, [out], "", [2, 3, 4], 8


def lenet(rng):
    """LeNet-5 shaped int8 CNN: conv -> cvm_right_shift -> cvm_clip -> relu -> max_pool, twice,
    then three dense layers; argmax postprocess. Random weights: the class is not meaningful."""
    g = Graph()
    data = g.var("data", [1, 1, 28, 28], 8)

    def conv_block(x, name, in_c, out_c, size, pad, shift):
        w = g.var(name + "_weight", [out_c, in_c, 5, 5], 8, rng.ints(out_c * in_c * 25, -127, 127))
        b = g.var(name + "_bias", [out_c], 16, rng.ints(out_c, -2000, 2000))
        out = size + 2 * pad - 4
        sh = [1, out_c, out, out]
        c = g.op(name, "conv2d", [x, w, b],
                 {"channels": out_c, "kernel_size": "(5, 5)", "padding": "(%d, %d)" % (pad, pad)},
                 [sh])
        r = g.op(name + "_shift", "cvm_right_shift", [c], {"precision": 8, "shift_bit": shift},
                 [sh])
        k = g.op(name + "_clip", "cvm_clip", [r], {"precision": 8}, [sh])
        a = g.op(name + "_relu", "relu", [k], {}, [sh])
        half = [1, out_c, out // 2, out // 2]
        return g.op(name + "_pool", "max_pool2d", [a], {"pool_size": "(2, 2)", "strides": "(2, 2)"},
                    [half])

    def dense(x, name, k, units, shift, relu):
        w = g.var(name + "_weight", [units, k], 8, rng.ints(units * k, -127, 127))
        b = g.var(name + "_bias", [units], 16, rng.ints(units, -2000, 2000))
        d = g.op(name, "dense", [x, w, b], {"units": units}, [[1, units]])
        r = g.op(name + "_shift", "cvm_right_shift", [d], {"precision": 8, "shift_bit": shift},
                 [[1, units]])
        if not relu:
            return r
        k8 = g.op(name + "_clip", "cvm_clip", [r], {"precision": 8}, [[1, units]])
        return g.op(name + "_relu", "relu", [k8], {}, [[1, units]])

    x = conv_block(data, "conv1", 1, 6, 28, 2, 11)     # (1, 6, 14, 14)
    x = conv_block(x, "conv2", 6, 16, 14, 0, 9)      # (1, 16, 5, 5)
    x = g.op("flatten", "flatten", [x], {}, [[1, 400]])
    x = dense(x, "fc1", 400, 120, 10, True)
    x = dense(x, "fc2", 120, 84, 10, True)
    out = dense(x, "fc3", 84, 10, 9, False)
    return g, [out], "argmax", [1, 1, 28, 28], 8


def lenet_input():
    """A hand-drawn 7 on a 28x28 canvas, values 0..120."""
    img = [[0] * 28 for _ in range(28)]
    for r in range(5, 8):
        for c in range(6, 23):
            img[r][c] = 120
    for r in range(8, 25):
        c = 22 - (r - 8) * 12 // 16
        for dc in (-1, 0, 1):
            img[r][c + dc] = 120 if dc == 0 else 60
    return [v for row in img for v in row]


# ---- an independent reference for LeNet (spec section 5 semantics in plain Python) ----

def _right_shift(x, s, p):
    v = ((x >> (s - 1)) + 1) >> 1
    return max(-alpha(p), min(alpha(p), v))


def _conv5(x, c_in, size, w, b, c_out, pad):
    out_size = size + 2 * pad - 4
    y = []
    for oc in range(c_out):
        for oh in range(out_size):
            for ow in range(out_size):
                acc = 0
                for c in range(c_in):
                    for kh in range(5):
                        ih = oh - pad + kh
                        if 0 <= ih < size:
                            for kw in range(5):
                                iw = ow - pad + kw
                                if 0 <= iw < size:
                                    acc += x[(c * size + ih) * size + iw] * \
                                        w[((oc * c_in + c) * 5 + kh) * 5 + kw]
                y.append(acc + b[oc])
    return y, out_size


def _pool2(x, channels, size):
    o = size // 2
    return [max(x[(c * size + 2 * i + a) * size + 2 * j + d] for a in (0, 1) for d in (0, 1))
            for c in range(channels) for i in range(o) for j in range(o)], o


def lenet_reference(g, image):
    """The LeNet output (1, 10) and its argmax (int8-truncated compare, first maximum wins)."""
    p = {name: values for name, _, _, values in g.params}
    shift = {n["name"]: int(json.loads(a)["shift_bit"])
             for n, a in zip(g.nodes, g.op_attrs) if n["name"].endswith("_shift")}
    x, size, channels = image, 28, 1
    for name, c_out, pad in (("conv1", 6, 2), ("conv2", 16, 0)):
        y, size = _conv5(x, channels, size, p[name + "_weight"], p[name + "_bias"], c_out, pad)
        y = [max(0, _right_shift(v, shift[name + "_shift"], 8)) for v in y]
        x, size = _pool2(y, c_out, size)
        channels = c_out
    for name, relu in (("fc1", True), ("fc2", True), ("fc3", False)):
        w, b = p[name + "_weight"], p[name + "_bias"]
        k = len(x)
        y = [_right_shift(sum(x[i] * w[u * k + i] for i in range(k)) + b[u],
                          shift[name + "_shift"], 8)
             for u in range(len(b))]
        x = [max(0, v) for v in y] if relu else y
    def int8(v):
        return (v + 128) % 256 - 128
    best = 0
    for j in range(1, len(x)):
        if int8(x[j]) > int8(x[best]):
            best = j
    return x, best

# ---- ImageNet-sized benchmark models (--bench) ----

class Cnn:
    """conv2d/dense layers with int16-precision biases, each requantized back to precision 8 by
    cvm_right_shift. Shifts are set from the fan-in so that random activations neither vanish
    nor saturate (std of the int32 sum ~ sqrt(K) * 73 * 34 for uniform +-127 weights and relu'd
    inputs; shifted down to a std of ~48)."""

    def __init__(self, g, rng):
        self.g, self.rng = g, rng

    @staticmethod
    def shift_for(k):
        return max(1, round(math.log2(math.sqrt(k) * 73 * 34 / 48)))

    def _bias(self, name, n):
        return self.g.var(name + "_bias", [n], 16, self.rng.ints(n, -2000, 2000))

    def conv(self, x, name, out_c, k, stride, pad, relu, groups=1):
        g = self.g
        _, c, h, w = g.shape(x)
        fan_in = c // groups * k * k
        wt = g.var(name + "_weight", [out_c, c // groups, k, k], 8,
                   self.rng.int8_bytes(out_c * fan_in))
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        sh = [1, out_c, oh, ow]
        attrs = {"channels": out_c, "kernel_size": "(%d, %d)" % (k, k),
                 "strides": "(%d, %d)" % (stride, stride), "padding": "(%d, %d)" % (pad, pad)}
        if groups != 1:
            attrs["groups"] = groups
        y = g.op(name, "conv2d", [x, wt, self._bias(name, out_c)], attrs, [sh])
        y = g.op(name + "_shift", "cvm_right_shift", [y],
                 {"precision": 8, "shift_bit": self.shift_for(fan_in)}, [sh])
        return g.op(name + "_relu", "relu", [y], {}, [sh]) if relu else y

    def max_pool(self, x, name, k, stride, pad):
        _, c, h, w = self.g.shape(x)
        sh = [1, c, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1]
        return self.g.op(name, "max_pool2d", [x], {"pool_size": "(%d, %d)" % (k, k),
                                                   "strides": "(%d, %d)" % (stride, stride),
                                                   "padding": "(%d, %d)" % (pad, pad)}, [sh])

    def add_relu(self, a, b, name):
        """a + b (precision 9), clipped back to 8, relu."""
        sh = self.g.shape(a)
        y = self.g.op(name + "_add", "elemwise_add", [a, b], {}, [sh])
        y = self.g.op(name + "_clip", "cvm_clip", [y], {"precision": 8}, [sh])
        return self.g.op(name + "_relu", "relu", [y], {}, [sh])

    def global_pool(self, x):
        """Average pooling as CVM has it: sum over H and W, then a right shift by NB(H*W)."""
        _, c, h, w = self.g.shape(x)
        y = self.g.op("pool_sum", "sum", [x], {"axis": "(2, 3)"}, [[1, c]])
        return self.g.op("pool_shift", "cvm_right_shift", [y],
                         {"precision": 8, "shift_bit": (h * w).bit_length()}, [[1, c]])

    def dense(self, x, name, units):
        g = self.g
        k = g.shape(x)[1]
        wt = g.var(name + "_weight", [units, k], 8, self.rng.int8_bytes(units * k))
        y = g.op(name, "dense", [x, wt, self._bias(name, units)], {"units": units}, [[1, units]])
        return g.op(name + "_shift", "cvm_right_shift", [y],
                    {"precision": 8, "shift_bit": self.shift_for(k)}, [[1, units]])


def resnet18(rng):
    """ResNet-18 shaped: 7x7/2 stem + 3x3/2 max pool, 4 stages of 2 basic blocks (a 1x1/2
    projection shortcut where the shape changes), residual adds, global pool, dense 512->1000."""
    g = Graph()
    n = Cnn(g, rng)
    x = g.var("data", [1, 3, 224, 224], 8)
    x = n.conv(x, "conv1", 64, 7, 2, 3, True)            # (1, 64, 112, 112)
    x = n.max_pool(x, "pool1", 3, 2, 1)                  # (1, 64, 56, 56)
    for stage, (c, first_stride) in enumerate(((64, 1), (128, 2), (256, 2), (512, 2)), 1):
        for block in range(2):
            name = "layer%d_%d" % (stage, block)
            stride = first_stride if block == 0 else 1
            y = n.conv(x, name + "_conv1", c, 3, stride, 1, True)
            y = n.conv(y, name + "_conv2", c, 3, 1, 1, False)
            if stride != 1 or g.shape(x)[1] != c:
                x = n.conv(x, name + "_down", c, 1, stride, 0, False)
            x = n.add_relu(y, x, name)
    out = n.dense(n.global_pool(x), "fc", 1000)
    return g, [out], "argmax", [1, 3, 224, 224], 8


# (output channels, stride) of MobileNet-v1's 13 depthwise-separable blocks
MOBILENET_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
    [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


def mobilenet_v1(rng):
    """MobileNet-v1 shaped (width 1.0): 3x3/2 conv to 32 channels, 13 blocks of depthwise 3x3
    (groups = channels) + pointwise 1x1, each with relu, global pool, dense 1024->1000."""
    g = Graph()
    n = Cnn(g, rng)
    x = g.var("data", [1, 3, 224, 224], 8)
    x = n.conv(x, "conv0", 32, 3, 2, 1, True)            # (1, 32, 112, 112)
    for i, (c, stride) in enumerate(MOBILENET_BLOCKS, 1):
        in_c = g.shape(x)[1]
        x = n.conv(x, "block%d_dw" % i, in_c, 3, stride, 1, True, groups=in_c)
        x = n.conv(x, "block%d_pw" % i, c, 1, 1, 0, True)
    out = n.dense(n.global_pool(x), "fc", 1000)          # from (1, 1024, 7, 7)
    return g, [out], "argmax", [1, 3, 224, 224], 8


MODELS = [
    ("elementwise", elementwise, 1),
    ("broadcast", broadcast, 2),
    ("reduce", reduce, 3),
    ("nn", nn, 4),
    ("vision", vision, 5),
    ("transform", transform, 6),
    ("lenet", lenet, 7),
]

BENCH_MODELS = [
    ("resnet18", resnet18, 8),
    ("mobilenet_v1", mobilenet_v1, 9),
]

LENET_LABELS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def write_models(models, out_dir):
    """Writes each model's files; returns expected.json's content for them."""
    os.makedirs(out_dir, exist_ok=True)
    expected = {}
    for name, build, seed in models:
        rng = Rng(seed)
        g, heads, postprocess, in_shape, in_precision = build(rng)
        write(os.path.join(out_dir, name + ".json"), g.to_json(heads, postprocess))
        write(os.path.join(out_dir, name + ".params"), g.params_bytes())
        if name == "vision":
            values = VISION_INPUT
        elif name == "lenet":
            values = lenet_input()
        elif numel(in_shape) > 4096:
            values = Rng(100 + seed).int8_bytes(numel(in_shape))
        else:
            values = Rng(100 + seed).ints(numel(in_shape), -alpha(in_precision),
                                          alpha(in_precision))
        write(os.path.join(out_dir, name + "_input.npy"),
              npy_bytes(in_shape, values, in_precision <= 8))
        expected[name] = {"cost": g.cost()}
        if (name, build, seed) in BENCH_MODELS:
            expected[name].update({"macs": g.macs(),
                                   "weights": sum(numel(p[1]) for p in g.params)})
        if name == "lenet":
            output, best = lenet_reference(g, values)
            expected[name].update({"output": output, "argmax": best})
            # The same input as raw bytes: what CVMAPIInference takes (int8, row-major).
            write(os.path.join(out_dir, "lenet_input.bin"), struct.pack("<784b", *values))
    # Computed by this script alone (not by cvmrt): the cost of every model (spec section 6)
    # and LeNet's output through lenet_reference.
    write(os.path.join(out_dir, "expected.json"),
          "{\n" + ",\n".join(' "%s": %s' % (k, json.dumps(v)) for k, v in expected.items()) +
          "\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", nargs="?", help="default: examples/models")
    parser.add_argument("--bench", action="store_true",
                        help="write the ResNet-18 / MobileNet-v1 benchmark models (needs OUT_DIR)")
    args = parser.parse_args()
    if args.bench:
        if not args.out_dir:
            parser.error("--bench needs OUT_DIR (these models are not kept in examples/models)")
        write_models(BENCH_MODELS, args.out_dir)
        return
    out_dir = args.out_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    write_models(MODELS, out_dir)
    write(os.path.join(out_dir, "lenet_labels.txt"), "\n".join(LENET_LABELS) + "\n")


if __name__ == "__main__":
    main()
