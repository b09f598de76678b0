# Writes the small ONNX test models (one per importer case) and the malformed/unsupported ones.
"""Generate tiny opset-13 ONNX models that exercise every operator form the cvmrt ONNX importer handles.

    /usr/bin/python3 tests/onnx/make_models.py [--out tests/onnx/models] [--bad tests/onnx/bad]

Run it with Debian's python3 (it needs numpy and python3-onnx).

Every good model has one float32 input "x" of a fixed shape (batch 1) and one float32 output "y";
its weights are float32 drawn from a numpy Generator seeded from the model's name (so adding a case
never changes the others). Each model passes onnx.checker.check_model. The output shape is declared
from ONNX shape inference.

Into the --bad folder the script also writes malformed or unsupported models, each NAME.onnx with a
NAME.expect file holding a fragment the importer's error message should contain.

Reference outputs come from tests/onnx/ort_reference.mjs (ONNX Runtime), not from this script.
"""

import argparse
import os
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 7
HERE = os.path.dirname(os.path.abspath(__file__))

CASES = []  # (name, builder) in registration order


def case(fn):
    CASES.append((fn.__name__, fn))
    return fn


class Builder:
    """Collects nodes and initializers for one model; weights come from a per-model generator."""

    def __init__(self, name):
        self.name = name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes = []
        self.inits = []
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"{stem}{self.count}"

    def const(self, arr, stem="w"):
        name = self.fresh(stem)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def weight(self, shape, scale=0.5, stem="w"):
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32), stem)

    def positive(self, shape, lo=0.5, hi=1.5, stem="v"):
        return self.const(self.rng.uniform(lo, hi, shape).astype(np.float32), stem)

    def op(self, op_type, inputs, out=None, **attrs):
        out = out or self.fresh(op_type.lower() + "_")
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=self.fresh("n"), **attrs))
        return out

    def conv(self, x, cin, cout, k, bias=True, group=1, **attrs):
        kh, kw = (k, k) if isinstance(k, int) else k
        w = self.weight((cout, cin // group, kh, kw), scale=1.0 / np.sqrt(cin // group * kh * kw))
        ins = [x, w] + ([self.weight((cout,), 0.1, "b")] if bias else [])
        return self.op("Conv", ins, kernel_shape=[kh, kw], group=group, **attrs)

    def bn(self, x, c):
        return self.op("BatchNormalization",
                       [x, self.positive((c,), stem="scale"), self.weight((c,), 0.2, "bias"),
                        self.weight((c,), 0.3, "mean"), self.positive((c,), 0.3, 2.0, "var")],
                       epsilon=1e-5)

    def model(self, input_shape, y, input_type=TensorProto.FLOAT):
        # Rename the last tensor to "y".
        for node in self.nodes:
            node.input[:] = ["y" if i == y else i for i in node.input]
            node.output[:] = ["y" if o == y else o for o in node.output]
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", input_type, input_shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            initializer=self.inits)
        m = helper.make_model(graph, producer_name="cvmrt-tests-onnx",
                              opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = IR_VERSION
        inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
        out_type = inferred.graph.output[0].type
        m.graph.output[0].type.CopyFrom(out_type)
        return m


# ---------------------------------------------------------------------------------------------
# Conv
# ---------------------------------------------------------------------------------------------

@case
def conv_bias(b):
    return b.model([1, 3, 8, 8], b.conv("x", 3, 4, 3, pads=[1, 1, 1, 1]))


@case
def conv_nobias(b):
    return b.model([1, 3, 8, 8], b.conv("x", 3, 5, 3, bias=False))


@case
def conv_group2(b):
    return b.model([1, 4, 7, 9], b.conv("x", 4, 6, 3, group=2, pads=[1, 1, 1, 1]))


@case
def conv_depthwise(b):
    return b.model([1, 4, 8, 8], b.conv("x", 4, 4, 3, group=4, pads=[1, 1, 1, 1]))


@case
def conv_depthwise_mult2(b):
    # Depthwise with channel multiplier 2: 4 groups of 1 input and 2 output channels.
    return b.model([1, 4, 7, 9], b.conv("x", 4, 8, 3, group=4, bias=False))


@case
def conv_stride2(b):
    return b.model([1, 3, 9, 9], b.conv("x", 3, 4, 3, strides=[2, 2], pads=[1, 1, 1, 1]))


@case
def conv_dilation2(b):
    return b.model([1, 3, 9, 9], b.conv("x", 3, 4, 3, dilations=[2, 2], pads=[2, 2, 2, 2]))


@case
def conv_pads_asym(b):
    # pads = [top, left, bottom, right] = [0, 0, 1, 1]
    return b.model([1, 3, 8, 8], b.conv("x", 3, 4, 3, pads=[0, 0, 1, 1]))


@case
def conv_same_upper_s2(b):
    # H: 8 -> 4, total pad 1 (0 before, 1 after); W: 9 -> 5, total pad 2 (1, 1).
    return b.model([1, 3, 8, 9], b.conv("x", 3, 4, 3, strides=[2, 2], auto_pad="SAME_UPPER"))


@case
def conv_same_lower(b):
    # Kernel 2x4: H total pad 1 (1 before, 0 after), W total pad 3 (2 before, 1 after).
    return b.model([1, 3, 8, 8], b.conv("x", 3, 4, (2, 4), auto_pad="SAME_LOWER"))


@case
def conv_valid(b):
    return b.model([1, 3, 9, 8], b.conv("x", 3, 4, 3, strides=[2, 2], auto_pad="VALID"))


@case
def conv_1x1(b):
    return b.model([1, 6, 5, 7], b.conv("x", 6, 3, 1))


@case
def conv_bn(b):
    return b.model([1, 3, 8, 8], b.bn(b.conv("x", 3, 6, 3, pads=[1, 1, 1, 1]), 6))


@case
def conv_nobias_bn_relu(b):
    return b.model([1, 4, 7, 9], b.op("Relu", [b.bn(b.conv("x", 4, 6, 3, bias=False, group=2), 6)]))


# ---------------------------------------------------------------------------------------------
# Gemm / MatMul
# ---------------------------------------------------------------------------------------------

@case
def gemm_transb(b):
    return b.model([1, 16], b.op("Gemm", ["x", b.weight((8, 16), 0.25), b.weight((8,), 0.1)], transB=1))


@case
def gemm_transb0_noc(b):
    return b.model([1, 16], b.op("Gemm", ["x", b.weight((16, 8), 0.25)]))


@case
def gemm_transa(b):
    # transA=1: the input is A stored as [K, M] = [16, 1].
    return b.model([16, 1], b.op("Gemm", ["x", b.weight((8, 16), 0.25), b.weight((8,), 0.1)],
                                 transA=1, transB=1))


@case
def gemm_alpha_beta(b):
    # C is a 2-D row vector [1, 8].
    return b.model([1, 16], b.op("Gemm", ["x", b.weight((8, 16), 0.25), b.weight((1, 8), 0.5)],
                                 transB=1, alpha=0.5, beta=2.0))


@case
def gemm_c_scalar(b):
    # C of shape [1] broadcast over the whole [1, 8] result.
    return b.model([1, 16], b.op("Gemm", ["x", b.weight((16, 8), 0.25), b.weight((1,), 0.5)]))


@case
def matmul_const(b):
    return b.model([1, 16], b.op("MatMul", ["x", b.weight((16, 8), 0.25)]))


@case
def matmul_add(b):
    # MatMul + Add of a bias vector: the form many exporters use instead of Gemm.
    return b.model([1, 12], b.op("Add", [b.op("MatMul", ["x", b.weight((12, 10), 0.3)]), b.weight((10,), 0.1)]))


# ---------------------------------------------------------------------------------------------
# Elementwise binary ops
# ---------------------------------------------------------------------------------------------

def _binary_const(b, op):
    if op == "Div":
        c = b.rng.uniform(0.5, 2.0, (4, 1, 1)) * b.rng.choice([-1.0, 1.0], (4, 1, 1))
        cname = b.const(c.astype(np.float32), "c")
    else:
        cname = b.weight((4, 1, 1), 1.0, "c")
    return b.model([1, 4, 5, 6], b.op(op, ["x", cname]))


@case
def add_const_c11(b):
    return _binary_const(b, "Add")


@case
def sub_const_c11(b):
    return _binary_const(b, "Sub")


@case
def mul_const_c11(b):
    return _binary_const(b, "Mul")


@case
def div_const_c11(b):
    return _binary_const(b, "Div")


@case
def sub_const_first(b):
    # The constant is the left operand: y = c - x.
    return b.model([1, 4, 5, 6], b.op("Sub", [b.weight((4, 1, 1), 1.0, "c"), "x"]))


@case
def mul_scalar_const(b):
    return b.model([1, 3, 4, 5], b.op("Mul", ["x", b.const(np.array(1.5, np.float32), "s")]))


@case
def add_branches(b):
    return b.model([1, 3, 6, 6], b.op("Add", [b.op("Relu", ["x"]), "x"]))


@case
def sub_branches(b):
    return b.model([1, 3, 6, 6], b.op("Sub", ["x", b.op("Relu", ["x"])]))


@case
def mul_branches(b):
    return b.model([1, 3, 6, 6], b.op("Mul", ["x", b.op("Sigmoid", ["x"])]))


@case
def div_branches(b):
    return b.model([1, 3, 6, 6], b.op("Div", ["x", b.op("Sigmoid", ["x"])]))


@case
def mul_branches_broadcast(b):
    # Squeeze-excite shape: x [1,4,5,6] times sigmoid(global average) [1,4,1,1].
    return b.model([1, 4, 5, 6], b.op("Mul", ["x", b.op("Sigmoid", [b.op("GlobalAveragePool", ["x"])])]))


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------

@case
def relu(b):
    return b.model([1, 3, 5, 7], b.op("Relu", ["x"]))


@case
def clip_min_max(b):
    lo = b.const(np.array(-0.5, np.float32), "min")
    hi = b.const(np.array(1.0, np.float32), "max")
    return b.model([1, 3, 5, 7], b.op("Clip", ["x", lo, hi]))


@case
def clip_max_only(b):
    return b.model([1, 3, 5, 7], b.op("Clip", ["x", "", b.const(np.array(0.75, np.float32), "max")]))


@case
def clip_relu6(b):
    lo = b.const(np.array(0.0, np.float32), "min")
    hi = b.const(np.array(6.0, np.float32), "max")
    x3 = b.op("Mul", ["x", b.const(np.array(4.0, np.float32), "s")])
    return b.model([1, 3, 5, 7], b.op("Clip", [x3, lo, hi]))


@case
def leakyrelu(b):
    return b.model([1, 3, 5, 7], b.op("LeakyRelu", ["x"], alpha=0.1))


@case
def sigmoid(b):
    return b.model([1, 3, 5, 7], b.op("Sigmoid", ["x"]))


@case
def batchnorm(b):
    return b.model([1, 4, 5, 6], b.bn("x", 4))


# ---------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------

@case
def maxpool_2x2(b):
    return b.model([1, 3, 8, 8], b.op("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2]))


@case
def maxpool_pads_s2(b):
    return b.model([1, 3, 8, 8], b.op("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))


@case
def maxpool_ceil(b):
    # 7x9, kernel 2 stride 2, ceil_mode: 4x5 (floor would give 3x4).
    return b.model([1, 3, 7, 9], b.op("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1))


@case
def avgpool_pads_exclude(b):
    return b.model([1, 3, 7, 7], b.op("AveragePool", ["x"], kernel_shape=[3, 3], strides=[1, 1],
                                       pads=[1, 1, 1, 1], count_include_pad=0))


@case
def avgpool_pads_include(b):
    return b.model([1, 3, 7, 7], b.op("AveragePool", ["x"], kernel_shape=[3, 3], strides=[2, 2],
                                       pads=[1, 1, 1, 1], count_include_pad=1))


@case
def avgpool_ceil(b):
    # 8x8, kernel 3 stride 2, ceil_mode: 4x4 (floor gives 3x3); the last window is cut by the edge.
    return b.model([1, 3, 8, 8], b.op("AveragePool", ["x"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1))


@case
def avgpool_2x2(b):
    return b.model([1, 3, 8, 6], b.op("AveragePool", ["x"], kernel_shape=[2, 2], strides=[2, 2]))


@case
def globalavgpool(b):
    return b.model([1, 5, 6, 7], b.op("GlobalAveragePool", ["x"]))


# ---------------------------------------------------------------------------------------------
# Shape and data movement
# ---------------------------------------------------------------------------------------------

@case
def concat_axis1(b):
    return b.model([1, 3, 5, 6], b.op("Concat", ["x", b.op("Sigmoid", ["x"])], axis=1))


@case
def concat_const(b):
    return b.model([1, 3, 5, 6], b.op("Concat", [b.weight((1, 2, 5, 6), 1.0, "c"), "x", b.op("Relu", ["x"])], axis=1))


@case
def reshape(b):
    # [1,4,6,6] -> shape [0, -1, 6] = [1, 24, 6]
    return b.model([1, 4, 6, 6], b.op("Reshape", ["x", b.const(np.array([0, -1, 6], np.int64), "shape")]))


@case
def reshape_then_gemm(b):
    r = b.op("Reshape", ["x", b.const(np.array([0, -1], np.int64), "shape")])
    return b.model([1, 2, 3, 4], b.op("Gemm", [r, b.weight((5, 24), 0.3), b.weight((5,), 0.1)], transB=1))


@case
def flatten(b):
    return b.model([1, 3, 4, 5], b.op("Flatten", ["x"], axis=1))


@case
def transpose_nhwc(b):
    return b.model([1, 3, 4, 5], b.op("Transpose", ["x"], perm=[0, 2, 3, 1]))


@case
def squeeze(b):
    return b.model([1, 3, 1, 5], b.op("Squeeze", ["x", b.const(np.array([2], np.int64), "axes")]))


@case
def unsqueeze(b):
    return b.model([1, 3, 5], b.op("Unsqueeze", ["x", b.const(np.array([2], np.int64), "axes")]))


@case
def pad_constant(b):
    # pads = [n0, c0, h0, w0, n1, c1, h1, w1]
    pads = b.const(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "pads")
    value = b.const(np.array(0.5, np.float32), "value")
    return b.model([1, 3, 5, 5], b.op("Pad", ["x", pads, value], mode="constant"))


@case
def pad_then_conv(b):
    pads = b.const(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads")
    p = b.op("Pad", ["x", pads], mode="constant")
    return b.model([1, 3, 6, 6], b.conv(p, 3, 4, 3))


# ---------------------------------------------------------------------------------------------
# Constants and folding
# ---------------------------------------------------------------------------------------------

@case
def constantofshape_add(b):
    shape = b.const(np.array([1, 3, 4, 4], np.int64), "shape")
    value = numpy_helper.from_array(np.array([1.5], np.float32), "value")
    filled = b.op("ConstantOfShape", [shape], value=value)
    return b.model([1, 3, 4, 4], b.op("Add", ["x", filled]))


@case
def constant_node(b):
    value = numpy_helper.from_array(b.rng.standard_normal((3, 1, 1)).astype(np.float32), "cval")
    c = b.op("Constant", [], value=value)
    return b.model([1, 3, 4, 4], b.op("Mul", ["x", c]))


@case
def identity(b):
    return b.model([1, 3, 4, 4], b.op("Relu", [b.op("Identity", ["x"])]))


@case
def softmax_lastaxis(b):
    return b.model([1, 3, 7], b.op("Softmax", ["x"], axis=-1))


@case
def softmax_2d(b):
    return b.model([1, 10], b.op("Softmax", [b.op("Gemm", ["x", b.weight((10, 10), 0.5)], transB=1)], axis=-1))


@case
def const_fold(b):
    # Constant -> Mul by 2 -> Add to the input; the Mul has only constant inputs and must be folded.
    value = numpy_helper.from_array(b.rng.standard_normal((3, 1, 1)).astype(np.float32), "cval")
    c = b.op("Constant", [], value=value)
    c2 = b.op("Mul", [c, b.const(np.array(2.0, np.float32), "two")])
    return b.model([1, 3, 5, 5], b.op("Add", ["x", c2]))


@case
def const_fold_chain(b):
    # A longer constant subgraph: (w + 1) * 0.5 reshaped to [4,1,1], then multiplied into the input.
    w = b.weight((4,), 1.0, "c")
    t = b.op("Add", [w, b.const(np.array(1.0, np.float32), "one")])
    t = b.op("Mul", [t, b.const(np.array(0.5, np.float32), "half")])
    t = b.op("Reshape", [t, b.const(np.array([4, 1, 1], np.int64), "shape")])
    return b.model([1, 4, 3, 5], b.op("Mul", ["x", t]))


# ---------------------------------------------------------------------------------------------
# All together
# ---------------------------------------------------------------------------------------------

@case
def small_cnn(b):
    t = b.op("Relu", [b.bn(b.conv("x", 3, 8, 3, pads=[1, 1, 1, 1]), 8)])          # [1,8,12,12]
    t = b.op("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2])                    # [1,8,6,6]
    d = b.conv(t, 8, 8, 3, group=8, pads=[1, 1, 1, 1])                               # depthwise
    d = b.op("Clip", [d, b.const(np.array(0.0, np.float32), "min"), b.const(np.array(6.0, np.float32), "max")])
    p = b.op("LeakyRelu", [b.conv(d, 8, 8, 1)], alpha=0.1)                           # pointwise
    t = b.op("Add", [t, p])                                                          # residual
    t = b.op("Concat", [t, b.op("Sigmoid", [b.conv(t, 8, 4, 1)])], axis=1)          # [1,12,6,6]
    t = b.op("AveragePool", [t], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
             count_include_pad=0)                                                    # [1,12,3,3]
    t = b.op("Flatten", [t], axis=1)                                                 # [1,108]
    t = b.op("Relu", [b.op("Gemm", [t, b.weight((16, 108), 0.2), b.weight((16,), 0.1)], transB=1)])
    t = b.op("Gemm", [t, b.weight((10, 16), 0.4), b.weight((10,), 0.1)], transB=1)
    return b.model([1, 3, 12, 12], b.op("Softmax", [t], axis=1))


# ---------------------------------------------------------------------------------------------
# Malformed and unsupported models
# ---------------------------------------------------------------------------------------------

def write_bad(out_dir, good_models):
    os.makedirs(out_dir, exist_ok=True)
    written = []

    def save(name, model, expect):
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, name + ".onnx"))
        write_expect(name, expect)

    def write_expect(name, expect):
        with open(os.path.join(out_dir, name + ".expect"), "w") as f:
            f.write(expect + "\n")
        written.append(name)

    def simple(name, nodes, in_type, in_shape, out_shape, inits=()):
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", in_type, in_shape)],
                                  [helper.make_tensor_value_info("y", in_type, out_shape)], initializer=list(inits))
        m = helper.make_model(graph, producer_name="cvmrt-tests-onnx", opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = IR_VERSION
        return m

    rng = np.random.default_rng(7)
    save("unsupported_einsum",
         simple("unsupported_einsum",
                [helper.make_node("Einsum", ["x", "w"], ["y"], equation="ij,jk->ik")],
                TensorProto.FLOAT, [1, 4], [1, 3],
                [numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "w")]),
         "Einsum")
    save("float64_input",
         simple("float64_input", [helper.make_node("Relu", ["x"], ["y"])], TensorProto.DOUBLE, [1, 3, 4, 4], [1, 3, 4, 4]),
         "float64")
    save("dynamic_dim",
         simple("dynamic_dim", [helper.make_node("Relu", ["x"], ["y"])], TensorProto.FLOAT, [1, 3, "H", 8], [1, 3, "H", 8]),
         "dynamic")
    save("conv1d",
         simple("conv1d", [helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3])],
                TensorProto.FLOAT, [1, 3, 8], [1, 4, 6],
                [numpy_helper.from_array(rng.standard_normal((4, 3, 3)).astype(np.float32), "w")]),
         "Conv")

    # Half of a valid model's bytes: the cut falls inside an initializer, so protobuf parsing fails.
    whole = good_models["small_cnn"].SerializeToString()
    cut = whole[:len(whole) // 2]
    try:
        onnx.load_model_from_string(cut)
        raise SystemExit("truncated model unexpectedly parsed")
    except SystemExit:
        raise
    except Exception:
        pass
    with open(os.path.join(out_dir, "truncated.onnx"), "wb") as f:
        f.write(cut)
    write_expect("truncated", "parse")

    # Random bytes that are not a protobuf message (checked to be rejected by onnx.load). The first
    # byte is forced to 0x0f (field 1 with wire type 7, which does not exist) so that every protobuf
    # parser rejects it at once.
    garbage = b"\x0f" + rng.integers(0, 256, 511, dtype=np.uint8).tobytes()
    try:
        onnx.load_model_from_string(garbage)
        raise SystemExit("garbage bytes unexpectedly parsed")
    except SystemExit:
        raise
    except Exception:
        pass
    with open(os.path.join(out_dir, "garbage.onnx"), "wb") as f:
        f.write(garbage)
    write_expect("garbage", "parse")
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "models"))
    ap.add_argument("--bad", default=os.path.join(HERE, "bad"),
                    help="folder for the malformed/unsupported models (default tests/onnx/bad; '' to skip)")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    models = {}
    for name, fn in CASES:
        m = fn(Builder(name))
        onnx.checker.check_model(m, full_check=True)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(m, path)
        models[name] = m
        shape = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        oshape = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
        size = os.path.getsize(path)
        if size > 20 * 1024:
            raise SystemExit(f"{name}: {size} bytes, over the 20 KB budget")
        print(f"{name:24s} x{shape} -> y{oshape}  {size} bytes")
    if args.bad:
        for name in write_bad(args.bad, models):
            print(f"bad: {name}")


if __name__ == "__main__":
    main()
