// CUDA float32 operators of imported float models, each output in the scalar's operation order.
//
// Every float operation is an explicit round-to-nearest intrinsic (__fadd_rn, __fmul_rn, ...),
// which the compiler never contracts into an FMA; a NaN result is written as the canonical NaN
// (backends/scalar/float_nn.cc, docs/determinism.md).
#include <cstdint>

#include "convert.h"
#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "float_math.h"
#include "nn_direct.cuh"
#include "params/float_nn.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

__device__ inline bool is_nan(float v) { return v != v; }

// The value to store: NaN becomes the canonical NaN.
__device__ inline float result(float v) { return is_nan(v) ? canonical_nan<float>() : v; }

// float32 arithmetic of conv2d and dense: sequential sums, each product and each sum rounded once.
struct SequentialFloat32 {
  using Elem = float;
  using Acc = float;
  __device__ static float mac(float acc, float a, float b) {
    return __fadd_rn(acc, __fmul_rn(a, b));
  }
  __device__ static float add(float acc, float b) { return __fadd_rn(acc, b); }
  __device__ static float store(float acc) { return result(acc); }
};

// max_pool2d (float32): padding cells take no part, strictly greater replaces, any NaN gives
// the canonical NaN.
struct MaxPoolF32 {
  __device__ void operator()(const TensorView& x, const TensorView& y,
                             const PoolWindow& win) const {
    float best = -__int_as_float(0x7F800000);  // -inf
    bool nan = false;
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        const float v = *ptr4<const float>(x, win.n, win.c, win.h0 + kh, win.w0 + kw);
        nan = nan || is_nan(v);
        if (v > best) best = v;
      }
    }
    *ptr4<float>(y, win.n, win.c, win.oh, win.ow) = nan ? canonical_nan<float>() : best;
  }
};

// Cells of [start, start + size) inside [lo, hi).
__device__ inline int64_t overlap(int64_t start, int64_t size, int64_t lo, int64_t hi) {
  const int64_t end = start + size < hi ? start + size : hi;
  const int64_t begin = start > lo ? start : lo;
  return end - begin > 0 ? end - begin : 0;
}

// avg_pool2d (float32): the sum of the cells inside the input from +0.0f, row-major, divided
// once by the cell count (AvgPool2dParams).
struct AvgPoolF32 {
  AvgPool2dParams p;
  __device__ void operator()(const TensorView& x, const TensorView& y,
                             const PoolWindow& win) const {
    const int64_t in_h = x.shape[2], in_w = x.shape[3];
    const int64_t rows = p.count_include_pad != 0
                             ? overlap(win.h0, p.pool_h, -p.pad_top, in_h + p.pad_bottom)
                             : win.kh_hi - win.kh_lo;
    const int64_t cols = p.count_include_pad != 0
                             ? overlap(win.w0, p.pool_w, -p.pad_left, in_w + p.pad_right)
                             : win.kw_hi - win.kw_lo;
    float sum = 0.0f;
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        sum = __fadd_rn(sum, *ptr4<const float>(x, win.n, win.c, win.h0 + kh, win.w0 + kw));
      }
    }
    const int64_t divisor = rows * cols;  // <= pool_h * pool_w: exact as a float
    *ptr4<float>(y, win.n, win.c, win.oh, win.ow) =
        divisor == 0 ? 0.0f : result(__fdiv_rn(sum, static_cast<float>(divisor)));
  }
};

// ---- elementwise: y[i] = op(x[i]) over same-shaped strided views (y may be x) ----

struct Relu {
  __device__ float operator()(float x) const {
    if (is_nan(x)) return canonical_nan<float>();
    return x > 0.0f ? x : 0.0f;  // relu(-0.0) = +0.0
  }
};

struct LeakyRelu {
  float alpha;
  __device__ float operator()(float x) const {
    if (is_nan(x)) return canonical_nan<float>();
    return result(x < 0.0f ? __fmul_rn(x, alpha) : x);  // -inf * 0 is NaN
  }
};

struct Clamp {
  ClampParams p;
  __device__ float operator()(float x) const {
    if (is_nan(x)) return canonical_nan<float>();
    return x < p.lo ? p.lo : (x > p.hi ? p.hi : x);
  }
};

struct Sigmoid {
  __device__ float operator()(float x) const {
    const double e = det_exp(-static_cast<double>(x));
    return result(__double2float_rn(__ddiv_rn(1.0, __dadd_rn(1.0, e))));
  }
};

template <class Op>
__global__ void map_f32_kernel(TensorView x, TensorView y, int64_t total, Op op) {
  for (int64_t i = global_thread(); i < total; i += grid_threads()) {
    const float v = element<const float>(x, i);
    element<float>(y, i) = op(v);
  }
}

template <class Op>
KernelStatus map_f32(const KernelCall& call, const Op& op, const char* name) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();
  if (total == 0) return KernelStatus::kDone;
  map_f32_kernel<Op><<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(call.inputs[0], y,
                                                                               total, op);
  return launched(name);
}

// ---- softmax: one thread per slice along `axis` ----

__global__ void softmax_kernel(TensorView x, TensorView y, int32_t axis, int64_t slices) {
  const int64_t n = x.shape[axis], xs = x.strides[axis], ys = y.strides[axis];
  const auto* xb = static_cast<const float*>(x.data);
  auto* yb = static_cast<float*>(y.data);
  for (int64_t s_i = global_thread(); s_i < slices; s_i += grid_threads()) {
    // Slice s_i: row-major over y's shape with `axis` left out.
    int64_t rest = s_i, x_off = 0, y_off = 0;
    for (int d = y.ndim - 1; d >= 0; --d) {
      if (d == axis) continue;
      const int64_t index = rest % y.shape[d];
      rest /= y.shape[d];
      x_off += index * x.strides[d];
      y_off += index * y.strides[d];
    }
    const float* xp = xb + x_off;
    float* yp = yb + y_off;
    float m = -__int_as_float(0x7F800000);  // -inf
    bool nan = false;
    for (int64_t i = 0; i < n && !nan; ++i) {
      const float v = xp[i * xs];
      nan = is_nan(v);
      if (v > m) m = v;
    }
    if (nan) {
      for (int64_t i = 0; i < n; ++i) yp[i * ys] = canonical_nan<float>();
      continue;
    }
    const double md = m;
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      s = __dadd_rn(s, det_exp(__dsub_rn(static_cast<double>(xp[i * xs]), md)));
    }
    for (int64_t i = 0; i < n; ++i) {
      const double e = det_exp(__dsub_rn(static_cast<double>(xp[i * xs]), md));
      yp[i * ys] = result(__double2float_rn(__ddiv_rn(e, s)));
    }
  }
}

}  // namespace

KernelStatus conv2d_f32(const KernelCall& call) {
  return conv2d_direct<SequentialFloat32>(call, nullptr, "conv2d_f32");
}

KernelStatus dense_f32(const KernelCall& call) {
  return dense_direct<SequentialFloat32>(call, nullptr, "dense_f32");
}

KernelStatus max_pool2d_f32(const KernelCall& call) {
  return pool2d(call, *static_cast<const MaxPool2dParams*>(call.params), MaxPoolF32{},
                "max_pool2d_f32");
}

KernelStatus avg_pool2d_f32(const KernelCall& call) {
  const AvgPool2dParams p = *static_cast<const AvgPool2dParams*>(call.params);
  const MaxPool2dParams window{p.pool_h, p.pool_w, p.stride_h, p.stride_w, p.pad_top, p.pad_left};
  return pool2d(call, window, AvgPoolF32{p}, "avg_pool2d_f32");
}

KernelStatus relu_f32(const KernelCall& call) { return map_f32(call, Relu{}, "relu_f32"); }

KernelStatus leaky_relu_f32(const KernelCall& call) {
  const float alpha = static_cast<const LeakyReluParams*>(call.params)->alpha;
  return map_f32(call, LeakyRelu{alpha}, "leaky_relu_f32");
}

KernelStatus clamp_f32(const KernelCall& call) {
  return map_f32(call, Clamp{*static_cast<const ClampParams*>(call.params)}, "clamp_f32");
}

KernelStatus sigmoid_f32(const KernelCall& call) { return map_f32(call, Sigmoid{}, "sigmoid_f32"); }

KernelStatus softmax_f32(const KernelCall& call) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();
  if (total == 0) return KernelStatus::kDone;
  const int32_t axis = static_cast<const SoftmaxParams*>(call.params)->axis;
  const int64_t slices = total / y.shape[axis];
  softmax_kernel<<<blocks_for(slices), kBlockThreads, 0, stream_of(call)>>>(call.inputs[0], y, axis,
                                                                           slices);
  return launched("softmax_f32");
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
