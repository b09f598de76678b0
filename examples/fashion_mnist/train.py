# Trains a small Fashion-MNIST CNN with numpy alone and exports it as an ONNX model (fashion_cnn.onnx).
"""Train a small convolutional network on Fashion-MNIST using numpy only, then export it to ONNX.

Usage (from the repository root):

    nice -n 10 /usr/bin/python3 examples/fashion_mnist/train.py [--epochs 4] [--seed 0]
                                                              [--out examples/fashion_mnist/fashion_cnn.onnx]

Data: the Debian package ``dataset-fashion-mnist`` (files under /usr/share/datasets/fashion-mnist/,
IDX format, gzip-compressed).

Input normalisation: a pixel byte p becomes the float32 value p / 255 (so inputs lie in [0, 1]); no
mean subtraction, no standard-deviation scaling. The exported model expects exactly that.

Network (as exported, NCHW, batch fixed to 1):

    input [1,1,28,28]
      -> Conv(1->16, 3x3, pads 1) -> BatchNormalization -> Relu -> MaxPool(2x2, stride 2)
      -> Conv(16->32, 3x3, pads 1) -> BatchNormalization -> Relu -> MaxPool(2x2, stride 2)
      -> Flatten -> Gemm(1568->64, transB=1) -> Relu -> Gemm(64->10, transB=1) -> Softmax(axis=1)
      -> probs [1,10]

BatchNormalization is trained with batch statistics while exponential running averages of the mean
and the (unbiased) variance are kept (momentum 0.1 for the new batch); the export holds those running
averages as separate inference-form BatchNormalization nodes, not folded into the convolutions.

Training: Adam (lr 1e-3, halved after every epoch from the third on), mini-batches of 128, cross
entropy on the softmax, He-normal initialisation, convolutions done as im2col + matrix product. All
randomness comes from one numpy Generator seeded with --seed, and BLAS is limited to one thread, so
the run is repeatable on a given machine (a different BLAS library may round differently).
"""

import os

# One BLAS thread: keeps the run repeatable and the machine usable by others.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import gzip
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

DATA_DIR = "/usr/share/datasets/fashion-mnist"
BN_EPS = 1e-5
BN_MOMENTUM = 0.1


def read_idx(path):
    """Read a gzip-compressed IDX file into a numpy array of its stored shape."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    return data.reshape(dims)


def load_split(kind):
    """Images as float32 NHWC in [0,1] (pixel/255) and labels as int64, for kind 'train' or 't10k'."""
    images = read_idx(os.path.join(DATA_DIR, f"{kind}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(DATA_DIR, f"{kind}-labels-idx1-ubyte.gz"))
    x = (images.astype(np.float32) / np.float32(255.0))[:, :, :, None]
    return x, labels.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Layers. Activations are kept NHWC internally (fast im2col); weights are stored in ONNX layout.
# ---------------------------------------------------------------------------------------------

def im2col3x3(x):
    """x [N,H,W,C] -> columns [N*H*W, C*9] for a 3x3 kernel, stride 1, zero padding 1.

    Column order is (c, kh, kw), matching an ONNX weight [F,C,3,3] reshaped to [F, C*9]."""
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # [N,H,W,C,3,3]
    return np.ascontiguousarray(win).reshape(n * h * w, c * 9)


def col2im3x3(dcols, shape):
    """Adjoint of im2col3x3: dcols [N*H*W, C*9] -> dx [N,H,W,C]."""
    n, h, w, c = shape
    d = dcols.reshape(n, h, w, c, 3, 3)
    dxp = np.zeros((n, h + 2, w + 2, c), dtype=np.float32)
    for kh in range(3):
        for kw in range(3):
            dxp[:, kh:kh + h, kw:kw + w, :] += d[:, :, :, :, kh, kw]
    return dxp[:, 1:h + 1, 1:w + 1, :]


def conv_forward(x, wgt, bias):
    n, h, w, _ = x.shape
    f = wgt.shape[0]
    cols = im2col3x3(x)
    out = cols @ np.ascontiguousarray(wgt.reshape(f, -1).T) + bias
    return out.reshape(n, h, w, f), cols


def conv_backward(dout, cols, wgt, x_shape, need_dx):
    f = wgt.shape[0]
    d2 = dout.reshape(-1, f)
    dw = (d2.T @ cols).reshape(wgt.shape)
    db = d2.sum(axis=0)
    dx = col2im3x3(d2 @ wgt.reshape(f, -1), x_shape) if need_dx else None
    return dx, dw, db


def bn_forward_train(x, gamma, beta, state):
    """Batch-statistics BN over (N,H,W) per channel; updates the running averages in state."""
    axes = (0, 1, 2)
    count = x.shape[0] * x.shape[1] * x.shape[2]
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    inv_std = (1.0 / np.sqrt(var + BN_EPS)).astype(np.float32)
    xhat = (x - mean) * inv_std
    state["mean"] = (1 - BN_MOMENTUM) * state["mean"] + BN_MOMENTUM * mean
    state["var"] = (1 - BN_MOMENTUM) * state["var"] + BN_MOMENTUM * var * (count / (count - 1))
    return xhat * gamma + beta, (xhat, inv_std)


def bn_backward(dout, cache, gamma):
    xhat, inv_std = cache
    axes = (0, 1, 2)
    dgamma = (dout * xhat).sum(axis=axes)
    dbeta = dout.sum(axis=axes)
    dxhat = dout * gamma
    dx = inv_std * (dxhat - dxhat.mean(axis=axes) - xhat * (dxhat * xhat).mean(axis=axes))
    return dx.astype(np.float32), dgamma, dbeta


def bn_forward_eval(x, gamma, beta, state):
    inv_std = (1.0 / np.sqrt(state["var"] + BN_EPS)).astype(np.float32)
    return (x - state["mean"]) * (gamma * inv_std) + beta


def maxpool_forward(x):
    """2x2, stride 2 on NHWC (H and W even). Returns output and the argmax inside each window."""
    n, h, w, c = x.shape
    win = x.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4).reshape(n, h // 2, w // 2, c, 4)
    idx = win.argmax(axis=4)
    out = np.take_along_axis(win, idx[..., None], axis=4)[..., 0]
    return out, idx


def maxpool_backward(dout, idx, x_shape):
    n, h, w, c = x_shape
    dwin = np.zeros((n, h // 2, w // 2, c, 4), dtype=np.float32)
    np.put_along_axis(dwin, idx[..., None], dout[..., None], axis=4)
    return dwin.reshape(n, h // 2, w // 2, c, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(x_shape)


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------

def init_params(rng):
    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    p = {
        "conv1_w": he((16, 1, 3, 3), 9), "conv1_b": np.zeros(16, np.float32),
        "bn1_g": np.ones(16, np.float32), "bn1_b": np.zeros(16, np.float32),
        "conv2_w": he((32, 16, 3, 3), 144), "conv2_b": np.zeros(32, np.float32),
        "bn2_g": np.ones(32, np.float32), "bn2_b": np.zeros(32, np.float32),
        "fc1_w": he((64, 32 * 7 * 7), 32 * 7 * 7), "fc1_b": np.zeros(64, np.float32),
        "fc2_w": he((10, 64), 64), "fc2_b": np.zeros(10, np.float32),
    }
    bn = {
        "bn1": {"mean": np.zeros(16, np.float32), "var": np.ones(16, np.float32)},
        "bn2": {"mean": np.zeros(32, np.float32), "var": np.ones(32, np.float32)},
    }
    return p, bn


def forward_backward(p, bn, x, y):
    """One training step's forward and backward pass; returns (mean loss, gradients)."""
    n = x.shape[0]
    a1, cols1 = conv_forward(x, p["conv1_w"], p["conv1_b"])
    b1, bc1 = bn_forward_train(a1, p["bn1_g"], p["bn1_b"], bn["bn1"])
    r1 = np.maximum(b1, 0)
    m1, i1 = maxpool_forward(r1)

    a2, cols2 = conv_forward(m1, p["conv2_w"], p["conv2_b"])
    b2, bc2 = bn_forward_train(a2, p["bn2_g"], p["bn2_b"], bn["bn2"])
    r2 = np.maximum(b2, 0)
    m2, i2 = maxpool_forward(r2)

    flat = m2.transpose(0, 3, 1, 2).reshape(n, -1)  # ONNX Flatten order (C,H,W)
    h = flat @ np.ascontiguousarray(p["fc1_w"].T) + p["fc1_b"]
    hr = np.maximum(h, 0)
    z = hr @ p["fc2_w"].T + p["fc2_b"]
    prob = softmax(z)
    loss = -np.log(prob[np.arange(n), y] + 1e-12).mean()

    g = {}
    dz = prob.copy()
    dz[np.arange(n), y] -= 1
    dz /= n
    g["fc2_w"] = dz.T @ hr
    g["fc2_b"] = dz.sum(axis=0)
    dh = (dz @ p["fc2_w"]) * (h > 0)
    g["fc1_w"] = dh.T @ flat
    g["fc1_b"] = dh.sum(axis=0)
    dflat = dh @ p["fc1_w"]
    dm2 = dflat.reshape(n, 32, 7, 7).transpose(0, 2, 3, 1)

    dr2 = maxpool_backward(dm2, i2, r2.shape)
    db2 = dr2 * (b2 > 0)
    da2, g["bn2_g"], g["bn2_b"] = bn_backward(db2, bc2, p["bn2_g"])
    dm1, g["conv2_w"], g["conv2_b"] = conv_backward(da2, cols2, p["conv2_w"], m1.shape, True)

    dr1 = maxpool_backward(dm1, i1, r1.shape)
    db1 = dr1 * (b1 > 0)
    da1, g["bn1_g"], g["bn1_b"] = bn_backward(db1, bc1, p["bn1_g"])
    _, g["conv1_w"], g["conv1_b"] = conv_backward(da1, cols1, p["conv1_w"], x.shape, False)
    return float(loss), g


def predict_probs(p, bn, x, batch=500):
    """Inference-mode forward pass (BN with running statistics), same math as the ONNX graph."""
    outs = []
    for s in range(0, x.shape[0], batch):
        xb = x[s:s + batch]
        n = xb.shape[0]
        a1, _ = conv_forward(xb, p["conv1_w"], p["conv1_b"])
        m1, _ = maxpool_forward(np.maximum(bn_forward_eval(a1, p["bn1_g"], p["bn1_b"], bn["bn1"]), 0))
        a2, _ = conv_forward(m1, p["conv2_w"], p["conv2_b"])
        m2, _ = maxpool_forward(np.maximum(bn_forward_eval(a2, p["bn2_g"], p["bn2_b"], bn["bn2"]), 0))
        flat = m2.transpose(0, 3, 1, 2).reshape(n, -1)
        hr = np.maximum(flat @ np.ascontiguousarray(p["fc1_w"].T) + p["fc1_b"], 0)
        outs.append(softmax(hr @ p["fc2_w"].T + p["fc2_b"]))
    return np.concatenate(outs).astype(np.float32)


class Adam:
    def __init__(self, params, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        c1 = 1 - self.b1 ** self.t
        c2 = 1 - self.b2 ** self.t
        for k, gk in grads.items():
            gk = gk.astype(np.float32)
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * gk
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * gk * gk
            step = self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)
            params[k] = (params[k] - step).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# ONNX export
# ---------------------------------------------------------------------------------------------

def export_onnx(p, bn, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def init(name, arr):
        return numpy_helper.from_array(np.ascontiguousarray(arr, dtype=np.float32), name)

    inits = [
        init("conv1.weight", p["conv1_w"]), init("conv1.bias", p["conv1_b"]),
        init("bn1.scale", p["bn1_g"]), init("bn1.bias", p["bn1_b"]),
        init("bn1.mean", bn["bn1"]["mean"]), init("bn1.var", bn["bn1"]["var"]),
        init("conv2.weight", p["conv2_w"]), init("conv2.bias", p["conv2_b"]),
        init("bn2.scale", p["bn2_g"]), init("bn2.bias", p["bn2_b"]),
        init("bn2.mean", bn["bn2"]["mean"]), init("bn2.var", bn["bn2"]["var"]),
        init("fc1.weight", p["fc1_w"]), init("fc1.bias", p["fc1_b"]),
        init("fc2.weight", p["fc2_w"]), init("fc2.bias", p["fc2_b"]),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["conv1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["conv1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"],
                         ["bn1"], name="bn1", epsilon=BN_EPS),
        helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2.weight", "conv2.bias"], ["conv2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["conv2", "bn2.scale", "bn2.bias", "bn2.mean", "bn2.var"],
                         ["bn2"], name="bn2", epsilon=BN_EPS),
        helper.make_node("Relu", ["bn2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc1.weight", "fc1.bias"], ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu3"], name="relu3"),
        helper.make_node("Gemm", ["relu3", "fc2.weight", "fc2.bias"], ["logits"], name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "fashion_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 1, 28, 28])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="cvmrt-examples-fashion_mnist",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    model.doc_string = "Fashion-MNIST CNN trained with numpy; input = pixel/255 float32, NCHW [1,1,28,28]"
    onnx.checker.check_model(model)
    onnx.save(model, path)
    onnx.checker.check_model(onnx.load(path))
    return os.path.getsize(path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="train on only the first N images (0 = all; for quick checks)")
    ap.add_argument("--out", default=os.path.join(here, "fashion_cnn.onnx"))
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    x_train, y_train = load_split("train")
    x_test, y_test = load_split("t10k")
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    params, bn = init_params(rng)
    opt = Adam(params, lr=args.lr)

    t_start = time.time()
    for epoch in range(1, args.epochs + 1):
        if epoch >= 3:
            opt.lr = args.lr * 0.5 ** (epoch - 2)
        t0 = time.time()
        order = rng.permutation(x_train.shape[0])
        total, batches = 0.0, 0
        for s in range(0, len(order), args.batch):
            idx = order[s:s + args.batch]
            loss, grads = forward_backward(params, bn, x_train[idx], y_train[idx])
            opt.step(params, grads)
            total += loss
            batches += 1
        acc = float((predict_probs(params, bn, x_test).argmax(axis=1) == y_test).mean())
        print(f"epoch {epoch}: lr {opt.lr:.2e}  train loss {total / batches:.4f}  "
              f"t10k accuracy {acc * 100:.2f}%  ({time.time() - t0:.0f} s)", flush=True)

    probs = predict_probs(params, bn, x_test)
    acc = float((probs.argmax(axis=1) == y_test).mean())
    size = export_onnx(params, bn, args.out)
    print(f"done in {time.time() - t_start:.0f} s; final numpy t10k accuracy {acc * 100:.2f}% "
          f"({int(round(acc * 10000))}/10000); wrote {args.out} ({size} bytes), check_model ok")


if __name__ == "__main__":
    main()
