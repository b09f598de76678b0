# Builds tests/models/*.json and their .case.json; expected values from a small
# independent Python reading of spec/cvm-ops.md (not from cvmrt's kernels).
import sys, os, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cvm_graph import G, case, t

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.makedirs(OUT, exist_ok=True)

def alpha(p): return (1 << (p - 1)) - 1
def clamp(v, lo, hi): return min(max(v, lo), hi)
def clipp(v, p): return clamp(v, -alpha(p), alpha(p))
def i8(v): v &= 0xFF; return v - 256 if v >= 128 else v
def prod(s):
    r = 1
    for d in s: r *= d
    return r
def tdiv(a, b):
    if b == 0: return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q
def nb(n): return n.bit_length()

def cost_of(var_sizes, ops):  # ops: list of (base, first_out_size, [out sizes])
    mem = 5 * (sum(var_sizes) + sum(sum(o[2]) for o in ops))
    opsum = sum(b * f for b, f, _ in ops)
    return {"ops": opsum, "mem": mem, "total": opsum + mem}

def interleave(heads, widths):
    rows = len(heads[0]) // widths[0]
    out = []
    for r in range(rows):
        for h, w in zip(heads, widths):
            out += h[r * w:(r + 1) * w]
    return out

# ---------------------------------------------------------------- dense (spec section 6)
for bias in (False, True):
    g = G()
    d = g.var("data", (1, 4), 8); w = g.var("w", (3, 4), 8)
    ins = [d, w]
    if bias: ins.append(g.var("b", (3,), 8))
    y = g.op("dense", "dense_0", ins, (1, 3), {"units": 3, "use_bias": "True" if bias else "False"})
    name = "dense_bias" if bias else "dense_nobias"
    g.dump([y], f"{OUT}/{name}.json")
    x = [1, 2, 3, 4]; W = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]]; B = [10, -20, 0]
    out = [sum(a * b for a, b in zip(x, W[u])) + (B[u] if bias else 0) for u in range(3)]
    params = {"w": t("int8", (3, 4), sum(W, []))}
    if bias: params["b"] = t("int8", (3,), B)
    c = {"ops": 39, "mem": 110, "total": 149} if bias else {"ops": 36, "mem": 95, "total": 131}
    case(f"{OUT}/{name}.case.json", params=params, input=t("int8", (1, 4), x), outputs=[out],
         precisions=[20 if bias else 19], cost=c,
         infer_bytes={"type_size": 4, "values": out})

# cvm_1.1.0 without node_row_ptr / arg_nodes (recomputed; the original crashed: fixed)
g = G(version="cvm_1.1.0")
d = g.var("data", (1, 4), 8); w = g.var("w", (3, 4), 8)
y = g.op("dense_3", "dense_0", [d, w], (1, 3), {"units": 3, "use_bias": "False"})
g.dump([y], f"{OUT}/dense_v110.json")
js = json.load(open(f"{OUT}/dense_v110.json"))
del js["node_row_ptr"]; del js["arg_nodes"]
from cvm_graph import dumps
open(f"{OUT}/dense_v110.json", "w").write(dumps(js) + "\n")
case(f"{OUT}/dense_v110.case.json", params={"w": t("int8", (3, 4), [1,0,0,0, 0,1,0,0, 1,1,1,1])},
     input=t("int8", (1, 4), [1, 2, 3, 4]), outputs=[[1, 2, 10]], precisions=[19],
     cost={"ops": 36, "mem": 95, "total": 131}, infer_bytes={"type_size": 4, "values": [1, 2, 10]})

# ---------------------------------------------------------------- elementwise chain
g = G()
d = g.var("data", (2, 8), 8)
relu = g.op("relu", "relu_0", [d], (2, 8))
neg = g.op("negative", "negative_0", [d], (2, 8))
ab = g.op("abs", "abs_0", [d], (2, 8))
add = g.op("elemwise_add", "add_0", [relu, neg], (2, 8))
sub = g.op("elemwise_sub", "sub_0", [ab, relu], (2, 8))          # dead output
rs = g.op("cvm_right_shift", "rshift_0", [d], (2, 8), {"precision": 4, "shift_bit": 1, "is_sign": "True"})
ls = g.op("cvm_left_shift", "lshift_0", [rs], (2, 8), {"precision": 8, "shift_bit": 2})
cl = g.op("clip", "clip_0", [d], (2, 8), {"a_min": -5, "a_max": 10})
cc = g.op("cvm_clip", "cvm_clip_0", [add], (2, 8), {"precision": 3, "is_sign": "True"})
pr = g.op("cvm_precision", "precision_0", [d], (2, 8))
g.dump([ls, cl, cc, pr], f"{OUT}/elementwise.json")
raw = [-3, -2, -1, 0, 1, 2, 3, 5, -128, 127, 100, -100, 7, -7, 64, -65]
x = [clipp(v, 8) for v in raw]
R = [max(v, 0) for v in x]; N = [-v for v in x]; A = [abs(v) for v in x]
ADD = [a + b for a, b in zip(R, N)]
RS = [clamp(((v >> 0) + 1) >> 1, -7, 7) for v in x]
LS = [clamp(v << 2, -127, 127) for v in RS]
CL = [clamp(v, -5, 10) for v in x]
CC = [clamp(v, -3, 3) for v in ADD]
PR = [max(1, abs(v).bit_length()) for v in x]
heads = [LS, CL, CC, PR]
case(f"{OUT}/elementwise.case.json", params={}, input=t("int8", (2, 8), raw), outputs=heads,
     precisions=[8, 5, 3, 6], cost=cost_of([16], [(1, 16, [16])] * 10),
     infer_bytes={"type_size": 1, "values": interleave(heads, [8] * 4)})

# ---------------------------------------------------------------- broadcast
g = G()
d = g.var("data", (2, 3), 8); w = g.var("w", (1, 3), 4); v = g.var("v", (2, 1), 8)
ops = [("broadcast_add", w), ("broadcast_sub", v), ("broadcast_mul", w), ("broadcast_max", v),
       ("broadcast_div", w), ("broadcast_greater", v)]
outs = [g.op(f, f + "_0", [d, o], (2, 3)) for f, o in ops]
g.dump(outs, f"{OUT}/broadcast.json")
X = [[7, -7, 9], [0, -100, 50]]; W = [2, -3, 0]; V = [5, -1]
fn = {"broadcast_add": lambda a, b: a + b, "broadcast_sub": lambda a, b: a - b,
      "broadcast_mul": lambda a, b: a * b, "broadcast_max": max, "broadcast_div": tdiv,
      "broadcast_greater": lambda a, b: 1 if a > b else 0}
heads = []
for f, o in ops:
    heads.append([fn[f](X[i][j], W[j] if o is w else V[i]) for i in range(2) for j in range(3)])
case(f"{OUT}/broadcast.case.json",
     params={"w": t("int8", (1, 3), W), "v": t("int32", (2, 1), V)},
     input=t("int8", (2, 3), sum(X, [])), outputs=heads, precisions=[9, 9, 12, 8, 8, 8],
     cost=cost_of([6, 3, 2], [(1, 6, [6])] * 6),
     infer_bytes={"type_size": 4, "values": interleave(heads, [3] * 6)})

# ---------------------------------------------------------------- reduce
g = G()
d = g.var("data", (2, 3, 4), 8)
s1 = g.op("sum", "sum_0", [d], (2, 4), {"axis": "(1,)"})
mall = g.op("max", "max_0", [d], (1,), {})
m2 = g.op("max", "max_1", [d], (2, 3, 1), {"axis": "(2,)", "keepdims": "True"})
sx = g.op("sum", "sum_1", [d], (3,), {"axis": "(1,)", "exclude": "True"})
g.dump([s1, mall, m2, sx], f"{OUT}/reduce.json")
X = [-(i + 1) for i in range(24)]
at = lambda b, j, k: X[b * 12 + j * 4 + k]
S1 = [sum(at(b, j, k) for j in range(3)) for b in range(2) for k in range(4)]
MALL = [max(0, max(X))]  # quirk: axis=() starts at 0
M2 = [max(at(b, j, k) for k in range(4)) for b in range(2) for j in range(3)]
SX = [sum(at(b, j, k) for b in range(2) for k in range(4)) for j in range(3)]
case(f"{OUT}/reduce.case.json", params={}, input=t("int8", (2, 3, 4), X),
     outputs=[S1, MALL, M2, SX], precisions=[8 + nb(3), 8, 8, 8 + nb(8)],
     cost=cost_of([24], [(3, 8, [8]), (1, 1, [1]), (1, 6, [6]), (8, 3, [3])]),
     infer_error="cannot be interleaved")

# ---------------------------------------------------------------- nn
g = G()
d = g.var("data", (1, 1, 4, 4), 8); w = g.var("w", (2, 1, 2, 2), 8); b = g.var("b", (2,), 8)
w2 = g.var("w2", (1, 1, 3, 3), 8)
c1 = g.op("conv2d", "conv_0", [d, w, b], (1, 2, 3, 3), {"channels": 2, "kernel_size": "(2, 2)"})
p1 = g.op("max_pool2d", "pool_0", [c1], (1, 2, 2, 2), {"pool_size": "(2, 2)"})
up = g.op("upsampling", "up_0", [p1], (1, 2, 4, 4), {"scale": 2})
c2 = g.op("conv2d", "conv_1", [d, w2], (1, 1, 2, 2),
          {"channels": 1, "kernel_size": "[3, 3]", "padding": "(1, 1)", "strides": "(2, 2)",
           "use_bias": "False"})
p2 = g.op("max_pool2d", "pool_1", [d], (1, 1, 3, 3),
          {"pool_size": "(2, 2)", "strides": "(2, 2)", "padding": "(1, 1)"})
g.dump([up, c2, p2], f"{OUT}/nn.json")
X = [[1, -2, 3, -4], [5, 6, -7, 8], [-9, 10, 11, 12], [13, -14, 15, 16]]
Wt = [[[1, 0], [0, 1]], [[-1, 1], [2, 0]]]; B = [100, -100]
W2 = [[1, 2, 1], [0, -1, 0], [2, 0, -2]]
def xat(i, j): return X[i][j] if 0 <= i < 4 and 0 <= j < 4 else None
C1 = [[[sum(Wt[o][a][c] * X[i + a][j + c] for a in range(2) for c in range(2)) + B[o]
        for j in range(3)] for i in range(3)] for o in range(2)]
P1 = [[[max(C1[o][i + a][j + c] for a in range(2) for c in range(2)) for j in range(2)]
       for i in range(2)] for o in range(2)]
UP = [P1[o][i // 2][j // 2] for o in range(2) for i in range(4) for j in range(4)]
C2 = [sum(W2[a][c] * (xat(i * 2 - 1 + a, j * 2 - 1 + c) or 0) for a in range(3) for c in range(3))
      for i in range(2) for j in range(2)]
INT_MIN = -2 ** 31
P2 = [max((xat(i * 2 - 1 + a, j * 2 - 1 + c) if xat(i * 2 - 1 + a, j * 2 - 1 + c) is not None
           else INT_MIN) for a in range(2) for c in range(2)) for i in range(3) for j in range(3)]
case(f"{OUT}/nn.case.json",
     params={"w": t("int8", (2, 1, 2, 2), [1, 0, 0, 1, -1, 1, 2, 0]), "b": t("int8", (2,), B),
             "w2": t("int8", (1, 1, 3, 3), sum(W2, []))},
     input=t("int8", (1, 1, 4, 4), sum(X, [])), outputs=[UP, C2, P2], precisions=[20, 20, 8],
     cost=cost_of([16, 8, 2, 9], [(13, 18, [18]), (4, 8, [8]), (1, 32, [32]), (27, 4, [4]),
                                  (4, 9, [9])]),
     infer_error="cannot be interleaved")

# ---------------------------------------------------------------- transform
g = G()
d = g.var("data", (2, 3), 8); idx = g.var("idx", (3,), 8); tab = g.var("table", (8,), 8)
t1 = g.op("reshape", "reshape_0", [d], (3, 2), {"shape": "(3, 2)"})
t2 = g.op("transpose", "transpose_0", [t1], (2, 3))
t3 = g.op("expand_dims", "expand_dims_0", [d], (1, 2, 3), {"axis": 0})
t4 = g.op("squeeze", "squeeze_0", [t3], (2, 3))
t5 = g.op("flatten", "flatten_0", [t3], (1, 6))
t6 = g.op("strided_slice", "slice_0", [d], (2, 2), {"begin": "(0, 2)", "end": "(2, 0)", "stride": "(1, -1)"})
t7 = g.op("concatenate", "concat_0", [d, t2], (4, 3), {"axis": 0})
t8 = g.op("repeat", "repeat_0", [d], (2, 6), {"repeats": 2, "axis": 1})
t9 = g.op("tile", "tile_0", [d], (4, 3), {"reps": "(2, 1)"})
t10 = g.op("slice_like", "slice_like_0", [t9, d], (2, 3))
t11 = g.op("take", "take_0", [d, idx], (3,))
t12 = g.op("cvm_lut", "lut_0", [d, tab], (2, 3), {"in_dim": 8})
t13 = g.op("where", "where_0", [d, t2, t12], (2, 3))
g.dump([t7, t8, t10, t11, t6, t5, t13, t4], f"{OUT}/transform.json")
X = [1, -2, 3, -4, 5, 0]
T1 = X[:]                                  # (3,2) row-major, same flat order
T2 = [T1[r * 2 + c] for c in range(2) for r in range(3)]   # (2,3) transpose of (3,2)
T6 = [X[0 * 3 + 2], X[0 * 3 + 1], X[1 * 3 + 2], X[1 * 3 + 1]]
T7 = X + T2
T8 = [X[r * 3 + c // 2] for r in range(2) for c in range(6)]
T10 = X[:]
IDX = [-5, 2, 9]
T11 = [X[clamp(i, 0, 5)] for i in IDX]
TAB = [10 + i for i in range(8)]
T12 = [TAB[clamp(v, 0, 7)] for v in X]
T13 = [T2[i] if X[i] != 0 else T12[i] for i in range(6)]
case(f"{OUT}/transform.case.json",
     params={"idx": t("int8", (3,), IDX), "table": t("int32", (8,), TAB)},
     input=t("int8", (2, 3), X), outputs=[T7, T8, T10, T11, T6, X, T13, X],
     precisions=[8] * 8, cost=cost_of([6, 3, 8], [(1, 6, [6]), (1, 6, [6]), (1, 6, [6]),
         (1, 6, [6]), (1, 6, [6]), (1, 4, [4]), (1, 12, [12]), (1, 12, [12]), (1, 12, [12]),
         (1, 6, [6]), (1, 3, [3]), (1, 6, [6]), (1, 6, [6])]),
     infer_error="cannot be interleaved")

# ---------------------------------------------------------------- vision / detection
g = G(postprocess="detection")
d = g.var("data", (1, 4, 6), 16)
vc, rows = g.op("get_valid_counts", "gvc_0", [d], [(1,), (1, 4, 6)], {"score_threshold": 0}, nout=2)
nms = g.op("non_max_suppression", "nms_0", [rows, vc], (1, 4, 6),
           {"iou_threshold": 50, "force_suppress": "False", "top_k": -1, "max_output_size": -1,
            "return_indices": "False", "invalid_to_bottom": "True"})
g.dump([nms, rows], f"{OUT}/detection.json")
R = [[0, 90, 0, 0, 10, 10], [0, 80, 1, 1, 11, 11], [1, 70, 0, 0, 10, 10], [0, -5, 2, 2, 4, 4]]
ROWS = R[0] + R[1] + R[2] + [-1] * 6
NMS = R[0] + R[2] + [-1] * 12   # r1: same id as r0, IoU 8100 // 119 = 68 >= 50
case(f"{OUT}/detection.case.json", params={}, input=t("int32", (1, 4, 6), sum(R, [])),
     outputs=[NMS, ROWS], precisions=[16, 16],
     cost=cost_of([24], [(1, 1, [1, 24]), (20, 24, [24])]),
     infer_bytes={"type_size": 4, "values": interleave([NMS, ROWS], [6, 6])})

# ---------------------------------------------------------------- argmax quirk
g = G(postprocess="argmax")
d = g.var("data", (4, 3), 16)
y = g.op("cvm_clip", "cvm_clip_0", [d], (4, 3), {"precision": 16})
g.dump([y], f"{OUT}/argmax.json")
X = [100, 200, 50, 1, -3, 2, -1, -2, -1, 5, 300, 44]
AM = []
for r in range(4):
    row = X[r * 3:r * 3 + 3]; best = 0
    for j in range(1, 3):
        if i8(row[j]) > i8(row[best]): best = j
    AM.append(best)
assert AM == [0, 2, 0, 1]
case(f"{OUT}/argmax.case.json", params={}, input=t("int32", (4, 3), X), outputs=[X],
     precisions=[16], cost=cost_of([12], [(1, 12, [12])]),
     infer_bytes={"type_size": 4, "values": AM})

# ---------------------------------------------------------------- single-head detection
g = G(postprocess="detection")
d = g.var("data", (1, 2, 3), 8)
y = g.op("relu", "relu_0", [d], (1, 2, 3))
g.dump([y], f"{OUT}/detection_single_head.json")
X = [1, -2, 3, -4, 5, -6]
case(f"{OUT}/detection_single_head.case.json", params={}, input=t("int8", (1, 2, 3), X),
     outputs=[[max(v, 0) for v in X]], precisions=[8], cost=cost_of([6], [(1, 6, [6])]),
     infer_error="more than one output")

# ---------------------------------------------------------------- small MLP (multi-op, argmax)
g = G(postprocess="argmax")
d = g.var("data", (2, 8), 8); w1 = g.var("w1", (4, 8), 8); b1 = g.var("b1", (4,), 8)
w2 = g.var("w2", (3, 4), 8)
h1 = g.op("dense", "dense_0", [d, w1, b1], (2, 4), {"units": 4})
h2 = g.op("cvm_right_shift", "shift_0", [h1], (2, 4), {"precision": 8, "shift_bit": 4})
h3 = g.op("relu", "relu_0", [h2], (2, 4))
h4 = g.op("dense", "dense_1", [h3, w2], (2, 3), {"units": 3, "use_bias": "0"})
h5 = g.op("cvm_clip", "clip_0", [h4], (2, 3), {"precision": 8})
g.dump([h5], f"{OUT}/mlp.json")
X = [[10, -20, 30, -40, 50, -60, 70, -80], [127, 0, -127, 5, 5, 5, 5, 5]]
W1 = [[(i * 7 + j * 3) % 11 - 5 for j in range(8)] for i in range(4)]
B1 = [3, -3, 100, -100]
W2 = [[1, -1, 2, 0], [0, 3, -1, 1], [-2, 1, 1, 1]]
H1 = [[sum(X[r][k] * W1[u][k] for k in range(8)) + B1[u] for u in range(4)] for r in range(2)]
H2 = [[clamp(((v >> 3) + 1) >> 1, -127, 127) for v in row] for row in H1]
H3 = [[max(v, 0) for v in row] for row in H2]
H4 = [[sum(H3[r][k] * W2[u][k] for k in range(4)) for u in range(3)] for r in range(2)]
H5 = [clamp(v, -127, 127) for row in H4 for v in row]
AM = []
for r in range(2):
    row = H5[r * 3:r * 3 + 3]; best = 0
    for j in range(1, 3):
        if i8(row[j]) > i8(row[best]): best = j
    AM.append(best)
p1 = 8 + 8 + nb(8); p1 = max(p1, 8) + 1
case(f"{OUT}/mlp.case.json",
     params={"w1": t("int8", (4, 8), sum(W1, [])), "b1": t("int8", (4,), B1),
             "w2": t("int8", (3, 4), sum(W2, []))},
     input=t("int8", (2, 8), sum(X, [])), outputs=[H5], precisions=[8],
     cost=cost_of([16, 32, 4, 12], [(25, 8, [8]), (1, 8, [8]), (1, 8, [8]), (12, 6, [6]),
                                    (1, 6, [6])]),
     infer_bytes={"type_size": 4, "values": AM})

# ---------------------------------------------------------------- in-place chain (planner)
g = G()
d = g.var("data", (4, 64), 8)
x = g.op("relu", "relu_0", [d], (4, 64))
x = g.op("abs", "abs_0", [x], (4, 64))
x = g.op("negative", "negative_0", [x], (4, 64))
x = g.op("cvm_clip", "cvm_clip_0", [x], (4, 64), {"precision": 7})
x = g.op("relu", "relu_1", [x], (4, 64))
x = g.op("cvm_right_shift", "rshift_0", [x], (4, 64), {"precision": 6, "shift_bit": 1})
x = g.op("reshape", "reshape_0", [x], (16, 16), {"shape": "(16, -1)"})
x = g.op("flatten", "flatten_0", [x], (16, 16))
x = g.op("cvm_left_shift", "lshift_0", [x], (16, 16), {"precision": 8, "shift_bit": 1})
g.dump([x], f"{OUT}/chain.json")
X = [((i * 37) % 255) - 127 for i in range(256)]
Y = [max(v, 0) for v in X]; Y = [abs(v) for v in Y]; Y = [-v for v in Y]
Y = [clamp(v, -63, 63) for v in Y]; Y = [max(v, 0) for v in Y]
Y = [clamp((v + 1) >> 1, -31, 31) for v in Y]; Y = [clamp(v << 1, -127, 127) for v in Y]
case(f"{OUT}/chain.case.json", params={}, input=t("int8", (4, 64), X), outputs=[Y],
     precisions=[8], cost=cost_of([256], [(1, 256, [256])] * 9),
     infer_bytes={"type_size": 1, "values": Y})
print("ok")
